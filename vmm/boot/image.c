/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot/image.h"
#include "boot/linux.h"
#include "exitcode.h"
#include "config.h"
#include "mem/guest_mem.h"
#include "log.h"

/* Guest images and modules larger than this are refused before reading. */
#define FILE_MAX_SIZE	(1ULL << 32)

int file_read(const char *path, struct file_buf *out)
{
	struct stat st;
	size_t off = 0;
	int fd, e;

	memset(out, 0, sizeof(*out));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		e = -errno;
		close(fd);
		return e;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > FILE_MAX_SIZE) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : (!S_ISREG(st.st_mode) ? -EINVAL : -EFBIG);
	}
	out->size = (size_t)st.st_size;
	out->data = malloc(out->size ? out->size : 1);
	if (!out->data) {
		close(fd);
		return -ENOMEM;
	}
	while (off < out->size) {
		ssize_t n = read(fd, out->data + off, out->size - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			e = n < 0 ? -errno : -EIO;
			close(fd);
			file_free(out);
			return e;
		}
		off += (size_t)n;
	}
	close(fd);
	return 0;
}

void file_free(struct file_buf *f)
{
	free(f->data);
	f->data = NULL;
	f->size = 0;
}

int image_load(const struct pmuvm_config *cfg, const struct guest_mem *mem,
	       const struct file_buf *image, struct multiboot_boot *boot)
{
	struct multiboot_module_in mods[PMUVM_MAX_MODULES];
	struct file_buf bufs[PMUVM_MAX_MODULES];
	struct multiboot_params p = {
		.image_name = cfg->image, .append = cfg->append,
		.modules = mods, .nr_modules = cfg->nr_modules,
	};
	char err[256];
	unsigned int i, n = 0;
	int r = 0;

	for (i = 0; i < cfg->nr_modules; i++) {
		int e = file_read(cfg->modules[i], &bufs[i]);

		if (e) {
			pr_err("--module: cannot read '%s': %s", cfg->modules[i], strerror(-e));
			r = PMUVM_EXIT_BAD_IMAGE;
			goto out;
		}
		n++;
		mods[i] = (struct multiboot_module_in){
			.name = cfg->modules[i], .data = bufs[i].data, .size = bufs[i].size,
		};
	}
	if (multiboot_load(mem, image->data, image->size, &p, boot, err, sizeof(err))) {
		pr_err("%s: %s", cfg->image, err);
		r = PMUVM_EXIT_BAD_IMAGE;
	}
out:
	for (i = 0; i < n; i++)
		file_free(&bufs[i]);
	return r;
}

int image_load_linux(const struct pmuvm_config *cfg, const struct guest_mem *mem,
		     const struct file_buf *image, struct linux_boot *boot)
{
	struct linux_params p = {
		.cmdline = cfg->append, .nr_cpus = cfg->nr_cpus, .nr_virtio_mmio = cfg->nr_virtiofs,
	};
	struct file_buf initrd = { 0 };
	char err[256];
	int r = 0, e;

	if (cfg->nr_modules) {
		pr_err("--module: a Linux kernel takes --initrd, not multiboot modules");
		return PMUVM_EXIT_USAGE;
	}
	if (cfg->initrd) {
		e = file_read(cfg->initrd, &initrd);
		if (e) {
			pr_err("--initrd: cannot read '%s': %s", cfg->initrd, strerror(-e));
			return PMUVM_EXIT_BAD_IMAGE;
		}
		p.initrd = initrd.data;
		p.initrd_size = initrd.size;
	}
	/* pmuvm run's archive follows the initrd's at a 4-byte boundary (newc). */
	if (cfg->initrd && cfg->initrd_tail_len) {
		size_t at = (initrd.size + 3) & ~(size_t)3;
		uint8_t *d = realloc(initrd.data, at + cfg->initrd_tail_len);

		if (!d) {
			pr_err("out of memory");
			file_free(&initrd);
			return PMUVM_EXIT_HOST_ERROR;
		}
		memset(d + initrd.size, 0, at - initrd.size);
		memcpy(d + at, cfg->initrd_tail, cfg->initrd_tail_len);
		initrd.data = d;
		initrd.size = at + cfg->initrd_tail_len;
		p.initrd = initrd.data;
		p.initrd_size = initrd.size;
	}
	if (linux_load(mem, image->data, image->size, &p, boot, err, sizeof(err))) {
		pr_err("%s: %s", cfg->image, err);
		r = PMUVM_EXIT_BAD_IMAGE;
	}
	if (cfg->initrd)
		file_free(&initrd);
	return r;
}
