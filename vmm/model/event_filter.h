/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * PMU event filter with the semantics of KVM_SET_PMU_EVENT_FILTER
 * (Linux arch/x86/kvm/pmu.c, Documentation/virt/kvm/api.rst; docs/kvm-vpmu.md 1.6):
 *
 *   - GP counter: the key is EVTSEL's event select and unit mask. It
 *     "matches" if some include entry matches it and no exclude entry
 *     does; an entry matches when the event selects are equal and
 *     (umask & umask_mask) == umask_match (KVM's masked-event rule; a plain
 *     entry is umask_mask 0xff, umask_match = its umask). Allowed iff
 *     matched under ALLOW, or not matched under DENY.
 *   - Fixed counter i: decided by bit i of the fixed-counter bitmap alone,
 *     allowed iff (ALLOW and bit set) or (DENY and bit clear). api.rst says
 *     the events list also applies to a fixed counter's hard-wired
 *     encoding but the bitmap wins any contradiction; as the bitmap always
 *     gives an answer, KVM's code (is_fixed_event_allowed) never looks at
 *     the list for fixed counters, and neither do we.
 *
 * Pure C, no allocation: the VMM fills one filter and every vCPU's model
 * points at it read-only.
 */
#ifndef VPMU_FILTER_H
#define VPMU_FILTER_H

#include <stdbool.h>
#include <stdint.h>

/* KVM_PMU_EVENT_FILTER_MAX_EVENTS */
#define VPMU_FILTER_MAX_EVENTS	300

/* The values of KVM_PMU_EVENT_ALLOW / KVM_PMU_EVENT_DENY. */
enum vpmu_filter_action {
	VPMU_FILTER_ALLOW = 0,
	VPMU_FILTER_DENY = 1,
};

struct vpmu_filter_entry {
	uint16_t event;		/* EventSelect: EVTSEL[7:0], and [35:32] as bits 11:8 (AMD) */
	uint8_t umask_mask;	/* 0xff: exact unit mask */
	uint8_t umask_match;
	bool exclude;		/* masked-events EXCLUDE: removes matches */
};

struct vpmu_filter {
	enum vpmu_filter_action action;
	uint32_t fixed_counter_bitmap;
	unsigned int nr_events;
	struct vpmu_filter_entry events[VPMU_FILTER_MAX_EVENTS];
};

void vpmu_filter_init(struct vpmu_filter *f, enum vpmu_filter_action action,
		      uint32_t fixed_counter_bitmap);

/*
 * Appends an entry: -E2BIG when the filter is full, -EINVAL if umask_match
 * has bits outside umask_mask (such an entry could never match).
 */
int vpmu_filter_add(struct vpmu_filter *f, const struct vpmu_filter_entry *e);

/* Whether a GP counter programmed with `evtsel` may count. */
bool vpmu_filter_gp_allowed(const struct vpmu_filter *f, uint64_t evtsel);

/* Whether fixed counter `idx` may count. */
bool vpmu_filter_fixed_allowed(const struct vpmu_filter *f, unsigned int idx);

#endif
