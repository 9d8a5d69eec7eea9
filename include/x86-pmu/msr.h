/* SPDX-License-Identifier: MIT */
/*
 * PMU-related MSR numbers and bit layouts (Intel SDM vol. 3B ch. 18, MSR table
 * 2-2; Intel SDM vol. 3B, Performance Monitoring). Shared by the VMM and the
 * freestanding guest code, so only <stdint.h>-level C here.
 */
#ifndef X86_PMU_MSR_H
#define X86_PMU_MSR_H

#include <stdint.h>

#define BIT_ULL(n)		(1ULL << (n))
#define GENMASK_ULL(h, l)	((~0ULL >> (63 - (h))) & (~0ULL << (l)))

#define MSR_IA32_PMC0			0x0c1	/* legacy alias, sign-extends bit 31 */
#define MSR_IA32_PERFEVTSEL0		0x186
#define MSR_IA32_MISC_ENABLE		0x1a0
#define MSR_IA32_DEBUGCTL		0x1d9
#define MSR_IA32_FIXED_CTR0		0x309
#define MSR_PERF_METRICS		0x329
#define MSR_IA32_PERF_CAPABILITIES	0x345
#define MSR_IA32_FIXED_CTR_CTRL		0x38d
#define MSR_IA32_PERF_GLOBAL_STATUS	0x38e
#define MSR_IA32_PERF_GLOBAL_CTRL	0x38f
#define MSR_IA32_PERF_GLOBAL_OVF_CTRL	0x390	/* v2/v3 name */
#define MSR_IA32_PERF_GLOBAL_STATUS_RESET 0x390	/* v4+ name */
#define MSR_IA32_PERF_GLOBAL_STATUS_SET	0x391
#define MSR_IA32_PERF_GLOBAL_INUSE	0x392
#define MSR_IA32_PEBS_ENABLE		0x3f1
#define MSR_PEBS_DATA_CFG		0x3f2
#define MSR_PEBS_LD_LAT_THRESHOLD	0x3f6
#define MSR_PEBS_FRONTEND		0x3f7
#define MSR_IA32_A_PMC0			0x4c1	/* full-width alias */
#define MSR_IA32_DS_AREA		0x600

#define MSR_IA32_APICBASE		0x01b
#define MSR_IA32_TSC			0x010
#define MSR_IA32_TSC_DEADLINE		0x6e0	/* SDM vol. 3A 10.5.4.1 */
#define MSR_X2APIC_BASE			0x800
#define MSR_X2APIC_LVTPC		0x834

/* IA32_PERFEVTSELx (docs/intel-pmu.md 2.2) */
#define EVTSEL_EVENT		GENMASK_ULL(7, 0)
#define EVTSEL_UMASK		GENMASK_ULL(15, 8)
#define EVTSEL_USR		BIT_ULL(16)
#define EVTSEL_OS		BIT_ULL(17)
#define EVTSEL_EDGE		BIT_ULL(18)
#define EVTSEL_PC		BIT_ULL(19)
#define EVTSEL_INT		BIT_ULL(20)
#define EVTSEL_ANY		BIT_ULL(21)
#define EVTSEL_EN		BIT_ULL(22)
#define EVTSEL_INV		BIT_ULL(23)
#define EVTSEL_CMASK		GENMASK_ULL(31, 24)
#define EVTSEL_CMASK_SHIFT	24
#define EVTSEL_ADAPTIVE		BIT_ULL(34)

/* IA32_FIXED_CTR_CTRL: one 4-bit field per fixed counter (docs/intel-pmu.md 2.3) */
#define FIXED_CTRL_OS(i)	BIT_ULL(4 * (i) + 0)
#define FIXED_CTRL_USR(i)	BIT_ULL(4 * (i) + 1)
#define FIXED_CTRL_ANY(i)	BIT_ULL(4 * (i) + 2)
#define FIXED_CTRL_PMI(i)	BIT_ULL(4 * (i) + 3)
#define FIXED_CTRL_FIELD(i)	(0xfULL << (4 * (i)))
#define FIXED_CTRL_ADAPTIVE(i)	BIT_ULL(32 + 4 * (i))

/* Global PMC index: GP counter x is bit x, fixed counter i is bit 32+i. */
#define PMC_IDX_FIXED		32
#define GLOBAL_CTRL_FIXED(i)	BIT_ULL(PMC_IDX_FIXED + (i))

/* IA32_PERF_GLOBAL_STATUS high bits (docs/intel-pmu.md 2.5) */
#define GLOBAL_STATUS_PERF_METRICS	BIT_ULL(48)
#define GLOBAL_STATUS_TRACE_TOPA_PMI	BIT_ULL(55)
#define GLOBAL_STATUS_LBR_FRZ		BIT_ULL(58)
#define GLOBAL_STATUS_CTR_FRZ		BIT_ULL(59)
#define GLOBAL_STATUS_ASCI		BIT_ULL(60)
#define GLOBAL_STATUS_OVF_UNCORE	BIT_ULL(61)
#define GLOBAL_STATUS_BUFFER_OVF	BIT_ULL(62)
#define GLOBAL_STATUS_COND_CHGD		BIT_ULL(63)

#define GLOBAL_INUSE_PMI		BIT_ULL(63)

/* IA32_PERF_CAPABILITIES (docs/intel-pmu.md 1.4) */
#define PERF_CAP_LBR_FMT		GENMASK_ULL(5, 0)
#define PERF_CAP_PEBS_TRAP		BIT_ULL(6)
#define PERF_CAP_PEBS_ARCH_REG		BIT_ULL(7)
#define PERF_CAP_PEBS_FORMAT_SHIFT	8
#define PERF_CAP_PEBS_FORMAT		GENMASK_ULL(11, 8)
#define PERF_CAP_FREEZE_WHILE_SMM	BIT_ULL(12)
#define PERF_CAP_FW_WRITE		BIT_ULL(13)
#define PERF_CAP_PEBS_BASELINE		BIT_ULL(14)
#define PERF_CAP_PERF_METRICS		BIT_ULL(15)

/* IA32_DEBUGCTL (docs/intel-pmu.md 2.9) */
#define DEBUGCTL_LBR			BIT_ULL(0)
#define DEBUGCTL_BTF			BIT_ULL(1)
#define DEBUGCTL_FREEZE_LBRS_ON_PMI	BIT_ULL(11)
#define DEBUGCTL_FREEZE_PERFMON_ON_PMI	BIT_ULL(12)
#define DEBUGCTL_FREEZE_WHILE_SMM	BIT_ULL(14)

/* IA32_MISC_ENABLE (docs/intel-pmu.md 1.1) */
#define MISC_ENABLE_FAST_STRING		BIT_ULL(0)
#define MISC_ENABLE_EMON		BIT_ULL(7)
#define MISC_ENABLE_BTS_UNAVAIL		BIT_ULL(11)
#define MISC_ENABLE_PEBS_UNAVAIL	BIT_ULL(12)

/* MSR_PEBS_DATA_CFG (docs/intel-pmu.md 2.12) */
#define PEBS_DATACFG_MEMINFO		BIT_ULL(0)
#define PEBS_DATACFG_GPRS		BIT_ULL(1)
#define PEBS_DATACFG_XMMS		BIT_ULL(2)
#define PEBS_DATACFG_LBRS		BIT_ULL(3)
#define PEBS_DATACFG_LBR_SHIFT		24
#define PEBS_DATACFG_VALID		0xff00000fULL
#define PEBS_LD_LAT_VALID		GENMASK_ULL(15, 0)	/* 63:16 reserved (docs/intel-pmu.md 2.13) */

/* RDPMC ECX (docs/intel-pmu.md 2.1) */
#define RDPMC_FIXED			BIT_ULL(30)
#define RDPMC_FAST			BIT_ULL(31)

/*
 * AMD core performance counters (AMD64 APM vol. 2 13.2): the legacy MSRs
 * (four counters), the core extension (six counters, CTL at even and CTR
 * at odd MSRs; the legacy MSRs alias the first four), and the PerfMonV2
 * global MSRs.  Counters are 48 bits wide.
 */
#define MSR_K7_EVNTSEL0			0xc0010000
#define MSR_K7_PERFCTR0			0xc0010004
#define MSR_F15H_PERF_CTL0		0xc0010200
#define MSR_F15H_PERF_CTR0		0xc0010201
#define MSR_AMD64_PERF_CNTR_GLOBAL_STATUS	0xc0000300
#define MSR_AMD64_PERF_CNTR_GLOBAL_CTL		0xc0000301
#define MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR	0xc0000302
#define MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET	0xc0000303
#define AMD_NR_LEGACY_COUNTERS		4
#define AMD_NR_CORE_COUNTERS		6
#define AMD_COUNTER_WIDTH		48
/* PERF_CTL: EventSelect[11:8] at 35:32; GuestOnly, HostOnly (13.2.1). */
#define AMD_EVTSEL_EVENT_HI		GENMASK_ULL(35, 32)
#define AMD_EVTSEL_GUESTONLY		BIT_ULL(40)
#define AMD_EVTSEL_HOSTONLY		BIT_ULL(41)
/* Reserved PERF_CTL bits; KVM drops them on write (arch/x86/kvm/svm/pmu.c). */
#define AMD_EVTSEL_RSVD			0xfffffff000280000ULL

/* LVT performance-counter register (docs/intel-pmu.md 3.4) */
#define APIC_LVTPC_OFFSET		0x340
#define APIC_LVT_VECTOR			0xffu
#define APIC_LVT_DM_SHIFT		8
#define APIC_LVT_DM			(7u << 8)
#define APIC_LVT_DM_FIXED		(0u << 8)
#define APIC_LVT_DM_SMI			(2u << 8)
#define APIC_LVT_DM_NMI			(4u << 8)
#define APIC_LVT_DM_EXTINT		(7u << 8)
#define APIC_LVT_MASKED			(1u << 16)
/* LVT timer mode (SDM vol. 3A figure 10-8, 10.5.4.1) */
#define APIC_LVTT_TIMER_MODE		(3u << 17)
#define APIC_LVTT_TSC_DEADLINE		(2u << 17)

#endif
