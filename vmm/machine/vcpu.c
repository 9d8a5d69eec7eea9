/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "boot/linux.h"
#include "boot/multiboot.h"
#include "exitcode.h"
#include "kvm/kvm.h"
#include "log.h"
#include "machine/cpuid.h"
#include "machine/vm.h"
#include "mem/pagewalk.h"

const char *const vcpu_exit_kind_names[VCPU_EXIT_NR] = {
	[VCPU_EXIT_IO] = "io",
	[VCPU_EXIT_MMIO] = "mmio",
	[VCPU_EXIT_MSR_READ] = "msr_read",
	[VCPU_EXIT_MSR_WRITE] = "msr_write",
	[VCPU_EXIT_HLT] = "hlt",
	[VCPU_EXIT_INTR] = "intr",
	[VCPU_EXIT_DEBUG] = "debug",
	[VCPU_EXIT_SHUTDOWN] = "shutdown",
	[VCPU_EXIT_SYSTEM_EVENT] = "system_event",
	[VCPU_EXIT_INTERNAL_ERROR] = "internal_error",
	[VCPU_EXIT_OTHER] = "other",
};

/*
 * Multiboot 1 machine state (multiboot spec 3.2): 32-bit flat protected mode,
 * paging off, CS a 4 GiB execute/read segment, data segments 4 GiB read/write,
 * EAX = magic, EBX = information structure, interrupts off.
 */
static int vcpu_setup_multiboot_entry(struct vcpu *vcpu)
{
	const struct multiboot_boot *boot = vcpu->vm->boot;
	struct kvm_segment code = {
		.base = 0, .limit = 0xffffffff, .selector = 0x08, .type = 0xb,
		.present = 1, .dpl = 0, .db = 1, .s = 1, .l = 0, .g = 1,
	};
	struct kvm_segment data = code;
	struct kvm_sregs sregs;
	struct kvm_regs regs;

	data.selector = 0x10;
	data.type = 0x3;
	if (ioctl(vcpu->fd, KVM_GET_SREGS, &sregs) < 0) {
		pr_err("KVM_GET_SREGS: %s", strerror(errno));
		return PMUVM_EXIT_KVM_ERROR;
	}
	sregs.cs = code;
	sregs.ds = sregs.es = sregs.fs = sregs.gs = sregs.ss = data;
	sregs.cr0 = 0x11;	/* PE | ET */
	sregs.cr4 = 0;
	sregs.efer = 0;
	if (ioctl(vcpu->fd, KVM_SET_SREGS, &sregs) < 0) {
		pr_err("KVM_SET_SREGS: %s", strerror(errno));
		return PMUVM_EXIT_KVM_ERROR;
	}
	memset(&regs, 0, sizeof(regs));
	regs.rflags = 0x2;
	regs.rip = boot->entry;
	regs.rax = MULTIBOOT_BOOTLOADER_MAGIC;
	regs.rbx = boot->info_gpa;
	if (ioctl(vcpu->fd, KVM_SET_REGS, &regs) < 0) {
		pr_err("KVM_SET_REGS: %s", strerror(errno));
		return PMUVM_EXIT_KVM_ERROR;
	}
	return 0;
}

/* The board's features, each asked whether it runs on this vCPU. */
static int vcpu_init_features(struct vcpu *vcpu)
{
	const struct board *b = vcpu->vm->board;
	size_t i;
	int r;

	for (i = 0; i < b->nr_features; i++) {
		const struct vcpu_feature *f = b->features[i];

		r = f->vcpu_init ? f->vcpu_init(vcpu) : 0;
		if (r == VCPU_FEATURE_OFF)
			continue;
		if (r)
			return r;
		vcpu->features[vcpu->nr_features++] = f;
		if (f->before_run)
			vcpu->before_run[vcpu->nr_before_run++] = f->before_run;
		if (f->after_run)
			vcpu->after_run[vcpu->nr_after_run++] = f->after_run;
		if (f->msr)
			vcpu->msr[vcpu->nr_msr++] = f->msr;
	}
	return 0;
}

/*
 * The Linux boot protocol's 64-bit entry (boot.rst, "64-bit Boot Protocol"):
 * long mode with paging on an identity map, CS = __BOOT_CS (64-bit code),
 * the data segments __BOOT_DS, RSI = the zero page, interrupts off.
 */
static int vcpu_setup_linux_entry(struct vcpu *vcpu)
{
	const struct linux_boot *lb = vcpu->vm->linux_boot;
	struct kvm_segment code = {
		.base = 0, .limit = 0xffffffff, .selector = lb->code_sel, .type = 0xb,
		.present = 1, .dpl = 0, .db = 0, .s = 1, .l = 1, .g = 1,
	};
	struct kvm_segment data = code;
	struct kvm_sregs sregs;
	struct kvm_regs regs;

	data.selector = lb->data_sel;
	data.type = 0x3;
	data.l = 0;
	data.db = 1;
	if (ioctl(vcpu->fd, KVM_GET_SREGS, &sregs) < 0) {
		pr_err("KVM_GET_SREGS: %s", strerror(errno));
		return PMUVM_EXIT_KVM_ERROR;
	}
	sregs.cs = code;
	sregs.ds = sregs.es = sregs.fs = sregs.gs = sregs.ss = data;
	sregs.gdt.base = lb->gdt;
	sregs.gdt.limit = (uint16_t)lb->gdt_limit;
	sregs.cr3 = lb->cr3;
	sregs.cr4 = 1ULL << 5;			/* PAE */
	sregs.cr0 = 0x80000011;			/* PG | ET | PE */
	sregs.efer = (1ULL << 8) | (1ULL << 10);	/* LME | LMA */
	if (ioctl(vcpu->fd, KVM_SET_SREGS, &sregs) < 0) {
		pr_err("KVM_SET_SREGS: %s", strerror(errno));
		return PMUVM_EXIT_KVM_ERROR;
	}
	memset(&regs, 0, sizeof(regs));
	regs.rflags = 0x2;
	regs.rip = lb->entry;
	regs.rsi = lb->boot_params;
	if (ioctl(vcpu->fd, KVM_SET_REGS, &regs) < 0) {
		pr_err("KVM_SET_REGS: %s", strerror(errno));
		return PMUVM_EXIT_KVM_ERROR;
	}
	return 0;
}

int vcpu_create(struct vm *vm, struct vcpu *vcpu, int id)
{
	int mmap_size, r;
	long khz;

	vcpu->vm = vm;
	vcpu->id = id;
	vcpu->fd = ioctl(vm->vm_fd, KVM_CREATE_VCPU, id);
	if (vcpu->fd < 0) {
		pr_err("KVM_CREATE_VCPU %d: %s", id, strerror(errno));
		return PMUVM_EXIT_NO_KVM;
	}
	mmap_size = ioctl(vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (mmap_size < (int)sizeof(struct kvm_run)) {
		pr_err("KVM_GET_VCPU_MMAP_SIZE: %s", strerror(errno));
		return PMUVM_EXIT_NO_KVM;
	}
	vcpu->run = mmap(NULL, mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu->fd, 0);
	if (vcpu->run == MAP_FAILED) {
		vcpu->run = NULL;
		pr_err("mmap of vCPU %d's kvm_run: %s", id, strerror(errno));
		return PMUVM_EXIT_HOST_ERROR;
	}
	vcpu->run_size = mmap_size;

	khz = ioctl(vcpu->fd, KVM_GET_TSC_KHZ, 0);
	if (khz <= 0) {
		pr_err("KVM_GET_TSC_KHZ: %s", khz < 0 ? strerror(errno) : "returned 0");
		return PMUVM_EXIT_NO_KVM;
	}
	vm->tsc_khz = (uint64_t)khz;
	/* The registers of every exit come with kvm_run instead of a KVM_GET_SREGS. */
	if (kvm_cap(vm->vm_fd, KVM_CAP_SYNC_REGS) & KVM_SYNC_X86_SREGS) {
		vcpu->run->kvm_valid_regs = KVM_SYNC_X86_SREGS | KVM_SYNC_X86_REGS;
		vcpu->sync_sregs = true;
	}

	r = vcpu_init_features(vcpu);
	if (r)
		return r;
	r = cpuid_setup_vcpu(vcpu);
	if (r)
		return r;
	/*
	 * Only the BSP starts at the multiboot entry.  The in-kernel LAPIC keeps
	 * every other vCPU in wait-for-SIPI until the guest sends INIT/SIPI.
	 */
	if (id == 0)
		return vm->linux_boot ? vcpu_setup_linux_entry(vcpu) :
					vcpu_setup_multiboot_entry(vcpu);
	return 0;
}

void vcpu_destroy(struct vcpu *vcpu)
{
	unsigned int i;

	for (i = vcpu->nr_features; i-- > 0;)
		if (vcpu->features[i]->vcpu_exit)
			vcpu->features[i]->vcpu_exit(vcpu);
	vcpu->nr_features = vcpu->nr_before_run = vcpu->nr_after_run = vcpu->nr_msr = 0;
	if (vcpu->run)
		munmap(vcpu->run, vcpu->run_size);
	if (vcpu->fd >= 0)
		close(vcpu->fd);
	vcpu->run = NULL;
	vcpu->fd = -1;
}

/* struct kvm_msrs with room for one entry (its entries[] is a flexible array). */
union vcpu_one_msr {
	struct kvm_msrs msrs;
	uint8_t room[sizeof(struct kvm_msrs) + sizeof(struct kvm_msr_entry)];
};

int vcpu_read_msr(struct vcpu *vcpu, uint32_t index, uint64_t *data)
{
	union vcpu_one_msr m = { .msrs.nmsrs = 1 };

	m.msrs.entries[0].index = index;
	if (ioctl(vcpu->fd, KVM_GET_MSRS, &m) != 1)
		return -EIO;
	*data = m.msrs.entries[0].data;
	return 0;
}

int vcpu_write_msr(struct vcpu *vcpu, uint32_t index, uint64_t data)
{
	union vcpu_one_msr m = { .msrs.nmsrs = 1 };

	m.msrs.entries[0].index = index;
	m.msrs.entries[0].data = data;
	return ioctl(vcpu->fd, KVM_SET_MSRS, &m) == 1 ? 0 : -EIO;
}

uint64_t vcpu_get_msr(struct vcpu *vcpu, uint32_t index)
{
	uint64_t v = 0;

	vcpu_read_msr(vcpu, index, &v);
	return v;
}

/* vcpu->warned has a bit for every enum log_once_vcpu (log.h). */
_Static_assert(LOG_ONCE_NR <= 8 * sizeof(((struct vcpu *)0)->warned),
	       "more per-vCPU warnings than bits in vcpu->warned");

bool vcpu_warn_once(struct vcpu *vcpu, unsigned int what)
{
	return log_once_bit(&vcpu->warned, what);
}

void vcpu_kick(struct vcpu *vcpu)
{
	if (vcpu->thread_started)
		pthread_kill(vcpu->thread, VCPU_KICK_SIGNAL);
}

bool vcpu_exit_is_access(const struct vcpu *vcpu)
{
	if (vcpu->run_result)
		return false;
	switch (vcpu->run->exit_reason) {
	case KVM_EXIT_IO:
	case KVM_EXIT_MMIO:
	case KVM_EXIT_X86_RDMSR:
	case KVM_EXIT_X86_WRMSR:
		return true;
	default:
		return false;
	}
}

unsigned int vcpu_cpl(struct vcpu *vcpu)
{
	struct kvm_sregs sregs;

	if (vcpu->sync_sregs)
		return sregs_cpl(&vcpu->run->s.regs.sregs);
	if (ioctl(vcpu->fd, KVM_GET_SREGS, &sregs) < 0)
		return 0;
	return sregs_cpl(&sregs);
}

int vcpu_state_fetch(struct vcpu *vcpu, struct kvm_regs **regs, struct kvm_sregs **sregs)
{
	if (ioctl(vcpu->fd, KVM_GET_REGS, &vcpu->regs_copy) < 0 ||
	    ioctl(vcpu->fd, KVM_GET_SREGS, &vcpu->sregs_copy) < 0)
		return -errno;
	*regs = &vcpu->regs_copy;
	*sregs = &vcpu->sregs_copy;
	return 0;
}

int vcpu_state_changed(struct vcpu *vcpu)
{
	if (vcpu->sync_sregs) {
		vcpu->run->kvm_dirty_regs |= KVM_SYNC_X86_REGS;
		return 0;
	}
	return ioctl(vcpu->fd, KVM_SET_REGS, &vcpu->regs_copy) < 0 ? -errno : 0;
}

int vcpu_state_changed_stepping(struct vcpu *vcpu)
{
	struct kvm_regs *r = vcpu->sync_sregs ? &vcpu->run->s.regs.regs : &vcpu->regs_copy;

	if (ioctl(vcpu->fd, KVM_SET_REGS, r) < 0)
		return -errno;
	if (vcpu->sync_sregs)
		vcpu->run->kvm_dirty_regs &= ~KVM_SYNC_X86_REGS;
	return vcpu->dbg.applied_step ? guest_debug_reapply(vcpu) : 0;
}

static void dump_seg(const char *name, const struct kvm_segment *s)
{
	fprintf(stderr, "  %-3s sel=%04x base=%016llx limit=%08x type=%x dpl=%u p=%u l=%u db=%u\n",
		name, s->selector, (unsigned long long)s->base, s->limit, s->type, s->dpl,
		s->present, s->l, s->db);
}

/* -vv: the words at the top of the stack, for return addresses (as far as they are mapped). */
#define DUMP_STACK_WORDS	64

static void dump_stack(struct vcpu *vcpu, const struct kvm_regs *r, const struct kvm_sregs *s)
{
	struct paging_state ps = sregs_paging(s);
	uint64_t w;
	unsigned int i;

	fprintf(stderr, "  stack:");
	for (i = 0; i < DUMP_STACK_WORDS; i++) {
		if (guest_linear_read(&vcpu->vm->mem, &ps, r->rsp + 8 * i, &w, sizeof(w)))
			break;
		fprintf(stderr, "%s%016" PRIx64, i % 4 ? " " : "\n    ", w);
	}
	fprintf(stderr, "\n");
}

void vcpu_dump_trail(const struct vcpu *vcpu)
{
	uint64_t n = vcpu->trail_n, i = n > VCPU_TRAIL_LEN ? n - VCPU_TRAIL_LEN : 0;

	if (!n)
		return;
	fprintf(stderr, "pmuvm: vCPU %d: the last %" PRIu64 " of its %" PRIu64 " exits (oldest first):\n",
		vcpu->id, n - i, n);
	for (; i < n; i++) {
		const struct vcpu_trail *t = &vcpu->trail[i % VCPU_TRAIL_LEN];

		fprintf(stderr, "  KVM_RUN %-3d exit reason %-2" PRIu32, t->run_result, t->exit_reason);
		fprintf(stderr, " cs=%04x rip=%016" PRIx64 " rsp=%016" PRIx64 " cr3=%016" PRIx64 "\n",
			t->cs, t->rip, t->rsp, t->cr3);
	}
}

void vcpu_dump_regs(struct vcpu *vcpu)
{
	struct kvm_regs r;
	struct kvm_sregs s;

	if (ioctl(vcpu->fd, KVM_GET_REGS, &r) < 0 || ioctl(vcpu->fd, KVM_GET_SREGS, &s) < 0) {
		pr_err("vCPU %d: cannot read registers: %s", vcpu->id, strerror(errno));
		return;
	}
	fprintf(stderr,
		"pmuvm: vCPU %d registers:\n"
		"  rip=%016llx rflags=%016llx\n"
		"  rax=%016llx rbx=%016llx rcx=%016llx rdx=%016llx\n"
		"  rsi=%016llx rdi=%016llx rbp=%016llx rsp=%016llx\n"
		"  r8 =%016llx r9 =%016llx r10=%016llx r11=%016llx\n"
		"  r12=%016llx r13=%016llx r14=%016llx r15=%016llx\n"
		"  cr0=%016llx cr2=%016llx cr3=%016llx cr4=%016llx efer=%016llx\n",
		vcpu->id, r.rip, r.rflags, r.rax, r.rbx, r.rcx, r.rdx, r.rsi, r.rdi, r.rbp,
		r.rsp, r.r8, r.r9, r.r10, r.r11, r.r12, r.r13, r.r14, r.r15,
		s.cr0, s.cr2, s.cr3, s.cr4, s.efer);
	dump_seg("cs", &s.cs);
	dump_seg("ss", &s.ss);
	dump_seg("ds", &s.ds);
	fprintf(stderr, "  gdt base=%016llx limit=%04x  idt base=%016llx limit=%04x\n",
		(unsigned long long)s.gdt.base, s.gdt.limit,
		(unsigned long long)s.idt.base, s.idt.limit);
	if (log_verbosity > 1)
		dump_stack(vcpu, &r, &s);
}
