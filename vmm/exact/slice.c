/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * When a stretch of the emulation engine ends so that an interrupt comes
 * in (docs/counting.md, "The emulation engine"). KVM's LAPIC holds what
 * arrives while the emulator runs and delivers it at the next KVM_RUN, so
 * at each slice's end the stretch looks at what KVM holds and goes on
 * while nothing could be taken:
 *   - an interrupt in IRR above the processor priority (SDM vol. 3A
 *     10.8.3.1): devices, IPIs, MSIs (where steps hold interrupts out,
 *     follow.h lets it into one of the steps that follow);
 *   - the LAPIC timer, which KVM puts in IRR only as it enters the guest:
 *     in TSC-deadline mode its IA32_TSC_DEADLINE against the guest's TSC
 *     (10.5.4.1), in one-shot mode its current count (10.5.4), the
 *     stretch asking again by the time it is due; a periodic timer ends
 *     every slice;
 *   - with LINT0 in ExtINT mode (as KVM resets the BSP's), a request the
 *     8259 does not mask (KVM_GET_IRQCHIP): it never shows in IRR;
 *   - pmuvm's own kick (a stop, a counting source's timer), pending on the
 *     vCPU thread, where KVM_RUN would see it.
 */
#include <errno.h>
#include <signal.h>
#include <sys/ioctl.h>

#include "exact/internal.h"
#include "machine/lapic.h"
#include "machine/vm.h"
#include "pmu/vcpu_pmu.h"
#include "x86-pmu/msr.h"
#include "x86/x86.h"

/* The guest's TSC and its deadline, read together. */
static int slice_tsc_deadline(struct vcpu *vcpu, uint64_t *tsc, uint64_t *deadline)
{
	union {
		struct kvm_msrs msrs;
		uint8_t room[sizeof(struct kvm_msrs) + 2 * sizeof(struct kvm_msr_entry)];
	} m = { .msrs.nmsrs = 2 };

	m.msrs.entries[0].index = MSR_IA32_TSC;
	m.msrs.entries[1].index = MSR_IA32_TSC_DEADLINE;
	if (ioctl(vcpu->fd, KVM_GET_MSRS, &m) != 2)
		return -EIO;
	*tsc = m.msrs.entries[0].data;
	*deadline = m.msrs.entries[1].data;
	return 0;
}

static uint64_t slice_tsc_to_ns(const struct vcpu *vcpu, uint64_t cycles)
{
	return (uint64_t)((unsigned __int128)cycles * 1000000u / vcpu->vm->tsc_khz);
}

/* The 8259 has a request that it does not mask (the master's, where the slave's cascade). */
static bool slice_pic_pending(struct vcpu *vcpu)
{
	struct kvm_irqchip chip = { .chip_id = KVM_IRQCHIP_PIC_MASTER };

	if (ioctl(vcpu->vm->vm_fd, KVM_GET_IRQCHIP, &chip) < 0)
		return true;
	return chip.chip.pic.irr & ~chip.chip.pic.imr;
}

static bool slice_kicked(void)
{
	sigset_t set;

	return sigpending(&set) == 0 && sigismember(&set, VCPU_KICK_SIGNAL) == 1;
}

static void slice_timer_late(struct exact_emulate_stats *st, uint64_t late)
{
	st->timer_due++;
	st->timer_late_ns += late;
	if (late > st->timer_late_ns_max)
		st->timer_late_ns_max = late;
}

/* The LAPIC timer in TSC-deadline mode: due once the guest's TSC reaches IA32_TSC_DEADLINE. */
static bool slice_deadline_due(struct vcpu *vcpu, uint64_t *wait_ns)
{
	uint64_t tsc, deadline;

	if (!vcpu->vm->tsc_khz || slice_tsc_deadline(vcpu, &tsc, &deadline))
		return true;
	if (!deadline)
		return false;		/* disarmed, or delivered: then IRR shows it */
	if (tsc >= deadline) {
		slice_timer_late(&vcpu->pmu->exact->emu_stats, slice_tsc_to_ns(vcpu, tsc - deadline));
		return true;
	}
	if (slice_tsc_to_ns(vcpu, deadline - tsc) < *wait_ns)
		*wait_ns = slice_tsc_to_ns(vcpu, deadline - tsc);
	return false;
}

/*
 * A one-shot timer: due when its current count reads 0, or when the
 * expiry an earlier poll foresaw (*timer_at) has come.
 */
static bool slice_one_shot_due(struct vcpu *vcpu, const struct kvm_lapic_state *l, uint64_t now,
			       uint64_t *wait_ns, uint64_t *timer_at)
{
	uint64_t left = lapic_timer_left(l);

	if (!left || (*timer_at && now >= *timer_at)) {
		if (*timer_at)
			slice_timer_late(&vcpu->pmu->exact->emu_stats,
					 now > *timer_at ? now - *timer_at : 0);
		return true;
	}
	*timer_at = now + left;
	if (left < *wait_ns)
		*wait_ns = left;
	return false;
}

static bool slice_due(struct vcpu *vcpu, bool irq_on, uint64_t now, uint64_t *wait_ns,
		      uint64_t *timer_at)
{
	struct kvm_lapic_state l;

	vcpu->pmu->exact->emu_stats.slice_polls++;
	if (slice_kicked())
		return true;
	if (!irq_on)
		return false;		/* nothing can be taken: *wait_ns stays */
	if (ioctl(vcpu->fd, KVM_GET_LAPIC, &l) < 0 || (lapic_extint(&l) && slice_pic_pending(vcpu)))
		return true;
	if (lapic_deliverable(&l) >= 0)
		return true;
	switch (lapic_timer(&l)) {
	case LAPIC_TIMER_NONE:
		return false;
	case LAPIC_TIMER_DEADLINE:
		return slice_deadline_due(vcpu, wait_ns);
	case LAPIC_TIMER_ONE_SHOT:
		return slice_one_shot_due(vcpu, &l, now, wait_ns, timer_at);
	case LAPIC_TIMER_PERIODIC:
		break;
	}
	return true;	/* its reloads hide an expiry from TMCCT: every slice ends */
}

bool exact_slice_due(struct vcpu *vcpu, bool irq_on, uint64_t now, uint64_t *wait_ns,
		     uint64_t *timer_at)
{
	if (!slice_due(vcpu, irq_on, now, wait_ns, timer_at))
		return false;
	/* The step after the stretch looks for the interrupt to let in at once. */
	vcpu->pmu->exact->follow.poll_now = true;
	return true;
}
