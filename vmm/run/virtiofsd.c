/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "run/userns.h"
#include "run/virtiofsd.h"
#include "run/which.h"

/* Debian 13's Rust virtiofsd, Debian 12's (QEMU 7.2, package qemu-system-common). */
static const char *const virtiofsd_paths[] = {
	"/usr/libexec/virtiofsd",
	"/usr/lib/qemu/virtiofsd",
};

const char *virtiofsd_find(void)
{
	static char found[4096];
	const char *env = getenv("PMUVM_VIRTIOFSD");

	if (env && *env)
		return access(env, X_OK) == 0 ? env : NULL;
	return run_which("virtiofsd", virtiofsd_paths,
			 sizeof(virtiofsd_paths) / sizeof(virtiofsd_paths[0]), found, sizeof(found));
}

static void __attribute__((noreturn)) child(int fd, const char *bin, const char *dir)
{
	char fdarg[32], src[4200];
	const char *argv[16];	/* 11 */
	int n = 0;

	/* Its own process group, and gone with pmuvm. */
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/*
	 * Unprivileged, virtiofsd runs in a user namespace that maps the
	 * caller's own uid and gid and keeps its capabilities there: its
	 * sandbox and its switches to the guest user's fsuid work, and files
	 * keep their owners (docs/run.md, "What needs root").
	 */
	if (geteuid() != 0 && userns_enter())
		_exit(127);
	/* dup2() onto itself would keep SOCK_CLOEXEC. */
	if (fd == 3 ? fcntl(fd, F_SETFD, 0) < 0 : dup2(fd, 3) < 0)
		_exit(127);
	close_range(4, ~0U, 0);
	/* Its notes (a closed connection at the end) only with -v. */
	if (!log_verbosity) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, 2);
	}
	dup2(2, 1);
	snprintf(fdarg, sizeof(fdarg), "--fd=3");
	snprintf(src, sizeof(src), "source=%s", dir);
	argv[n++] = bin;
	argv[n++] = fdarg;
	argv[n++] = "-o";
	argv[n++] = src;
	argv[n++] = "-o";
	argv[n++] = "cache=auto";
	argv[n++] = "-o";
	argv[n++] = "log_level=err";
	/*
	 * Its namespace sandbox pivots into the shared tree, which fails for
	 * / (EBUSY); chroot confines it as well.
	 */
	argv[n++] = "-o";
	argv[n++] = "sandbox=chroot";
	argv[n] = NULL;
	execvp(argv[0], (char *const *)argv);
	fprintf(stderr, "pmuvm: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int virtiofsd_start(struct virtiofsd *d, const char *bin, const char *dir,
		    const char *dir_sock, const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, e;

	d->pid = -1;
	if ((size_t)snprintf(d->socket, sizeof(d->socket), "%s/%s.sock", dir_sock, name) >=
	    sizeof(d->socket)) {
		pr_err("%s: socket path too long", dir_sock);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, d->socket);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 1) < 0) {
		e = -errno;
		pr_err("%s: %s", d->socket, strerror(errno));
		if (fd >= 0)
			close(fd);
		return e;
	}
	d->pid = fork();
	if (d->pid == 0)
		child(fd, bin, dir);
	e = d->pid < 0 ? -errno : 0;
	close(fd);
	if (e)
		pr_err("fork: %s", strerror(-e));
	return e;
}

void virtiofsd_stop(struct virtiofsd *d)
{
	if (d->pid > 0) {
		/*
		 * SIGKILL: virtiofsd ignores SIGTERM while it waits for its
		 * connection, and has nothing to flush: it answers each
		 * request once the host has done it.
		 */
		kill(d->pid, SIGKILL);
		while (waitpid(d->pid, NULL, 0) < 0 && errno == EINTR)
			;
		d->pid = -1;
	}
	if (d->socket[0])
		unlink(d->socket);
	d->socket[0] = 0;
}
