/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * PMI delivery through the local APIC's LVT performance-counter register, as
 * hardware does (docs/intel-pmu.md 3.4): a masked entry delivers nothing; NMI mode is an
 * NMI; fixed mode raises that vector on this vCPU's LAPIC; and an Intel
 * LAPIC sets LVTPC.mask when it delivers (SDM 10.5.1), so guests that unmask
 * in their handler work unchanged. AMD's APM describes no such rule for
 * its LVT entries, and KVM masks only for Intel-compatible guests
 * (lapic.c kvm_apic_local_deliver()), so for a guest that sees an AMD CPU
 * the entry is left alone.
 *
 * KVM has no ioctl that fires LVTPC, so the entry is read with KVM_GET_LAPIC,
 * the interrupt injected with KVM_NMI or KVM_SIGNAL_MSI, and the mask set
 * with a write of that one register: the x2APIC MSR (KVM_SET_MSRS, SDM vol.
 * 3A 10.12.1.2) where the guest's APIC is in x2APIC mode. In xAPIC mode only
 * KVM_SET_LAPIC can write it, which rewrites the whole page: an IPI another
 * vCPU sends to this one between its GET and SET would be overwritten (a
 * window of microseconds, more in the lab). This runs on the vCPU's own
 * thread between two KVM_RUNs.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "machine/lapic.h"
#include "machine/vm.h"
#include "log.h"
#include "pmu/pmi.h"
#include "pmu/source.h"
#include "pmu/vcpu_pmu.h"

#define MSI_ADDR_BASE		0xfee00000u

static int pmi_inject_fixed(struct vcpu *vcpu, uint8_t vector)
{
	/*
	 * Physical destination = this vCPU's APIC ID (== its index), edge, fixed;
	 * IDs above 255 go in address_hi (KVM_X2APIC_API_USE_32BIT_IDS).
	 */
	struct kvm_msi msi = {
		.address_lo = MSI_ADDR_BASE | (((uint32_t)vcpu->id & 0xff) << 12),
		.address_hi = (uint32_t)vcpu->id & 0xffffff00u,
		.data = vector,
	};

	return ioctl(vcpu->vm->vm_fd, KVM_SIGNAL_MSI, &msi) < 0 ? -errno : 0;
}

/* 0 if the guest's APIC is in x2APIC mode and LVTPC now holds `lvtpc`. */
static int pmi_set_lvtpc_x2apic(struct vcpu *vcpu, uint32_t lvtpc)
{
	return vcpu_write_msr(vcpu, MSR_X2APIC_LVTPC, lvtpc) ? -EINVAL : 0;
}

void pmi_deliver(struct vcpu *vcpu)
{
	struct kvm_lapic_state lapic;
	unsigned int i;
	uint32_t lvtpc;
	int r = 0;

	if (ioctl(vcpu->fd, KVM_GET_LAPIC, &lapic) < 0) {
		pr_warn("vCPU %d: KVM_GET_LAPIC: %s; PMI dropped", vcpu->id, strerror(errno));
		return;
	}
	lvtpc = lapic_reg(&lapic, APIC_LVTPC_OFFSET);
	if (lvtpc & APIC_LVT_MASKED) {
		vcpu->pmu->pmis_masked++;
		return;
	}
	switch (lvtpc & APIC_LVT_DM) {
	case APIC_LVT_DM_NMI:
		r = ioctl(vcpu->fd, KVM_NMI) < 0 ? -errno : 0;
		vcpu->pmu->pmis_nmi++;
		break;
	case APIC_LVT_DM_FIXED:
		r = pmi_inject_fixed(vcpu, lvtpc & APIC_LVT_VECTOR);
		break;
	default:
		/* SMI, INIT and ExtINT are not valid for this LVT (SDM fig. 10-8). */
		if (vcpu_warn_once(vcpu, LOG_ONCE_LVTPC_MODE))
			pr_warn("vCPU %d: LVTPC delivery mode %u unsupported; PMIs dropped",
				vcpu->id, (lvtpc & APIC_LVT_DM) >> APIC_LVT_DM_SHIFT);
		return;
	}
	if (r) {
		pr_warn("vCPU %d: PMI injection failed: %s", vcpu->id, strerror(-r));
		return;
	}
	vcpu->pmu->pmis_delivered++;
	vcpu->pmu->pmi_nmi = (lvtpc & APIC_LVT_DM) == APIC_LVT_DM_NMI;
	if (log_verbosity > 1) {
		struct kvm_sregs *s;
		struct kvm_regs *regs;

		if (!vcpu_state(vcpu, &regs, &s))
			pr_debug("vCPU %d: PMI%s at exit %u (KVM_RUN %d), RIP %llx CPL %u", vcpu->id,
				 vcpu->pmu->pmi_nmi ? " (NMI)" : "", vcpu->run->exit_reason,
				 vcpu->run_result, (unsigned long long)regs->rip, sregs_cpl(s));
	}
	for_each_pmu_source(vcpu, i)
		if (pmu_sources[i]->pmi_delivered)
			pmu_sources[i]->pmi_delivered(vcpu);
	/* No mask on AMD (above), nor the KVM_SET_LAPIC race of xAPIC mode. */
	if (vcpu->vm->cfg->cpu_vendor == CPU_VENDOR_AMD)
		return;
	if (pmi_set_lvtpc_x2apic(vcpu, lvtpc | APIC_LVT_MASKED) == 0)
		return;
	/* Re-read: the injection changed IRR, which SET_LAPIC must not undo. */
	if (ioctl(vcpu->fd, KVM_GET_LAPIC, &lapic) < 0)
		return;
	lapic_set_reg(&lapic, APIC_LVTPC_OFFSET,
		      lapic_reg(&lapic, APIC_LVTPC_OFFSET) | APIC_LVT_MASKED);
	if (ioctl(vcpu->fd, KVM_SET_LAPIC, &lapic) < 0)
		pr_warn("vCPU %d: KVM_SET_LAPIC: %s", vcpu->id, strerror(errno));
}
