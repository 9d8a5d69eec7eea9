/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Stop signals.  SIGINT, SIGTERM and SIGHUP stop the guest as --timeout
 * does: every vCPU stops, the report and profile are written with
 * exit.reason "signal", pmuvm says "terminating on signal N (SIGNAME)" and
 * exits with 128 + N.  A second one ends pmuvm at once, with 128 + N.
 * SIGUSR1 prints the progress line (progress.h).  SIGPIPE is ignored: a
 * closed pipe is an output error (out/outfile.h), not a silent death.
 *
 * The signals are blocked in every thread and taken by one thread of their
 * own (sigwaitinfo), so no work happens in a signal handler.
 */
#ifndef PMUVM_SIGNALS_H
#define PMUVM_SIGNALS_H

struct vm;

/* Before any other thread starts: 0, or -errno after one line. */
int signals_init(void);

/*
 * The VM a stop signal stops and SIGUSR1 reports on, from vm_create() to
 * vm_destroy(); a stop signal that came before it stops it at once.
 */
void signals_attach(struct vm *vm);
void signals_detach(void);

#endif
