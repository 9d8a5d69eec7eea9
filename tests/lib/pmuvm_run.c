/* SPDX-License-Identifier: GPL-2.0-only */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pmuvm_run.h"

const char *pmuvm_path(void)
{
	const char *p = getenv("PMUVM");

	return p && *p ? p : "build/pmuvm";
}

const char *guest_path(const char *name)
{
	static char buf[4096];
	const char *d = getenv("GUEST_DIR");

	snprintf(buf, sizeof(buf), "%s/%s.elf", d && *d ? d : "build/guests", name);
	return buf;
}

static char tmpdir[256];
static pid_t tmpdir_owner;

/* Only the process that made it removes it, not a child it forked that exits. */
static void tmpdir_cleanup(void)
{
	char cmd[300];

	if (tmpdir[0] && getpid() == tmpdir_owner && !getenv("KEEP_TEST_TMP")) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd))
			fprintf(stderr, "warning: could not remove %s\n", tmpdir);
	}
}

const char *test_tmpdir(void)
{
	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "/tmp/pmuvm-test.XXXXXX");
		if (!mkdtemp(tmpdir)) {
			perror("mkdtemp");
			exit(2);
		}
		chmod(tmpdir, 0755);
		tmpdir_owner = getpid();
		atexit(tmpdir_cleanup);
	}
	return tmpdir;
}

const char *tmp_path(const char *name)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s/%s", test_tmpdir(), name);
	return buf;
}

char *read_file_str(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n + 1);
	if (buf && fread(buf, 1, n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = 0;
	fclose(f);
	return buf;
}

unsigned int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

bool write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	bool ok;

	if (!f)
		return false;
	ok = fwrite(data, 1, len, f) == len;
	return fclose(f) == 0 && ok;
}

/* The path argv's --report gives pmuvm (getopt's "--report F" or "--report=F"), or NULL. */
static const char *report_arg(const char *const *argv)
{
	const char *path = NULL;
	int i;

	for (i = 0; argv[i]; i++) {
		if (!strcmp(argv[i], "--report") && argv[i + 1])
			path = argv[++i];
		else if (!strncmp(argv[i], "--report=", 9))
			path = argv[i] + 9;
	}
	return path;
}

/*
 * A copy of each report pmuvm wrote, as it wrote it, in $PMUVM_REPORT_DIR
 * (set by scripts/run-tests.sh), for scripts/check-reports.sh to validate
 * against docs/report.schema.json. Named by process and run: Check runs
 * each test in its own process. Failing to keep one fails the test.
 */
static void report_keep(const char *report)
{
	static unsigned int seq;
	const char *dir = getenv("PMUVM_REPORT_DIR");
	char path[700];
	char *text;
	int fd = -1;
	bool ok;

	if (!dir || !*dir)
		return;
	text = read_file_str(report);
	ck_assert_msg(text, "cannot read the report %s", report);
	while (fd < 0) {
		snprintf(path, sizeof(path), "%s/%ld-%u.json", dir, (long)getpid(), seq++);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		ck_assert_msg(fd >= 0 || errno == EEXIST, "PMUVM_REPORT_DIR: cannot create %s: %s",
			      path, strerror(errno));
	}
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	ok = close(fd) == 0 && ok;
	ck_assert_msg(ok, "PMUVM_REPORT_DIR: cannot write %s", path);
	free(text);
}

int pmuvm_run_env(struct pmuvm_result *r, const char *const *env, double limit_s,
		  const char *const *argv)
{
	static unsigned int seq;
	const char *full[68] = { pmuvm_path() };
	const char *report = report_arg(argv), *extra_env = getenv("PMUVM_EXTRA_ARGS");
	char own[600], extra[1024], *save = NULL, *w;
	struct stat st;
	int n = 1, i, ret;

	/*
	 * Quiet: a stepped run's progress lines depend on the machine's speed,
	 * and tests compare stderr exactly (test_outputs.c runs pmuvm without).
	 */
	full[n++] = "-q";
	/*
	 * Options for every run, by hand (tests/lab/README.md), before the
	 * test's own: where both give one, the test's wins.
	 */
	snprintf(extra, sizeof(extra), "%s", extra_env ? extra_env : "");
	for (w = strtok_r(extra, " \t", &save); w && n < 40; w = strtok_r(NULL, " \t", &save))
		full[n++] = w;
	if (!report) {
		snprintf(own, sizeof(own), "%s/report%u.json", test_tmpdir(), seq++);
		report = own;
		full[n++] = "--report";
		full[n++] = report;
	}
	/*
	 * Only a file itself: a test's --report could name a device, a FIFO, a
	 * directory or a symlink (/dev/stdout), none of them to be removed.
	 */
	if (lstat(report, &st) == 0 && S_ISREG(st.st_mode))
		unlink(report);
	for (i = 0; argv[i] && n < 66; i++)
		full[n++] = argv[i];
	full[n] = NULL;
	ret = cmd_run(r, env, limit_s, full);
	/*
	 * Again only a file (symlinks followed), never a device's or a FIFO's
	 * contents, nor this process's own output by a /dev or /proc name.
	 */
	if (!ret && strncmp(report, "/dev/", 5) && strncmp(report, "/proc/", 6) &&
	    stat(report, &st) == 0 && S_ISREG(st.st_mode))
		r->report = json_object_from_file(report);
	if (!ret && stat(report, &st) == 0 && S_ISREG(st.st_mode))
		report_keep(report);
	return ret;
}

int cmd_run(struct pmuvm_result *r, const char *const *env, double limit_s,
	    const char *const *argv)
{
	static unsigned int seq;
	char outp[600], errp[600];
	struct timespec t0, now;
	int status;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	snprintf(outp, sizeof(outp), "%s/run%u.out", test_tmpdir(), seq);
	snprintf(errp, sizeof(errp), "%s/run%u.err", test_tmpdir(), seq++);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fo = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int fe = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fo < 0 || fe < 0)
			_exit(127);
		dup2(fo, 1);
		dup2(fe, 2);
		/*
		 * Sanitizers exit with 1 by default, which is a guest's "pass"
		 * status: give their reports one pmuvm never uses (SANITIZE=1).
		 */
		setenv("ASAN_OPTIONS", "exitcode=66", 0);
		setenv("UBSAN_OPTIONS", "exitcode=66:print_stacktrace=1", 0);
		for (; env && *env; env++)
			putenv((char *)*env);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9 > limit_s) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			break;
		}
		usleep(2000);
	}
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	r->out = read_file_str(outp);
	r->err = read_file_str(errp);
	if (!r->out)
		r->out = strdup("");
	if (!r->err)
		r->err = strdup("");
	return 0;
}

void pmuvm_result_free(struct pmuvm_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
	if (r->report)
		json_object_put(r->report);
	r->report = NULL;
}

const char *kvm_unusable_reason(void)
{
	static char why[256];
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, sizeof(why), "/dev/kvm is unusable (%s)", strerror(errno));
		return why;
	}
	if (ioctl(fd, KVM_GET_API_VERSION, 0) != KVM_API_VERSION) {
		close(fd);
		return "/dev/kvm answers with an unexpected API version";
	}
	close(fd);
	return NULL;
}

bool have_program(const char *prog)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "command -v '%s' >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}
