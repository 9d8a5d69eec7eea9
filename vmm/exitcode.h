/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pmuvm's process exit status.  A guest that writes V to the isa-debug-exit
 * port makes pmuvm exit with (V << 1) | 1, as QEMU does: always odd.  pmuvm's
 * own outcomes are therefore even, so the two never collide; the one
 * exception is a stop signal N, 128 + N as a shell reports a process it
 * killed (SIGHUP 129, SIGINT 130, SIGTERM 143), which the report's
 * exit.reason "signal" tells apart.
 */
#ifndef PMUVM_EXITCODE_H
#define PMUVM_EXITCODE_H

enum pmuvm_exit {
	PMUVM_EXIT_OK = 0,		/* guest powered off (shutdown event); --help */
	PMUVM_EXIT_USAGE = 2,		/* bad option or option value; an output
					 * path refused before the guest starts */
	PMUVM_EXIT_NO_KVM = 4,		/* /dev/kvm missing/unusable, capability missing */
	PMUVM_EXIT_BAD_IMAGE = 6,	/* not multiboot, does not fit, overlaps, bad module */
	PMUVM_EXIT_TRIPLE_FAULT = 8,	/* guest shutdown (triple fault) or reset */
	PMUVM_EXIT_KVM_ERROR = 10,	/* KVM internal error, emulation or entry failure */
	PMUVM_EXIT_TIMEOUT = 12,	/* --timeout expired */
	PMUVM_EXIT_HOST_ERROR = 14,	/* out of memory, thread or I/O failure in pmuvm;
					 * an output (--report, --profile, --serial, stdout)
					 * that failed during or after the run */
	PMUVM_EXIT_SIGNAL_BASE = 128,	/* + N: stopped by signal N (SIGINT, SIGTERM, SIGHUP) */
};

#endif
