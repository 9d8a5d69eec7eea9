/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --event-filter FILE: reads the operator's PMU event filter (format in
 * docs/machine.md, "Event filter") into a vpmu_filter.
 */
#ifndef PMUVM_EVENT_FILTER_H
#define PMUVM_EVENT_FILTER_H

#include "model/event_filter.h"

/* 0, or -EINVAL / -errno after printing one line naming the file and line. */
int event_filter_load(const char *path, struct vpmu_filter *f);

/* Parses the text itself; `name` is used in messages. */
int event_filter_parse(const char *name, const char *text, struct vpmu_filter *f);

#endif
