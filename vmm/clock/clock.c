/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The clock source: unhalted core cycles (0x3C/0x00, fixed counter 1) and
 * reference cycles (0x3C/0x01, fixed counter 2) from the CPU time the vCPU
 * thread spends inside KVM_RUN (timed around the ioctl alone, machine/run.c),
 * less the probed cost of the exits in it (kvm/probe.c; how many KVM handled
 * itself, from its "exits" statistic): that is the host's time, not the
 * guest's. A halted vCPU accrues no CPU time, so it does not count.
 *
 * A run's time goes to one CPL. While OS and USR cycles go to different
 * counters, a timer also kicks the vCPU at random intervals and the CPL seen
 * at a kick is held for the runs the guest's own exits end, which are no fair
 * sample of it. The same per-vCPU timer makes KVM_RUN return at the next
 * overflow, so a guest sampling on cycles runs at full speed in between.
 * Design and precision: docs/counting.md, "Cycles: the clock source".
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <stdlib.h>

#include "clock/clock.h"
#include "clock/kick.h"
#include "exitcode.h"
#include "log.h"
#include "machine/vm.h"
#include "pmu/source.h"
#include "pmu/vcpu_pmu.h"

/* Never arm closer than this: an exit costs about 10 us anyway. */
#define CLOCK_MIN_ARM_NS	2000ULL
/*
 * While OS and USR cycles go to different counters, the mean interval
 * between the timer's CPL samples (250 exits/s; only while such a counter
 * is enabled), and the longest run a guest-caused exit attributes to the
 * CPL at its end (a PMI handler's runs between its MSR accesses).
 */
#define CLOCK_CPL_SAMPLE_NS	4000000ULL
#define CLOCK_CPL_SHORT_NS	50000ULL

/*
 * After cycles were held back from a wrap, the kick comes at random within
 * this many exit costs after the hold began, so that the PMI finds the
 * guest where it spends its time, not just past an exit; and after this
 * many, a run wraps however it ended, for a guest that polls an MSR for
 * the overflow (docs/counting.md, "Sampling on cycles").
 */
#define CLOCK_HELD_SPREAD	10ULL
#define CLOCK_HELD_LIMIT	1000ULL

/* What a run that entered the guest counts at least (clock_exits_ns()). */
#define CLOCK_MIN_RUN_NS	1ULL

#define CLOCK_EVENTS	((1u << PMU_EV_CORE_CYCLES) | (1u << PMU_EV_REF_CYCLES))

/* Cycles in `ns` at `khz`, carrying the sub-cycle remainder between calls. */
static uint64_t ns_to_cycles(uint64_t ns, uint64_t khz, uint64_t *rem)
{
	unsigned __int128 acc = (unsigned __int128)ns * khz + *rem;

	*rem = (uint64_t)(acc % 1000000u);
	return (uint64_t)(acc / 1000000u);
}

/* Time until `cycles` more cycles at `khz`, rounded up. */
static uint64_t cycles_to_ns(uint64_t cycles, uint64_t khz, uint64_t rem)
{
	unsigned __int128 need = (unsigned __int128)cycles * 1000000u;

	if (need <= rem)
		return 0;
	need -= rem;
	need = (need + khz - 1) / khz;
	return need > UINT64_MAX ? UINT64_MAX : (uint64_t)need;
}

static int clock_thread_start(struct vcpu *vcpu)
{
	struct clock_state *c = vcpu->pmu->clock;
	struct sigevent sev;
	timer_t t;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = VCPU_KICK_SIGNAL;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &sev, &t) < 0) {
		pr_err("vCPU %d: timer_create: %s", vcpu->id, strerror(errno));
		return -errno;
	}
	c->timer = (void *)t;
	c->timer_created = true;
	return 0;
}

static void clock_thread_stop(struct vcpu *vcpu)
{
	struct clock_state *c = vcpu->pmu->clock;

	if (c->timer_created)
		timer_delete((timer_t)c->timer);
	c->timer_created = false;
}

static void clock_arm(struct clock_state *c, uint64_t ns)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	if (ns != UINT64_MAX) {
		if (ns < CLOCK_MIN_ARM_NS)
			ns = CLOCK_MIN_ARM_NS;
		its.it_value.tv_sec = (time_t)(ns / 1000000000ULL);
		its.it_value.tv_nsec = (long)(ns % 1000000000ULL);
	} else if (!c->timer_armed) {
		return;		/* nothing to cancel */
	}
	timer_settime((timer_t)c->timer, 0, &its, NULL);
	c->timer_armed = ns != UINT64_MAX;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Nearest overflow at either privilege level, since the CPL may change. */
static uint64_t events_to_overflow_any_cpl(const struct vpmu *pmu, enum pmu_arch_event ev)
{
	return min_u64(vpmu_events_to_overflow(pmu, ev, 0), vpmu_events_to_overflow(pmu, ev, 3));
}

/* xorshift64, seeded per vCPU: runs stay comparable. */
static uint64_t clock_rand(struct clock_state *c)
{
	c->cpl_rand ^= c->cpl_rand << 13;
	c->cpl_rand ^= c->cpl_rand >> 7;
	c->cpl_rand ^= c->cpl_rand << 17;
	return c->cpl_rand;
}

/* The CPU time to the next CPL sample: uniform in [1/2, 3/2] of CLOCK_CPL_SAMPLE_NS. */
static uint64_t clock_cpl_interval(struct clock_state *c)
{
	return CLOCK_CPL_SAMPLE_NS / 2 + clock_rand(c) % CLOCK_CPL_SAMPLE_NS;
}

static uint64_t clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * The time to the kick that delivers held cycles: a moment drawn when the
 * hold began, kept across the runs in between (a fresh draw at each entry
 * would never come while every run is shorter than an exit), and drawn
 * again once it passed while the vCPU was out of the guest.
 */
static uint64_t clock_held_kick_ns(struct vcpu *vcpu)
{
	struct clock_state *c = vcpu->pmu->clock;
	uint64_t now = clock_now_ns(), cost = vcpu->vm->exit_cost_ns;

	if (!c->held_kick_at || now >= c->held_kick_at)
		c->held_kick_at = now + cost + clock_rand(c) % (CLOCK_HELD_SPREAD * cost + 1);
	return c->held_kick_at - now;
}

static __attribute__((noinline)) void clock_schedule(struct vcpu *vcpu)
{
	struct clock_state *c = vcpu->pmu->clock;
	uint64_t core, ref, ns = UINT64_MAX;

	/*
	 * Nothing counts cycles: no clock reads (a system call each) and no
	 * timer, so exits cost the stepping and MSR paths nothing here.
	 */
	c->timing = vpmu_counted_events(&vcpu->pmu->model) & CLOCK_EVENTS;
	vcpu->time_run = c->timing;
	if (!c->timing) {
		c->core_held = c->ref_held = 0;
		c->cpl_sampling = false;
		if (c->timer_armed)
			clock_arm(c, UINT64_MAX);
		return;
	}
	/*
	 * A step's time is not counted (clock_account()): no overflow comes of
	 * it, and a kick would only end the step before it retires, again and
	 * again.
	 */
	if (vcpu->pmu->step_run) {
		if (c->timer_armed)
			clock_arm(c, UINT64_MAX);
		return;
	}
	core = events_to_overflow_any_cpl(&vcpu->pmu->model, PMU_EV_CORE_CYCLES);
	ref = events_to_overflow_any_cpl(&vcpu->pmu->model, PMU_EV_REF_CYCLES);

	/* Cycles held back from an overflow count at the next run's end. */
	if (core != UINT64_MAX)
		ns = cycles_to_ns(core - min_u64(core, c->core_held), c->core_khz, c->core_rem);
	if (ref != UINT64_MAX)
		ns = min_u64(ns, cycles_to_ns(ref - min_u64(ref, c->ref_held), c->ref_khz, c->ref_rem));
	/* The run's exit to pmuvm will not count: the overflow is that much later. */
	if (ns != UINT64_MAX)
		ns += vcpu->vm->exit_cost_ns;
	if (c->core_held || c->ref_held)
		ns = clock_held_kick_ns(vcpu);
	if (kvm_stat_read(&c->exits, &c->run_start_exits))
		c->run_start_exits = UINT64_MAX;
	if (kvm_stat_read(&c->irq_exits, &c->run_start_irq_exits))
		c->run_start_irq_exits = UINT64_MAX;
	/*
	 * The CPL sample is due after its interval of CPU time spent running
	 * with a CPL-filtered cycle counter, whatever other exits happen in
	 * between and however often the guest stops its counters: a kernel
	 * that counts per task stops them at each context switch.
	 */
	c->cpl_sampling = vpmu_event_level_matters(&vcpu->pmu->model, PMU_EV_CORE_CYCLES) ||
			  vpmu_event_level_matters(&vcpu->pmu->model, PMU_EV_REF_CYCLES);
	if (c->cpl_sampling)
		ns = min_u64(ns, c->cpl_sample_left);
	if (c->timer_created)
		clock_arm(c, ns);
}

/*
 * Of `ns`, the CPU time of the KVM_RUN just ended, what its exits cost:
 * the one to pmuvm (an MSR exit's as probed for those), and those KVM
 * handled itself on the way (its "exits" statistic counts both, where KVM
 * keeps it).
 * The probed costs are best-case means, and a run ran at least one guest
 * instruction: it keeps at least CLOCK_MIN_RUN_NS (a counter preset to -1
 * overflows, as on hardware, however short the run).
 */
static uint64_t clock_exits_ns(struct vcpu *vcpu, uint64_t ns)
{
	const struct clock_state *c = vcpu->pmu->clock;
	uint64_t exits, cost = vcpu->vm->exit_cost_ns;

	if (vcpu->run_result == 0 && vcpu->vm->msr_exit_cost_ns &&
	    (vcpu->run->exit_reason == KVM_EXIT_X86_RDMSR ||
	     vcpu->run->exit_reason == KVM_EXIT_X86_WRMSR))
		cost = vcpu->vm->msr_exit_cost_ns;
	if (c->run_start_exits != UINT64_MAX && !kvm_stat_read(&c->exits, &exits) &&
	    exits > c->run_start_exits)
		cost += (exits - c->run_start_exits - 1) * vcpu->vm->kernel_exit_cost_ns;
	return ns > CLOCK_MIN_RUN_NS ? min_u64(ns - CLOCK_MIN_RUN_NS, cost) : 0;
}

/* The CPL a run of `ns` guest time goes to ("Privilege levels", above). */
static unsigned int clock_run_cpl(struct vcpu *vcpu, uint64_t ns)
{
	struct clock_state *c = vcpu->pmu->clock;
	unsigned int cpl = vcpu_cpl(vcpu);

	if (!c->cpl_sampling)
		return cpl;
	c->cpl_sample_left -= min_u64(c->cpl_sample_left, vcpu->run_cpu_ns);
	if (ns <= CLOCK_CPL_SHORT_NS) {
		/*
		 * Also a kick that found the vCPU out of the guest (the timer
		 * fired while pmuvm handled an exit: KVM_RUN returned at once):
		 * its CPL is that of the guest's own exit, no fair sample.
		 */
		if (clock_run_kicked(vcpu))
			c->cpl_sample_left = clock_cpl_interval(c);
		return cpl;
	}
	if (clock_run_kicked(vcpu)) {
		c->cpl_held = cpl;
		c->cpl_kicks++;
		c->cpl_sample_left = clock_cpl_interval(c);
		return cpl;
	}
	if (c->cpl_held == CLOCK_CPL_NONE)
		return cpl;
	c->cpl_held_runs++;
	return c->cpl_held;
}

/*
 * Whether this run of `ns` guest time may not make a counter wrap
 * (clock_count()): a kick that did not find the guest running (kick.c). A
 * run the guest's own exit ended wraps: the guest was there (a loop polling
 * GLOBAL_STATUS), and a guest reading its counters sees them as they are.
 */
static bool clock_run_holds(struct vcpu *vcpu, uint64_t ns)
{
	const struct clock_state *c = vcpu->pmu->clock;

	if (c->held_since &&
	    clock_now_ns() - c->held_since >= CLOCK_HELD_LIMIT * vcpu->vm->exit_cost_ns)
		return false;
	return clock_kick_unfair(vcpu, ns);
}

/*
 * `n` cycles of `ev` at `cpl`, plus those held back before, for a run of
 * `ns` guest time. A run that holds (clock_run_holds(), asked only of a run
 * that would wrap; *hold < 0 until asked) may not make a counter wrap: the
 * count stops one short and the rest waits for a later run, and before_run
 * arms the timer for it, so the PMI comes where a kick finds the guest
 * running, as a hardware PMI comes with skid (docs/counting.md, "Sampling
 * on cycles"). True while some are held.
 */
static bool clock_count(struct vcpu *vcpu, enum pmu_arch_event ev, uint64_t n, unsigned int cpl,
			uint64_t ns, int *hold, uint64_t *held)
{
	uint64_t left = vpmu_events_to_overflow(&vcpu->pmu->model, ev, cpl);

	n += *held;
	*held = 0;
	if (left != UINT64_MAX && n >= left) {
		if (*hold < 0)
			*hold = clock_run_holds(vcpu, ns);
		if (*hold) {
			*held = n - (left - 1);
			n = left - 1;
		} else {
			vcpu->pmu->clock->wrapped = true;
		}
	}
	vpmu_count(&vcpu->pmu->model, ev, n, cpl);
	return *held;
}

static __attribute__((noinline)) void clock_account(struct vcpu *vcpu)
{
	struct clock_state *c = vcpu->pmu->clock;
	unsigned int cpl;
	uint64_t ns, exit_ns;
	int hold = -1;
	bool held;

	if (!c->timing)
		return;
	/* A single step's time is the stepping's; exact/ counts its cycles at --cpi. */
	if (vcpu->pmu->step_run) {
		clock_kick_note_run(vcpu);
		return;
	}
	ns = vcpu->run_cpu_ns;
	/* The exits' own cost (kvm/probe.c) is the host's time, not the guest's. */
	exit_ns = clock_exits_ns(vcpu, ns);
	ns -= exit_ns;
	c->exit_ns += exit_ns;
	c->guest_ns += ns;
	cpl = clock_run_cpl(vcpu, ns);
	held = clock_count(vcpu, PMU_EV_CORE_CYCLES, ns_to_cycles(ns, c->core_khz, &c->core_rem),
			   cpl, ns, &hold, &c->core_held);
	held |= clock_count(vcpu, PMU_EV_REF_CYCLES, ns_to_cycles(ns, c->ref_khz, &c->ref_rem),
			    cpl, ns, &hold, &c->ref_held);
	clock_kick_note_run(vcpu);
	if (c->wrapped) {
		c->wrapped = false;
		if (clock_run_kicked(vcpu))
			c->overflows_at_kicks++;
		else
			c->overflows_at_exits++;
	}
	c->overflows_held += held;
	if (held && !c->held_since)
		c->held_since = clock_now_ns();
	if (!held)
		c->held_since = c->held_kick_at = 0;
}

/*
 * The run-loop hooks: while no cycle event counts and no timer is armed,
 * they return before anything else (most exits of most guests).
 */
static void clock_before_run(struct vcpu *vcpu)
{
	const struct clock_state *c = vcpu->pmu->clock;

	if (!(vpmu_counted_events(&vcpu->pmu->model) & CLOCK_EVENTS) && !c->timing &&
	    !c->timer_armed)
		return;
	clock_schedule(vcpu);
}

static void clock_after_run(struct vcpu *vcpu)
{
	if (vcpu->pmu->clock->timing)
		clock_account(vcpu);
}

static uint32_t clock_events(const struct pmuvm_config *cfg)
{
	return cfg->cycles == CYCLES_CLOCK ? CLOCK_EVENTS : 0;
}

static int clock_vcpu_init(struct vcpu *vcpu)
{
	const struct pmuvm_config *cfg = vcpu->vm->cfg;
	struct clock_state *c;

	if (!clock_events(cfg))
		return VCPU_FEATURE_OFF;
	c = calloc(1, sizeof(*c));
	if (!c) {
		pr_err("out of memory");
		return PMUVM_EXIT_HOST_ERROR;
	}
	c->cpl_rand = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)vcpu->id + 1);
	c->cpl_held = CLOCK_CPL_NONE;
	c->access_rip = UINT64_MAX;
	c->cpl_sample_left = clock_cpl_interval(c);
	c->ref_khz = vcpu->vm->tsc_khz;
	c->core_khz = cfg->cpu_khz ? cfg->cpu_khz : vcpu->vm->tsc_khz;
	if (kvm_stat_open(vcpu->fd, "exits", &c->exits))
		pr_debug("vCPU %d: no \"exits\" statistic: KVM's own exits count as cycles",
			 vcpu->id);
	if (kvm_stat_open(vcpu->fd, "irq_exits", &c->irq_exits))
		pr_debug("vCPU %d: no \"irq_exits\" statistic", vcpu->id);
	vcpu->pmu->clock = c;
	return 0;
}

static void clock_vcpu_exit(struct vcpu *vcpu)
{
	kvm_stat_close(&vcpu->pmu->clock->exits);
	kvm_stat_close(&vcpu->pmu->clock->irq_exits);
	free(vcpu->pmu->clock);
	vcpu->pmu->clock = NULL;
}

const struct pmu_source_ops clock_source = {
	.name = "clock",
	.events = clock_events,
};

const struct vcpu_feature clock_feature = {
	.name = "clock",
	.vcpu_init = clock_vcpu_init,
	.vcpu_exit = clock_vcpu_exit,
	.thread_start = clock_thread_start,
	.thread_stop = clock_thread_stop,
	.before_run = clock_before_run,
	.after_run = clock_after_run,
};
