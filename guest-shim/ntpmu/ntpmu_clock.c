/* SPDX-License-Identifier: MIT */
/*
 * Clock values for Perflib's PERF_DATA_HEADER (docs/windows-api.md 6.3): the TSC is the
 * high-resolution clock (PerfTimeStamp), its frequency PerfFreq.
 *
 * Frequency (Intel SDM Vol. 2A, CPUID leaves 15H and 16H):
 *   leaf 15H with EAX, EBX and ECX non-zero: ECX * EBX / EAX Hz (the
 *   crystal clock times the TSC/crystal ratio);
 *   else the platform's tsc_hz op if it knows (under pmuvm: KVM's pvclock
 *   scale, see ntpmu-rt/pvclock.c);
 *   else leaf 16H EAX non-zero: EAX MHz, the processor base frequency,
 *   which is the TSC rate of invariant-TSC parts (an approximation the SDM
 *   does not promise; used only when nothing exact can say);
 *   else 0: unknown.
 * Wall time: the guest has no calendar clock (no RTC is read), so the
 * 100-ns time is the TSC converted at that frequency, i.e. time since the
 * TSC's zero (processor reset; under pmuvm on kvm_pvm the guest sees the
 * host's TSC) counted from the FILETIME epoch, 1601-01-01 00:00 UTC, and
 * SystemTime is that same instant; both 0 when the frequency is unknown.
 * A frequency above 1.8 THz would overflow the conversion: not real.
 */
#include "ntpmu_internal.h"
#include "ntpmu_clock.h"

uint64_t ntpmu_tsc_hz(void)
{
	uint32_t r[4];
	uint32_t max;
	uint64_t hz;

	ntpmu.ops->cpuid(ntpmu.ctx, 0, 0, r);
	max = r[0];
	if (max >= 0x15) {
		ntpmu.ops->cpuid(ntpmu.ctx, 0x15, 0, r);
		if (r[0] && r[1] && r[2])
			return (uint64_t)r[2] * r[1] / r[0];
	}
	hz = ntpmu.ops->tsc_hz ? ntpmu.ops->tsc_hz(ntpmu.ctx) : 0;
	if (hz)
		return hz;
	if (max >= 0x16) {
		ntpmu.ops->cpuid(ntpmu.ctx, 0x16, 0, r);
		if (r[0] & 0xffff)
			return (uint64_t)(r[0] & 0xffff) * 1000000u;
	}
	return 0;
}

uint64_t ntpmu_tsc_to_100ns(uint64_t tsc, uint64_t hz)
{
	/* Split so that no product overflows: r < hz, and hz * 10^7 < 2^64. */
	uint64_t q, r;

	if (!hz)
		return 0;
	q = tsc / hz;
	r = tsc % hz;
	return q * 10000000u + r * 10000000u / hz;
}

static bool leap(unsigned int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

void ntpmu_filetime_to_systemtime(uint64_t ft, uint16_t st[8])
{
	static const uint8_t mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	uint64_t secs = ft / 10000000u, days = secs / 86400u;
	unsigned int y = 1601, m = 0, sod = (unsigned int)(secs % 86400u);

	st[2] = (uint16_t)((days + 1) % 7);	/* 1601-01-01 was a Monday */
	while (days >= (leap(y) ? 366u : 365u)) {
		days -= leap(y) ? 366u : 365u;
		y++;
	}
	for (;; m++) {
		unsigned int n = mdays[m] + (m == 1 && leap(y));

		if (days < n)
			break;
		days -= n;
	}
	st[0] = (uint16_t)y;
	st[1] = (uint16_t)(m + 1);
	st[3] = (uint16_t)(days + 1);
	st[4] = (uint16_t)(sod / 3600u);
	st[5] = (uint16_t)(sod / 60u % 60u);
	st[6] = (uint16_t)(sod % 60u);
	st[7] = (uint16_t)(ft / 10000u % 1000u);
}
