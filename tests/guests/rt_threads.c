/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rt_threads: the guest runtime's allocator, threads, scheduler, cross-CPU
 * calls, spinlocks and CPL3 tasks with system calls (rt/alloc.h,
 * rt/thread.h, rt/smp.h, rt/syscall.h).  Runs on 1 CPU, and with 2 also
 * the cross-CPU parts.  Each part prints "ok - rt NAME"; parts that need
 * a second CPU print "skip - rt NAME" with one.
 *
 * Preemption is shown without timing asserts: a CPL3 thread spins until a
 * thread of the same CPU created after it sets a flag, which can only
 * happen if the timer takes the CPU away from the spinner.
 */
#include <rt.h>

#define SLEEP_TSC	20000000ull	/* ~8 ms at 2.5 GHz: a couple of ticks */
#define YIELDS		20
#define LOCK_ITERS_K	5000		/* emulated CPL0: keep it short */
#define LOCK_ITERS_U	500000		/* CPL3 runs natively */
#define SYS_TEST	RT_SYS_FIRST_FREE

static void skip(const char *name)
{
	printf("skip - %s (needs 2 cpus)\n", name);
}

static uint64_t user_double(uint64_t x);

/* ---- allocator ------------------------------------------------------- */

/* Each AP started holds its kernel and user stacks from the heap (rt/alloc.h). */
#define AP_STACKS_BYTES	(RT_STACK_SIZE + RT_USER_STACK_SIZE + 2 * RT_ALLOC_HDR_SIZE)

static void test_alloc(int online)
{
	static void *chunks[512];
	size_t free0 = rt_alloc_free_bytes(), big = 8u << 20;
	size_t aligns[] = { 0, 16, 64, 4096, 1u << 20 };
	unsigned char *p, *q;
	int n = 0;

	GUEST_ASSERT(free0 > 0);
	GUEST_ASSERT_EQ(rt_alloc_heap_size() - free0, (uint64_t)(online - 1) * AP_STACKS_BYTES);
	for (unsigned i = 0; i < sizeof(aligns) / sizeof(aligns[0]); i++) {
		size_t a = aligns[i] ? aligns[i] : 16;

		p = rt_alloc(100, aligns[i]);
		GUEST_ASSERT(p);
		GUEST_ASSERT_EQ((uint64_t)p % a, 0);
		chunks[i] = p;
	}
	GUEST_ASSERT(!rt_alloc(64, 48));		/* not a power of two */
	for (unsigned i = 0; i < sizeof(aligns) / sizeof(aligns[0]); i++)
		rt_free(chunks[i]);
	GUEST_ASSERT_EQ(rt_alloc_free_bytes(), free0);
	test_ok("rt alloc alignment");

	/* freed memory is reused, and rt_zalloc clears what it reuses */
	p = rt_alloc(256, 0);
	GUEST_ASSERT(p);
	memset(p, 0xa5, 256);
	rt_free(p);
	q = rt_zalloc(256, 0);
	GUEST_ASSERT_EQ((uint64_t)q, (uint64_t)p);
	for (int i = 0; i < 256; i++)
		GUEST_ASSERT_EQ(q[i], 0);
	rt_free(q);
	test_ok("rt alloc reuse and zeroing");

	/* exhaustion: NULL, and everything comes back merged */
	GUEST_ASSERT(!rt_alloc(free0 + 1, 0));
	while (n < 512 && (chunks[n] = rt_alloc(big, 0)))
		n++;
	GUEST_ASSERT(n > 0 && n < 512);
	GUEST_ASSERT(rt_alloc_free_bytes() < big + 64);
	for (int i = n - 1; i >= 0; i -= 2)	/* out of order: merge both ways */
		rt_free(chunks[i]);
	for (int i = n - 2; i >= 0; i -= 2)
		rt_free(chunks[i]);
	GUEST_ASSERT_EQ(rt_alloc_free_bytes(), free0);
	p = rt_alloc(free0 - 4096, 0);		/* one block again */
	GUEST_ASSERT(p);
	rt_free(p);
	printf("alloc: %d chunks of 8 MiB before exhaustion\n", n);
	test_ok("rt alloc exhaustion");

	/* fault injection: exactly the (n+1)-th fails, once */
	rt_alloc_fail_after(2);
	chunks[0] = rt_alloc(32, 0);
	chunks[1] = rt_zalloc(32, 0);
	GUEST_ASSERT(chunks[0] && chunks[1]);
	GUEST_ASSERT(!rt_alloc(32, 0));
	chunks[2] = rt_alloc(32, 0);
	GUEST_ASSERT(chunks[2]);
	rt_alloc_fail_after(0);
	GUEST_ASSERT(!rt_zalloc(32, 0));
	rt_alloc_fail_after(1);
	rt_alloc_fail_after(-1);
	chunks[3] = rt_alloc(32, 0);
	chunks[4] = rt_alloc(32, 0);
	GUEST_ASSERT(chunks[3] && chunks[4]);
	for (int i = 0; i < 5; i++)
		rt_free(chunks[i]);
	GUEST_ASSERT_EQ(rt_alloc_free_bytes(), free0);
	test_ok("rt alloc fault injection");
}

/* ---- switch hook ----------------------------------------------------- */

#define MAX_SWITCHES	4096

static struct sw_rec {
	struct rt_thread *prev, *next;
	int prev_waiting;
	uint32_t prev_reason;
} sw_log[RT_MAX_CPUS][MAX_SWITCHES];
static int sw_count[RT_MAX_CPUS];
static int sw_bad_irq, sw_bad_current;

static void switch_hook(struct rt_thread *prev, struct rt_thread *next)
{
	int cpu = rt_cpu_id();
	int n = sw_count[cpu];

	if (read_rflags() & RFLAGS_IF)
		sw_bad_irq++;
	if (prev != rt_thread_current() || prev == next || rt_thread_cpu(next) != cpu)
		sw_bad_current++;
	if (n < MAX_SWITCHES)
		sw_log[cpu][n] = (struct sw_rec){ prev, next, rt_thread_is_waiting(prev),
						  rt_thread_wait_reason(prev) };
	sw_count[cpu] = n + 1;
}

/* Each CPU's log is a chain: who was switched to is who is switched from. */
static void check_switch_log(void)
{
	GUEST_ASSERT_EQ(sw_bad_irq, 0);
	GUEST_ASSERT_EQ(sw_bad_current, 0);
	for (int cpu = 0; cpu < rt_nr_cpus(); cpu++) {
		int n = sw_count[cpu] < MAX_SWITCHES ? sw_count[cpu] : MAX_SWITCHES;

		for (int i = 1; i < n; i++)
			GUEST_ASSERT(sw_log[cpu][i].prev == sw_log[cpu][i - 1].next);
	}
}

/* The wait reason @t had each time it was switched out blocked: all @want. */
static int blocked_switches(int cpu, struct rt_thread *t, uint32_t want)
{
	int n = 0;

	for (int i = 0; i < sw_count[cpu] && i < MAX_SWITCHES; i++) {
		if (sw_log[cpu][i].prev != t || !sw_log[cpu][i].prev_waiting)
			continue;
		GUEST_ASSERT_EQ(sw_log[cpu][i].prev_reason, want);
		n++;
	}
	return n;
}

/*
 * The hook saw @t leave the CPU after it last came in: a joined thread's
 * final switch-out (where ntpmu saves its counters) precedes the join.
 */
static bool switched_out_last(int cpu, struct rt_thread *t)
{
	int last_in = -1, last_out = -1;

	for (int i = 0; i < sw_count[cpu] && i < MAX_SWITCHES; i++) {
		if (sw_log[cpu][i].next == t)
			last_in = i;
		if (sw_log[cpu][i].prev == t)
			last_out = i;
	}
	return last_in >= 0 && last_out > last_in;
}

static bool switched_in(int cpu, struct rt_thread *t)
{
	for (int i = 0; i < sw_count[cpu] && i < MAX_SWITCHES; i++)
		if (sw_log[cpu][i].next == t)
			return true;
	return false;
}

/* ---- kernel threads on one CPU --------------------------------------- */

static volatile int yield_count[3];

static void yielder(void *arg)
{
	int i = (int)(uint64_t)arg;

	for (int k = 0; k < YIELDS; k++) {
		yield_count[i]++;
		rt_yield();
	}
}

static void test_threads_yield(void)
{
	struct rt_thread *t[3];
	struct rt_thread *main_t = rt_thread_current();
	uint64_t t0 = rdtsc(), elapsed, sum = 0;

	for (int i = 0; i < 3; i++) {
		t[i] = rt_thread_create(yielder, (void *)(uint64_t)i, -1, "yielder");
		GUEST_ASSERT(t[i]);
		GUEST_ASSERT_EQ(rt_thread_cpu(t[i]), rt_cpu_id());
	}
	GUEST_ASSERT(rt_thread_id(t[1]) == rt_thread_id(t[0]) + 1);
	GUEST_ASSERT(rt_thread_id(t[2]) == rt_thread_id(t[1]) + 1);
	for (int i = 0; i < 3; i++)
		rt_thread_join(t[i]);
	elapsed = rdtsc() - t0;
	for (int i = 0; i < 3; i++) {
		GUEST_ASSERT_EQ(yield_count[i], YIELDS);
		/*
		 * Round robin: while all three run, each yield hands the CPU
		 * to another yielder, so each is switched in after every yield
		 * but its last few; the first start counts too.
		 */
		GUEST_ASSERT(rt_thread_context_switches(t[i]) >= YIELDS - 2);
		GUEST_ASSERT(rt_thread_cycle_time(t[i]) > 0);
		sum += rt_thread_cycle_time(t[i]);
		GUEST_ASSERT(switched_in(0, t[i]));
		GUEST_ASSERT(switched_out_last(0, t[i]));
		GUEST_ASSERT_EQ(rt_thread_wait_reason(t[i]), RT_WAIT_NONE);
		GUEST_ASSERT(!rt_thread_is_waiting(t[i]));
	}
	/* they shared one CPU with main: together no more than the wall time */
	GUEST_ASSERT(sum <= elapsed);
	GUEST_ASSERT(sw_count[0] > 0 && sw_log[0][0].prev == main_t);
	printf("yield: switches %u %u %u\n", rt_thread_context_switches(t[0]),
	       rt_thread_context_switches(t[1]), rt_thread_context_switches(t[2]));
	test_ok("rt threads yield and join");
}

/* Creation fails cleanly when the allocator does, without leaking. */
static void test_create_fails(void)
{
	size_t free0 = rt_alloc_free_bytes();

	for (int n = 0; n < 2; n++) {	/* the struct, then the kernel stack */
		rt_alloc_fail_after(n);
		GUEST_ASSERT(!rt_thread_create(yielder, NULL, -1, "nomem"));
		GUEST_ASSERT_EQ(rt_alloc_free_bytes(), free0);
	}
	for (int n = 0; n < 3; n++) {	/* ... then the user stack */
		rt_alloc_fail_after(n);
		GUEST_ASSERT(!rt_thread_create_user(user_double, 0, -1, "nomem"));
		GUEST_ASSERT_EQ(rt_alloc_free_bytes(), free0);
	}
	rt_alloc_fail_after(-1);
	GUEST_ASSERT(!rt_thread_create(yielder, NULL, rt_nr_cpus(), "nocpu"));
	test_ok("rt thread creation without memory");
}

/* ---- sleep and wait reasons ------------------------------------------ */

struct sleep_arg {
	volatile int done;
	uint64_t slept;
	struct rt_thread *main;
	uint32_t main_reason;
	int main_waiting;
};

static void sleeper(void *p)
{
	struct sleep_arg *a = p;
	uint64_t t0 = rdtsc();

	/* main is blocked in rt_thread_join(this) by now or soon: wait for it */
	while (!rt_thread_is_waiting(a->main))
		rt_yield();
	a->main_reason = rt_thread_wait_reason(a->main);
	a->main_waiting = rt_thread_is_waiting(a->main);
	rt_thread_sleep_ticks(SLEEP_TSC);
	a->slept = rdtsc() - t0;
	a->done = 1;
}

static volatile uint64_t busy_loops;

/* Busy in CPL0 without yielding: runs while the sleeper sleeps. */
static void busy_kernel(void *p)
{
	struct sleep_arg *a = p;

	while (!a->done)
		busy_loops++;
}

static void test_sleep(void)
{
	static struct sleep_arg a;
	struct rt_thread *s, *b;

	a.main = rt_thread_current();
	s = rt_thread_create(sleeper, &a, -1, "sleeper");
	b = rt_thread_create(busy_kernel, &a, -1, "busy");
	GUEST_ASSERT(s && b);
	rt_thread_join(s);
	rt_thread_join(b);
	GUEST_ASSERT(a.slept >= SLEEP_TSC);
	GUEST_ASSERT(busy_loops > 0);
	GUEST_ASSERT_EQ(a.main_reason, RT_WAIT_EXECUTIVE);
	GUEST_ASSERT_EQ(a.main_waiting, 1);
	/* the switch hook saw the sleeper leave blocked once, for its sleep */
	GUEST_ASSERT_EQ(blocked_switches(0, s, RT_WAIT_DELAY_EXECUTION), 1);
	GUEST_ASSERT(blocked_switches(0, a.main, RT_WAIT_EXECUTIVE) >= 2);
	GUEST_ASSERT_EQ(blocked_switches(0, b, 0), 0);
	GUEST_ASSERT_EQ(rt_thread_wait_reason(s), RT_WAIT_NONE);
	GUEST_ASSERT_EQ(rt_thread_wait_reason(rt_thread_current()), RT_WAIT_NONE);
	/* busy never yields: only the tick can have let the sleeper finish */
	GUEST_ASSERT(rt_thread_context_switches(b) >= 2);
	GUEST_ASSERT(rt_sched_ticks(0) > 0);
	test_ok("rt sleep, wait reasons, kernel preemption");
}

/* ---- CPL3 threads, preemption, system calls -------------------------- */

static volatile int user_flag, spin_started;

static uint64_t user_spinner(uint64_t arg)
{
	uint64_t n = 0;

	spin_started = 1;
	while (!user_flag)
		n++;
	return arg + (n > 0);
}

/* The spinner may be preempted before it reaches CPL3: wait for it. */
static void set_flag(void *arg)
{
	(void)arg;
	while (!spin_started)
		rt_yield();
	user_flag = 1;
}

static void test_user_preempt(int cpu, const char *name)
{
	struct rt_thread *u, *k;
	uint64_t t0 = rdtsc();

	user_flag = 0;
	spin_started = 0;
	u = rt_thread_create_user(user_spinner, 41, cpu, "spinner");
	k = rt_thread_create(set_flag, NULL, cpu, "setter");
	GUEST_ASSERT(u && k);
	rt_thread_join(u);
	rt_thread_join(k);
	GUEST_ASSERT_EQ(rt_thread_result(u), 42);
	GUEST_ASSERT(rt_thread_context_switches(u) >= 2);
	GUEST_ASSERT(rt_thread_cycle_time(u) > 0);
	GUEST_ASSERT(rt_thread_cycle_time(u) <= rdtsc() - t0);
	GUEST_ASSERT(switched_in(cpu, u) && switched_in(cpu, k));
	test_ok(name);
}

static uint64_t sys_test(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
	/* a system call runs at CPL0 on the caller's CPU */
	GUEST_ASSERT_EQ(read_cs() & 3, 0);
	return a0 + a1 * a2 + (a3 << 32);
}

/* Returns 0 on success, else the number of the first check that failed. */
static uint64_t user_sys(uint64_t cpu)
{
	uint64_t t0;

	if ((read_cs() & 3) != 3)
		return 1;
	if (rt_syscall(SYS_TEST, 1, 2, 3, 4) != 1 + 2 * 3 + (4ull << 32))
		return 2;
	if (rt_syscall(RT_NR_SYSCALLS - 1, 0, 0, 0, 0) != RT_ENOSYS)
		return 3;
	if (rt_syscall(1000, 0, 0, 0, 0) != RT_ENOSYS)
		return 4;
	if (rt_syscall(RT_SYS_CPU_ID, 0, 0, 0, 0) != cpu)
		return 5;
	t0 = rdtsc();
	if (rt_syscall(RT_SYS_SLEEP_TICKS, SLEEP_TSC, 0, 0, 0) != 0 || rdtsc() - t0 < SLEEP_TSC)
		return 6;
	if (rt_syscall(RT_SYS_YIELD, 0, 0, 0, 0) != 0)
		return 7;
	if ((read_cs() & 3) != 3)
		return 8;
	/* GS base stays the kernel's per-CPU pointer at CPL3 (rt/usermode.h) */
	if (rt_cpu_id() != (int)cpu || rt_this_cpu() != rt_cpu((int)cpu))
		return 9;
	return 0;
}

static uint64_t user_tid(uint64_t arg)
{
	(void)arg;
	return rt_syscall(RT_SYS_THREAD_ID, 0, 0, 0, 0);
}

static void test_syscalls(void)
{
	struct rt_thread *u[4];
	int n = rt_nr_cpus() > 1 ? 2 : 1;

	GUEST_ASSERT_EQ(rt_syscall_register(SYS_TEST, sys_test), 0);
	GUEST_ASSERT_EQ(rt_syscall_register(RT_NR_SYSCALLS, sys_test), -22);
	/* from CPL0 the gate works the same */
	GUEST_ASSERT_EQ(rt_syscall(SYS_TEST, 5, 6, 7, 0), 47);
	for (int c = 0; c < n; c++) {
		u[2 * c] = rt_thread_create_user(user_sys, (uint64_t)c, c, "usys");
		u[2 * c + 1] = rt_thread_create_user(user_tid, 0, c, "utid");
		GUEST_ASSERT(u[2 * c] && u[2 * c + 1]);
	}
	for (int i = 0; i < 2 * n; i++)
		rt_thread_join(u[i]);
	for (int c = 0; c < n; c++) {
		GUEST_ASSERT_EQ(rt_thread_result(u[2 * c]), 0);
		GUEST_ASSERT_EQ(rt_thread_result(u[2 * c + 1]), rt_thread_id(u[2 * c + 1]));
	}
	test_ok("rt user threads and syscalls");
}

/* rt_run_user (rt/usermode.h) from main and from a kernel thread */
static uint64_t user_double(uint64_t x)
{
	return 2 * x + ((read_cs() & 3) == 3);
}

static void run_user_in_thread(void *arg)
{
	uint64_t *out = arg;

	*out = rt_run_user(user_double, 50);
}

static void test_run_user(void)
{
	static uint64_t r;
	struct rt_thread *t;

	GUEST_ASSERT_EQ(rt_run_user(user_double, 20), 41);
	t = rt_thread_create(run_user_in_thread, &r, -1, "runuser");
	GUEST_ASSERT(t);
	rt_thread_join(t);
	GUEST_ASSERT_EQ(r, 101);
	test_ok("rt run_user with the scheduler");
}

/* ---- cross-CPU ------------------------------------------------------- */

static volatile uint64_t each_mask;
static volatile int each_irq_on;

static void mark_cpu(void *arg)
{
	(void)arg;
	if (read_rflags() & RFLAGS_IF)
		each_irq_on = 1;
	__atomic_or_fetch(&each_mask, 1ull << rt_cpu_id(), __ATOMIC_RELAXED);
}

static uint64_t all_cpus_mask(void)
{
	return rt_nr_cpus() >= 64 ? ~0ull : (1ull << rt_nr_cpus()) - 1;
}

static void each_then_flag(void *arg)
{
	(void)arg;
	while (!spin_started)
		rt_yield();
	each_mask = 0;
	rt_on_each_cpu(mark_cpu, NULL);
	user_flag = 1;
}

static void test_on_each_cpu(void)
{
	struct rt_thread *u, *k;

	each_mask = 0;
	rt_on_each_cpu(mark_cpu, NULL);
	GUEST_ASSERT_EQ(each_mask, all_cpus_mask());
	GUEST_ASSERT_EQ(each_irq_on, 0);
	if (rt_nr_cpus() < 2) {
		test_ok("rt on_each_cpu");
		return;
	}
	/*
	 * From CPU 1 while CPU 0 spins at CPL3 and main is blocked: the
	 * wake-up IPI must run the work on top of the spinning thread.
	 */
	user_flag = 0;
	spin_started = 0;
	u = rt_thread_create_user(user_spinner, 1, 0, "spinner0");
	k = rt_thread_create(each_then_flag, NULL, 1, "each1");
	GUEST_ASSERT(u && k);
	rt_thread_join(k);
	rt_thread_join(u);
	GUEST_ASSERT_EQ(each_mask, all_cpus_mask());
	GUEST_ASSERT_EQ(each_irq_on, 0);
	GUEST_ASSERT_EQ(rt_thread_result(u), 2);
	test_ok("rt on_each_cpu");
}

/*
 * Kernel and user threads use a lock each: a thread spinning with
 * interrupts off (irqsave) would wait forever for a preempted holder on
 * its own CPU (rt/spinlock.h).
 */
static struct spinlock count_lock, ucount_lock;
static volatile uint64_t locked_count, ulocked_count;

static void kernel_incr(void *arg)
{
	int irqsave = (int)(uint64_t)arg;

	for (int i = 0; i < LOCK_ITERS_K; i++) {
		if (irqsave) {
			uint64_t f = spin_lock_irqsave(&count_lock);

			locked_count = locked_count + 1;
			spin_unlock_irqrestore(&count_lock, f);
			GUEST_ASSERT(read_rflags() & RFLAGS_IF);
		} else {
			spin_lock(&count_lock);
			locked_count = locked_count + 1;
			spin_unlock(&count_lock);
		}
	}
}

static uint64_t user_incr(uint64_t arg)
{
	(void)arg;
	for (int i = 0; i < LOCK_ITERS_U; i++) {
		spin_lock(&ucount_lock);
		ulocked_count = ulocked_count + 1;
		spin_unlock(&ucount_lock);
	}
	return 0;
}

static void test_spinlock(void)
{
	struct rt_thread *t[4];

	if (rt_nr_cpus() < 2) {
		skip("rt spinlock contention");
		return;
	}
	locked_count = 0;
	ulocked_count = 0;
	t[0] = rt_thread_create(kernel_incr, (void *)1, 0, "incr0");
	t[1] = rt_thread_create(kernel_incr, (void *)0, 1, "incr1");
	t[2] = rt_thread_create_user(user_incr, 0, 0, "uincr0");
	t[3] = rt_thread_create_user(user_incr, 0, 1, "uincr1");
	for (int i = 0; i < 4; i++) {
		GUEST_ASSERT(t[i]);
		rt_thread_join(t[i]);
	}
	GUEST_ASSERT_EQ(locked_count, 2ull * LOCK_ITERS_K);
	GUEST_ASSERT_EQ(ulocked_count, 2ull * LOCK_ITERS_U);
	test_ok("rt spinlock contention");
}

/* threads on both CPUs, joined from CPU 0 and from CPU 1 */
static volatile int cpu_of[4];

static void where(void *arg)
{
	cpu_of[(uint64_t)arg] = rt_cpu_id();
	rt_yield();
	rt_thread_sleep_ticks(SLEEP_TSC);
}

static void join_from_cpu1(void *arg)
{
	rt_thread_join(arg);
}

static void test_two_cpus(void)
{
	struct rt_thread *t[4], *j;

	if (rt_nr_cpus() < 2) {
		skip("rt threads on 2 cpus");
		return;
	}
	for (int i = 0; i < 4; i++) {
		t[i] = rt_thread_create(where, (void *)(uint64_t)i, i & 1, "where");
		GUEST_ASSERT(t[i]);
	}
	j = rt_thread_create(join_from_cpu1, t[2], 1, "joiner");	/* joins CPU 0's */
	GUEST_ASSERT(j);
	rt_thread_join(j);
	for (int i = 0; i < 4; i++) {
		rt_thread_join(t[i]);
		GUEST_ASSERT_EQ(cpu_of[i], i & 1);
		GUEST_ASSERT(switched_in(i & 1, t[i]));
		GUEST_ASSERT(switched_out_last(i & 1, t[i]));
	}
	GUEST_ASSERT(rt_sched_ticks(1) > 0);
	test_ok("rt threads on 2 cpus");
}

int main(void)
{
	int online = rt_smp_start();

	GUEST_ASSERT_EQ(online, rt_nr_cpus());
	printf("rt_threads: %d cpus\n", online);
	test_alloc(online);

	GUEST_ASSERT(!rt_thread_current());
	rt_sched_set_switch_hook(switch_hook);
	rt_sched_start_all();
	GUEST_ASSERT(rt_thread_current());
	GUEST_ASSERT_EQ(rt_thread_context_switches(rt_thread_current()), 1);
	sti();

	test_threads_yield();
	test_create_fails();
	test_sleep();
	test_user_preempt(0, "rt preempt cpl3 thread");
	if (online > 1)
		test_user_preempt(1, "rt preempt cpl3 thread on cpu 1");
	else
		skip("rt preempt cpl3 thread on cpu 1");
	test_syscalls();
	test_run_user();
	test_on_each_cpu();
	test_spinlock();
	test_two_cpus();

	cli();
	rt_sched_set_switch_hook(NULL);
	check_switch_log();
	printf("switches logged: cpu0 %d cpu1 %d\n", sw_count[0], sw_count[1]);
	test_ok("rt switch hook");
	return 0;
}
