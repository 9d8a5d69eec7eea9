/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * PHYSICAL_COUNTER_RESOURCE_LISTs for the HAL tests (docs/windows-api.md
 * 2.2): room for four descriptors, filled one at a time.
 */
#ifndef NTPMU_LIST_H
#define NTPMU_LIST_H

#include <stddef.h>

#include "nt/ntddk.h"

struct counter_list4 {
	ULONG Count;
	PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR Descriptors[4];
};

_Static_assert(offsetof(struct counter_list4, Descriptors) ==
	       offsetof(PHYSICAL_COUNTER_RESOURCE_LIST, Descriptors), "counter_list4 layout");

static inline PPHYSICAL_COUNTER_RESOURCE_LIST counter_list(struct counter_list4 *l)
{
	return (PPHYSICAL_COUNTER_RESOURCE_LIST)l;
}

/* The next descriptor, of `type`, the rest zero. */
static inline PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR *
counter_list_add(struct counter_list4 *l, PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR_TYPE type)
{
	PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR *d = &l->Descriptors[l->Count++];

	*d = (PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR){ .Type = type };
	return d;
}

/* Counter `index` alone. */
static inline struct counter_list4 counter_list_one(ULONG index)
{
	struct counter_list4 l = { 0 };

	counter_list_add(&l, ResourceTypeSingle)->u.CounterIndex = index;
	return l;
}

/* Counters `begin` to `end`. */
static inline struct counter_list4 counter_list_range(ULONG begin, ULONG end)
{
	struct counter_list4 l = { 0 };
	PHYSICAL_COUNTER_RESOURCE_DESCRIPTOR *d = counter_list_add(&l, ResourceTypeRange);

	d->u.Range.Begin = begin;
	d->u.Range.End = end;
	return l;
}

#endif
