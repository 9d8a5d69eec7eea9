/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rdpmc_emul: RDPMC in an unmodified guest.  KVM without a vPMU
 * would #GP every RDPMC; pmuvm completes the ones that hardware with this
 * PMU would complete (docs/intel-pmu.md 2.1; SDM vol. 2 RDPMC) and passes on the rest:
 *   - CPL0: GP and fixed counters (ECX bit 30), the values written;
 *   - an ECX naming no counter #GPs;
 *   - CPL3 #GPs without CR4.PCE and reads the counter with it;
 *   - with instructions being counted, an RDPMC retires exactly once;
 *   - every GP and fixed counter reads back what was written: a KVM that
 *     answers RDPMC itself does so only for its own counters and #GPs the
 *     rest (kvm_amd 6.1: GP 0-3), which pmuvm then completes.
 */
#include "rdpmc_common.h"


/*
 * No .type: the image's scan (vmm/rdpmc/sites.c) cannot see these
 * RDPMCs, so where KVM answers RDPMC they stay RDPMCs, found in the windows
 * after PMU MSR accesses, or completed at KVM's #GP.
 */
asm(".text\n.globl seq_rdpmc\nseq_rdpmc:\n" SEQ_RDPMC_BODY
    ".globl rdpmc_unscanned\nrdpmc_unscanned:\n"
    "	movl %edi, %ecx\n"
    "	rdpmc\n"
    "	shlq $32, %rdx\n"
    "	orq %rdx, %rax\n"
    "	ret\n");

uint64_t rdpmc_unscanned(uint32_t ecx);

int main(void)
{
	struct pmu_cfg cfg = pmu_cfg_read();
	struct user_read u;
	uint64_t v, gp_val = 0x123456789aull & width_mask(cfg.gp_width);
	unsigned int n;

	GUEST_ASSERT(cfg.version >= 2 && cfg.nr_gp >= 2 && pmu_fixed_exists(&cfg, 0));
	wrmsr(MSR_IA32_PMC0, 0x1234);
	if (cfg.fw_write)
		wrmsr(MSR_IA32_A_PMC0 + 1, gp_val);
	else
		gp_val = 0;
	wrmsr(MSR_IA32_FIXED_CTR0, 0x55);

	GUEST_ASSERT_EQ(rdpmc_safe(0, &v), 0);
	GUEST_ASSERT_EQ(v, 0x1234);
	GUEST_ASSERT_EQ(rdpmc_safe(1, &v), 0);
	GUEST_ASSERT_EQ(v, gp_val);
	GUEST_ASSERT_EQ(rdpmc_safe(RDPMC_FIXED | 0, &v), 0);
	GUEST_ASSERT_EQ(v, 0x55);
	GUEST_ASSERT_EQ(rdpmc_safe(cfg.nr_gp, &v), VEC_GP);
	GUEST_ASSERT_EQ(rdpmc_safe(RDPMC_FIXED | cfg.nr_fixed, &v), VEC_GP);
	test_ok("rdpmc at cpl0");

	write_cr4(read_cr4() & ~CR4_PCE);
	u = (struct user_read){ .ecx = 0 };
	rt_run_user(user_rdpmc, (uint64_t)&u);
	GUEST_ASSERT_EQ(u.vector, VEC_GP);
	write_cr4(read_cr4() | CR4_PCE);
	u = (struct user_read){ .ecx = RDPMC_FIXED };
	rt_run_user(user_rdpmc, (uint64_t)&u);
	GUEST_ASSERT_EQ(u.vector, 0);
	GUEST_ASSERT_EQ(u.val, 0x55);
	write_cr4(read_cr4() & ~CR4_PCE);
	test_ok("rdpmc at cpl3 and CR4.PCE");

	wrmsr(MSR_IA32_FIXED_CTR0, 0);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(0));
	v = seq_rdpmc();
	GUEST_ASSERT_EQ(v, 0x1234);
	printf("rdpmc_emul: instructions around one RDPMC: %llu\n",
	       (unsigned long long)rdmsr(MSR_IA32_FIXED_CTR0));
	GUEST_ASSERT_EQ(rdmsr(MSR_IA32_FIXED_CTR0), 7);
	test_ok("rdpmc retires once while counted");

	wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
	for (unsigned int i = 0; i < cfg.nr_gp; i++)
		wrmsr(MSR_IA32_PMC0 + i, 0x100 + i);
	for (unsigned int i = 0; i < cfg.nr_fixed; i++)
		if (pmu_fixed_exists(&cfg, i))
			wrmsr(MSR_IA32_FIXED_CTR0 + i, 0x200 + i);
	for (unsigned int i = 0; i < cfg.nr_gp; i++)
		GUEST_ASSERT_EQ(rdpmc_unscanned(i), 0x100 + i);
	n = cfg.nr_gp;
	for (unsigned int i = 0; i < cfg.nr_fixed; i++) {
		if (!pmu_fixed_exists(&cfg, i))
			continue;
		GUEST_ASSERT_EQ(rdpmc_unscanned((uint32_t)RDPMC_FIXED | i), 0x200 + i);
		n++;
	}
	printf("rdpmc_emul: counters read: %u\n", n);
	/* And still #GP where no counter is (where pmuvm now catches KVM's #GP). */
	GUEST_ASSERT_EQ(rdpmc_safe(cfg.nr_gp, &v), VEC_GP);
	GUEST_ASSERT_EQ(rdpmc_safe(RDPMC_FAST | (cfg.nr_gp - 1), &v), VEC_GP);
	test_ok("rdpmc of every counter");
	return 0;
}
