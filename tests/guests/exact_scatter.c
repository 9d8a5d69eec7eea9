/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * exact_scatter: code on pages that follow each other in linear address
 * but not in guest RAM, as a process's pages are under Linux. SCATTER_PAGES
 * 4 KiB pages of RAM are mapped in reverse order at SCATTER_LA (a PML4 entry
 * of its own, with its own tables); each holds INC RAX and a JMP to the
 * next page, the last INC RAX and RET; it is called with instructions
 * counted at OS. The count and RAX must be exact. There are more pages
 * than the emulator maps regions: the system test checks under both
 * engines, and that the emulator ran it all, which it can only as one
 * mirrored region (exact/emulate.c). With "gap=1" on the command line an
 * unmapped page follows each (as a kernel's stacks have guard pages): as
 * many regions as pages, which the emulator maps as they are reached.
 * With "sparse=1" 1 GiB above the code holds FILLER_PAGES more mappings,
 * an unmapped page after each: more runs than the emulator's walk takes,
 * so it walks the pages one by one as they are reached.
 * With "late=1" the last page is mapped by the counted code itself, just
 * before the call, without INVLPG (a not-present entry is never cached,
 * SDM vol. 3A 4.10.4.3): the JMP into it is the one whose next fetch finds
 * no mapping in the emulator, and must count all the same.
 * With "clean=1" the code pages' entries have their accessed and dirty
 * flags cleared before the call, and the counted store goes through a
 * clean alias of the page table's page: afterwards each code page's entry
 * must be accessed and the alias's accessed and dirty, as a CPU leaves
 * them (SDM vol. 3A 4.8), whichever engine ran the code. (A code page may
 * come out dirty too: kvm_pvm's CPL0 emulation sets the flag on fetches.)
 */
#include "pmu_common.h"

#define SCATTER_PAGES	300
#define SCATTER_LA	0x8000000000ULL		/* PML4 entry 1 */
#define PAGE		4096u
/* Present, writable, accessed and dirty, as Linux maps its kernel (SDM vol. 3A 4.8). */
#define PTE_KERNEL	0x63ULL
#define PTE_A		0x20ULL
#define PTE_D		0x40ULL
#define FILLER_PAGES	9000
#define FILLER_PTS	((2 * FILLER_PAGES + 511) / 512)

static uint8_t code[SCATTER_PAGES][PAGE] __attribute__((aligned(4096)));
static uint64_t pdpt[512] __attribute__((aligned(4096)));
static uint64_t pd[512] __attribute__((aligned(4096)));
static uint64_t filler_pd[512] __attribute__((aligned(4096)));
static uint64_t filler_pt[FILLER_PTS * 512] __attribute__((aligned(4096)));
static uint64_t pt[2 * 512] __attribute__((aligned(4096)));	/* two page tables */

static uint64_t read_cr3(void)
{
	uint64_t v;

	asm volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

int main(void)
{
	struct pmu_cfg cfg = pmu_cfg_read();
	uint64_t *pml4 = (uint64_t *)(uintptr_t)(read_cr3() & ~0xfffULL);
	uint8_t *la = (uint8_t *)(uintptr_t)SCATTER_LA;
	uint64_t (*fn)(void) = (uint64_t (*)(void))(uintptr_t)SCATTER_LA;
	uint64_t rax, insns, gap = 0, late = 0, sparse = 0, clean = 0, step, *last_pte, pte;
	uint64_t *alias_pte = NULL, *store;

	GUEST_ASSERT(cfg.version >= 2 && pmu_fixed_exists(&cfg, 0));
	GUEST_ASSERT(!(pml4[1] & 1));
	mbi_arg_u64("gap", &gap);
	mbi_arg_u64("late", &late);
	mbi_arg_u64("sparse", &sparse);
	mbi_arg_u64("clean", &clean);
	step = gap ? 2 : 1;
	/* Page i of the code is page SCATTER_PAGES - 1 - i of `code`, at linear page i * step. */
	for (unsigned int i = 0; i < SCATTER_PAGES; i++)
		pt[i * step] = (uint64_t)(uintptr_t)code[SCATTER_PAGES - 1 - i] | PTE_KERNEL;
	pd[0] = (uint64_t)(uintptr_t)pt | PTE_KERNEL;
	pd[1] = (uint64_t)(uintptr_t)&pt[512] | PTE_KERNEL;
	pdpt[0] = (uint64_t)(uintptr_t)pd | PTE_KERNEL;
	if (sparse) {
		for (unsigned int i = 0; i < FILLER_PAGES; i++)
			filler_pt[2 * i] = (uint64_t)(uintptr_t)code[0] | PTE_KERNEL;
		for (unsigned int i = 0; i < FILLER_PTS; i++)
			filler_pd[i] = (uint64_t)(uintptr_t)&filler_pt[512 * i] | PTE_KERNEL;
		pdpt[1] = (uint64_t)(uintptr_t)filler_pd | PTE_KERNEL;
	}
	pml4[1] = (uint64_t)(uintptr_t)pdpt | PTE_KERNEL;
	asm volatile("mov %0, %%cr3" : : "r"(read_cr3()) : "memory");

	for (unsigned int i = 0; i < SCATTER_PAGES; i++) {
		uint8_t *p = la + i * step * PAGE;
		uint32_t rel = step * PAGE - 8;	/* from the JMP's end to the next page */

		p[0] = 0x48;		/* inc rax */
		p[1] = 0xff;
		p[2] = 0xc0;
		p[3] = i + 1 < SCATTER_PAGES ? 0xe9 : 0xc3;	/* jmp rel32, or ret */
		for (unsigned int b = 0; b < 4; b++)
			p[4 + b] = (uint8_t)(rel >> (8 * b));
	}
	/* The counted code writes the last page's entry: the same value, or (late) present anew. */
	last_pte = &pt[(SCATTER_PAGES - 1) * step];
	pte = *last_pte;
	store = last_pte;
	if (late)
		*last_pte = 0;
	if (clean) {
		uintptr_t page = (uintptr_t)last_pte & ~(uintptr_t)(PAGE - 1);
		uint64_t alias = (SCATTER_PAGES * step + 1) * PAGE;

		for (unsigned int i = 0; i < SCATTER_PAGES; i++)
			pt[i * step] &= ~(PTE_A | PTE_D);
		alias_pte = &pt[SCATTER_PAGES * step + 1];
		*alias_pte = page | (PTE_KERNEL & ~(PTE_A | PTE_D));
		store = (uint64_t *)(uintptr_t)(SCATTER_LA + alias + ((uintptr_t)last_pte - page));
	}
	asm volatile("mov %0, %%cr3" : : "r"(read_cr3()) : "memory");

	wrmsr(MSR_IA32_FIXED_CTR0, 0);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(0));
	asm volatile("xorl %%eax, %%eax\n\t"
		     "movl $0x38f, %%ecx\n\t"
		     "movl $1, %%edx\n\t"
		     "wrmsr\n\t"			/* not counted */
		     "movq %3, (%2)\n\t"
		     "xorl %%eax, %%eax\n\t"
		     "call *%1\n\t"
		     "movq %%rax, %%rsi\n\t"
		     "movl $0x38f, %%ecx\n\t"
		     "xorl %%eax, %%eax\n\t"
		     "xorl %%edx, %%edx\n\t"
		     "wrmsr\n\t"			/* counted */
		     : "=&S"(rax) : "r"(fn), "r"(store), "r"(pte) : "rax", "rcx", "rdx", "cc",
		       "memory");
	insns = rdmsr(MSR_IA32_FIXED_CTR0);
	for (unsigned int i = 0; clean && i < SCATTER_PAGES; i++)
		GUEST_ASSERT_EQ(pt[i * step] & PTE_A, PTE_A);
	if (clean)
		GUEST_ASSERT_EQ(*alias_pte & (PTE_A | PTE_D), PTE_A | PTE_D);
	printf("exact_scatter: insns=%llu rax=%llu (want %u, %u)\n", (unsigned long long)insns,
	       (unsigned long long)rax, 3 + 2 * SCATTER_PAGES + 5, SCATTER_PAGES);
	GUEST_ASSERT_EQ(rax, SCATTER_PAGES);
	/* MOV, XOR, CALL, an INC and a JMP or RET a page, MOV, MOV, XOR, XOR, WRMSR. */
	GUEST_ASSERT_EQ(insns, 3 + 2 * SCATTER_PAGES + 5);
	return 0;
}
