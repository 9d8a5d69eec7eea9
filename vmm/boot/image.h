/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMUVM_IMAGE_H
#define PMUVM_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "boot/multiboot.h"

struct guest_mem;
struct pmuvm_config;

struct file_buf {
	uint8_t *data;
	size_t size;
};

/* Reads a whole regular file; 0 or -errno. */
int file_read(const char *path, struct file_buf *out);
void file_free(struct file_buf *f);

/* Loads the guest image and modules into the VM; 0 or a PMUVM_EXIT_* code. */
int image_load(const struct pmuvm_config *cfg, const struct guest_mem *mem,
	       const struct file_buf *image, struct multiboot_boot *boot);

struct linux_boot;
/* The same for a Linux bzImage (cfg->boot_linux), with --initrd and --append. */
int image_load_linux(const struct pmuvm_config *cfg, const struct guest_mem *mem,
		     const struct file_buf *image, struct linux_boot *boot);

#endif
