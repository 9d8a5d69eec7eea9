/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pmuvm: boot a multiboot guest or a Linux bzImage under KVM with a
 * software-emulated PMU, Intel's architectural PMU (v1-v5, PEBS) or AMD's
 * (PerfMonV2).  Only main() turns errors into an exit status
 * (vmm/exitcode.h); everything below returns codes.
 */
#include <stdio.h>
#include <string.h>

#include "board.h"
#include "boot/image.h"
#include "boot/linux.h"
#include "config.h"
#include "dev/devices.h"
#include "exitcode.h"
#include "log.h"
#include "machine/vm.h"
#include "out/outfile.h"
#include "pmu/pmu.h"
#include "profile/profile.h"
#include "progress.h"
#include "rdpmc/rdpmc.h"
#include "report.h"
#include "run/run.h"
#include "signals.h"

/* The files written at the end, checked before the guest starts. */
struct outputs {
	struct outfile report, profile, folded;
};

/* exit.reason of a run that never started; NULL: no report (KVM unusable). */
static const char *early_reason(int status)
{
	switch (status) {
	case PMUVM_EXIT_USAGE:		return "usage";
	case PMUVM_EXIT_BAD_IMAGE:	return "bad-image";
	case PMUVM_EXIT_HOST_ERROR:	return "host-error";
	case PMUVM_EXIT_KVM_ERROR:	return "kvm-error";
	default:			return NULL;
	}
}

/* An error before the run: still a report, so whoever runs pmuvm always gets one. */
static int fail_early(struct outputs *out, const struct pmuvm_config *cfg, int status)
{
	const char *reason = early_reason(status);

	if (reason && outfile_on(&out->report))
		report_write_early(&out->report, cfg, reason, status, log_last_error());
	return status;
}

/* The outputs of a run: 0, or PMUVM_EXIT_HOST_ERROR if one failed (said). */
static int write_outputs(struct vm *vm, struct outputs *out, const struct file_buf *image)
{
	bool failed = uart_flush(vm) != 0;

	if ((outfile_on(&out->profile) || outfile_on(&out->folded)) &&
	    profile_write(vm, image->data, image->size, &out->profile, &out->folded))
		failed = true;
	/* The report's status is pmuvm's own: 14 once an output failed. */
	if (failed)
		vm->exit_status = PMUVM_EXIT_HOST_ERROR;
	if (outfile_on(&out->report) && report_write(vm, &out->report))
		failed = true;
	return failed ? PMUVM_EXIT_HOST_ERROR : 0;
}

int main(int argc, char **argv)
{
	static struct pmuvm_config cfg;
	static struct multiboot_boot boot;
	static struct linux_boot linux_boot;
	static struct outputs out;
	static struct vm vm;
	struct file_buf image;
	bool run = argc > 1 && !strcmp(argv[1], "run");
	int r, status;

	/* Before anything is opened: a closed stdout must not become /dev/kvm. */
	r = outfile_std_fds();
	if (r) {
		pr_err("/dev/null: %s", strerror(-r));
		return PMUVM_EXIT_HOST_ERROR;
	}
	if (signals_init())
		return PMUVM_EXIT_HOST_ERROR;
	setvbuf(stdout, NULL, _IOLBF, 0);
	r = run ? run_parse(&cfg, argc - 1, argv + 1) : config_parse(&cfg, argc, argv);
	if (r > 0)
		return PMUVM_EXIT_OK;
	if (outfile_open(&out.report, "--report", cfg.report_path, OUTFILE_WHOLE))
		return PMUVM_EXIT_USAGE;
	if (r < 0 ||
	    outfile_open(&out.profile, "--profile", cfg.profile_path, OUTFILE_WHOLE) ||
	    outfile_open(&out.folded, "--profile-folded", cfg.profile_folded_path, OUTFILE_WHOLE))
		return fail_early(&out, &cfg, PMUVM_EXIT_USAGE);
	cfg.pmu.available_events = pmu_available_events(&cfg);
	if (run && (status = run_prepare(&cfg)))
		return fail_early(&out, &cfg, status);

	r = file_read(cfg.image, &image);
	if (r) {
		pr_err("%s: cannot read guest image: %s", cfg.image, strerror(-r));
		return fail_early(&out, &cfg, PMUVM_EXIT_BAD_IMAGE);
	}
	cfg.boot_linux = linux_is_kernel(image.data, image.size);
	if (cfg.initrd && !cfg.boot_linux) {
		pr_err("--initrd: %s is not a Linux kernel (bzImage or vmlinux)", cfg.image);
		file_free(&image);
		return fail_early(&out, &cfg, PMUVM_EXIT_USAGE);
	}
	r = vm_create(&vm, &cfg, &pmuvm_board);
	if (!r && cfg.boot_linux) {
		r = image_load_linux(&cfg, &vm.mem, &image, &linux_boot);
		vm.linux_boot = &linux_boot;
	} else if (!r) {
		r = image_load(&cfg, &vm.mem, &image, &boot);
		vm.boot = &boot;
		if (!r)
			rdpmc_sites_from_image(&vm, image.data, image.size);
	}
	if (!r)
		r = vm_create_vcpus(&vm);
	if (!r && run)
		r = run_start(&vm);
	if (r) {
		vm_destroy(&vm);
		file_free(&image);
		return fail_early(&out, &cfg, r);
	}

	progress_attach(&vm, cfg.quiet);
	signals_attach(&vm);
	status = vm_run(&vm);
	signals_detach();
	progress_end();
	if (run)
		status = run_finish(&vm, status);
	if (write_outputs(&vm, &out, &image))
		status = PMUVM_EXIT_HOST_ERROR;
	vm_destroy(&vm);
	file_free(&image);
	outfile_close(&out.report);
	outfile_close(&out.profile);
	outfile_close(&out.folded);
	return status;
}
