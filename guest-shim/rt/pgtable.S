/* SPDX-License-Identifier: MIT */
/*
 * Boot page tables, built by the assembler instead of at run time because
 * guest CPL0 code is emulated instruction by instruction on kvm_pvm hosts
 * (docs/counting.md, "kvm_pvm"): a loop of 2048 stores would be slow there,
 * .rept costs nothing.
 *
 * One PML4 entry -> one PDPT with 4 entries -> 4 page directories of 512
 * 2 MiB pages each: an identity map of [0, 4 GiB) (SDM 4.5, figure 4-9).
 * The last GiB holds the MMIO hole (LAPIC 0xfee00000, IOAPIC, BIOS), so it
 * is mapped uncached (PCD|PWT -> UC with the default PAT, SDM 11.12.3).
 * Every level has U/S set so that CPL3 code (rt/usermode.h) can use the
 * same identity map.  The APs' trampoline reuses these tables.
 */
#include <rt/x86_defs.h>

	.section .data.pgtable, "aw"
	.balign 4096
	.globl	boot_pml4
boot_pml4:
	.quad	boot_pdpt + (PTE_P | PTE_W | PTE_U)
	.fill	511, 8, 0

	.balign 4096
boot_pdpt:
	.quad	boot_pd + 0x0000 + (PTE_P | PTE_W | PTE_U)
	.quad	boot_pd + 0x1000 + (PTE_P | PTE_W | PTE_U)
	.quad	boot_pd + 0x2000 + (PTE_P | PTE_W | PTE_U)
	.quad	boot_pd + 0x3000 + (PTE_P | PTE_W | PTE_U)
	.fill	508, 8, 0

	.balign 4096
boot_pd:
	.set	addr, 0
	.rept	512 * 3
	.quad	addr + (PTE_P | PTE_W | PTE_U | PTE_PS)
	.set	addr, addr + 0x200000
	.endr
	.rept	512
	.quad	addr + (PTE_P | PTE_W | PTE_U | PTE_PS | PTE_PCD | PTE_PWT)
	.set	addr, addr + 0x200000
	.endr
