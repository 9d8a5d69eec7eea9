/* SPDX-License-Identifier: MIT */
/*
 * rt_start(): the BSP's C entry from boot.S.  Order matters: per-CPU data
 * first (the console lock reads the CPU id), then the console and the IDT so
 * that anything after can report failures, then the multiboot check.
 */
#include <stdint.h>
#include <rt.h>
#include <rt/ucall.h>
#include "internal.h"

void rt_start(uint32_t magic, uint32_t mbi_addr)
{
	int ret;

	smp_init_bsp();
	serial_init();
	idt_init();
	idt_load();
	pic_disable();
	if (magic != MULTIBOOT_BOOTLOADER_MAGIC) {
		printf("FAIL: bad multiboot magic 0x%x (want 0x%x)\n",
		       magic, MULTIBOOT_BOOTLOADER_MAGIC);
		rt_exit(RT_EXIT_BAD_BOOT);
	}
	mbi_parse(mbi_addr);
	if (mbi_arg("apic=xapic"))
		apic_prefer_xapic(true);
	apic_init();
	smp_probe();

	ret = main();
	ucall_done(ret);
	if (ret) {
		printf("FAIL: main returned %d\n", ret);
		rt_exit(RT_EXIT_FAIL);
	}
	puts("PASS");
	rt_exit(RT_EXIT_PASS);
}
