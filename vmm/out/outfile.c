/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libgen.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "out/outfile.h"

#define OUTFILE_MAX_LINKS	40	/* as the kernel's MAXSYMLINKS */

/* The temporary file a replace is writing (outfile_abandon()). */
static char abandon_path[PATH_MAX];
static int abandon_set;

static int outfile_fail(struct outfile *o, int err, const char *why)
{
	if (!o->error)
		pr_err("%s: %s: %s", o->opt, o->name, why ? why : strerror(-err));
	o->error = o->error ? o->error : err;
	return err;
}

/* Waits for a descriptor opened non-blocking by someone else (an inherited stdout). */
static int wait_writable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };

	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);
		int r;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			r = wait_writable(fd);
			if (r)
				return r;
			continue;
		}
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The file a path names once the symlinks of its last component are followed. */
static int resolve_target(const char *path, char **out)
{
	char *cur = strdup(path);
	unsigned int hops;

	for (hops = 0; cur; hops++) {
		char link[PATH_MAX], *copy, *next;
		struct stat st;
		ssize_t n;
		int r;

		if (lstat(cur, &st) < 0 || !S_ISLNK(st.st_mode)) {
			*out = cur;
			return 0;
		}
		n = readlink(cur, link, sizeof(link) - 1);
		if (hops == OUTFILE_MAX_LINKS || n < 0) {
			r = hops == OUTFILE_MAX_LINKS ? -ELOOP : -errno;
			free(cur);
			return r;
		}
		link[n] = '\0';
		copy = strdup(cur);
		if (!copy || link[0] == '/')
			next = strdup(link);
		else if (asprintf(&next, "%s/%s", dirname(copy), link) < 0)
			next = NULL;
		free(copy);
		free(cur);
		cur = next;
	}
	return -ENOMEM;
}

static bool same_file(const struct stat *a, int fd)
{
	struct stat b;

	return fstat(fd, &b) == 0 && a->st_dev == b.st_dev && a->st_ino == b.st_ino;
}

static int open_stream(struct outfile *o, const char *path, int flags)
{
	o->fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | flags, 0666);
	if (o->fd < 0)
		return outfile_fail(o, -errno, NULL);
	o->own_fd = true;
	o->kind = OUTFILE_FD;
	return 0;
}

/* A regular or new file written whole: replaced if its directory allows, else rewritten. */
static int open_regular(struct outfile *o, const char *path, const struct stat *st)
{
	char *copy;
	int r;

	r = resolve_target(path, &o->target);
	if (r)
		return outfile_fail(o, r, NULL);
	copy = strdup(o->target);
	if (!copy) {
		r = -ENOMEM;
		goto fail;
	}
	r = access(dirname(copy), W_OK | X_OK) ? -errno : 0;
	free(copy);
	if (st) {
		o->mode = st->st_mode & 07777;
		o->uid = st->st_uid;
		o->gid = st->st_gid;
		o->keep_owner = true;
		if (r && access(o->target, W_OK) == 0) {
			o->kind = OUTFILE_TRUNCATE;
			return 0;
		}
	} else {
		mode_t mask = umask(0);

		umask(mask);
		o->mode = 0666 & ~mask;
	}
	if (r)
		goto fail;
	o->kind = OUTFILE_REPLACE;
	return 0;
fail:
	free(o->target);
	o->target = NULL;
	return outfile_fail(o, r, NULL);
}

static int outfile_open_path(struct outfile *o, const char *path, enum outfile_mode mode)
{
	struct stat st;

	if (!strcmp(path, "-")) {
		o->kind = OUTFILE_FD;
		o->fd = STDOUT_FILENO;
		return 0;
	}
	if (stat(path, &st) < 0) {
		if (errno != ENOENT)
			return outfile_fail(o, -errno, NULL);
		if (mode == OUTFILE_STREAM)
			return open_stream(o, path, O_CREAT | O_TRUNC);
		return open_regular(o, path, NULL);
	}
	/* pmuvm's own stdout or stderr, by any name (/dev/stdout, /proc/self/fd/1): in place. */
	if (same_file(&st, STDOUT_FILENO) || same_file(&st, STDERR_FILENO)) {
		o->kind = OUTFILE_FD;
		o->fd = same_file(&st, STDOUT_FILENO) ? STDOUT_FILENO : STDERR_FILENO;
		return 0;
	}
	if (S_ISDIR(st.st_mode))
		return outfile_fail(o, -EISDIR, NULL);
	if (S_ISBLK(st.st_mode))
		return outfile_fail(o, -EINVAL, "a block device, not written");
	if (S_ISSOCK(st.st_mode))
		return outfile_fail(o, -EINVAL, "a socket, which cannot be opened");
	if (S_ISREG(st.st_mode))
		return mode == OUTFILE_STREAM ? open_stream(o, path, O_TRUNC) :
						open_regular(o, path, &st);
	/* A character device or FIFO: a whole file opens it only when written. */
	if (mode == OUTFILE_STREAM)
		return open_stream(o, path, 0);
	if (access(path, W_OK))
		return outfile_fail(o, -errno, NULL);
	o->target = strdup(path);
	if (!o->target)
		return outfile_fail(o, -ENOMEM, NULL);
	o->kind = OUTFILE_DEVICE;
	return 0;
}

int outfile_open(struct outfile *o, const char *opt, const char *path, enum outfile_mode mode)
{
	int r;

	memset(o, 0, sizeof(*o));
	o->opt = opt;
	o->fd = -1;
	if (!path)
		return 0;
	o->name = strcmp(path, "-") ? path : "standard output";
	r = outfile_open_path(o, path, mode);
	if (!r && mode == OUTFILE_STREAM)
		o->tty = isatty(o->fd);
	return r;
}

int outfile_write(struct outfile *o, const void *buf, size_t len)
{
	int r;

	if (o->error)
		return o->error;
	if (o->tty)
		log_status_clear();	/* the guest's line, not after the progress line */
	r = write_all(o->fd, buf, len);
	return r ? outfile_fail(o, r, NULL) : 0;
}

/* Writes into a new temporary file beside the target, then renames it over the target. */
static int replace_atomically(struct outfile *o, const void *buf, size_t len)
{
	char *tmp;
	int fd, r;

	if (asprintf(&tmp, "%s.tmp-XXXXXX", o->target) < 0)
		return -ENOMEM;
	if ((size_t)snprintf(abandon_path, sizeof(abandon_path), "%s", tmp) >= sizeof(abandon_path)) {
		free(tmp);
		return -ENAMETOOLONG;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		free(tmp);
		return r;
	}
	__atomic_store_n(&abandon_set, 1, __ATOMIC_RELEASE);
	r = fchmod(fd, o->mode) ? -errno : 0;
	/* Root replacing someone's file gives it back to them; nobody else can. */
	if (!r && o->keep_owner && geteuid() == 0 && fchown(fd, o->uid, o->gid))
		pr_debug("%s: %s: owner kept as root: %s", o->opt, o->name, strerror(errno));
	if (!r)
		r = write_all(fd, buf, len);
	if (close(fd) && !r)
		r = -errno;
	if (!r && rename(tmp, o->target))
		r = -errno;
	if (r)
		unlink(tmp);
	__atomic_store_n(&abandon_set, 0, __ATOMIC_RELEASE);
	free(tmp);
	return r;
}

/* Opens the file itself (a device, FIFO, or a file to rewrite) and writes it. */
static int write_in_place(struct outfile *o, const void *buf, size_t len, int flags)
{
	int fd = open(o->target, O_WRONLY | O_NOCTTY | O_CLOEXEC | flags);
	int r;

	if (fd < 0)
		return -errno;
	r = write_all(fd, buf, len);
	if (close(fd) && !r)
		r = -errno;
	return r;
}

int outfile_replace(struct outfile *o, const void *buf, size_t len)
{
	int r;

	if (o->error)
		return o->error;
	switch (o->kind) {
	case OUTFILE_FD:
		r = write_all(o->fd, buf, len);
		break;
	case OUTFILE_DEVICE:
		r = write_in_place(o, buf, len, 0);
		break;
	case OUTFILE_TRUNCATE:
		r = write_in_place(o, buf, len, O_TRUNC);
		break;
	case OUTFILE_REPLACE:
		r = replace_atomically(o, buf, len);
		break;
	default:
		return 0;
	}
	return r ? outfile_fail(o, r, NULL) : 0;
}

void outfile_close(struct outfile *o)
{
	if (o->own_fd && o->fd >= 0)
		close(o->fd);
	free(o->target);
	o->target = NULL;
	o->fd = -1;
	o->own_fd = false;
	o->kind = OUTFILE_NONE;
}

int outfile_std_fds(void)
{
	int fd;

	for (fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		int n;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* The lowest free descriptor: this one, as those below it are open. */
		n = open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
		if (n < 0)
			return -errno;
		if (n != fd) {
			dup2(n, fd);
			close(n);
		}
	}
	return 0;
}

void outfile_abandon(void)
{
	if (__atomic_load_n(&abandon_set, __ATOMIC_ACQUIRE))
		unlink(abandon_path);
}
