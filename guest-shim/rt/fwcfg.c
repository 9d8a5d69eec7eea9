/* SPDX-License-Identifier: MIT */
/*
 * fw_cfg over the legacy I/O ports (QEMU docs/specs/fw_cfg.rst).  Every
 * byte is one VM exit, which is fine for the handful of items we read.
 */
#include <stdbool.h>
#include <stdint.h>
#include <rt/fwcfg.h>
#include <rt/string.h>
#include <rt/x86.h>

void fwcfg_read(uint16_t key, void *buf, size_t len)
{
	uint8_t *p = buf;

	outw(FW_CFG_PORT_SEL, key);
	while (len--)
		*p++ = inb(FW_CFG_PORT_DATA);
}

bool fwcfg_present(void)
{
	char sig[4];

	fwcfg_read(FW_CFG_SIGNATURE, sig, sizeof(sig));
	return !memcmp(sig, "QEMU", 4);
}

/* Items are little-endian, and so are we. */
uint16_t fwcfg_read_u16(uint16_t key)
{
	uint16_t v;

	fwcfg_read(key, &v, sizeof(v));
	return v;
}

uint32_t fwcfg_read_u32(uint16_t key)
{
	uint32_t v;

	fwcfg_read(key, &v, sizeof(v));
	return v;
}

uint64_t fwcfg_read_u64(uint16_t key)
{
	uint64_t v;

	fwcfg_read(key, &v, sizeof(v));
	return v;
}
