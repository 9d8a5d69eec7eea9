/* SPDX-License-Identifier: GPL-2.0-only */
/* The fake ntpmu platform of the unit tests (see ntpmu_fake.h). */
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "nt/ntdef.h"
#include "ntpmu_fake.h"

static int fake_rdmsr(void *ctx, uint32_t msr, uint64_t *val)
{
	struct fake_platform *f = ctx;

	return vpmu_rdmsr(&f->pmu[f->cur], msr, val) == VPMU_OK ? 0 : 13;
}

static int fake_wrmsr(void *ctx, uint32_t msr, uint64_t val)
{
	struct fake_platform *f = ctx;

	return vpmu_wrmsr(&f->pmu[f->cur], msr, val) == VPMU_OK ? 0 : 13;
}

static int fake_rdpmc(void *ctx, uint32_t ecx, uint64_t *val)
{
	struct fake_platform *f = ctx;
	void (*hook)(struct fake_platform *) = f->rdpmc_hook;

	if (hook) {
		f->rdpmc_hook = NULL;
		hook(f);
	}
	if (f->user_mode && !f->in_switch && !f->lock_depth && !f->pce[f->cur])
		return 13;
	return vpmu_rdpmc(&f->pmu[f->cur], ecx, val) == VPMU_OK ? 0 : 13;
}

static uint64_t fake_rdtsc(void *ctx)
{
	return ((struct fake_platform *)ctx)->tsc;
}

static void fake_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
	struct fake_platform *f = ctx;

	r[0] = r[1] = r[2] = r[3] = 0;
	if (leaf == 0)
		r[0] = f->max_leaf ? f->max_leaf : 0xd;
	else if (leaf == 0x15)
		memcpy(r, f->leaf15, sizeof(f->leaf15));
	else if (leaf == 0x16)
		r[0] = f->leaf16;
	else if (leaf == 0xa) {
		vpmu_cpuid_0a(&f->pmu[f->cur].cfg, &r[0], &r[1], &r[2], &r[3]);
		r[2] ^= f->leaf0a_ecx_xor;
	}
}

static unsigned int fake_nr_cpus(void *ctx)
{
	return ((struct fake_platform *)ctx)->nr_cpus;
}

static unsigned int fake_cpu_id(void *ctx)
{
	return ((struct fake_platform *)ctx)->cur;
}

static void fake_run_on_cpu(void *ctx, unsigned int cpu, void (*fn)(void *), void *arg)
{
	struct fake_platform *f = ctx;
	unsigned int saved = f->cur;

	ck_assert_uint_lt(cpu, f->nr_cpus);
	f->cur = cpu;
	fn(arg);
	f->cur = saved;
}

static void *fake_zalloc(void *ctx, size_t size)
{
	struct fake_platform *f = ctx;

	if (f->alloc_fail_in > 0 && --f->alloc_fail_in == 0)
		return NULL;
	f->live_allocs++;
	return calloc(1, size);
}

static void fake_free(void *ctx, void *p)
{
	struct fake_platform *f = ctx;

	if (p)
		f->live_allocs--;
	free(p);
}

static unsigned long fake_lock(void *ctx)
{
	struct fake_platform *f = ctx;

	ck_assert_int_eq(f->lock_depth, 0);
	f->lock_depth++;
	return 0x200;
}

static void fake_unlock(void *ctx, unsigned long flags)
{
	struct fake_platform *f = ctx;

	ck_assert_uint_eq(flags, 0x200);
	ck_assert_int_eq(f->lock_depth, 1);
	f->lock_depth--;
}

static void *fake_current_thread(void *ctx)
{
	struct fake_platform *f = ctx;

	return f->running[f->cur];
}

static void *fake_thread_from_handle(void *ctx, void *handle)
{
	struct fake_platform *f = ctx;
	unsigned int i;

	if (handle == NtCurrentThread())
		return f->running[f->cur];
	for (i = 0; i < f->nr_threads; i++)
		if (f->threads[i] == handle)
			return handle;
	return NULL;
}

static void *fake_thread_slot_get(void *ctx, void *thread)
{
	return ((struct fake_thread *)thread)->slot;
}

static void fake_thread_slot_set(void *ctx, void *thread, void *val)
{
	((struct fake_thread *)thread)->slot = val;
}

static void *fake_thread_app(void *ctx, void *thread)
{
	return ((struct fake_thread *)thread)->app;
}

static int fake_thread_wait_reason(void *ctx, void *thread)
{
	return ((struct fake_thread *)thread)->wait_reason;
}

static void fake_set_user_rdpmc(void *ctx, bool enable)
{
	struct fake_platform *f = ctx;

	f->pce[f->cur] = enable;
	f->pce_writes++;
}

static uint32_t fake_thread_id(void *ctx, void *thread)
{
	return ((struct fake_thread *)thread)->id;
}

static uint64_t fake_tsc_hz(void *ctx)
{
	return ((struct fake_platform *)ctx)->tsc_hz;
}

static uint64_t fake_pmi_ip(void *ctx)
{
	return ((struct fake_platform *)ctx)->pmi_ip;
}

const struct ntpmu_platform_ops fake_ops = {
	.rdmsr = fake_rdmsr,
	.wrmsr = fake_wrmsr,
	.rdpmc = fake_rdpmc,
	.rdtsc = fake_rdtsc,
	.cpuid = fake_cpuid,
	.nr_cpus = fake_nr_cpus,
	.cpu_id = fake_cpu_id,
	.run_on_cpu = fake_run_on_cpu,
	.zalloc = fake_zalloc,
	.free = fake_free,
	.lock = fake_lock,
	.unlock = fake_unlock,
	.current_thread = fake_current_thread,
	.thread_from_handle = fake_thread_from_handle,
	.thread_slot_get = fake_thread_slot_get,
	.thread_slot_set = fake_thread_slot_set,
	.thread_app = fake_thread_app,
	.thread_wait_reason = fake_thread_wait_reason,
	.set_user_rdpmc = fake_set_user_rdpmc,
	.thread_id = fake_thread_id,
	.pmi_ip = fake_pmi_ip,
	.tsc_hz = fake_tsc_hz,
};

void fake_init(struct fake_platform *f, unsigned int version, unsigned int nr_cpus)
{
	fake_init_pebs(f, version, nr_cpus, 0);
}

/* A vPMU of cfg on each of nr_cpus, then ntpmu_init(). */
static void fake_init_cfg(struct fake_platform *f, struct vpmu_config *cfg, unsigned int nr_cpus,
			  uint32_t ecx_xor)
{
	unsigned int c;

	ck_assert_uint_le(nr_cpus, FAKE_MAX_CPUS);
	*f = (struct fake_platform){ .nr_cpus = nr_cpus, .leaf0a_ecx_xor = ecx_xor };
	ck_assert_int_eq(vpmu_config_validate(cfg), 0);
	for (c = 0; c < nr_cpus; c++)
		vpmu_init(&f->pmu[c], cfg);
	ntpmu_init(&fake_ops, f);
}

void fake_init_pebs(struct fake_platform *f, unsigned int version, unsigned int nr_cpus,
		    unsigned int pebs_format)
{
	struct vpmu_config cfg;

	vpmu_config_default(&cfg, version);
	cfg.pebs = pebs_format != 0;
	cfg.pebs_format = pebs_format;
	cfg.pebs_baseline = pebs_format >= 4;
	fake_init_cfg(f, &cfg, nr_cpus, 0);
}

void fake_init_fixed(struct fake_platform *f, unsigned int version, unsigned int nr_cpus,
		     unsigned int nr_fixed, uint32_t fixed_bitmap, uint32_t ecx_xor)
{
	struct vpmu_config cfg;

	vpmu_config_default(&cfg, version);
	cfg.nr_fixed = nr_fixed;
	cfg.fixed_bitmap = fixed_bitmap;
	fake_init_cfg(f, &cfg, nr_cpus, ecx_xor);
}

void fake_exit(struct fake_platform *f)
{
	ntpmu_exit();
	ck_assert_int_eq(f->live_allocs, 0);
	ck_assert_int_eq(f->lock_depth, 0);
}

void fake_thread_init(struct fake_platform *f, struct fake_thread *t, void *app)
{
	ck_assert_uint_lt(f->nr_threads, FAKE_MAX_THREADS);
	*t = (struct fake_thread){ .app = app, .wait_reason = -1, .id = f->nr_threads + 1 };
	f->threads[f->nr_threads++] = t;
}

void fake_switch(struct fake_platform *f, unsigned int cpu, struct fake_thread *next)
{
	ck_assert_uint_lt(cpu, f->nr_cpus);
	f->cur = cpu;
	f->in_switch = true;
	ntpmu_context_switch(f->running[cpu], next);
	ntpmu_etw_context_switch(f->running[cpu], next);
	f->in_switch = false;
	f->running[cpu] = next;
}

void fake_work(struct fake_platform *f, enum pmu_arch_event ev, uint64_t n)
{
	vpmu_count(&f->pmu[f->cur], ev, n, 3);
}

static void wr(struct vpmu *pmu, uint32_t msr, uint64_t v)
{
	ck_assert_int_eq(vpmu_wrmsr(pmu, msr, v), VPMU_OK);
}

static uint64_t rd(struct vpmu *pmu, uint32_t msr)
{
	uint64_t v;

	ck_assert_int_eq(vpmu_rdmsr(pmu, msr, &v), VPMU_OK);
	return v;
}

void fake_program_gp(struct fake_platform *f, unsigned int idx, uint64_t event)
{
	unsigned int c;

	for (c = 0; c < f->nr_cpus; c++) {
		struct vpmu *pmu = &f->pmu[c];

		wr(pmu, MSR_IA32_PERFEVTSEL0 + idx, event | EVTSEL_EN | EVTSEL_OS | EVTSEL_USR);
		if (pmu->cfg.version >= 2)
			wr(pmu, MSR_IA32_PERF_GLOBAL_CTRL,
			   rd(pmu, MSR_IA32_PERF_GLOBAL_CTRL) | BIT_ULL(idx));
	}
}

void fake_program_fixed(struct fake_platform *f, unsigned int idx)
{
	unsigned int c;

	for (c = 0; c < f->nr_cpus; c++) {
		struct vpmu *pmu = &f->pmu[c];

		wr(pmu, MSR_IA32_FIXED_CTR_CTRL, rd(pmu, MSR_IA32_FIXED_CTR_CTRL) |
		   FIXED_CTRL_OS(idx) | FIXED_CTRL_USR(idx));
		wr(pmu, MSR_IA32_PERF_GLOBAL_CTRL,
		   rd(pmu, MSR_IA32_PERF_GLOBAL_CTRL) | GLOBAL_CTRL_FIXED(idx));
	}
}
