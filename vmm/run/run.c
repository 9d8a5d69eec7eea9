/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pmuvm run: the pieces around an ordinary Linux boot (docs/run.md). The
 * kernel and initramfs come from the pmuvm-kernel helper (installed beside
 * pmuvm-run-init in libexec: a shell script, because fetching Debian's
 * kernel is apt-get download and dpkg-deb, as the lab does); two virtiofsd
 * share / (mounted read-only by the guest) and the current directory; the
 * command's description follows the initramfs (spec.h); its exit status
 * comes back through isa-debug-exit.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exitcode.h"
#include "log.h"
#include "machine/vm.h"
#include "run/console.h"
#include "run/run.h"
#include "run/spec.h"
#include "run/userns.h"
#include "run/virtiofsd.h"

extern char **environ;

enum { FS_ROOT, FS_CWD, FS_NR };

static struct {
	char **cmd;			/* COMMAND [ARG...], NULL-terminated */
	char *shell[2];
	char kernel[PATH_MAX], initrd[PATH_MAX];
	char sockdir[PATH_MAX];
	char cwd[PATH_MAX];
	char append[4096];
	const char *fsd_bin;		/* virtiofsd, found before the kernel */
	struct virtiofsd fsd[FS_NR];
	uint8_t *spec;
	size_t spec_len;
	bool stdin_tty;
} run;

int run_parse(struct pmuvm_config *cfg, int argc, char **argv)
{
	int cmd, r = config_parse_run(cfg, argc, argv, &cmd);

	if (r)
		return r;
	if (cmd < argc) {
		run.cmd = argv + cmd;
	} else {
		const char *sh = getenv("SHELL");

		run.shell[0] = (char *)(sh && *sh ? sh : "/bin/sh");
		run.cmd = run.shell;
	}
	return 0;
}

/* `name` in pmuvm's libexec: $PMUVM_LIBEXEC, the build tree's, or the installed one. */
static int libexec_file(const char *name, char *out, size_t len)
{
	const char *env = getenv("PMUVM_LIBEXEC");
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if (env && *env)
		return (size_t)snprintf(out, len, "%s/%s", env, name) >= len || access(out, F_OK) ?
		       -ENOENT : 0;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -ENOENT;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = 0;
	if ((size_t)snprintf(out, len, "%s/libexec/%s", exe, name) < len && !access(out, F_OK))
		return 0;
	return (size_t)snprintf(out, len, "%s/../libexec/pmuvm/%s", exe, name) >= len ||
	       access(out, F_OK) ? -ENOENT : 0;
}

/* Runs pmuvm-kernel; its two lines are the kernel's and the initramfs's paths. */
static int run_kernel_helper(const char *kernel)
{
	char helper[PATH_MAX], init[PATH_MAX], out[2 * PATH_MAX + 2], *nl;
	const char *argv[5];
	int p[2], st, n = 0;
	size_t len = 0;
	ssize_t k;
	pid_t pid;

	if (libexec_file("pmuvm-kernel", helper, sizeof(helper)) ||
	    libexec_file("pmuvm-run-init", init, sizeof(init))) {
		pr_err("run: pmuvm-kernel or pmuvm-run-init not found beside pmuvm (set PMUVM_LIBEXEC)");
		return PMUVM_EXIT_HOST_ERROR;
	}
	argv[n++] = helper;
	if (kernel) {
		argv[n++] = "--kernel";
		argv[n++] = kernel;
	}
	argv[n++] = init;
	argv[n] = NULL;
	if (pipe(p) < 0) {
		pr_err("pipe: %s", strerror(errno));
		return PMUVM_EXIT_HOST_ERROR;
	}
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execv(helper, (char *const *)argv);
		fprintf(stderr, "pmuvm: %s: %s\n", helper, strerror(errno));
		_exit(127);
	}
	close(p[1]);
	while (pid > 0 && (k = read(p[0], out + len, sizeof(out) - 1 - len)) != 0) {
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			break;
		len += (size_t)k;
		if (len == sizeof(out) - 1)
			break;
	}
	close(p[0]);
	out[len] = 0;
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return PMUVM_EXIT_HOST_ERROR;	/* pmuvm-kernel said why */
	nl = strchr(out, '\n');
	if (!nl || !strchr(nl + 1, '\n')) {
		pr_err("run: pmuvm-kernel printed no kernel and initramfs");
		return PMUVM_EXIT_HOST_ERROR;
	}
	*nl = 0;
	*strchr(nl + 1, '\n') = 0;
	if (strlen(out) >= sizeof(run.kernel) || strlen(nl + 1) >= sizeof(run.initrd)) {
		pr_err("run: pmuvm-kernel's paths are too long");
		return PMUVM_EXIT_HOST_ERROR;
	}
	strcpy(run.kernel, out);
	strcpy(run.initrd, nl + 1);
	return 0;
}

static void run_cleanup(void)
{
	unsigned int i;

	run_console_restore();
	for (i = 0; i < FS_NR; i++)
		virtiofsd_stop(&run.fsd[i]);
	if (run.sockdir[0])
		rmdir(run.sockdir);
	run.sockdir[0] = 0;
}

/* The shares: / and the current directory, each its virtiofsd. */
static int run_shares(struct pmuvm_config *cfg)
{
	static const char *const tags[FS_NR] = { "root", "cwd" };
	const char *tmp = getenv("XDG_RUNTIME_DIR");
	unsigned int i, nr_user = cfg->nr_virtiofs;

	if (nr_user + FS_NR > PMUVM_MAX_VIRTIOFS) {
		pr_err("--virtiofs: pmuvm run takes at most %d besides its own two", PMUVM_MAX_VIRTIOFS - FS_NR);
		return PMUVM_EXIT_USAGE;
	}
	if (!tmp || !*tmp || access(tmp, W_OK))
		tmp = "/tmp";
	snprintf(run.sockdir, sizeof(run.sockdir), "%s/pmuvm-run.XXXXXX", tmp);
	if (!mkdtemp(run.sockdir)) {
		pr_err("run: cannot make a directory in %s: %s", tmp, strerror(errno));
		run.sockdir[0] = 0;
		return PMUVM_EXIT_HOST_ERROR;
	}
	atexit(run_cleanup);
	memmove(&cfg->virtiofs[FS_NR], &cfg->virtiofs[0], nr_user * sizeof(cfg->virtiofs[0]));
	for (i = 0; i < FS_NR; i++) {
		if (virtiofsd_start(&run.fsd[i], run.fsd_bin, i == FS_ROOT ? "/" : run.cwd, run.sockdir, tags[i]))
			return PMUVM_EXIT_HOST_ERROR;
		cfg->virtiofs[i].tag = tags[i];
		cfg->virtiofs[i].socket = run.fsd[i].socket;
	}
	cfg->nr_virtiofs = nr_user + FS_NR;
	cfg->shared_ram = true;
	return 0;
}

static int run_describe(void)
{
	struct run_spec s = {
		.uid = getuid(), .gid = getgid(), .cwd = run.cwd,
		.stdin_tty = isatty(0), .stdout_tty = isatty(1),
		.argv = run.cmd, .envp = environ,
	};
	struct winsize ws;
	int n = getgroups(RUN_SPEC_MAX_GROUPS, s.groups);

	s.nr_groups = n > 0 ? (unsigned int)n : 0;
	if (ioctl(s.stdout_tty ? 1 : 0, TIOCGWINSZ, &ws) == 0) {
		s.rows = ws.ws_row;
		s.cols = ws.ws_col;
	}
	run.stdin_tty = s.stdin_tty;
	if (run_spec_cpio(&s, &run.spec, &run.spec_len)) {
		pr_err("out of memory");
		return PMUVM_EXIT_HOST_ERROR;
	}
	return 0;
}

/*
 * The file server, found before the kernel (which may be fetched), so a
 * missing one fails at once. Without root, virtiofsd runs in a user
 * namespace of its own (run/userns.h); Debian 12's drops supplementary
 * groups at start and exits when it cannot, which there needs newgidmap
 * and a subordinate gid (docs/run.md, "What needs root"): without them
 * that case is refused here with its reason, unless PMUVM_VIRTIOFSD names
 * a server of the user's choice.
 */
static int run_find_virtiofsd(void)
{
	const char *env = getenv("PMUVM_VIRTIOFSD");
	char why[256];

	run.fsd_bin = virtiofsd_find();
	if (!run.fsd_bin) {
		if (env && *env)
			pr_err("run: PMUVM_VIRTIOFSD=%s: not an executable file", env);
		else
			pr_err("run: virtiofsd not found (Debian: apt-get install qemu-system-common; or set PMUVM_VIRTIOFSD)");
		return PMUVM_EXIT_HOST_ERROR;
	}
	if (geteuid() != 0 && !(env && *env) && getgroups(0, NULL) > 0 &&
	    userns_no_setgroups(why, sizeof(why))) {
		pr_err("run: %s drops supplementary groups, which without root needs newgidmap and a subordinate gid: %s; or see docs/run.md",
		       run.fsd_bin, why);
		return PMUVM_EXIT_HOST_ERROR;
	}
	return 0;
}

int run_prepare(struct pmuvm_config *cfg)
{
	struct stat st;
	int r;

	if (!getcwd(run.cwd, sizeof(run.cwd))) {
		pr_err("run: the current directory cannot be shared: %s", strerror(errno));
		return PMUVM_EXIT_HOST_ERROR;
	}
	if (stat(run.cwd, &st) < 0 || !S_ISDIR(st.st_mode) || access(run.cwd, R_OK | X_OK)) {
		pr_err("run: the current directory %s cannot be shared: %s", run.cwd,
		       strerror(errno ? errno : EACCES));
		return PMUVM_EXIT_HOST_ERROR;
	}
	/* Before the kernel, which may be fetched: a missing server fails at once. */
	r = run_find_virtiofsd();
	r = r ? r : run_kernel_helper(cfg->image);
	r = r ? r : run_shares(cfg);
	r = r ? r : run_describe();
	if (r)
		return r;
	cfg->image = run.kernel;
	cfg->initrd = run.initrd;
	cfg->initrd_tail = run.spec;
	cfg->initrd_tail_len = run.spec_len;
	/* Quiet unless -v: the console is the command's output. */
	snprintf(run.append, sizeof(run.append), "console=ttyS0 rdinit=/init panic=-1 %s%s%s",
		 log_verbosity ? "loglevel=7" : "quiet loglevel=1",
		 cfg->append ? " " : "", cfg->append ? cfg->append : "");
	cfg->append = run.append;
	return 0;
}

int run_start(struct vm *vm)
{
	unsigned int i;
	int e;

	/* Every back end is connected by now: their sockets can go. */
	for (i = 0; i < FS_NR; i++) {
		unlink(run.fsd[i].socket);
		run.fsd[i].socket[0] = 0;
	}
	rmdir(run.sockdir);
	run.sockdir[0] = 0;
	e = run_console_raw();
	e = e ? e : run_console_start(vm, !run.stdin_tty);
	if (e) {
		pr_err("run: console: %s", strerror(-e));
		return PMUVM_EXIT_HOST_ERROR;
	}
	return 0;
}

int run_finish(struct vm *vm, int status)
{
	run_console_stop(vm);
	run_cleanup();
	free(run.spec);
	run.spec = NULL;
	if (vm->stop_reason == VM_STOP_DEBUG_EXIT)
		return (int)(vm->debug_exit_value & 0xff);
	return status;
}
