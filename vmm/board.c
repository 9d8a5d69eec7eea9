/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The board: what a pmuvm VM is built from, in order. Devices where QEMU's
 * pc machine has them; the vCPU features in the order their hooks run: the
 * PMU first (PMI delivery before every other before_run), then RDPMC
 * emulation, the counting sources (clock, then exact), the PEBS assist once
 * the sources have counted, and the profile, which takes the overflows
 * last.
 */
#include "board.h"
#include "clock/clock.h"
#include "dev/devices.h"
#include "dev/ucall.h"
#include "exact/exact.h"
#include "pebs/pebs.h"
#include "pmu/pmu.h"
#include "pmu/source.h"
#include "pmu/vcpu_pmu.h"
#include "profile/profile.h"
#include "rdpmc/rdpmc.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const struct vm_device uart = { "uart", uart_init, uart_exit };
static const struct vm_device debug_exit = { "isa-debug-exit", debug_exit_init, NULL };
static const struct vm_device fw_cfg = { "fw_cfg", fw_cfg_init, fw_cfg_exit };
static const struct vm_device ucall = { "ucall", ucall_init, ucall_exit };
static const struct vm_device rtc = { "rtc", rtc_init, NULL };
static const struct vm_device i8042 = { "i8042", i8042_init, NULL };
static const struct vm_device acpi_pm = { "acpi-pm", acpi_pm_init, NULL };
static const struct vm_device virtio_fs = { "virtio-fs", virtio_fs_init, virtio_fs_exit };

static const struct vm_device *const board_devices[] = {
	&uart, &debug_exit, &fw_cfg, &ucall, &rtc, &i8042, &acpi_pm, &virtio_fs,
};

static const struct vcpu_feature *const board_features[] = {
	&rdpmc_trap_feature,		/* first: MSRs besides the model's, read by its RDMSRs */
	&pmu_feature,
	&rdpmc_feature,			/* RDPMC's state; listens before the exact source steps */
	&rdpmc_gp_feature,
	&exact_feature,
	&clock_feature,			/* after exact: it knows whether the run steps (step_run) */
	&rdpmc_watch_feature,		/* after exact: it steps for it */
	&pebs_feature,
	&profile_feature,
};

/* struct vcpu's feature arrays (machine/vcpu.h) hold every one of them. */
_Static_assert(ARRAY_SIZE(board_features) <= VM_MAX_FEATURES, "more features than VM_MAX_FEATURES");

const struct pmu_source_ops *const pmu_sources[] = {
	&clock_source,
	&exact_source,
};

/* struct vcpu_pmu's wrmsr_retires[] (pmu/vcpu_pmu.h) holds a hook of each. */
_Static_assert(ARRAY_SIZE(pmu_sources) <= PMU_MAX_SOURCES, "more sources than PMU_MAX_SOURCES");

const unsigned int pmu_nr_sources = ARRAY_SIZE(pmu_sources);

const struct board pmuvm_board = {
	.devices = board_devices,
	.nr_devices = ARRAY_SIZE(board_devices),
	.features = board_features,
	.nr_features = ARRAY_SIZE(board_features),
};
