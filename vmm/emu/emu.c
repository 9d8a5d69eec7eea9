/* SPDX-License-Identifier: GPL-2.0-only */
/* The Unicorn wrapper (emu.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <unicorn/unicorn.h>

#include "emu/emu.h"
#include "x86/x86.h"

/* Never a RIP (not canonical): uc_emu_start() runs until a hook stops it. */
#define EMU_NO_END	0x8000000000000000ULL

struct emu {
	uc_engine *uc;
	uc_hook code_hook, intr_hook, mem_hook;
	struct va_run *mapped;		/* what emu_map() mapped, to unmap it */
	unsigned int nr_mapped;
	const struct emu_ops *ops;
	void *opaque;
	bool faulted;
	bool fault_mem;			/* ...on an access at fault_la */
	uint64_t fault_la;
	uint64_t rip;
};

static void emu_code(uc_engine *uc, uint64_t addr, uint32_t size, void *user)
{
	struct emu *e = user;

	(void)size;
	if (!e->ops->insn(e->opaque, addr))
		uc_emu_stop(uc);
}

/* An exception raised inside the emulator: the instruction is left to KVM, which raises it. */
static void emu_intr(uc_engine *uc, uint32_t intno, void *user)
{
	struct emu *e = user;

	(void)intno;
	e->faulted = true;
	uc_emu_stop(uc);
}

/* An access outside the runs, or against their rights: the instruction is left to KVM. */
static bool emu_mem_fault(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value,
			  void *user)
{
	struct emu *e = user;

	(void)uc, (void)type, (void)size, (void)value;
	e->fault_mem = true;
	e->fault_la = addr;
	return false;
}

int emu_open(struct emu **out)
{
	struct emu *e = calloc(1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	if (uc_open(UC_ARCH_X86, UC_MODE_64, &e->uc) != UC_ERR_OK) {
		free(e);
		return -ENODEV;
	}
	if (uc_hook_add(e->uc, &e->code_hook, UC_HOOK_CODE, (void *)emu_code, e, 1, 0) ||
	    uc_hook_add(e->uc, &e->intr_hook, UC_HOOK_INTR, (void *)emu_intr, e, 1, 0) ||
	    uc_hook_add(e->uc, &e->mem_hook, UC_HOOK_MEM_UNMAPPED | UC_HOOK_MEM_PROT,
			(void *)emu_mem_fault, e, 1, 0)) {
		uc_close(e->uc);
		free(e);
		return -ENODEV;
	}
	*out = e;
	return 0;
}

void emu_close(struct emu *e)
{
	if (!e)
		return;
	uc_close(e->uc);
	free(e->mapped);
	free(e);
}

void emu_flush_code(struct emu *e, uint64_t la, uint64_t len)
{
	uc_ctl_remove_cache(e->uc, la, la + len);
}

/* Whether `r` is among `runs` (sorted by linear address), the same in every field. */
static bool emu_run_in(const struct va_run *r, const struct va_run *runs, unsigned int n)
{
	unsigned int lo = 0, hi = n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (runs[mid].la < r->la)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && runs[lo].la == r->la && runs[lo].len == r->len &&
	       runs[lo].host == r->host && runs[lo].prot == r->prot;
}

/*
 * Only the runs that changed are unmapped and mapped: Unicorn's cost grows
 * with the size of what it unmaps and with the number of regions, and a
 * guest's page tables mostly stay.
 */
int emu_map(struct emu *e, const struct va_run *runs, unsigned int n)
{
	struct va_run *keep = malloc((n ? n : 1) * sizeof(*keep));
	unsigned int nr_keep = 0;
	int changed = 0, err = 0;

	if (!keep)
		return -ENOMEM;
	for (unsigned int i = 0; i < e->nr_mapped; i++) {
		if (emu_run_in(&e->mapped[i], runs, n))
			continue;
		/* Unmapping keeps the run's translations: they would run on for other code there. */
		emu_flush_code(e, e->mapped[i].la, e->mapped[i].len);
		uc_mem_unmap(e->uc, e->mapped[i].la, e->mapped[i].len);
		changed++;
	}
	for (unsigned int i = 0; i < n; i++) {
		uint32_t perms = ((runs[i].prot & VA_READ) ? UC_PROT_READ : 0) |
				 ((runs[i].prot & VA_WRITE) ? UC_PROT_WRITE : 0) |
				 ((runs[i].prot & VA_EXEC) ? UC_PROT_EXEC : 0);

		if (!emu_run_in(&runs[i], e->mapped, e->nr_mapped)) {
			if (err || uc_mem_map_ptr(e->uc, runs[i].la, runs[i].len, perms,
						  runs[i].host) != UC_ERR_OK) {
				err = -ENOSPC;
				continue;
			}
			changed++;
		}
		keep[nr_keep++] = runs[i];
	}
	free(e->mapped);
	e->mapped = keep;
	e->nr_mapped = nr_keep;
	return err ? err : changed;
}

/* struct kvm_regs in its order, as Unicorn names them. */
static const int emu_gprs[] = {
	UC_X86_REG_RAX, UC_X86_REG_RBX, UC_X86_REG_RCX, UC_X86_REG_RDX,
	UC_X86_REG_RSI, UC_X86_REG_RDI, UC_X86_REG_RSP, UC_X86_REG_RBP,
	UC_X86_REG_R8, UC_X86_REG_R9, UC_X86_REG_R10, UC_X86_REG_R11,
	UC_X86_REG_R12, UC_X86_REG_R13, UC_X86_REG_R14, UC_X86_REG_R15,
	UC_X86_REG_RIP, UC_X86_REG_RFLAGS,
};
#define EMU_NR_REGS	(sizeof(emu_gprs) / sizeof(emu_gprs[0]))

_Static_assert(sizeof(struct kvm_regs) == EMU_NR_REGS * sizeof(uint64_t),
	       "struct kvm_regs: 16 GPRs, RIP, RFLAGS");

int emu_set_state(struct emu *e, const struct kvm_regs *r, uint64_t fs_base, uint64_t gs_base)
{
	uint64_t v[EMU_NR_REGS];
	void *p[EMU_NR_REGS];

	memcpy(v, r, sizeof(v));
	v[EMU_NR_REGS - 1] &= ~X86_RFLAGS_TF;
	for (unsigned int i = 0; i < EMU_NR_REGS; i++)
		p[i] = &v[i];
	if (uc_reg_write_batch(e->uc, (int *)emu_gprs, p, EMU_NR_REGS) != UC_ERR_OK ||
	    uc_reg_write(e->uc, UC_X86_REG_FS_BASE, &fs_base) != UC_ERR_OK ||
	    uc_reg_write(e->uc, UC_X86_REG_GS_BASE, &gs_base) != UC_ERR_OK)
		return -EINVAL;
	e->rip = r->rip;
	return 0;
}

int emu_get_state(struct emu *e, struct kvm_regs *r)
{
	uint64_t v[EMU_NR_REGS];
	void *p[EMU_NR_REGS];

	for (unsigned int i = 0; i < EMU_NR_REGS; i++)
		p[i] = &v[i];
	if (uc_reg_read_batch(e->uc, (int *)emu_gprs, p, EMU_NR_REGS) != UC_ERR_OK)
		return -EINVAL;
	memcpy(r, v, sizeof(v));
	return 0;
}

/* Offsets in the FXSAVE legacy region (SDM vol. 1 Table 10-2). */
#define FX_FCW		0
#define FX_FSW		2
#define FX_FTW		4
#define FX_MXCSR	24
#define FX_ST0		32	/* ST(i) at FX_ST0 + 16 * i: 80 bits */
#define FX_XMM0		160	/* XMM(i) at FX_XMM0 + 16 * i */
#define FX_FSW_TOP(fsw)	(((fsw) >> 11) & 7)

/*
 * Unicorn names the x87 registers by their physical number (FP0-7), the
 * image by stack position: ST(i) is physical register (TOP + i) mod 8. The
 * image's tag is one bit per physical register (1: valid), Unicorn's two
 * (11: empty).
 */
int emu_set_fpu(struct emu *e, const uint8_t *fx)
{
	uint16_t fcw, fsw, tag = 0;
	uint32_t mxcsr;
	unsigned int top;
	bool ok = true;

	memcpy(&fcw, fx + FX_FCW, 2);
	memcpy(&fsw, fx + FX_FSW, 2);
	memcpy(&mxcsr, fx + FX_MXCSR, 4);
	top = FX_FSW_TOP(fsw);
	for (unsigned int i = 0; i < 8; i++) {
		uint8_t v[16];

		memcpy(v, fx + FX_ST0 + 16 * i, 10);
		ok = ok && uc_reg_write(e->uc, UC_X86_REG_FP0 + (int)((top + i) & 7), v) == UC_ERR_OK;
		if (!(fx[FX_FTW] & (1u << i)))
			tag |= 3u << (2 * i);
	}
	for (unsigned int i = 0; i < 16; i++)
		ok = ok && uc_reg_write(e->uc, UC_X86_REG_XMM0 + (int)i,
					fx + FX_XMM0 + 16 * i) == UC_ERR_OK;
	ok = ok && uc_reg_write(e->uc, UC_X86_REG_FPCW, &fcw) == UC_ERR_OK &&
	     uc_reg_write(e->uc, UC_X86_REG_FPSW, &fsw) == UC_ERR_OK &&
	     uc_reg_write(e->uc, UC_X86_REG_FPTAG, &tag) == UC_ERR_OK &&
	     uc_reg_write(e->uc, UC_X86_REG_MXCSR, &mxcsr) == UC_ERR_OK;
	return ok ? 0 : -EINVAL;
}

int emu_get_fpu(struct emu *e, uint8_t *fx)
{
	uint16_t fcw, fsw, tag;
	uint32_t mxcsr;
	unsigned int top;
	uint8_t ftw = 0;

	if (uc_reg_read(e->uc, UC_X86_REG_FPCW, &fcw) != UC_ERR_OK ||
	    uc_reg_read(e->uc, UC_X86_REG_FPSW, &fsw) != UC_ERR_OK ||
	    uc_reg_read(e->uc, UC_X86_REG_FPTAG, &tag) != UC_ERR_OK ||
	    uc_reg_read(e->uc, UC_X86_REG_MXCSR, &mxcsr) != UC_ERR_OK)
		return -EINVAL;
	top = FX_FSW_TOP(fsw);
	for (unsigned int i = 0; i < 8; i++) {
		uint8_t v[16] = { 0 };

		if (uc_reg_read(e->uc, UC_X86_REG_FP0 + (int)((top + i) & 7), v) != UC_ERR_OK)
			return -EINVAL;
		memcpy(fx + FX_ST0 + 16 * i, v, 10);
		memset(fx + FX_ST0 + 16 * i + 10, 0, 6);
		if (((tag >> (2 * i)) & 3) != 3)
			ftw |= 1u << i;
	}
	for (unsigned int i = 0; i < 16; i++)
		if (uc_reg_read(e->uc, UC_X86_REG_XMM0 + (int)i, fx + FX_XMM0 + 16 * i) != UC_ERR_OK)
			return -EINVAL;
	memcpy(fx + FX_FCW, &fcw, 2);
	memcpy(fx + FX_FSW, &fsw, 2);
	fx[FX_FTW] = ftw;
	memcpy(fx + FX_MXCSR, &mxcsr, 4);
	return 0;
}

enum emu_end emu_run(struct emu *e, const struct emu_ops *ops, void *opaque)
{
	uc_err err;

	e->ops = ops;
	e->opaque = opaque;
	e->faulted = false;
	e->fault_mem = false;
	err = uc_emu_start(e->uc, e->rip, EMU_NO_END, 0, 0);
	uc_reg_read(e->uc, UC_X86_REG_RIP, &e->rip);
	return err != UC_ERR_OK || e->faulted ? EMU_END_FAULT : EMU_END_STOPPED;
}

bool emu_fault_addr(const struct emu *e, uint64_t *la)
{
	*la = e->fault_la;
	return e->fault_mem;
}

uint64_t emu_rip(const struct emu *e)
{
	return e->rip;
}
