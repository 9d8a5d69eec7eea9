/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <asm/kvm_para.h>

#include "exitcode.h"
#include "kvm/kvm.h"
#include "machine/cpuid.h"
#include "machine/vm.h"
#include "log.h"

#define CPUID_MAX_ENTRIES	256
/* Room for the entries the features' cpuid hooks may add. */
#define CPUID_FEATURE_ROOM	8

int cpuid_load_supported(struct vm *vm)
{
	unsigned int n;

	for (n = 64; n <= CPUID_MAX_ENTRIES; n *= 2) {
		struct kvm_cpuid2 *c = calloc(1, sizeof(*c) + n * sizeof(c->entries[0]));

		if (!c) {
			pr_err("out of memory");
			return PMUVM_EXIT_HOST_ERROR;
		}
		c->nent = n;
		if (ioctl(vm->kvm_fd, KVM_GET_SUPPORTED_CPUID, c) == 0) {
			vm->supported_cpuid = c;
			return 0;
		}
		free(c);
		if (errno != E2BIG)
			break;
	}
	pr_err("KVM_GET_SUPPORTED_CPUID: %s", strerror(errno));
	return PMUVM_EXIT_NO_KVM;
}

struct kvm_cpuid_entry2 *cpuid_find(struct kvm_cpuid2 *c, uint32_t fn, uint32_t idx)
{
	uint32_t i;

	for (i = 0; i < c->nent; i++)
		if (c->entries[i].function == fn &&
		    (!(c->entries[i].flags & KVM_CPUID_FLAG_SIGNIFCANT_INDEX) ||
		     c->entries[i].index == idx))
			return &c->entries[i];
	return NULL;
}

struct kvm_cpuid_entry2 *cpuid_add(struct kvm_cpuid2 *c, uint32_t fn)
{
	struct kvm_cpuid_entry2 *e = cpuid_find(c, fn, 0);

	if (e)
		return e;
	e = &c->entries[c->nent++];
	memset(e, 0, sizeof(*e));
	e->function = fn;
	return e;
}

/*
 * KVM's paravirtual features (leaf 0x40000001 EAX) as KVM supports them,
 * except steal time and PV EOI.
 *
 * Steal time: KVM rewrites the guest's kvm_steal_time record, its version
 * bumped twice, at every entry after a vCPU load (x86.c record_steal_time(),
 * requested by kvm_arch_vcpu_load()), and a single step is an entry. Linux
 * reads the record with a retry loop (kvm_steal_clock(): until the version
 * is even and unchanged), which under stepping never ends: a Linux guest
 * counting instructions spent millions of steps in that loop, inside its
 * timer tick, in the lab.
 *
 * PV EOI: Linux guests on the lab's nested KVM (kvm_amd under QEMU
 * TCG) hang early in boot on a loaded host: the LAPIC timer interrupt
 * arrives while RFLAGS.IF is clear, inside timekeeping_advance()'s
 * raw_spin_lock_irqsave(), and the handler deadlocks on that lock. With PV
 * EOI, 0 of 14 loaded boots finished there; without it, 3 of 4 (the cause
 * is below pmuvm: QEMU/KVM there also leaves some boots unfinished). An EOI
 * is then an ordinary APIC write.
 */
static void cpuid_apply_kvm_features(struct kvm_cpuid2 *c)
{
	struct kvm_cpuid_entry2 *e = cpuid_find(c, KVM_CPUID_FEATURES, 0);

	if (e)
		e->eax &= ~(1u << KVM_FEATURE_PV_EOI | 1u << KVM_FEATURE_STEAL_TIME);
}

/*
 * Linux's KVM hypercalls (KVM_HYPERCALL, arch/x86/include/asm/kvm_para.h)
 * are VMCALL, or VMMCALL where the CPUID vendor is AMD or Hygon
 * (X86_FEATURE_VMMCALL). A guest shown the other vendor than the host's
 * executes the instruction the host does not have: it #UDs, and KVM's
 * fix-up (KVM_X86_QUIRK_FIX_HYPERCALL_INSN, emulator_fix_hypercall())
 * rewrites it in the guest's text, which Linux maps read-only: KVM injects
 * a #PF there. Seen: Linux with --pmu intel on 2 vCPUs of an SVM host oopsed
 * in kvm_kick_cpu() at its first PV spinlock kick. Without the features
 * whose use is a hypercall (PV spinlock kick, PV IPIs, PV yield), the
 * guest kicks, sends IPIs and yields through its APIC.
 */
static void cpuid_apply_hypercalls(struct kvm_cpuid2 *c, const struct kvm_cpuid_entry2 *h)
{
	struct kvm_cpuid_entry2 *g = cpuid_find(c, 0, 0), *e;

	if (!g || (h->ebx == g->ebx && h->ecx == g->ecx && h->edx == g->edx))
		return;
	e = cpuid_find(c, KVM_CPUID_FEATURES, 0);
	if (e)
		e->eax &= ~(1u << KVM_FEATURE_PV_UNHALT | 1u << KVM_FEATURE_PV_SEND_IPI |
			    1u << KVM_FEATURE_PV_SCHED_YIELD);
}

static void cpuid_apply_topology(struct vcpu *vcpu, struct kvm_cpuid2 *c)
{
	unsigned int nr = vcpu->vm->cfg->nr_cpus;
	struct kvm_cpuid_entry2 *e;
	uint32_t i;

	e = cpuid_find(c, 1, 0);
	if (e) {
		e->ebx = (e->ebx & 0x0000ffffu) | ((uint32_t)vcpu->id << 24) | ((nr & 0xff) << 16);
		if (nr > 1)
			e->edx |= 1u << 28;	/* HTT: EBX[23:16] is valid */
		e->ecx |= X86_CPUID_1_ECX_HYPERVISOR;
	}
	/* Leaves 0xB and 0x1F report the x2APIC ID in EDX of every sub-leaf. */
	for (i = 0; i < c->nent; i++)
		if (c->entries[i].function == 0xb || c->entries[i].function == 0x1f)
			c->entries[i].edx = vcpu->id;
}

/*
 * The TSC-deadline timer (CPUID.01H:ECX[24], SDM vol. 3A 10.5.4.1): KVM
 * emulates it in its in-kernel LAPIC but leaves the bit out of
 * KVM_GET_SUPPORTED_CPUID, which cannot know of the irqchip;
 * KVM_CAP_TSC_DEADLINE_TIMER says it is there (KVM's api.rst,
 * KVM_GET_SUPPORTED_CPUID), and a VMM sets it, as QEMU does.
 */
static void cpuid_apply_tsc_deadline(struct vcpu *vcpu, struct kvm_cpuid2 *c)
{
	struct kvm_cpuid_entry2 *e = cpuid_find(c, 1, 0);

	if (e && kvm_cap(vcpu->vm->vm_fd, KVM_CAP_TSC_DEADLINE_TIMER) > 0)
		e->ecx |= X86_CPUID_1_ECX_TSC_DEADLINE;
}

int cpuid_setup_vcpu(struct vcpu *vcpu)
{
	const struct kvm_cpuid2 *sup = vcpu->vm->supported_cpuid;
	size_t bytes = sizeof(*sup) + (sup->nent + CPUID_FEATURE_ROOM) * sizeof(sup->entries[0]);
	struct kvm_cpuid2 *c = malloc(bytes);
	struct kvm_cpuid_entry2 host_vendor, *e;
	unsigned int i;
	int r = 0;

	if (!c) {
		pr_err("out of memory");
		return PMUVM_EXIT_HOST_ERROR;
	}
	memcpy(c, sup, sizeof(*sup) + sup->nent * sizeof(sup->entries[0]));
	e = cpuid_find(c, 0, 0);
	host_vendor = e ? *e : (struct kvm_cpuid_entry2){ 0 };
	cpuid_apply_topology(vcpu, c);
	cpuid_apply_tsc_deadline(vcpu, c);
	cpuid_apply_kvm_features(c);
	for (i = 0; i < vcpu->nr_features; i++)
		if (vcpu->features[i]->cpuid)
			vcpu->features[i]->cpuid(vcpu, c);
	cpuid_apply_hypercalls(c, &host_vendor);
	if (ioctl(vcpu->fd, KVM_SET_CPUID2, c) < 0) {
		pr_err("KVM_SET_CPUID2: %s", strerror(errno));
		r = PMUVM_EXIT_NO_KVM;
	}
	free(c);
	return r;
}
