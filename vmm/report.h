/* --report FILE.json: a machine-readable summary of the run (docs/report.md). */
#ifndef PMUVM_REPORT_H
#define PMUVM_REPORT_H

/* The report's "schema_version": docs/report.schema.json's version. */
#define REPORT_SCHEMA_VERSION	1

struct vm;

/* Writes the report; 0, or -errno after printing one line. */
int report_write(struct vm *vm, const char *path);

#endif
