/* SPDX-License-Identifier: GPL-2.0-only */
/* The operator's event filter (semantics in filter.h). */
#include <errno.h>
#include <string.h>

#include "vpmu.h"
#include "x86-pmu/msr.h"

void vpmu_filter_init(struct vpmu_filter *f, enum vpmu_filter_action action,
		      uint32_t fixed_counter_bitmap)
{
	memset(f, 0, sizeof(*f));
	f->action = action;
	f->fixed_counter_bitmap = fixed_counter_bitmap;
}

int vpmu_filter_add(struct vpmu_filter *f, const struct vpmu_filter_entry *e)
{
	if (e->umask_match & ~e->umask_mask)
		return -EINVAL;
	if (f->nr_events >= VPMU_FILTER_MAX_EVENTS)
		return -E2BIG;
	f->events[f->nr_events++] = *e;
	return 0;
}

static bool entry_matches(const struct vpmu_filter_entry *e, uint16_t event, uint8_t umask)
{
	return e->event == event && (umask & e->umask_mask) == e->umask_match;
}

/* kvm pmu.c is_gp_event_allowed(): includes match and no exclude does. */
static bool filter_matches(const struct vpmu_filter *f, uint64_t evtsel)
{
	/*
	 * AMD's EventSelect has 12 bits, 11:8 in EVTSEL[35:32] (KVM's
	 * AMD64_EVENTSEL_EVENT); those bits are reserved in the Intel model,
	 * so reading them is right for both.
	 */
	uint16_t event = (uint16_t)((evtsel & EVTSEL_EVENT) | ((evtsel >> 24) & 0xf00));
	uint8_t umask = (evtsel & EVTSEL_UMASK) >> 8;
	bool included = false;
	unsigned int i;

	for (i = 0; i < f->nr_events; i++) {
		if (!entry_matches(&f->events[i], event, umask))
			continue;
		if (f->events[i].exclude)
			return false;
		included = true;
	}
	return included;
}

bool vpmu_filter_gp_allowed(const struct vpmu_filter *f, uint64_t evtsel)
{
	if (!f)
		return true;
	return filter_matches(f, evtsel) ? f->action == VPMU_FILTER_ALLOW :
					   f->action == VPMU_FILTER_DENY;
}

bool vpmu_filter_fixed_allowed(const struct vpmu_filter *f, unsigned int idx)
{
	bool bit;

	if (!f)
		return true;
	bit = idx < 32 && (f->fixed_counter_bitmap & (1u << idx));
	return f->action == VPMU_FILTER_ALLOW ? bit : !bit;
}

void vpmu_set_filter(struct vpmu *pmu, const struct vpmu_filter *filter)
{
	pmu->filter = filter;
	vpmu_reprogram(pmu);
}
