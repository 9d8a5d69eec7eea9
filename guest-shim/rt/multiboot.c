/* SPDX-License-Identifier: MIT */
/*
 * Copy the multiboot information (spec 3.3) into struct rt_mbi at start-up.
 * Only fields whose flag bit is set are valid; the others stay zero.
 */
#include <stdbool.h>
#include <stdint.h>
#include <rt/multiboot.h>
#include <rt/string.h>

static struct rt_mbi mbi;

const struct rt_mbi *rt_mbi(void)
{
	return &mbi;
}

void mbi_parse(uint32_t mbi_addr)
{
	const struct multiboot_info *mb = (const void *)(uintptr_t)mbi_addr;

	mbi.flags = mb->flags;
	if (mb->flags & MBI_FLAG_MEM) {
		mbi.mem_lower = mb->mem_lower;
		mbi.mem_upper = mb->mem_upper;
	}
	if ((mb->flags & MBI_FLAG_CMDLINE) && mb->cmdline) {
		const char *s = (const char *)(uintptr_t)mb->cmdline;
		size_t n = strnlen(s, RT_MBI_CMDLINE_MAX - 1);

		memcpy(mbi.cmdline, s, n);
		mbi.cmdline[n] = '\0';
	}
	if (mb->flags & MBI_FLAG_MMAP) {
		uintptr_t p = mb->mmap_addr, end = p + mb->mmap_length;

		/* Entries are variable-sized: step by size + 4 (spec 3.3). */
		while (p < end && mbi.nr_mmap < RT_MBI_MAX_MMAP) {
			const struct multiboot_mmap_entry *e = (const void *)p;

			mbi.mmap[mbi.nr_mmap++] = (struct rt_mmap){
				e->addr, e->len, e->type };
			p += e->size + sizeof(e->size);
		}
	}
	if (mb->flags & MBI_FLAG_MODS) {
		const struct multiboot_mod *m = (const void *)(uintptr_t)mb->mods_addr;

		for (uint32_t i = 0; i < mb->mods_count && i < RT_MBI_MAX_MODS; i++) {
			mbi.modules[i] = (struct rt_module){
				m[i].mod_start, m[i].mod_end,
				m[i].string ? (const char *)(uintptr_t)m[i].string : "",
			};
			mbi.nr_modules++;
		}
	}
}

uint64_t mbi_ram_total(void)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < mbi.nr_mmap; i++)
		if (mbi.mmap[i].type == MBI_MMAP_RAM)
			sum += mbi.mmap[i].len;
	return sum;
}

const char *mbi_arg(const char *key)
{
	size_t klen = strlen(key);
	const char *p = mbi.cmdline;

	while (*p) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, key, klen)) {
			if (p[klen] == '=')
				return p + klen + 1;
			if (p[klen] == ' ' || p[klen] == '\0')
				return p + klen;
		}
		while (*p && *p != ' ')
			p++;
	}
	return NULL;
}

bool mbi_arg_u64(const char *key, uint64_t *val)
{
	const char *v = mbi_arg(key);
	char *end;

	if (!v || !*v || *v == ' ')
		return false;
	*val = strtoull(v, &end, 0);
	return end != v && (*end == ' ' || *end == '\0');
}
