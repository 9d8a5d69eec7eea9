/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench_msr (make bench): TSC ticks per RDMSR/WRMSR of a
 * PMU MSR answered by pmuvm (IA32_PMC0, a userspace MSR exit) against one
 * answered inside KVM (IA32_TSC_AUX, or IA32_SYSENTER_ESP where TSC_AUX
 * #GPs), measured in the same run.  Each rep times, back to back, an empty
 * loop and n accesses of each kind, pmuvm's first in even reps and KVM's
 * first in odd ones, so the kinds alternate and share whatever the host
 * was doing.  The code runs at CPL0, which kvm_pvm
 * emulates (docs/counting.md, "kvm_pvm"): the loop and the MSR instruction
 * themselves cost emulation time; "empty" is that loop without the access.
 *
 * Args: n= accesses per block (default 2000), reps= (default 5), quiet=1
 * (no output: two callgrind runs that differ in n then differ only in MSR
 * exits, not in the console output's length).
 * Output: "bench: msr rep=R n=N kvm_msr=M empty=T pmu_rd=T kvm_rd=T
 * pmu_wr=T kvm_wr=T" in TSC ticks per block, for scripts/bench.py.
 */
#include "pmu_common.h"

#define MSR_IA32_SYSENTER_ESP	0x175
#define MSR_IA32_TSC_AUX	0xc0000103

static uint64_t time_empty(uint64_t n)
{
	uint64_t t0 = rdtsc();

	asm volatile("1: decq %0\n\tjnz 1b" : "+r"(n) : : "cc");
	return rdtsc() - t0;
}

static uint64_t time_rdmsr(uint32_t msr, uint64_t n)
{
	uint64_t t0 = rdtsc();

	asm volatile("1: movl %1, %%ecx\n\trdmsr\n\tdecq %0\n\tjnz 1b"
		     : "+r"(n) : "r"(msr) : "rax", "rcx", "rdx", "cc");
	return rdtsc() - t0;
}

static uint64_t time_wrmsr(uint32_t msr, uint64_t n)
{
	uint64_t t0 = rdtsc();

	asm volatile("1: movl %1, %%ecx\n\txorl %%eax, %%eax\n\txorl %%edx, %%edx\n\t"
		     "wrmsr\n\tdecq %0\n\tjnz 1b"
		     : "+r"(n) : "r"(msr) : "rax", "rcx", "rdx", "cc");
	return rdtsc() - t0;
}

int main(void)
{
	struct pmu_cfg cfg = pmu_cfg_read();
	uint64_t n = 2000, reps = 5, quiet = 0, v;
	uint32_t kvm_msr = MSR_IA32_TSC_AUX;

	mbi_arg_u64("n", &n);
	mbi_arg_u64("reps", &reps);
	mbi_arg_u64("quiet", &quiet);
	GUEST_ASSERT(cfg.version >= 1 && cfg.nr_gp >= 1 && n > 0);
	/* TSC_AUX exists only with RDTSCP/RDPID; SYSENTER_ESP always does. */
	if (rdmsr_safe(kvm_msr, &v) || wrmsr_safe(kvm_msr, 0))
		kvm_msr = MSR_IA32_SYSENTER_ESP;
	GUEST_ASSERT_EQ(rdmsr_safe(kvm_msr, &v), 0);
	wrmsr(MSR_IA32_PERFEVTSEL0, 0);		/* PMC0 stays idle: a pure MSR access */

	for (uint64_t r = 0; r < reps; r++) {
		uint64_t e, pr, kr, pw, kw;

		e = time_empty(n);
		if (r & 1) {		/* odd reps: KVM's MSR first */
			kr = time_rdmsr(kvm_msr, n);
			pr = time_rdmsr(MSR_IA32_PMC0, n);
			kw = time_wrmsr(kvm_msr, n);
			pw = time_wrmsr(MSR_IA32_PMC0, n);
		} else {
			pr = time_rdmsr(MSR_IA32_PMC0, n);
			kr = time_rdmsr(kvm_msr, n);
			pw = time_wrmsr(MSR_IA32_PMC0, n);
			kw = time_wrmsr(kvm_msr, n);
		}

		if (!quiet)
			printf("bench: msr rep=%llu n=%llu kvm_msr=%#x empty=%llu pmu_rd=%llu kvm_rd=%llu "
			       "pmu_wr=%llu kvm_wr=%llu\n", (unsigned long long)r,
			       (unsigned long long)n, kvm_msr, (unsigned long long)e,
			       (unsigned long long)pr, (unsigned long long)kr,
			       (unsigned long long)pw, (unsigned long long)kw);
	}
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_PMC0), 0);
	return 0;
}
