/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What pmuvm writes and how it ends (vmm/out/outfile.h, vmm/signals.h,
 * vmm/progress.h): --report, --profile, --profile-folded and --serial go
 * through the path given, symlinks followed; only a regular or new file is
 * replaced, a device, FIFO or pmuvm's own stdout is written in place, "-" is
 * stdout; an output that fails is one line and status 2 before the run, 14
 * after it; a stop signal still leaves the report; every error before the
 * run leaves one too.
 *
 * Tests that write to /dev do it as root in a private mount namespace over
 * a private /dev (a tmpfs), so that a pmuvm that renames over what it is
 * given could never replace the host's /dev/null or /dev/stdout.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "expect.h"
#include "exitcode.h"
#include "pmuvm_run.h"
#include "suite.h"

#define EXITCODE_STATUS	((42 << 1) | 1)		/* the exitcode guest's default */
#define EXITCODE_LINE	"exitcode: exiting with 42\n"

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Status `status` and exactly one line on stderr, "pmuvm: " + `line`. */
static void expect_one_line(const struct pmuvm_result *r, int status, const char *line)
{
	char want[1024];

	snprintf(want, sizeof(want), "pmuvm: %s\n", line);
	ck_assert_msg(r->status == status, "status %d, want %d; stderr: %s", r->status, status,
		      r->err);
	ck_assert_str_eq(r->err, want);
}

/* The JSON text at `text` (a report on stdout), parsed; fails if it is not one object. */
static json_object *parse_json(const char *text)
{
	json_tokener *tok = json_tokener_new();
	json_object *o;

	ck_assert_ptr_nonnull(text);
	o = json_tokener_parse_ex(tok, text, (int)strlen(text));
	ck_assert_msg(o && json_tokener_get_error(tok) == json_tokener_success,
		      "not one JSON object: %s", text);
	/* Nothing after it but its newline. */
	ck_assert_str_eq(text + json_tokener_get_parse_end(tok), "");
	ck_assert_str_eq(text + strlen(text) - 2, "}\n");
	json_tokener_free(tok);
	return o;
}

static void expect_reason(json_object *root, const char *reason, unsigned int status)
{
	ck_assert_str_eq(json_object_get_string(json_get(root, "exit.reason")), reason);
	ck_assert_uint_eq(json_u64(root, "exit.status"), status);
}

static char file_type(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return '-';
	return S_ISLNK(st.st_mode) ? 'l' : S_ISCHR(st.st_mode) ? 'c' : S_ISREG(st.st_mode) ? 'f' :
	       S_ISFIFO(st.st_mode) ? 'p' : S_ISDIR(st.st_mode) ? 'd' : '?';
}

/* No temporary file pmuvm made is left in dir. */
static void expect_no_leftovers(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		ck_assert_msg(!strstr(e->d_name, ".tmp"), "left behind: %s/%s", dir, e->d_name);
	closedir(d);
}

/* ---- pmuvm in the background ---------------------------------------------- */

struct proc {
	pid_t pid;
	char out[600], err[600];
};

/*
 * Starts pmuvm with argv (NULL-terminated, without argv[0]); stdout to
 * p->out, or to the descriptor out_fd if >= 0, or closed if out_fd is
 * PROC_CLOSED; stderr to p->err, or to err_fd if >= 0.
 */
#define PROC_CLOSED	(-2)
static void proc_start(struct proc *p, const char *const *argv, int out_fd, int err_fd)
{
	static unsigned int seq;
	const char *full[32] = { pmuvm_path() };
	int n;

	for (n = 1; *argv && n < 31; argv++)
		full[n++] = *argv;
	full[n] = NULL;
	snprintf(p->out, sizeof(p->out), "%s/bg%u.out", test_tmpdir(), seq);
	snprintf(p->err, sizeof(p->err), "%s/bg%u.err", test_tmpdir(), seq++);
	p->pid = fork();
	ck_assert_int_ge(p->pid, 0);
	if (p->pid == 0) {
		int fo = out_fd >= 0 ? out_fd : open(p->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int fe = err_fd >= 0 ? err_fd : open(p->err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fo < 0 && out_fd != PROC_CLOSED)
			_exit(127);
		if (fe < 0)
			_exit(127);
		dup2(fe, 2);
		if (out_fd == PROC_CLOSED)
			close(1);
		else
			dup2(fo, 1);
		setenv("ASAN_OPTIONS", "exitcode=66", 0);
		setenv("UBSAN_OPTIONS", "exitcode=66:print_stacktrace=1", 0);
		execv(full[0], (char *const *)full);
		_exit(127);
	}
}

/* The raw wait status within limit_s, else -1 after killing it. */
static int proc_wait(struct proc *p, double limit_s)
{
	double t0 = mono_s();
	int status;

	for (;;) {
		if (waitpid(p->pid, &status, WNOHANG) == p->pid)
			return status;
		if (mono_s() - t0 > limit_s) {
			kill(p->pid, SIGKILL);
			waitpid(p->pid, &status, 0);
			return -1;
		}
		usleep(5000);
	}
}

static bool proc_alive(struct proc *p)
{
	int status;

	return waitpid(p->pid, &status, WNOHANG) == 0;
}

/* Waits until file `path` holds `text` (the guest said it is running). */
static void wait_for_text(struct proc *p, const char *path, const char *text, double limit_s)
{
	double t0 = mono_s();

	for (;;) {
		char *s = read_file_str(path);
		bool found = s && strstr(s, text);

		free(s);
		if (found)
			return;
		if (!proc_alive(p) || mono_s() - t0 > limit_s) {
			char *err = read_file_str(p->err);

			kill(p->pid, SIGKILL);
			ck_abort_msg("'%s' never appeared in %s; stderr: %s", text, path, err);
		}
		usleep(20000);
	}
}

/* Exited by itself with `status` (not killed by a signal). */
static void expect_exited(int raw, int status, const char *err_path)
{
	char *err = read_file_str(err_path);

	ck_assert_msg(raw != -1, "pmuvm did not end in time; stderr: %s", err);
	ck_assert_msg(WIFEXITED(raw), "pmuvm was killed by signal %d; stderr: %s",
		      WIFSIGNALED(raw) ? WTERMSIG(raw) : 0, err);
	ck_assert_msg(WEXITSTATUS(raw) == status, "status %d, want %d; stderr: %s",
		      WEXITSTATUS(raw), status, err);
	free(err);
}

/* ---- a private /dev ------------------------------------------------------- */

#define NS_SKIP	77

/*
 * Runs pmuvm (as pmuvm_run_env() does) as root in a private mount namespace
 * whose /dev is a fresh tmpfs holding kvm, null, full and stdout (a symlink
 * to /proc/self/fd/1, as udev makes it).  types[] gets the type of
 * /dev/stdout, /dev/null and /dev/full afterwards (file_type()).  False
 * where that cannot be made (not root): the caller skips.
 */
static bool run_private_dev(struct pmuvm_result *r, char types[4], const char *const *argv)
{
	char facts[700], outp[700], errp[700];
	int status, st = -1;
	char *f;
	pid_t pid;

	if (geteuid() != 0)
		return false;
	snprintf(facts, sizeof(facts), "%s/ns.facts", test_tmpdir());
	snprintf(outp, sizeof(outp), "%s/ns.out", test_tmpdir());
	snprintf(errp, sizeof(errp), "%s/ns.err", test_tmpdir());
	unlink(facts);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct pmuvm_result res;
		struct stat kvm;
		FILE *o;

		if (stat("/dev/kvm", &kvm) || unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("pmuvm-test-dev", "/dev", "tmpfs", MS_NOSUID, "mode=755") ||
		    mknod("/dev/kvm", S_IFCHR | 0600, kvm.st_rdev) ||
		    mknod("/dev/null", S_IFCHR | 0666, makedev(1, 3)) ||
		    mknod("/dev/full", S_IFCHR | 0666, makedev(1, 7)) ||
		    symlink("/proc/self/fd/1", "/dev/stdout"))
			_exit(NS_SKIP);
		if (pmuvm_run_env(&res, NULL, 60, argv))
			_exit(1);
		o = fopen(facts, "w");
		if (!o)
			_exit(1);
		fprintf(o, "%d %c%c%c\n", res.status, file_type("/dev/stdout"),
			file_type("/dev/null"), file_type("/dev/full"));
		fclose(o);
		write_file(outp, res.out, strlen(res.out));
		write_file(errp, res.err, strlen(res.err));
		_exit(0);	/* not exit(): the parent's atexit handlers are its own */
	}
	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == NS_SKIP)
		return false;
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "private /dev child failed (%d)", status);
	f = read_file_str(facts);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(sscanf(f, "%d %3s", &st, types), 2);
	free(f);
	memset(r, 0, sizeof(*r));
	r->status = st;
	r->out = read_file_str(outp);
	r->err = read_file_str(errp);
	ck_assert_ptr_nonnull(r->out);
	ck_assert_ptr_nonnull(r->err);
	return true;
}

#define RUN_PRIVATE_DEV(r, types, ...)							\
	do {										\
		if (!run_private_dev(r, types,						\
				     (const char *const[]){ __VA_ARGS__, NULL }))		\
			TEST_SKIP("needs root and a private mount namespace");		\
	} while (0)

/* ---- tests ------------------------------------------------------------------ */

START_TEST(test_report_dash)
{
	struct pmuvm_result r;
	json_object *root;

	REQUIRE_KVM();
	pmuvm_run(&r, "--report", "-", guest_path("exitcode"));
	ck_assert_msg(r.status == EXITCODE_STATUS, "status %d: %s", r.status, r.err);
	ck_assert_str_eq(r.err, "");
	/* The guest's line first, then the report. */
	ck_assert_msg(!strncmp(r.out, EXITCODE_LINE, strlen(EXITCODE_LINE)), "stdout: %s", r.out);
	root = parse_json(r.out + strlen(EXITCODE_LINE));
	expect_reason(root, "debug-exit", EXITCODE_STATUS);
	ck_assert_uint_eq(json_u64(root, "exit.guest_value"), 42);
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

/* A symlink is followed, to an existing file and to a new one, and stays a symlink. */
START_TEST(test_report_symlink)
{
	char dir[600], link[700], target[700], dangling[700], created[700];
	struct pmuvm_result r;
	json_object *root;
	char buf[64];
	ssize_t n;

	snprintf(dir, sizeof(dir), "%s", tmp_path("links"));
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(link, sizeof(link), "%s/report.json", dir);
	snprintf(target, sizeof(target), "%s/target.json", dir);
	snprintf(dangling, sizeof(dangling), "%s/new-link.json", dir);
	snprintf(created, sizeof(created), "%s/created.json", dir);
	ck_assert(write_file(target, "old\n", 4));
	ck_assert_int_eq(chmod(target, 0640), 0);
	ck_assert_int_eq(symlink("target.json", link), 0);
	ck_assert_int_eq(symlink("created.json", dangling), 0);
	REQUIRE_KVM();

	pmuvm_run(&r, "--report", link, guest_path("exitcode"));
	ck_assert_msg(r.status == EXITCODE_STATUS, "status %d: %s", r.status, r.err);
	ck_assert_str_eq(r.err, "");
	ck_assert_int_eq(file_type(link), 'l');
	n = readlink(link, buf, sizeof(buf) - 1);
	ck_assert_int_eq(n, 11);
	buf[n] = '\0';
	ck_assert_str_eq(buf, "target.json");
	root = report_load(target);
	expect_reason(root, "debug-exit", EXITCODE_STATUS);
	json_object_put(root);
	{
		struct stat st;

		/* The replacing file keeps the permissions of the one it replaced. */
		ck_assert_int_eq(stat(target, &st), 0);
		ck_assert_uint_eq(st.st_mode & 07777, 0640);
	}
	pmuvm_result_free(&r);

	pmuvm_run(&r, "--report", dangling, guest_path("exitcode"));
	ck_assert_msg(r.status == EXITCODE_STATUS, "status %d: %s", r.status, r.err);
	ck_assert_int_eq(file_type(dangling), 'l');
	root = report_load(created);
	expect_reason(root, "debug-exit", EXITCODE_STATUS);
	json_object_put(root);
	expect_no_leftovers(dir);
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_report_dev_stdout)
{
	struct pmuvm_result r;
	json_object *root;
	char types[4];

	REQUIRE_KVM();
	RUN_PRIVATE_DEV(&r, types, "--report", "/dev/stdout", guest_path("exitcode"));
	ck_assert_msg(r.status == EXITCODE_STATUS, "status %d: %s", r.status, r.err);
	ck_assert_str_eq(r.err, "");
	ck_assert_msg(types[0] == 'l', "/dev/stdout is '%c' afterwards, not a symlink", types[0]);
	ck_assert_msg(!strncmp(r.out, EXITCODE_LINE, strlen(EXITCODE_LINE)), "stdout: %s", r.out);
	root = parse_json(r.out + strlen(EXITCODE_LINE));
	expect_reason(root, "debug-exit", EXITCODE_STATUS);
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_report_dev_null)
{
	struct pmuvm_result r;
	char types[4];

	REQUIRE_KVM();
	RUN_PRIVATE_DEV(&r, types, "--report", "/dev/null", guest_path("exitcode"));
	ck_assert_msg(r.status == EXITCODE_STATUS, "status %d: %s", r.status, r.err);
	ck_assert_str_eq(r.err, "");
	ck_assert_str_eq(r.out, EXITCODE_LINE);
	ck_assert_msg(types[1] == 'c', "/dev/null is '%c' afterwards", types[1]);
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_report_dev_full)
{
	struct pmuvm_result r;
	char types[4];

	REQUIRE_KVM();
	RUN_PRIVATE_DEV(&r, types, "--report", "/dev/full", guest_path("exitcode"));
	expect_one_line(&r, PMUVM_EXIT_HOST_ERROR, "--report: /dev/full: No space left on device");
	ck_assert_msg(types[2] == 'c', "/dev/full is '%c' afterwards", types[2]);
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_serial_dev_full)
{
	struct pmuvm_result r;
	char types[4];

	REQUIRE_KVM();
	RUN_PRIVATE_DEV(&r, types, "--serial", "/dev/full", guest_path("exitcode"));
	expect_one_line(&r, PMUVM_EXIT_HOST_ERROR, "--serial: /dev/full: No space left on device");
	ck_assert_msg(types[2] == 'c', "/dev/full is '%c' afterwards", types[2]);
	pmuvm_result_free(&r);
}
END_TEST

/* A reader of a FIFO gets the report; the FIFO stays a FIFO. */
START_TEST(test_report_fifo)
{
	char fifo[600], got[600];
	struct pmuvm_result r;
	struct proc reader;
	json_object *root;
	char *text;
	int raw;

	snprintf(fifo, sizeof(fifo), "%s", tmp_path("report.fifo"));
	snprintf(got, sizeof(got), "%s", tmp_path("fifo.got"));
	ck_assert_int_eq(mkfifo(fifo, 0644), 0);
	REQUIRE_KVM();
	reader.pid = fork();
	ck_assert_int_ge(reader.pid, 0);
	if (reader.pid == 0) {
		int in = open(fifo, O_RDONLY), out = open(got, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		char buf[4096];
		ssize_t n;

		if (in < 0 || out < 0)
			_exit(1);
		while ((n = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, (size_t)n) != n)
				_exit(1);
		_exit(n < 0);
	}
	pmuvm_run(&r, "--report", fifo, guest_path("exitcode"));
	/* A reader still waiting (no writer came) is let go. */
	if (file_type(fifo) == 'p') {
		int w = open(fifo, O_WRONLY | O_NONBLOCK);

		if (w >= 0)
			close(w);
	}
	raw = proc_wait(&reader, 10);
	ck_assert_msg(r.status == EXITCODE_STATUS, "status %d: %s", r.status, r.err);
	ck_assert_str_eq(r.err, "");
	ck_assert_msg(file_type(fifo) == 'p', "the FIFO is '%c' afterwards", file_type(fifo));
	ck_assert_msg(raw != -1 && WIFEXITED(raw) && WEXITSTATUS(raw) == 0, "reader: %d", raw);
	text = read_file_str(got);
	root = parse_json(text);
	expect_reason(root, "debug-exit", EXITCODE_STATUS);
	json_object_put(root);
	free(text);
	pmuvm_result_free(&r);
}
END_TEST

/* A directory is refused before anything boots (no KVM needed to say so). */
START_TEST(test_output_directory)
{
	static const char *const opts[] = { "--report", "--profile", "--profile-folded" };
	char dir[600], line[800], rep[600];
	struct pmuvm_result r;
	unsigned int i;

	snprintf(dir, sizeof(dir), "%s", test_tmpdir());
	snprintf(rep, sizeof(rep), "%s", tmp_path("dir.json"));
	for (i = 0; i < 3; i++) {
		const char *argv[6] = { opts[i], dir };
		unsigned int n = 2;

		if (i) {	/* and a --report that works */
			argv[n++] = "--report";
			argv[n++] = rep;
		}
		argv[n] = guest_path("exitcode");
		pmuvm_run_env(&r, NULL, 30, argv);
		snprintf(line, sizeof(line), "%s: %s: Is a directory", opts[i], dir);
		expect_one_line(&r, PMUVM_EXIT_USAGE, line);
		ck_assert_str_eq(r.out, "");
		if (i) {	/* a usable --report says why */
			ck_assert_ptr_nonnull(r.report);
			expect_reason(r.report, "usage", PMUVM_EXIT_USAGE);
			ck_assert_str_eq(json_object_get_string(json_get(r.report, "exit.message")),
					 line);
		}
		pmuvm_result_free(&r);
	}
	ck_assert_int_eq(file_type(dir), 'd');
}
END_TEST

static void signal_stops(int sig, const char *name)
{
	const char *rep = tmp_path(sig == SIGINT ? "sigint.json" : "sigterm.json");
	char report[600], line[100], *err;
	const char *argv[] = { "--report", report, guest_path("spin"), NULL };
	struct proc p;
	json_object *root;
	int raw;

	snprintf(report, sizeof(report), "%s", rep);
	REQUIRE_KVM();
	proc_start(&p, argv, -1, -1);
	wait_for_text(&p, p.out, "spin: ready\n", 60);
	kill(p.pid, sig);
	raw = proc_wait(&p, 30);
	expect_exited(raw, PMUVM_EXIT_SIGNAL_BASE + sig, p.err);
	err = read_file_str(p.err);
	snprintf(line, sizeof(line), "pmuvm: terminating on signal %d (%s)\n", sig, name);
	ck_assert_str_eq(err, line);
	free(err);
	root = report_load(report);
	expect_reason(root, "signal", PMUVM_EXIT_SIGNAL_BASE + sig);
	ck_assert_str_eq(json_object_get_string(json_get(root, "exit.signal")), name);
	json_object_put(root);
}

START_TEST(test_sigterm_report)
{
	signal_stops(SIGTERM, "SIGTERM");
}
END_TEST

START_TEST(test_sigint_report)
{
	signal_stops(SIGINT, "SIGINT");
}
END_TEST

/*
 * The first signal stops the guest; pmuvm then waits for a reader of its
 * --report FIFO (none comes); the second ends it at once.
 */
START_TEST(test_second_signal)
{
	char fifo[600];
	const char *argv[] = { "--report", fifo, guest_path("spin"), NULL };
	struct proc p;
	int raw;

	snprintf(fifo, sizeof(fifo), "%s", tmp_path("nobody.fifo"));
	ck_assert_int_eq(mkfifo(fifo, 0644), 0);
	REQUIRE_KVM();
	proc_start(&p, argv, -1, -1);
	wait_for_text(&p, p.out, "spin: ready\n", 60);
	kill(p.pid, SIGTERM);
	usleep(1000000);
	ck_assert_msg(proc_alive(&p), "the first SIGTERM ended pmuvm at once");
	kill(p.pid, SIGTERM);
	raw = proc_wait(&p, 5);
	expect_exited(raw, PMUVM_EXIT_SIGNAL_BASE + SIGTERM, p.err);
	ck_assert_int_eq(file_type(fifo), 'p');
}
END_TEST

/* With stdout closed, nothing pmuvm opens becomes its stdout. */
START_TEST(test_stdout_closed)
{
	char serial[600];
	const char *plain[] = { guest_path("exitcode"), NULL };
	const char *with_serial[] = { "--serial", serial, guest_path("exitcode"), NULL };
	struct proc p;
	char *s;

	snprintf(serial, sizeof(serial), "%s", tmp_path("closed.serial"));
	REQUIRE_KVM();
	proc_start(&p, with_serial, PROC_CLOSED, -1);
	expect_exited(proc_wait(&p, 60), EXITCODE_STATUS, p.err);
	s = read_file_str(p.err);
	ck_assert_str_eq(s, "");
	free(s);
	s = read_file_str(serial);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s, EXITCODE_LINE);
	free(s);

	proc_start(&p, plain, PROC_CLOSED, -1);
	expect_exited(proc_wait(&p, 60), EXITCODE_STATUS, p.err);
	s = read_file_str(p.err);
	ck_assert_str_eq(s, "");
	free(s);
}
END_TEST

/* A reader that goes away (| head): status 14 and one line, not a silent SIGPIPE death. */
START_TEST(test_pipe_reader_exits)
{
	char report[600], buf[64], *err;
	const char *argv[] = { "--report", report, "--append", "mode=2", guest_path("spin"), NULL };
	struct proc p;
	json_object *root;
	int fds[2], raw;

	snprintf(report, sizeof(report), "%s", tmp_path("pipe.json"));
	REQUIRE_KVM();
	ck_assert_int_eq(pipe2(fds, O_CLOEXEC), 0);	/* pmuvm holds no read end */
	proc_start(&p, argv, fds[1], -1);
	close(fds[1]);
	ck_assert_int_gt(read(fds[0], buf, sizeof(buf)), 0);
	close(fds[0]);
	raw = proc_wait(&p, 60);
	expect_exited(raw, PMUVM_EXIT_HOST_ERROR, p.err);
	err = read_file_str(p.err);
	ck_assert_str_eq(err, "pmuvm: serial output: standard output: Broken pipe\n");
	free(err);
	root = report_load(report);
	expect_reason(root, "host-error", PMUVM_EXIT_HOST_ERROR);
	json_object_put(root);
}
END_TEST

START_TEST(test_profile_folded)
{
	char dir[600], table[700], folded[700], line[800];
	struct pmuvm_result r;
	char *t, *f;

	snprintf(dir, sizeof(dir), "%s", tmp_path("prof"));
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(table, sizeof(table), "%s/p.txt", dir);
	snprintf(folded, sizeof(folded), "%s/stacks.folded", dir);
	REQUIRE_KVM();
	pmuvm_run(&r, "--profile", table, "--profile-folded", folded, guest_path("exitcode"));
	ck_assert_msg(r.status == EXITCODE_STATUS, "status %d: %s", r.status, r.err);
	ck_assert_str_eq(r.err, "");
	t = read_file_str(table);
	f = read_file_str(folded);
	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(!strncmp(t, "# pmuvm profile of ", 19), "table: %s", t);
	snprintf(line, sizeof(line), "# folded stacks: %s\n", folded);
	ck_assert_msg(strstr(t, line), "table: %s", t);
	ck_assert_str_eq(f, "");	/* no counter overflowed */
	free(t);
	free(f);
	ck_assert_uint_eq(dir_entries(dir), 2);
	pmuvm_result_free(&r);

	/* Without --profile-folded, nothing beside the table. */
	ck_assert_int_eq(unlink(table), 0);
	ck_assert_int_eq(unlink(folded), 0);
	pmuvm_run(&r, "--profile", table, guest_path("exitcode"));
	ck_assert_msg(r.status == EXITCODE_STATUS, "status %d: %s", r.status, r.err);
	ck_assert_uint_eq(dir_entries(dir), 1);
	t = read_file_str(table);
	ck_assert_ptr_nonnull(t);
	ck_assert_msg(!strstr(t, "folded"), "table: %s", t);
	free(t);
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_bad_image_report)
{
	char report[600], image[600];
	struct pmuvm_result r;
	json_object *root;

	snprintf(report, sizeof(report), "%s", tmp_path("bad-image.json"));
	snprintf(image, sizeof(image), "%s", tmp_path("no-such.elf"));
	pmuvm_run(&r, "--report", report, image);
	ck_assert_int_eq(r.status, PMUVM_EXIT_BAD_IMAGE);
	root = report_load(report);
	expect_reason(root, "bad-image", PMUVM_EXIT_BAD_IMAGE);
	ck_assert_msg(strstr(json_object_get_string(json_get(root, "exit.message")),
			     "cannot read guest image: No such file or directory"), "%s",
		      json_object_get_string(root));
	ck_assert_str_eq(json_object_get_string(json_get(root, "config.image")), image);
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_usage_report)
{
	char report[600];
	struct pmuvm_result r;
	json_object *root;

	snprintf(report, sizeof(report), "%s", tmp_path("usage.json"));
	pmuvm_run(&r, "--report", report, "--cpus", "0", "x.elf");
	expect_one_line(&r, PMUVM_EXIT_USAGE,
			"--cpus: '0' is not a whole number from 1 to 4096");
	root = report_load(report);
	expect_reason(root, "usage", PMUVM_EXIT_USAGE);
	ck_assert_str_eq(json_object_get_string(json_get(root, "exit.message")),
			 "--cpus: '0' is not a whole number from 1 to 4096");
	{
		json_object *image = (json_object *)1;

		ck_assert(json_object_object_get_ex(json_get(root, "config"), "image", &image));
		ck_assert_ptr_null(image);	/* JSON null: no image was named */
	}
	json_object_put(root);
	pmuvm_result_free(&r);

	/* An error before --report was seen: no report. */
	unlink(report);
	pmuvm_run(&r, "--bogus", "--report", report, "x.elf");
	expect_one_line(&r, PMUVM_EXIT_USAGE, "unknown option '--bogus' (see --help)");
	ck_assert_int_eq(access(report, F_OK), -1);
	pmuvm_result_free(&r);
}
END_TEST

/* "pmuvm: stepped N instructions in T s (R/s)" lines of stderr text; returns how many. */
static unsigned int progress_lines(const char *err, unsigned long long *last_n, double *last_t)
{
	const char *line = err;
	unsigned int count = 0;

	while (line && *line) {
		unsigned long long n, rate;
		double t;
		char end;

		if (sscanf(line, "pmuvm: stepped %llu instructions in %lf s (%llu/s%c", &n, &t, &rate,
			   &end) == 4 && end == ')') {
			ck_assert_uint_gt(n, 0);
			ck_assert(t > 0);
			*last_n = n;
			*last_t = t;
			count++;
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return count;
}

/*
 * pmuvm on a stepped guest (spin mode=1) for about 12 s, stderr a file,
 * SIGUSR1 sent once a second after it is ready if `ask`, then SIGTERM: its
 * stderr.
 */
static char *progress_run(const char *const *argv, bool ask)
{
	struct proc p;

	proc_start(&p, argv, -1, -1);
	wait_for_text(&p, p.out, "spin: ready\n", 60);
	usleep(1000000);
	if (ask)
		kill(p.pid, SIGUSR1);
	usleep(11000000);
	kill(p.pid, SIGTERM);
	expect_exited(proc_wait(&p, 30), PMUVM_EXIT_SIGNAL_BASE + SIGTERM, p.err);
	return read_file_str(p.err);
}

/*
 * Without -q the 10 s line comes by itself; with -q only the one SIGUSR1
 * asks for. One pmuvm at a time, each stepping on a CPU of its own.
 */
START_TEST(test_progress)
{
	const char *loud[] = { "--exact", "step", "--append", "mode=1", guest_path("spin"), NULL };
	const char *quiet[] = { "-q", "--exact", "step", "--append", "mode=1", guest_path("spin"),
				NULL };
	unsigned long long n = 0;
	double t = 0;
	char *err;

	REQUIRE_KVM();
	err = progress_run(loud, false);
	ck_assert_msg(progress_lines(err, &n, &t) == 1, "stderr: %s", err);
	ck_assert_msg(t >= 9.9 && t < 11, "the periodic line at %.1f s: %s", t, err);
	free(err);
	err = progress_run(quiet, true);
	ck_assert_msg(progress_lines(err, &n, &t) == 1, "stderr: %s", err);
	ck_assert_msg(t < 9, "-q printed the periodic line: %s", err);
	ck_assert(strstr(err, "pmuvm: terminating on signal 15 (SIGTERM)\n"));
	free(err);
}
END_TEST

/*
 * Under the emulation engine (the default) the line counts the instructions
 * the emulator ran as well as those stepped, and says how many it emulated.
 */
START_TEST(test_progress_emulated)
{
	const char *argv[] = { "-q", "--append", "mode=1", guest_path("spin"), NULL };
	unsigned long long n = 0, emulated = 0, rate;
	unsigned int count = 0;
	char *err, *line, end;
	double t;

	REQUIRE_KVM();
	err = progress_run(argv, true);
	for (line = err; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (sscanf(line, "pmuvm: ran %llu instructions (%llu emulated) in %lf s (%llu/s%c",
			   &n, &emulated, &t, &rate, &end) == 5 && end == ')')
			count++;
	ck_assert_msg(count == 1, "stderr: %s", err);
	ck_assert_msg(emulated > 0 && n > emulated && rate > 0, "stderr: %s", err);
	ck_assert_msg(!strstr(err, "pmuvm: stepped "), "stderr: %s", err);
	free(err);
}
END_TEST

/*
 * On a terminal the line is rewritten in place, cleared before any other
 * line, and the shell's prompt starts on a line of its own.
 */
START_TEST(test_progress_tty)
{
	const char *argv[] = { "--exact", "step", "--append", "mode=1", guest_path("spin"), NULL };
	char text[8192], *line, *term;
	size_t len = 0;
	struct proc p;
	int master, slave;
	ssize_t n;

	REQUIRE_KVM();
	master = posix_openpt(O_RDWR | O_NOCTTY);
	ck_assert_int_ge(master, 0);
	ck_assert_int_eq(grantpt(master), 0);
	ck_assert_int_eq(unlockpt(master), 0);
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	ck_assert_int_ge(slave, 0);
	proc_start(&p, argv, -1, slave);
	close(slave);
	wait_for_text(&p, p.out, "spin: ready\n", 60);
	usleep(3500000);
	kill(p.pid, SIGTERM);
	expect_exited(proc_wait(&p, 30), PMUVM_EXIT_SIGNAL_BASE + SIGTERM, p.err);
	/* What it wrote is still buffered; EIO once it is all read. */
	while (len < sizeof(text) - 1 && (n = read(master, text + len, sizeof(text) - 1 - len)) > 0)
		len += (size_t)n;
	text[len] = '\0';
	close(master);
	line = strstr(text, "\r\033[Kpmuvm: stepped ");
	ck_assert_msg(line, "no progress line on the terminal: %s", text);
	term = strstr(text, "\r\033[Kpmuvm: terminating on signal 15 (SIGTERM)\r\n");
	ck_assert_msg(term && term > line, "the line was not cleared first: %s", text);
	ck_assert_msg(!strchr(line, '\n') || strchr(line, '\n') > term, "a line ended early: %s",
		      text);
	ck_assert_str_eq(text + len - 2, "\r\n");
}
END_TEST

static Suite *outputs_suite(void)
{
	Suite *s = suite_create("outputs");
	TCase *tc = tcase_create("outputs");

	tcase_set_tags(tc, TEST_TAG_KVM_NEUTRAL);
	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, test_report_dash);
	tcase_add_test(tc, test_report_symlink);
	tcase_add_test(tc, test_report_dev_stdout);
	tcase_add_test(tc, test_report_dev_null);
	tcase_add_test(tc, test_report_dev_full);
	tcase_add_test(tc, test_serial_dev_full);
	tcase_add_test(tc, test_report_fifo);
	tcase_add_test(tc, test_output_directory);
	tcase_add_test(tc, test_sigterm_report);
	tcase_add_test(tc, test_sigint_report);
	tcase_add_test(tc, test_second_signal);
	tcase_add_test(tc, test_stdout_closed);
	tcase_add_test(tc, test_pipe_reader_exits);
	tcase_add_test(tc, test_profile_folded);
	tcase_add_test(tc, test_bad_image_report);
	tcase_add_test(tc, test_usage_report);
	tcase_add_test(tc, test_progress);
	tcase_add_test(tc, test_progress_tty);
	tcase_add_test(tc, test_progress_emulated);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(outputs_suite)
