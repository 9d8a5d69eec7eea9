/* SPDX-License-Identifier: GPL-2.0-only */
/* Everything the command line decides, validated before any KVM call. */
#ifndef PMUVM_CONFIG_H
#define PMUVM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/vpmu.h"

#define PMUVM_MAX_MODULES	16
#define PMUVM_MAX_CPUS		4096	/* x2APIC IDs; above 255 guests need x2APIC */
#define PMUVM_MAX_VIRTIOFS	4	/* virtio-mmio slots the ACPI tables describe */
#define PMUVM_VIRTIOFS_TAG_MAX	36	/* virtio_fs_config.tag (Virtio 1.2, 5.11.4) */

/* --virtiofs TAG=SOCKET: a virtio-fs device served by a vhost-user back end. */
struct pmuvm_virtiofs {
	const char *tag;
	const char *socket;
};

/* The CPU vendor the guest sees (CPUID leaf 0, docs/machine.md, "CPU vendor and PMU"). */
enum cpu_vendor {
	CPU_VENDOR_HOST,	/* the host's identity, unchanged */
	CPU_VENDOR_INTEL,
	CPU_VENDOR_AMD,
};

enum cycles_mode {
	CYCLES_CLOCK,		/* time the vCPU ran guest code, scaled to --cpu-mhz */
	CYCLES_MODEL,		/* instructions x --cpi (deterministic) */
};

struct pmuvm_config {
	const char *image;
	uint64_t mem_size;
	unsigned int nr_cpus;
	const char *append;
	const char *initrd;		/* --initrd, Linux boots only */
	const void *initrd_tail;	/* pmuvm run: a cpio archive appended to it */
	size_t initrd_tail_len;
	bool boot_linux;		/* the image is a bzImage (main.c) */
	struct pmuvm_virtiofs virtiofs[PMUVM_MAX_VIRTIOFS];
	unsigned int nr_virtiofs;
	bool shared_ram;		/* guest RAM in a memfd (vhost-user back ends map it) */
	const char *modules[PMUVM_MAX_MODULES];
	unsigned int nr_modules;
	/* Outputs (out/outfile.h): NULL off, "-" standard output. */
	const char *serial_path;	/* NULL: stdout */
	const char *report_path;
	const char *profile_path;	/* the top-functions table */
	const char *profile_folded_path;	/* the folded stacks */
	bool quiet;			/* -q: no progress line (progress.h) */
	double timeout_s;		/* 0: none */
	struct vpmu_config pmu;
	enum cpu_vendor cpu_vendor;
	uint64_t cpu_khz;		/* 0: the vCPU's TSC frequency */
	enum cycles_mode cycles;
	double cpi;
	/*
	 * --exact emulate (default, also "on"): instructions and branches
	 * counted exactly, the counted code run in an emulator where it can be
	 * and single-stepped where not; step: every instruction single-stepped.
	 * off: not offered (Intel's CPUID.0AH marks them unavailable), so a
	 * guest's counters cost nothing (docs/counting.md, "Exact counting off").
	 */
	bool exact;
	bool exact_emulate;		/* --exact emulate or on (default) */
	const char *event_filter_path;	/* NULL: no filter */
	struct vpmu_filter event_filter;	/* loaded from it by config_parse() */
	/*
	 * make bench only, from the environment (docs/benchmarks.md, "Running it"):
	 * PMUVM_BENCH_RAW_STEP=1 steps without decoding or counting,
	 * PMUVM_BENCH_TIMING=1 times the inside and outside of KVM_RUN.
	 */
	bool bench_raw_step;
	bool bench_timing;
	/*
	 * For tests, also from the environment: PMUVM_KVM_DEVICE replaces
	 * /dev/kvm, PMUVM_TEST_HIDE_CAP=NAME makes one KVM capability look
	 * absent (pmuvm(1), ENVIRONMENT).
	 */
	const char *kvm_device;
	const char *test_hide_cap;
};

/*
 * Parses argv into cfg.  Returns 0, 1 when --help/--version was handled, or
 * -EINVAL after printing one line naming the bad option.
 */
int config_parse(struct pmuvm_config *cfg, int argc, char **argv);
/*
 * pmuvm run's options (argv[0] is "run"): the same, plus --kernel (into
 * cfg->image, NULL when not given); *cmd is the index of COMMAND (argc
 * when there is none). Same returns.
 */
int config_parse_run(struct pmuvm_config *cfg, int argc, char **argv, int *cmd);

/* Parses "256M", "1G", "4096K", "1048576"; -EINVAL if malformed or overflowing. */
int config_parse_size(const char *s, uint64_t *out);

#endif
