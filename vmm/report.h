/* SPDX-License-Identifier: GPL-2.0-only */
/* --report FILE.json: a machine-readable summary of the run (docs/report.md). */
#ifndef PMUVM_REPORT_H
#define PMUVM_REPORT_H

struct outfile;
struct pmuvm_config;

/* The report's "schema_version": docs/report.schema.json's version. */
#define REPORT_SCHEMA_VERSION	1

struct vm;

/* Writes the report of a run; 0, or -errno after printing one line. */
int report_write(struct vm *vm, struct outfile *out);

/*
 * The report of a run that never started: exit.reason ("usage",
 * "bad-image", "kvm-error", "host-error"), exit.status, exit.message (the error line) and
 * the config known so far. 0, or -errno after printing one line.
 */
int report_write_early(struct outfile *out, const struct pmuvm_config *cfg, const char *reason,
		       int status, const char *message);

#endif
