/* SPDX-License-Identifier: MIT */
/*
 * /init of the initramfs `pmuvm run` boots (vmm/run/, scripts/pmuvm-kernel):
 * loads the modules /modules names, mounts the host's root read-only and
 * the caller's directory read-write from virtio-fs (tags "root" and "cwd"),
 * runs the command /pmuvm-run describes there as the caller, and hands its
 * exit status to pmuvm through isa-debug-exit (port 0xf4), which ends the
 * VM. docs/run.md describes what the guest sees.
 *
 * /pmuvm-run holds NUL-terminated "key=value" strings: uid, gid, groups
 * (comma-separated), cwd, stdin_tty and stdout_tty (0 or 1), rows, cols,
 * then arg= and env= in order. With stdin not a terminal, the console
 * carries it escaped: 0xff 0xff is a 0xff byte, 0xff 0x00 its end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define DEBUG_EXIT_PORT	0xf4
#ifndef TIOCM_OUT1
#define TIOCM_OUT1	0x2000		/* include/uapi/asm-generic/termios.h */
#endif
#define NEWROOT		"/newroot"
#define MAX_ITEMS	4096
#define ESC		0xff

static char *args[MAX_ITEMS], *envs[MAX_ITEMS];
static unsigned int nargs, nenvs;
static uid_t uid;
static gid_t gid;
static gid_t groups[256];
static int ngroups;
static const char *cwd = "/";
static int stdin_tty, stdout_tty;
static struct winsize ws;

/* Ends the VM with `status` as pmuvm's exit status. */
static void __attribute__((noreturn)) finish(int status)
{
	sync();
	if (ioperm(DEBUG_EXIT_PORT, 4, 1) == 0)
		outl((unsigned int)status, DEBUG_EXIT_PORT);
	for (;;)		/* the write above has ended the VM */
		pause();
}

static void __attribute__((noreturn, format(printf, 2, 3))) die(int status, const char *fmt, ...)
{
	va_list ap;

	fputs("pmuvm run: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	finish(status);
}

static char *read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st) < 0)
		return NULL;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return NULL;
	n = read(fd, buf, (size_t)st.st_size);
	close(fd);
	if (n != st.st_size)
		return NULL;
	buf[n] = 0;
	*len = (size_t)n;
	return buf;
}

static void parse_groups(char *s)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(s, ",", &save); tok && ngroups < 256; tok = strtok_r(NULL, ",", &save))
		groups[ngroups++] = (gid_t)strtoul(tok, NULL, 10);
}

static void read_spec(void)
{
	size_t len, i;
	char *buf = read_file("/pmuvm-run", &len), *p;

	if (!buf)
		die(125, "/pmuvm-run: %s", strerror(errno));
	for (i = 0; i < len; i += strlen(buf + i) + 1) {
		p = buf + i;
		if (!strncmp(p, "arg=", 4) && nargs < MAX_ITEMS - 1)
			args[nargs++] = p + 4;
		else if (!strncmp(p, "env=", 4) && nenvs < MAX_ITEMS - 1)
			envs[nenvs++] = p + 4;
		else if (!strncmp(p, "uid=", 4))
			uid = (uid_t)strtoul(p + 4, NULL, 10);
		else if (!strncmp(p, "gid=", 4))
			gid = (gid_t)strtoul(p + 4, NULL, 10);
		else if (!strncmp(p, "groups=", 7))
			parse_groups(p + 7);
		else if (!strncmp(p, "cwd=", 4))
			cwd = p + 4;
		else if (!strncmp(p, "stdin_tty=", 10))
			stdin_tty = p[10] == '1';
		else if (!strncmp(p, "stdout_tty=", 11))
			stdout_tty = p[11] == '1';
		else if (!strncmp(p, "rows=", 5))
			ws.ws_row = (unsigned short)strtoul(p + 5, NULL, 10);
		else if (!strncmp(p, "cols=", 5))
			ws.ws_col = (unsigned short)strtoul(p + 5, NULL, 10);
	}
	if (!nargs)
		die(125, "/pmuvm-run: no command");
}

static void load_modules(void)
{
	size_t len;
	char *list = read_file("/modules", &len), *tok, *save = NULL, path[256];

	if (!list)
		return;
	for (tok = strtok_r(list, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		int fd;

		snprintf(path, sizeof(path), "/lib/modules/%s.ko", tok);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || (syscall(SYS_finit_module, fd, "", 0) < 0 && errno != EEXIST))
			die(125, "loading module %s: %s", tok, strerror(errno));
		close(fd);
	}
}

static void mount_or_die(const char *src, const char *dst, const char *type, unsigned long flags)
{
	if (mount(src, dst, type, flags, NULL) < 0)
		die(125, "mount %s on %s: %s", type, dst, strerror(errno));
}

/* mkdir -p inside the new root (only where the tree is writable). */
static void mkdirs(const char *path)
{
	char buf[4096], *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		mkdir(buf, 0755);
		*p = '/';
	}
	mkdir(buf, 0755);
}

static void mount_trees(void)
{
	static const struct { const char *src, *dst, *type; unsigned long flags; } fs[] = {
		{ "proc", NEWROOT "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC },
		{ "sysfs", NEWROOT "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC },
		{ "dev", NEWROOT "/dev", "devtmpfs", MS_NOSUID },
		{ "devpts", NEWROOT "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC },
		{ "shm", NEWROOT "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV },
		{ "tmp", NEWROOT "/tmp", "tmpfs", MS_NOSUID | MS_NODEV },
		{ "run", NEWROOT "/run", "tmpfs", MS_NOSUID | MS_NODEV },
	};
	char path[4096];
	unsigned int i;

	mkdir(NEWROOT, 0755);
	mount_or_die("root", NEWROOT, "virtiofs", MS_RDONLY);
	for (i = 0; i < sizeof(fs) / sizeof(fs[0]); i++) {
		if (!strcmp(fs[i].type, "devpts") || !strcmp(fs[i].src, "shm"))
			mkdirs(fs[i].dst);
		mount_or_die(fs[i].src, fs[i].dst, fs[i].type, fs[i].flags);
	}
	chmod(NEWROOT "/tmp", 01777);
	chmod(NEWROOT "/dev/shm", 01777);
	snprintf(path, sizeof(path), NEWROOT "%s", cwd);
	mkdirs(path);
	if (mount("cwd", path, "virtiofs", 0, NULL) < 0)
		die(125, "cannot mount the current directory %s: %s", cwd, strerror(errno));
}

static void write_sysctl(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (write(fd, v, strlen(v)) < 0)
			perror(path);
		close(fd);
	}
}

/* The console as the command's terminal, or raw for a stream of bytes. */
static void setup_tty(int fd)
{
	struct termios t;

	if (tcgetattr(fd, &t) < 0)
		return;
	if (!stdin_tty) {
		cfmakeraw(&t);
	} else {
		t.c_iflag = ICRNL | IXON | IUTF8;
		t.c_oflag = OPOST | ONLCR;
		t.c_lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN;
		if (!stdout_tty)
			t.c_oflag &= ~(tcflag_t)OPOST;
	}
	t.c_cflag |= CRTSCTS | CLOCAL;
	tcsetattr(fd, TCSANOW, &t);
	if (ws.ws_row && ws.ws_col)
		ioctl(fd, TIOCSWINSZ, &ws);
	/* pmuvm's UART holds input back until OUT1 is up (vmm/dev/uart.c). */
	ioctl(fd, TIOCMBIS, &(int){ TIOCM_OUT1 });
}

/* Copies the escaped input from the console to `out` until its end. */
static void __attribute__((noreturn)) pump(int tty, int out)
{
	unsigned char in[512], buf[512];
	bool esc = false;
	ssize_t n, i;
	size_t k;

	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		n = read(tty, in, sizeof(in));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(0);
		for (i = 0, k = 0; i < n; i++) {
			if (esc) {
				esc = false;
				if (in[i] == 0) {
					if (k && write(out, buf, k) < 0)
						_exit(0);
					_exit(0);
				}
				buf[k++] = in[i];
			} else if (in[i] == ESC) {
				esc = true;
			} else {
				buf[k++] = in[i];
			}
		}
		if (k && write(out, buf, k) < 0)
			_exit(0);	/* the command closed its stdin: drop the rest */
	}
}

static void __attribute__((noreturn)) run_command(int tty, int in)
{
	setsid();
	ioctl(tty, TIOCSCTTY, 1);
	dup2(in, 0);
	dup2(tty, 1);
	dup2(tty, 2);
	if (tty > 2)
		close(tty);
	if (in > 2)
		close(in);
	if (setgroups((size_t)ngroups, groups) < 0 || setgid(gid) < 0 || setuid(uid) < 0) {
		fprintf(stderr, "pmuvm run: cannot become uid %u gid %u: %s\n",
			(unsigned int)uid, (unsigned int)gid, strerror(errno));
		_exit(126);
	}
	environ = envs;
	execvp(args[0], args);
	fprintf(stderr, "pmuvm run: %s: %s\n", args[0],
		errno == ENOENT ? "command not found" : strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

int main(void)
{
	int tty, in, p[2] = { -1, -1 }, st;
	pid_t cmd, pumper = -1, w;

	mkdir("/proc", 0555);
	mkdir("/sys", 0555);
	mkdir("/dev", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("dev", "/dev", "devtmpfs", 0, NULL);
	tty = open("/dev/ttyS0", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (tty >= 0) {
		dup2(tty, 2);
	}
	read_spec();
	load_modules();
	mount_trees();
	write_sysctl("/proc/sys/kernel/perf_event_paranoid", "-1");
	write_sysctl("/proc/sys/kernel/kptr_restrict", "0");
	if (chroot(NEWROOT) < 0 || chdir(cwd) < 0)
		die(125, "cannot enter %s: %s", cwd, strerror(errno));
	if (tty < 0)
		die(125, "/dev/ttyS0: %s", strerror(errno));
	setup_tty(tty);
	in = tty;
	if (!stdin_tty) {
		if (pipe2(p, O_CLOEXEC) < 0)
			die(125, "pipe: %s", strerror(errno));
		pumper = fork();
		if (pumper == 0) {
			close(p[0]);
			pump(tty, p[1]);
		}
		close(p[1]);
		in = p[0];
	}
	cmd = fork();
	if (cmd < 0)
		die(125, "fork: %s", strerror(errno));
	if (cmd == 0)
		run_command(tty, in);
	if (in != tty)
		close(in);
	/* PID 1 reaps every orphan until the command itself has ended. */
	for (;;) {
		w = wait(&st);
		if (w == cmd)
			break;
		if (w < 0 && errno != EINTR)
			die(125, "wait: %s", strerror(errno));
	}
	if (pumper > 0)
		kill(pumper, SIGKILL);
	finish(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}
