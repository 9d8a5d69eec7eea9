/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The vCPU run loop and the VM stop protocol.
 *
 * Every vCPU thread keeps VCPU_KICK_SIGNAL blocked except inside KVM_RUN
 * (KVM_SET_SIGNAL_MASK), so a kick sent at any moment either interrupts
 * KVM_RUN or makes the next one return EINTR at once: no lost wake-ups.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "exitcode.h"
#include "log.h"
#include "machine/mmio.h"
#include "machine/vm.h"

typedef void (*vcpu_exit_fn)(struct vcpu *vcpu);

/*
 * An exit the guest cannot go on from, after the line that says why: the
 * vCPU's registers (where it was), then the VM stops.
 */
static void vcpu_dump_and_stop(struct vcpu *vcpu, enum vm_stop_reason reason)
{
	vcpu_dump_regs(vcpu);
	vm_stop(vcpu->vm, reason);
}

static void exit_io(struct vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;
	uint8_t *data = (uint8_t *)run + run->io.data_offset;
	uint32_t i;

	vcpu->exits[VCPU_EXIT_IO]++;
	/* REP INS/OUTS come as `count` back-to-back items. */
	for (i = 0; i < run->io.count; i++, data += run->io.size)
		pio_dispatch(vcpu, run->io.port, run->io.direction == KVM_EXIT_IO_OUT,
			     data, run->io.size);
}

static void exit_mmio(struct vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;

	vcpu->exits[VCPU_EXIT_MMIO]++;
	mmio_dispatch(vcpu, run->mmio.phys_addr, run->mmio.is_write, run->mmio.data,
		      run->mmio.len);
}

/*
 * KVM_EXIT_X86_RDMSR/WRMSR: only MSRs a feature asked KVM's filter for come
 * here (KVM_MSR_EXIT_REASON_FILTER); the first feature that owns it answers.
 */
static inline __attribute__((always_inline)) void exit_msr(struct vcpu *vcpu, bool is_write)
{
	struct kvm_run *run = vcpu->run;
	uint64_t data = run->msr.data;
	int r = VCPU_MSR_NOT_MINE;
	unsigned int i;

	for (i = 0; i < vcpu->nr_msr && r == VCPU_MSR_NOT_MINE; i++)
		r = vcpu->msr[i](vcpu, run->msr.index, is_write, &data);
	/* KVM ignores the value of a read that failed. */
	run->msr.data = data;
	run->msr.error = r != 0;
}

static void exit_rdmsr(struct vcpu *vcpu)
{
	vcpu->exits[VCPU_EXIT_MSR_READ]++;
	exit_msr(vcpu, false);
}

static void exit_wrmsr(struct vcpu *vcpu)
{
	vcpu->exits[VCPU_EXIT_MSR_WRITE]++;
	exit_msr(vcpu, true);
}

static void exit_hlt(struct vcpu *vcpu)
{
	/* Only without an in-kernel LAPIC; kept for completeness. */
	vcpu->exits[VCPU_EXIT_HLT]++;
}

static void exit_shutdown(struct vcpu *vcpu)
{
	vcpu->exits[VCPU_EXIT_SHUTDOWN]++;
	pr_err("vCPU %d: guest triple fault (shutdown)", vcpu->id);
	vcpu_dump_trail(vcpu);
	vcpu_dump_and_stop(vcpu, VM_STOP_TRIPLE_FAULT);
}

static void exit_system_event(struct vcpu *vcpu)
{
	uint32_t type = vcpu->run->system_event.type;

	vcpu->exits[VCPU_EXIT_SYSTEM_EVENT]++;
	if (type == KVM_SYSTEM_EVENT_SHUTDOWN) {
		vm_stop(vcpu->vm, VM_STOP_SHUTDOWN_EVENT);
	} else {
		pr_err("vCPU %d: guest requested a reset (system event %u)", vcpu->id, type);
		vm_stop(vcpu->vm, VM_STOP_RESET);
	}
}

static void exit_internal_error(struct vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;
	uint32_t i;

	vcpu->exits[VCPU_EXIT_INTERNAL_ERROR]++;
	pr_err("vCPU %d: KVM internal error, suberror %u%s", vcpu->id,
	       run->internal.suberror,
	       run->internal.suberror == KVM_INTERNAL_ERROR_EMULATION ?
	       " (instruction emulation failed)" : "");
	for (i = 0; i < run->internal.ndata && i < 16; i++)
		pr_err("  data[%u] = 0x%llx", i, (unsigned long long)run->internal.data[i]);
	vcpu_dump_and_stop(vcpu, VM_STOP_KVM_ERROR);
}

static void exit_fail_entry(struct vcpu *vcpu)
{
	vcpu->exits[VCPU_EXIT_INTERNAL_ERROR]++;
	pr_err("vCPU %d: KVM failed to enter the guest (hardware reason 0x%llx)", vcpu->id,
	       (unsigned long long)vcpu->run->fail_entry.hardware_entry_failure_reason);
	vcpu_dump_and_stop(vcpu, VM_STOP_KVM_ERROR);
}

/*
 * KVM_EXIT_DEBUG: a feature's single step or breakpoint, else one no
 * feature caused (guest_debug.c): no guest can end pmuvm with one.
 */
static void exit_debug(struct vcpu *vcpu)
{
	const struct kvm_debug_exit_arch *a = &vcpu->run->debug.arch;
	unsigned int i;
	int r;

	vcpu->exits[VCPU_EXIT_DEBUG]++;
	for (i = 0; i < vcpu->nr_features; i++)
		if (vcpu->features[i]->debug_exit && vcpu->features[i]->debug_exit(vcpu))
			return;
	r = guest_debug_stray_exit(vcpu);
	if (r == 0)
		return;
	pr_err("vCPU %d: debug exit pmuvm could not pass on (%s; exception %u, pc %#llx, dr6 %#llx, dr7 %#llx)",
	       vcpu->id, strerror(-r), a->exception, (unsigned long long)a->pc,
	       (unsigned long long)a->dr6, (unsigned long long)a->dr7);
	vcpu_dump_and_stop(vcpu, VM_STOP_KVM_ERROR);
}

static const vcpu_exit_fn exit_handlers[] = {
	[KVM_EXIT_IO] = exit_io,
	[KVM_EXIT_MMIO] = exit_mmio,
	[KVM_EXIT_X86_RDMSR] = exit_rdmsr,
	[KVM_EXIT_X86_WRMSR] = exit_wrmsr,
	[KVM_EXIT_HLT] = exit_hlt,
	[KVM_EXIT_SHUTDOWN] = exit_shutdown,
	[KVM_EXIT_SYSTEM_EVENT] = exit_system_event,
	[KVM_EXIT_INTERNAL_ERROR] = exit_internal_error,
	[KVM_EXIT_FAIL_ENTRY] = exit_fail_entry,
	[KVM_EXIT_DEBUG] = exit_debug,
};

static int vcpu_set_signal_mask(struct vcpu *vcpu)
{
	/* The kernel's sigset_t is 64 bits, after the header's len. */
	union {
		struct kvm_signal_mask hdr;
		uint8_t room[sizeof(struct kvm_signal_mask) + 8];
	} m;
	sigset_t set;

	pthread_sigmask(SIG_SETMASK, NULL, &set);
	sigdelset(&set, VCPU_KICK_SIGNAL);
	m.hdr.len = 8;
	memcpy(m.hdr.sigset, &set, 8);
	if (ioctl(vcpu->fd, KVM_SET_SIGNAL_MASK, &m) < 0) {
		pr_err("KVM_SET_SIGNAL_MASK: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

/*
 * KVM unblocks the kick only inside KVM_RUN and restores the thread's mask
 * before returning, so the signal that interrupted it is still pending and
 * blocked: left there it would make every later KVM_RUN return EINTR at
 * once.  Consume it, as QEMU's kvm_eat_signals() does.
 */
static void vcpu_eat_kicks(void)
{
	static const struct timespec zero;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, VCPU_KICK_SIGNAL);
	while (sigtimedwait(&set, NULL, &zero) >= 0)
		;
}

/*
 * Benchmark-only (make bench): PMUVM_BENCH_TIMING=1 (cfg->bench_timing) sums
 * the wall time spent inside KVM_RUN and between two KVM_RUNs (pmuvm's own
 * work per exit: handlers, sources, PMI delivery) into the report's
 * vcpus[].debug.bench object.
 */
static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The calling thread's CPU time: what the clock source counts cycles from. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* One exit into the ring vcpu_dump_trail() prints; only with sync regs. */
static void vcpu_trail_note(struct vcpu *vcpu)
{
	const struct kvm_sync_regs *s = &vcpu->run->s.regs;
	struct vcpu_trail *t;

	if (!vcpu->sync_sregs)
		return;
	t = &vcpu->trail[vcpu->trail_n++ % VCPU_TRAIL_LEN];
	t->rip = s->regs.rip;
	t->rsp = s->regs.rsp;
	t->cr3 = s->sregs.cr3;
	t->cs = s->sregs.cs.selector;
	t->run_result = vcpu->run_result;
	t->exit_reason = vcpu->run->exit_reason;
}

static int vcpu_thread_start(struct vcpu *vcpu)
{
	unsigned int i;
	int r;

	for (i = 0; i < vcpu->nr_features; i++) {
		if (!vcpu->features[i]->thread_start)
			continue;
		r = vcpu->features[i]->thread_start(vcpu);
		if (r)
			return r;
	}
	return 0;
}

static void vcpu_thread_stop(struct vcpu *vcpu)
{
	unsigned int i;

	for (i = vcpu->nr_features; i-- > 0;)
		if (vcpu->features[i]->thread_stop)
			vcpu->features[i]->thread_stop(vcpu);
}

static void vcpu_before_run(struct vcpu *vcpu)
{
	unsigned int i;

	for (i = 0; i < vcpu->nr_before_run; i++)
		vcpu->before_run[i](vcpu);
}

static void vcpu_after_run(struct vcpu *vcpu)
{
	unsigned int i;

	for (i = 0; i < vcpu->nr_after_run; i++)
		vcpu->after_run[i](vcpu);
}

void *vcpu_thread(void *arg)
{
	struct vcpu *vcpu = arg;
	struct vm *vm = vcpu->vm;
	bool timing = vm->cfg->bench_timing;
	uint64_t t_in = 0, t_out = 0;

	if (vcpu_set_signal_mask(vcpu) || vcpu_thread_start(vcpu)) {
		vm_stop(vm, VM_STOP_HOST_ERROR);
		return NULL;
	}
	while (!vm_stopping(vm)) {
		uint32_t reason;
		int r;

		vcpu_before_run(vcpu);
		if (timing) {
			t_in = mono_ns();
			vcpu->bench_vmm_ns += t_out ? t_in - t_out : 0;
		}
		/*
		 * The clock source's cycles: the ioctl's CPU time alone, not
		 * pmuvm's own work around it (run hooks, stepping, decoding).
		 */
		if (vcpu->time_run)
			vcpu->run_cpu_ns = thread_cpu_ns();
		r = ioctl(vcpu->fd, KVM_RUN, 0);
		vcpu->run_result = r < 0 ? -errno : 0;
		if (vcpu->time_run)
			vcpu->run_cpu_ns = thread_cpu_ns() - vcpu->run_cpu_ns;
		vcpu_trail_note(vcpu);
		if (timing) {
			t_out = mono_ns();
			vcpu->bench_run_ns += t_out - t_in;
		}
		vcpu_after_run(vcpu);
		if (r < 0) {
			errno = -vcpu->run_result;
			if (errno == EINTR || errno == EAGAIN) {
				vcpu_eat_kicks();
				vcpu->exits[VCPU_EXIT_INTR]++;
				continue;
			}
			pr_err("vCPU %d: KVM_RUN: %s", vcpu->id, strerror(errno));
			vm_stop(vm, VM_STOP_KVM_ERROR);
			break;
		}
		reason = vcpu->run->exit_reason;
		if (reason == KVM_EXIT_INTR) {
			vcpu_eat_kicks();
			vcpu->exits[VCPU_EXIT_INTR]++;
			continue;
		}
		if (reason < sizeof(exit_handlers) / sizeof(exit_handlers[0]) &&
		    exit_handlers[reason]) {
			exit_handlers[reason](vcpu);
			continue;
		}
		vcpu->exits[VCPU_EXIT_OTHER]++;
		pr_err("vCPU %d: unexpected KVM exit reason %u", vcpu->id, reason);
		vcpu_dump_and_stop(vcpu, VM_STOP_KVM_ERROR);
	}
	/* Where a hung guest was is the first thing to ask; -v tells. */
	if (log_verbosity > 0 &&
	    __atomic_load_n(&vm->stop_reason, __ATOMIC_ACQUIRE) == VM_STOP_TIMEOUT)
		vcpu_dump_regs(vcpu);
	vcpu_thread_stop(vcpu);
	return NULL;
}

bool vm_stopping(struct vm *vm)
{
	return __atomic_load_n(&vm->stop_reason, __ATOMIC_ACQUIRE) != VM_RUNNING;
}

/* vmm/exitcode.h; value: the guest's debug-exit value or the signal. */
static int vm_stop_status(enum vm_stop_reason reason, uint32_t value)
{
	switch (reason) {
	case VM_STOP_DEBUG_EXIT:
		return (int)(((value << 1) | 1) & 0xff);
	case VM_STOP_SHUTDOWN_EVENT:
	case VM_STOP_POWEROFF:
		return PMUVM_EXIT_OK;
	case VM_STOP_TRIPLE_FAULT:
	case VM_STOP_RESET:
		return PMUVM_EXIT_TRIPLE_FAULT;
	case VM_STOP_TIMEOUT:
		return PMUVM_EXIT_TIMEOUT;
	case VM_STOP_HOST_ERROR:
		return PMUVM_EXIT_HOST_ERROR;
	case VM_STOP_SIGNAL:
		return PMUVM_EXIT_SIGNAL_BASE + (int)value;
	case VM_STOP_KVM_ERROR:
	default:
		return PMUVM_EXIT_KVM_ERROR;
	}
}

static void vm_stop_value(struct vm *vm, enum vm_stop_reason reason, uint32_t value)
{
	unsigned int i;

	pthread_mutex_lock(&vm->stop_lock);
	if (vm->stop_reason == VM_RUNNING) {
		vm->debug_exit_value = reason == VM_STOP_DEBUG_EXIT ? value : 0;
		vm->stop_signal = reason == VM_STOP_SIGNAL ? (int)value : 0;
		vm->exit_status = vm_stop_status(reason, value);
		clock_gettime(CLOCK_MONOTONIC, &vm->stop_time);
		__atomic_store_n(&vm->stop_reason, reason, __ATOMIC_RELEASE);
		pthread_cond_broadcast(&vm->stop_cond);
	}
	pthread_mutex_unlock(&vm->stop_lock);
	for (i = 0; i < vm->nr_vcpus; i++)
		if (!pthread_equal(vm->vcpus[i].thread, pthread_self()))
			vcpu_kick(&vm->vcpus[i]);
}

void vm_stop(struct vm *vm, enum vm_stop_reason reason)
{
	vm_stop_value(vm, reason, 0);
}

void vm_stop_debug_exit(struct vm *vm, uint32_t value)
{
	vm_stop_value(vm, VM_STOP_DEBUG_EXIT, value);
}

void vm_signal(struct vm *vm, int sig)
{
	pthread_mutex_lock(&vm->stop_lock);
	if (!vm->signal_pending)
		vm->signal_pending = sig;
	pthread_cond_broadcast(&vm->stop_cond);
	pthread_mutex_unlock(&vm->stop_lock);
}

static void kick_handler(int sig)
{
	(void)sig;
}

static struct timespec ts_add(struct timespec t, double s)
{
	double whole = floor(s);

	t.tv_sec += (time_t)whole;
	t.tv_nsec += (long)((s - whole) * 1e9);
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

static bool ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/*
 * Until the guest stops, --timeout expires or a stop signal comes; the tick
 * (progress) runs here, in this one thread, between the waits.
 */
static int vm_wait(struct vm *vm)
{
	bool timed = vm->cfg->timeout_s > 0, ticking = vm->tick && vm->tick_period_s > 0;
	struct timespec deadline = vm->start_time, next_tick = vm->start_time, now;
	bool timed_out = false;
	int sig;

	if (timed)
		deadline = ts_add(deadline, vm->cfg->timeout_s);
	if (ticking)
		next_tick = ts_add(next_tick, vm->tick_period_s);
	pthread_mutex_lock(&vm->stop_lock);
	while (vm->stop_reason == VM_RUNNING && !vm->signal_pending && !timed_out) {
		const struct timespec *until = timed && (!ticking || ts_before(&deadline, &next_tick)) ?
					       &deadline : &next_tick;

		if (!timed && !ticking) {
			pthread_cond_wait(&vm->stop_cond, &vm->stop_lock);
			continue;
		}
		if (pthread_cond_timedwait(&vm->stop_cond, &vm->stop_lock, until) != ETIMEDOUT)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (timed && !ts_before(&now, &deadline)) {
			timed_out = true;
		} else if (ticking && !ts_before(&now, &next_tick)) {
			pthread_mutex_unlock(&vm->stop_lock);
			vm->tick(vm);
			pthread_mutex_lock(&vm->stop_lock);
			while (!ts_before(&now, &next_tick))
				next_tick = ts_add(next_tick, vm->tick_period_s);
		}
	}
	sig = vm->signal_pending;
	pthread_mutex_unlock(&vm->stop_lock);
	if (sig)
		vm_stop_value(vm, VM_STOP_SIGNAL, (uint32_t)sig);
	if (timed_out) {
		pr_err("guest still running after --timeout %g s; stopping it", vm->cfg->timeout_s);
		vm_stop(vm, VM_STOP_TIMEOUT);
	}
	return 0;
}

void vm_stop_init(struct vm *vm)
{
	pthread_condattr_t ca;

	pthread_mutex_init(&vm->stop_lock, NULL);
	/* vm_wait()'s deadlines are CLOCK_MONOTONIC times, not wall-clock ones. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&vm->stop_cond, &ca);
	pthread_condattr_destroy(&ca);
}

int vm_run(struct vm *vm)
{
	struct sigaction sa = { .sa_handler = kick_handler };
	sigset_t set;
	unsigned int i;

	sigemptyset(&sa.sa_mask);
	sigaction(VCPU_KICK_SIGNAL, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, VCPU_KICK_SIGNAL);
	pthread_sigmask(SIG_BLOCK, &set, NULL);	/* inherited by the vCPU threads */

	clock_gettime(CLOCK_MONOTONIC, &vm->start_time);
	for (i = 0; i < vm->nr_vcpus; i++) {
		struct vcpu *vcpu = &vm->vcpus[i];
		int e = pthread_create(&vcpu->thread, NULL, vcpu_thread, vcpu);

		if (e) {
			pr_err("cannot start vCPU %u's thread: %s", i, strerror(e));
			vm_stop(vm, VM_STOP_HOST_ERROR);
			break;
		}
		vcpu->thread_started = true;
	}
	vm_wait(vm);
	for (i = 0; i < vm->nr_vcpus; i++) {
		if (vm->vcpus[i].thread_started)
			pthread_join(vm->vcpus[i].thread, NULL);
		vm->vcpus[i].thread_started = false;
	}
	return vm->exit_status;
}
