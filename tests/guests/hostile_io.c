/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hostile_io: random port I/O and MMIO at the devices pmuvm emulates and at
 * addresses nothing claims, then a triple fault.  pmuvm must survive it
 * (tests/system/test_hostile.c) and keep answering as documented
 * (docs/machine.md, "Devices"):
 *
 *   1. fw_cfg (0x510/0x511): random selectors, random-width reads and
 *      ignored data-port writes; afterwards the signature still reads
 *      "QEMU".
 *   2. Ports nobody claims, including accesses that run past 0xffff:
 *      writes ignored, reads all ones.
 *   3. MMIO between the end of RAM and the IOAPIC: random widths, and
 *      REP MOVSB/STOSB through it; reads all ones.
 *
 * The UART is left alone: a random LCR would turn the console off.
 */
#include "hostile_common.h"

#define FW_CFG_SEL	0x510
#define FW_CFG_DATA	0x511
#define ROUNDS		200
#define MMIO_TOP	0xfe000000ull	/* below the IOAPIC/LAPIC pages */

/* Not claimed by pmuvm or by KVM's in-kernel devices. */
static const uint16_t free_ports[] = {
	0x72, 0x80, 0x402, 0x512, 0x51b, 0xcf8, 0xcfc, 0x1000, 0xfffd, 0xffff,
};

static uint32_t port_in(uint16_t port, unsigned int size)
{
	switch (size) {
	case 1:		return inb(port);
	case 2:		return inw(port);
	default:	return inl(port);
	}
}

static void port_out(uint16_t port, unsigned int size, uint32_t v)
{
	switch (size) {
	case 1:		outb(port, (uint8_t)v); break;
	case 2:		outw(port, (uint16_t)v); break;
	default:	outl(port, v); break;
	}
}

static unsigned int random_size(void)
{
	return 1u << (xorshift64() % 3);
}

static void fw_cfg_chaos(void)
{
	char sig[5] = { 0 };
	unsigned int i, n;

	for (i = 0; i < ROUNDS; i++) {
		outw(FW_CFG_SEL, (uint16_t)(xorshift64() & (i & 1 ? 0xffff : 0x1f)));
		for (n = xorshift64() % 24; n; n--)
			port_in(FW_CFG_DATA, random_size());
		if (!(i % 16))
			port_out(FW_CFG_DATA, random_size(), (uint32_t)hostile_value());
		/* A selector-port read and a wide access that spans both ports. */
		port_in(FW_CFG_SEL, random_size());
	}
	outw(FW_CFG_SEL, 0);
	for (i = 0; i < 4; i++)
		sig[i] = (char)inb(FW_CFG_DATA);
	GUEST_ASSERT(!strcmp(sig, "QEMU"));
	printf("hostile_io: fw_cfg survived %u rounds\n", ROUNDS);
}

static void free_port_chaos(void)
{
	unsigned int i;

	for (i = 0; i < ROUNDS; i++) {
		uint16_t port = free_ports[xorshift64() % (sizeof(free_ports) / sizeof(free_ports[0]))];
		unsigned int size = random_size();

		port_out(port, size, (uint32_t)hostile_value());
		if (port < 0xfffd)
			GUEST_ASSERT_EQ(port_in(port, size), size == 4 ? 0xffffffffu :
					size == 2 ? 0xffffu : 0xffu);
		else
			port_in(port, size);
	}
	printf("hostile_io: unclaimed ports survived %u rounds\n", ROUNDS);
}

static uint64_t ram_end(void)
{
	const struct rt_mbi *m = rt_mbi();
	uint64_t end = 0;
	unsigned int i;

	for (i = 0; i < m->nr_mmap; i++)
		if (m->mmap[i].type == MBI_MMAP_RAM && m->mmap[i].addr < MMIO_TOP &&
		    m->mmap[i].addr + m->mmap[i].len > end)
			end = m->mmap[i].addr + m->mmap[i].len;
	return end;
}

static void mmio_chaos(void)
{
	uint64_t lo = (ram_end() + 0xfff) & ~0xfffull, span;
	static uint8_t buf[64];
	unsigned int i;

	if (lo >= MMIO_TOP) {
		printf("hostile_io: no MMIO hole below 0x%llx\n", MMIO_TOP);
		return;
	}
	span = MMIO_TOP - lo;
	for (i = 0; i < ROUNDS; i++) {
		volatile uint8_t *p = (volatile uint8_t *)(uintptr_t)(lo + xorshift64() % (span - 8));
		uint64_t v = hostile_value();

		switch (xorshift64() & 3) {
		case 0:
			*p = (uint8_t)v;
			GUEST_ASSERT_EQ(*p, 0xff);
			break;
		case 1:
			*(volatile uint16_t *)p = (uint16_t)v;
			GUEST_ASSERT_EQ(*(volatile uint16_t *)p, 0xffff);
			break;
		case 2:
			*(volatile uint32_t *)p = (uint32_t)v;
			GUEST_ASSERT_EQ(*(volatile uint32_t *)p, 0xffffffffu);
			break;
		default:
			*(volatile uint64_t *)p = v;
			GUEST_ASSERT_EQ(*(volatile uint64_t *)p, ~0ull);
			break;
		}
	}
	/* String moves through MMIO, as a careless memcpy would do. */
	{
		void *src = (void *)(uintptr_t)lo, *dst = buf;
		size_t n = sizeof(buf);

		asm volatile("rep movsb" : "+S"(src), "+D"(dst), "+c"(n) : : "memory");
		for (i = 0; i < sizeof(buf); i++)
			GUEST_ASSERT_EQ(buf[i], 0xff);
		dst = (void *)(uintptr_t)(lo + 0x1000);
		n = sizeof(buf);
		asm volatile("rep stosb" : "+D"(dst), "+c"(n) : "a"(0x5a) : "memory");
	}
	printf("hostile_io: MMIO 0x%llx-0x%llx survived %u rounds\n", (unsigned long long)lo,
	       MMIO_TOP, ROUNDS);
}

int main(void)
{
	printf("hostile_io: seed=0x%llx\n", (unsigned long long)hostile_seed());
	fw_cfg_chaos();
	free_port_chaos();
	mmio_chaos();
	printf("hostile_io: triple fault now\n");
	hostile_triple_fault();
}
