/*
 * The clock source: unhalted core cycles (0x3C/0x00, fixed counter 1) and
 * reference cycles (0x3C/0x01, fixed counter 2 at the TSC rate) derived from
 * the CPU time the vCPU thread spends inside KVM_RUN (timed around the
 * ioctl alone, machine/run.c: pmuvm's own work between runs is not the
 * guest's).  A halted vCPU sleeps
 * in the kernel and accrues no CPU time, so it does not count, as CPU_CLK_
 * UNHALTED does not count in HLT (SDM table 18-1).
 *
 * The exits' own cost is taken off each KVM_RUN: the CPU time a round trip
 * to userspace takes with the guest doing nothing, and that of each exit
 * KVM handled itself during the run (both measured at start-up,
 * kvm/probe.c; how many, from KVM's "exits" statistic). It is the host's
 * time, which a hardware vPMU does not count for the guest either. Nested
 * (the lab: SVM under QEMU TCG) an exit costs tens of microseconds, and a
 * PMI handler's MSR accesses, charged in full, topped cycles profiles.
 *
 * Precision: the probed costs are best cases, and what an exit costs
 * beyond them still counts as guest time; each interval between two exits is
 * attributed entirely to the CPL seen at the exit that ends it, so OS/USR
 * filtering is exact only for intervals that do not change privilege level.
 * Guest interrupts and exceptions switch CPL without an exit, so while a
 * cycle counter filters on OS/USR the timer also cuts intervals every
 * CLOCK_CPL_SAMPLE_NS: the attribution is then right to within that grain.
 * The typical such interval is a PMI handler's return: from its last MSR
 * exit (CPL0) back into the interrupted user code until the next exit
 * (CPL3), so the tail of the handler counts as user time; on a kvm_pvm host,
 * where CPL0 is emulated, that is ~100 us per PMI (measured by
 * tests/guests/pmu_sample.c).
 *
 * Overflow scheduling: the remaining cycles of the counter nearest to
 * overflow are converted to time and a per-vCPU timer makes KVM_RUN return
 * then, so a guest sampling on cycles runs at full speed in between.  POSIX
 * CPU-time timers only fire on scheduler ticks, so the timer is a
 * CLOCK_MONOTONIC one (high resolution); when it fires, the CPU time really
 * used is what counts, and if the vCPU was descheduled or halted the
 * counter simply is not there yet and the timer is re-armed.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <stdlib.h>

#include "clock/clock.h"
#include "exitcode.h"
#include "log.h"
#include "machine/vm.h"
#include "pmu/source.h"
#include "pmu/vcpu_pmu.h"

/* Never arm closer than this: an exit costs about 10 us anyway. */
#define CLOCK_MIN_ARM_NS	2000ULL
/*
 * While a cycle event counts at only one of OS and USR, intervals are cut
 * at least this often so that each is attributed to a CPL observed within
 * it (250 exits/s; only while such a counter is enabled).
 */
#define CLOCK_CPL_SAMPLE_NS	4000000ULL

/* What a run that entered the guest counts at least (clock_exits_ns()). */
#define CLOCK_MIN_RUN_NS	1ULL

#define CLOCK_EVENTS	((1u << PMU_EV_CORE_CYCLES) | (1u << PMU_EV_REF_CYCLES))

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

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

/* Some counter counts `ev` at OS but not USR or the other way round. */
static bool cpl_filtered(const struct vpmu *pmu, enum pmu_arch_event ev)
{
	return (vpmu_events_to_overflow(pmu, ev, 0) == UINT64_MAX) !=
	       (vpmu_events_to_overflow(pmu, ev, 3) == UINT64_MAX);
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
		c->cpl_sample_due = 0;
		if (c->timer_armed)
			clock_arm(c, UINT64_MAX);
		return;
	}
	core = events_to_overflow_any_cpl(&vcpu->pmu->model, PMU_EV_CORE_CYCLES);
	ref = events_to_overflow_any_cpl(&vcpu->pmu->model, PMU_EV_REF_CYCLES);

	if (core != UINT64_MAX)
		ns = cycles_to_ns(core, c->core_khz, c->core_rem);
	if (ref != UINT64_MAX)
		ns = min_u64(ns, cycles_to_ns(ref, c->ref_khz, c->ref_rem));
	/* The run's exit to pmuvm will not count: the overflow is that much later. */
	if (ns != UINT64_MAX)
		ns += vcpu->vm->exit_cost_ns;
	c->run_start_ns = thread_cpu_ns();
	if (kvm_stat_read(&c->exits, &c->run_start_exits))
		c->run_start_exits = UINT64_MAX;
	/*
	 * The CPL sample is due every CLOCK_CPL_SAMPLE_NS of CPU time whatever
	 * other exits happen in between: those may all be at CPL0 (a guest
	 * kernel's MSR accesses around its scheduler tick).
	 */
	if (cpl_filtered(&vcpu->pmu->model, PMU_EV_CORE_CYCLES) ||
	    cpl_filtered(&vcpu->pmu->model, PMU_EV_REF_CYCLES)) {
		if (c->cpl_sample_due <= c->run_start_ns)
			c->cpl_sample_due = c->run_start_ns + CLOCK_CPL_SAMPLE_NS;
		ns = min_u64(ns, c->cpl_sample_due - c->run_start_ns);
	} else {
		c->cpl_sample_due = 0;
	}
	if (c->timer_created)
		clock_arm(c, ns);
}

/*
 * Of `ns`, the CPU time of the KVM_RUN just ended, what its exits cost:
 * the one to pmuvm, and those KVM handled itself on the way (its "exits"
 * statistic counts both, where KVM keeps it).
 * The probed costs are best-case means, and a run ran at least one guest
 * instruction: it keeps at least CLOCK_MIN_RUN_NS (a counter preset to -1
 * overflows, as on hardware, however short the run).
 */
static uint64_t clock_exits_ns(struct vcpu *vcpu, uint64_t ns)
{
	const struct clock_state *c = vcpu->pmu->clock;
	uint64_t exits, cost = vcpu->vm->exit_cost_ns;

	if (c->run_start_exits != UINT64_MAX && !kvm_stat_read(&c->exits, &exits) &&
	    exits > c->run_start_exits)
		cost += (exits - c->run_start_exits - 1) * vcpu->vm->kernel_exit_cost_ns;
	return ns > CLOCK_MIN_RUN_NS ? min_u64(ns - CLOCK_MIN_RUN_NS, cost) : 0;
}

static __attribute__((noinline)) void clock_account(struct vcpu *vcpu)
{
	struct clock_state *c = vcpu->pmu->clock;
	unsigned int cpl = vcpu_cpl(vcpu);
	uint64_t now, ns, exit_ns;

	if (!c->timing)
		return;
	now = thread_cpu_ns();
	ns = vcpu->run_cpu_ns;
	/* The exits' own cost (kvm/probe.c) is the host's time, not the guest's. */
	exit_ns = clock_exits_ns(vcpu, ns);
	ns -= exit_ns;
	c->exit_ns += exit_ns;
	c->guest_ns += ns;
	/*
	 * An exit at a CPL where cycles count is itself a good CPL sample:
	 * the time before it is credited; the next sample is due a grain later.
	 */
	if (c->cpl_sample_due && (vpmu_counted_events_at(&vcpu->pmu->model, cpl) & CLOCK_EVENTS))
		c->cpl_sample_due = now + CLOCK_CPL_SAMPLE_NS;
	vpmu_count(&vcpu->pmu->model, PMU_EV_CORE_CYCLES, ns_to_cycles(ns, c->core_khz, &c->core_rem), cpl);
	vpmu_count(&vcpu->pmu->model, PMU_EV_REF_CYCLES, ns_to_cycles(ns, c->ref_khz, &c->ref_rem), cpl);
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
	c->ref_khz = vcpu->vm->tsc_khz;
	c->core_khz = cfg->cpu_khz ? cfg->cpu_khz : vcpu->vm->tsc_khz;
	if (kvm_stat_open(vcpu->fd, "exits", &c->exits))
		pr_debug("vCPU %d: no \"exits\" statistic: KVM's own exits count as cycles",
			 vcpu->id);
	vcpu->pmu->clock = c;
	return 0;
}

static void clock_vcpu_exit(struct vcpu *vcpu)
{
	kvm_stat_close(&vcpu->pmu->clock->exits);
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
