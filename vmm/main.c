/*
 * pmuvm: boot a multiboot guest or a Linux bzImage under KVM with a
 * software-emulated PMU, Intel's architectural PMU (v1-v5, PEBS) or AMD's
 * (PerfMonV2).  Only main() turns errors into an exit status
 * (vmm/exitcode.h); everything below returns codes.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board.h"
#include "boot/image.h"
#include "pmu/rdpmc.h"
#include "boot/linux.h"
#include "config.h"
#include "exitcode.h"
#include "machine/vm.h"
#include "log.h"
#include "pmu/pmu.h"
#include "profile/profile.h"
#include "report.h"

/* Fail before booting if an output file could not be written at the end. */
static int check_output_path(const char *opt, const char *path)
{
	char *copy = strdup(path), *dir;
	int ok;

	if (!copy)
		return PMUVM_EXIT_HOST_ERROR;
	dir = dirname(copy);
	ok = access(dir, W_OK) == 0;
	if (!ok)
		pr_err("%s: cannot write to '%s': %s", opt, dir, strerror(errno));
	free(copy);
	return ok ? 0 : PMUVM_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	static struct pmuvm_config cfg;
	static struct multiboot_boot boot;
	static struct linux_boot linux_boot;
	static struct vm vm;
	struct file_buf image;
	int r, status;

	setvbuf(stdout, NULL, _IOLBF, 0);
	r = config_parse(&cfg, argc, argv);
	if (r)
		return r > 0 ? PMUVM_EXIT_OK : PMUVM_EXIT_USAGE;
	if ((cfg.report_path && (r = check_output_path("--report", cfg.report_path))) ||
	    (cfg.profile_path && (r = check_output_path("--profile", cfg.profile_path))))
		return r;
	cfg.pmu.available_events = pmu_available_events(&cfg);

	r = file_read(cfg.image, &image);
	if (r) {
		pr_err("%s: cannot read guest image: %s", cfg.image, strerror(-r));
		return PMUVM_EXIT_BAD_IMAGE;
	}
	cfg.boot_linux = linux_is_bzimage(image.data, image.size);
	if (cfg.initrd && !cfg.boot_linux) {
		pr_err("--initrd: %s is not a Linux bzImage", cfg.image);
		file_free(&image);
		return PMUVM_EXIT_USAGE;
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
	if (r) {
		vm_destroy(&vm);
		file_free(&image);
		return r;
	}

	status = vm_run(&vm);
	if (cfg.report_path && report_write(&vm, cfg.report_path))
		status = status ? status : PMUVM_EXIT_HOST_ERROR;
	if (cfg.profile_path && (r = profile_write(&vm, image.data, image.size)))
		status = status ? status : r;
	vm_destroy(&vm);
	file_free(&image);
	return status;
}
