/* --report FILE.json: a machine-readable summary of the run. */
#ifndef PMUVM_REPORT_H
#define PMUVM_REPORT_H

struct vm;

/* Writes the report; 0, or -errno after printing one line. */
int report_write(struct vm *vm, const char *path);

#endif
