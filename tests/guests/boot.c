/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * boot: the runtime comes up, the multiboot information and fw_cfg are
 * readable.  Prints them for the host side to compare with what it passed.
 */
#include <rt.h>

int main(void)
{
	const struct rt_mbi *mb = rt_mbi();
	char sig[5] = { 0 };

	puts("hello from pmuvm guest");
	GUEST_ASSERT(mb->flags & MBI_FLAG_MEM);
	printf("mbi: mem_lower=%u mem_upper=%u\n", mb->mem_lower, mb->mem_upper);
	printf("mbi: mmap ram_total=%llu\n", (unsigned long long)mbi_ram_total());
	printf("mbi: cmdline=%s\n", mb->cmdline);
	printf("mbi: modules=%u\n", mb->nr_modules);
	for (unsigned int i = 0; i < mb->nr_modules; i++) {
		const struct rt_module *m = &mb->modules[i];
		const uint8_t *b = (const uint8_t *)(uintptr_t)m->start;
		uint64_t size = m->end - m->start;
		uint8_t first[4] = { 0 };

		memcpy(first, b, size < 4 ? size : 4);
		printf("mbi: module %u size=%u first_bytes=%02x%02x%02x%02x\n",
		       i, (unsigned int)size, first[0], first[1], first[2], first[3]);
	}

	fwcfg_read(FW_CFG_SIGNATURE, sig, 4);
	GUEST_ASSERT(fwcfg_present());
	printf("fwcfg: signature=%s cpus=%u ram=%llu\n", sig,
	       fwcfg_read_u16(FW_CFG_NB_CPUS),
	       (unsigned long long)fwcfg_read_u64(FW_CFG_RAM_SIZE));
	GUEST_ASSERT_EQ(rt_nr_cpus(), fwcfg_read_u16(FW_CFG_NB_CPUS));
	return 0;
}
