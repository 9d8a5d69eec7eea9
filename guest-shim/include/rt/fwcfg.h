/* SPDX-License-Identifier: MIT */
/*
 * QEMU fw_cfg, legacy I/O interface (QEMU docs/specs/fw_cfg.rst): write the
 * 16-bit selector to port 0x510, then read the item byte by byte from 0x511.
 * Integers are little-endian.
 */
#ifndef RT_FWCFG_H
#define RT_FWCFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FW_CFG_PORT_SEL		0x510
#define FW_CFG_PORT_DATA	0x511

#define FW_CFG_SIGNATURE	0x0000	/* "QEMU" */
#define FW_CFG_ID		0x0001
#define FW_CFG_RAM_SIZE		0x0003	/* u64 */
#define FW_CFG_NB_CPUS		0x0005	/* u16 */
#define FW_CFG_MAX_CPUS		0x000f	/* u16 */

void fwcfg_read(uint16_t key, void *buf, size_t len);
bool fwcfg_present(void);	/* signature reads "QEMU" */
uint16_t fwcfg_read_u16(uint16_t key);
uint32_t fwcfg_read_u32(uint16_t key);
uint64_t fwcfg_read_u64(uint16_t key);

#endif
