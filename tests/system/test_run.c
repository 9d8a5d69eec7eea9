/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pmuvm run (vmm/run/, docs/run.md): a command of this machine's, in the
 * current directory, in a Linux guest with pmuvm's PMU; its exit status,
 * standard input and output, files it writes, perf and rr on programs
 * built here, threads on two vCPUs. Each test boots Debian's kernel, so
 * they run where KVM runs guest kernel mode natively, and in the lab
 * (tests/lab/README.md);
 * where KVM emulates it, and without virtiofsd or a kernel, they are
 * counted skips.
 */
#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dev/vhost_user.h"
#include "expect.h"
#include "pmuvm_run.h"
#include "run/virtiofsd.h"
#include "suite.h"

/* A boot takes minutes in the lab; rr's two boots and perf's take longer. */
#define RUN_LIMIT_S	900

/* NULL where pmuvm run can be tried here, else why not (asked once). */
static const char *run_unsuitable(void)
{
	static char why[512];
	static int known;
	struct pmuvm_result r;

	if (known)
		return why[0] ? why : NULL;
	known = 1;
	if (kvm_unusable_reason()) {
		snprintf(why, sizeof(why), "%s", kvm_unusable_reason());
		return why;
	}
	pmuvm_run(&r, guest_path("boot"));
	ck_assert_msg(r.report, "boot guest: no report (status %d)\n%s", r.status, r.err);
	if (json_object_get_boolean(json_get(r.report, "debug.host.kernel_mode_emulated")))
		snprintf(why, sizeof(why),
			 "this host's KVM emulates guest kernel mode (debug.host.kernel_mode_slowdown %llu): a Linux boot takes many minutes here; make check-lab runs it",
			 (unsigned long long)json_u64(r.report, "debug.host.kernel_mode_slowdown"));
	pmuvm_result_free(&r);
	if (!why[0] && access("/usr/lib/qemu/virtiofsd", X_OK) && access("/usr/libexec/virtiofsd", X_OK))
		snprintf(why, sizeof(why), "no virtiofsd (qemu-system-common)");
	return why[0] ? why : NULL;
}

#define REQUIRE_RUN()							\
	do {								\
		const char *why_ = run_unsuitable();			\
		if (why_)						\
			TEST_SKIP("%s", why_);				\
	} while (0)

/* A directory of its own for each test, the guest's current directory. */
static const char *test_dir(const char *name)
{
	static char dir[512];

	snprintf(dir, sizeof(dir), "%s", tmp_path(name));
	mkdir(dir, 0755);
	return dir;
}

/*
 * `script` under sh in `dir`, with $PMUVM pmuvm and $SRC the source tree;
 * standard input /dev/null unless the script says otherwise.
 */
static void sh_in(struct pmuvm_result *r, const char *dir, const char *script)
{
	char pmuvm[600], src[600], full[4096], cwd[512];
	const char *env[] = { pmuvm, src, NULL };

	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	snprintf(pmuvm, sizeof(pmuvm), "PMUVM=%s%s%s", pmuvm_path()[0] == '/' ? "" : cwd,
		 pmuvm_path()[0] == '/' ? "" : "/", pmuvm_path());
	snprintf(src, sizeof(src), "SRC=%s", cwd);
	snprintf(full, sizeof(full), "cd '%s' && exec </dev/null && %s", dir, script);
	ck_assert_int_eq(cmd_run(r, env, RUN_LIMIT_S, (const char *const[]){ "sh", "-c", full, NULL }), 0);
}

#define RUN_TRIPLE_FAULT "guest triple fault (shutdown)"

/*
 * sh_in(); false (after test_skip()) when pmuvm run found no kernel here.
 * The lab's nested SVM now and then triple-faults a running guest,
 * QEMU/KVM's as well as pmuvm's (tests/lab/README.md, "Guests the lab
 * resets"): there, a script whose guest did is run once more, and said
 * so with the trail pmuvm printed. Natively a triple fault fails the test.
 */
static bool run_sh(struct pmuvm_result *r, const char *dir, const char *script)
{
	for (int attempt = 1;; attempt++) {
		const char *tf;

		sh_in(r, dir, script);
		tf = strstr(r->err, RUN_TRIPLE_FAULT);
		tf = tf ? tf : strstr(r->out, RUN_TRIPLE_FAULT);
		if (!tf || !getenv("PMUVM_LAB") || attempt == 2)
			break;
		printf("note: pmuvm run's guest triple-faulted in the lab (attempt %d, status %d):\n%.*s\n",
		       attempt, r->status, 2000, tf);
		pmuvm_result_free(r);
	}
	if (r->status == 14 && strstr(r->err, "pmuvm: run: no kernel:")) {
		test_skip("pmuvm run: no kernel: %.*s", (int)strcspn(r->err, "\n"), r->err);
		pmuvm_result_free(r);
		return false;
	}
	return true;
}

START_TEST(test_run_true)
{
	struct pmuvm_result r;

	REQUIRE_RUN();
	if (!run_sh(&r, test_dir("true"), "\"$PMUVM\" run -- true"))
		return;
	ck_assert_msg(r.status == 0, "status %d\n%s%s", r.status, r.out, r.err);
	ck_assert_str_eq(r.out, "");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_run_exit_status)
{
	struct pmuvm_result r;

	REQUIRE_RUN();
	if (!run_sh(&r, test_dir("exit3"), "\"$PMUVM\" run -- sh -c 'exit 3'"))
		return;
	ck_assert_msg(r.status == 3, "status %d\n%s%s", r.status, r.out, r.err);
	pmuvm_result_free(&r);
	/* Killed by a signal: 128 + N, as a shell says it. */
	if (!run_sh(&r, test_dir("exit3"), "\"$PMUVM\" run -- sh -c 'kill -TERM $$'"))
		return;
	ck_assert_msg(r.status == 128 + 15, "status %d\n%s%s", r.status, r.out, r.err);
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_run_not_found)
{
	struct pmuvm_result r;

	REQUIRE_RUN();
	if (!run_sh(&r, test_dir("notfound"), "\"$PMUVM\" run -- pmuvm-no-such-command"))
		return;
	ck_assert_msg(r.status == 127, "status %d\n%s%s", r.status, r.out, r.err);
	ck_assert_str_eq(r.out, "pmuvm run: pmuvm-no-such-command: command not found\n");
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_run_stdin)
{
	struct pmuvm_result r;

	REQUIRE_RUN();
	if (!run_sh(&r, test_dir("stdin"), "echo hi | \"$PMUVM\" run -- cat"))
		return;
	ck_assert_msg(r.status == 0, "status %d\n%s%s", r.status, r.out, r.err);
	ck_assert_str_eq(r.out, "hi\n");
	pmuvm_result_free(&r);
}
END_TEST

/*
 * On a terminal (script(1) gives pmuvm a pty): the guest's console is the
 * command's controlling terminal, and Ctrl-C, sent once the command has
 * written a file in the shared directory (before, it would reach pmuvm
 * through the pty before pmuvm makes it raw), interrupts the command, not
 * pmuvm: 128 + SIGINT.
 */
START_TEST(test_run_terminal_ctrl_c)
{
	struct pmuvm_result r;

	REQUIRE_RUN();
	if (!have_program("script"))
		TEST_SKIP("script(1) not installed (bsdutils)");
	if (!run_sh(&r, test_dir("tty"),
		    "(while [ ! -e ready ]; do sleep 1; done; printf '\\003') | "
		    "script -qec \"'$PMUVM' run -- sh -c 'tty; touch ready; sleep 300'\" /dev/null"))
		return;
	ck_assert_msg(r.status == 128 + 2, "status %d\n%s%s", r.status, r.out, r.err);
	ck_assert_msg(strstr(r.out, "/dev/ttyS0"), "%s", r.out);
	pmuvm_result_free(&r);
}
END_TEST

START_TEST(test_run_writes_cwd)
{
	struct pmuvm_result r;
	const char *dir = test_dir("write");
	char path[600], *got;
	struct stat st;

	REQUIRE_RUN();
	if (!run_sh(&r, dir, "\"$PMUVM\" run -- sh -c 'echo written in the guest > out.txt; id -u'"))
		return;
	ck_assert_msg(r.status == 0, "status %d\n%s%s", r.status, r.out, r.err);
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	got = read_file_str(path);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, "written in the guest\n");
	free(got);
	/* As the caller: the guest's id -u is ours, and so is the file. */
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_uid, getuid());
	ck_assert_uint_eq(strtoul(r.out, NULL, 10), getuid());
	pmuvm_result_free(&r);
}
END_TEST

/* tests/linux/loop.S: 20,004 user-mode instructions, 10,001 branches (docs/linux-guests.md). */
START_TEST(test_run_perf_stat_exact)
{
	struct pmuvm_result r;

	REQUIRE_RUN();
	if (!run_sh(&r, test_dir("stat"),
		    "cc -nostdlib -static -o loop \"$SRC/tests/linux/loop.S\" && "
		    "\"$PMUVM\" run -- perf stat -x, -e instructions:u,branches:u ./loop"))
		return;
	ck_assert_msg(r.status == 0, "status %d\n%s%s", r.status, r.out, r.err);
	ck_assert_msg(strstr(r.out, "20004,,instructions:u,"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "10001,,branches:u,"), "%s", r.out);
	pmuvm_result_free(&r);
}
END_TEST

/* The value of perf stat -x's line for `event` in `out`, or -1 if none counted it. */
static long long stat_value(const char *out, const char *event)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), ",,%s,", event);
	p = strstr(out, key);
	if (!p)
		return -1;
	while (p > out && p[-1] != '\n')
		p--;
	return *p >= '0' && *p <= '9' ? strtoll(p, NULL, 10) : -1;
}

/*
 * A first session (docs/run.md): perf stat with its default events, the
 * kernel's instructions counted too. Cycles, instructions and branches are
 * counted (the loop's user-mode 20,004 and 10,001 are part of them);
 * branch misses are not offered.
 */
START_TEST(test_run_perf_stat_default)
{
	struct pmuvm_result r;
	long long insns, branches, cycles;

	REQUIRE_RUN();
	if (!run_sh(&r, test_dir("statdef"),
		    "cc -nostdlib -static -o loop \"$SRC/tests/linux/loop.S\" && "
		    "\"$PMUVM\" run -- perf stat -x, ./loop"))
		return;
	ck_assert_msg(r.status == 0, "status %d\n%s%s", r.status, r.out, r.err);
	insns = stat_value(r.out, "instructions");
	branches = stat_value(r.out, "branches");
	cycles = stat_value(r.out, "cycles");
	ck_assert_msg(insns > 20004 && insns < 10000000, "instructions %lld\n%s", insns, r.out);
	ck_assert_msg(branches > 10001 && branches < insns, "branches %lld\n%s", branches, r.out);
	ck_assert_msg(cycles > 0, "cycles %lld\n%s", cycles, r.out);
	ck_assert_msg(strstr(r.out, "<not supported>,,branch-misses,"), "%s", r.out);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * perf record in the guest, perf report here: hot_function first, with
 * at least LINUX_HOT_SHARE_MIN percent of the samples. The first record
 * only lets the kernel learn its PMI cost, and both sample at 1000 Hz,
 * which the lab can give (docs/linux-guests.md, "The first perf record";
 * at perf's default 4000 Hz the lab's samples land on the kernel's WRMSRs).
 */
START_TEST(test_run_perf_record)
{
	struct pmuvm_result r;
	const char *p;

	REQUIRE_RUN();
	if (!run_sh(&r, test_dir("record"),
		    "cc -O1 -o hot \"$SRC/tests/linux/hot.c\" && "
		    "\"$PMUVM\" run -- sh -c 'perf record -q -F 1000 -o warm.data ./hot >/dev/null 2>&1; "
		    "perf record -q -F 1000 -o perf.data ./hot 200000000' && "
		    "perf report -i perf.data --stdio --sort sym -q 2>/dev/null | grep -m1 ."))
		return;
	ck_assert_msg(r.status == 0, "status %d\n%s%s", r.status, r.out, r.err);
	ck_assert_msg(strstr(r.out, "hot_function"), "%s%s", r.out, r.err);
	p = strrchr(r.out, '%');
	while (p && p > r.out && p[-1] != '\n')
		p--;
	ck_assert_msg(p && atof(p) >= LINUX_HOT_SHARE_MIN, "%s%s", r.out, r.err);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * rr record in one VM, rr replay -a in another, two vCPUs each; the trace
 * in the shared directory.
 */
START_TEST(test_run_rr)
{
	struct pmuvm_result r;

	REQUIRE_RUN();
	if (!have_program("rr"))
		TEST_SKIP("rr not installed (make deps-check)");
	if (!run_sh(&r, test_dir("rr"),
		    "cc -O1 -o hot \"$SRC/tests/linux/hot.c\" && export _RR_TRACE_DIR=$PWD/traces && "
		    "\"$PMUVM\" run --cpus 2 --pmu-version 4 -- rr record ./hot 100000 && "
		    "echo replay && \"$PMUVM\" run --cpus 2 --pmu-version 4 -- rr replay -a"))
		return;
	ck_assert_msg(r.status == 0, "status %d\n%s%s", r.status, r.out, r.err);
	ck_assert_msg(strstr(r.out, "replay\n") && strstr(strstr(r.out, "replay\n"), "hot: "),
		      "%s", r.out);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * `script` run by sh as user nobody (65534) in its own directory `name`,
 * with primary group `gid`, supplementary groups `groups` ("" for none),
 * and a home of its own ($HOME) there; `setup` (NULL for none) run as root
 * before, in a mount namespace of the two's own. False (after test_skip())
 * where that user cannot be had here: not root, no setpriv, or pmuvm out
 * of its reach.
 */
static bool run_as_nobody(struct pmuvm_result *r, const char *name, unsigned int gid,
			  const char *groups, const char *script, const char *setup)
{
	char full[2048], who[160], path[700];
	const char *dir = test_dir(name);
	FILE *f;

	if (getuid() != 0) {
		test_skip("not root: cannot become another user here");
		return false;
	}
	if (!have_program("setpriv")) {
		test_skip("setpriv(1) not installed (util-linux)");
		return false;
	}
	snprintf(who, sizeof(who), "setpriv --reuid=65534 --regid=%u %s%s --inh-caps=-all", gid,
		 groups[0] ? "--groups=" : "--clear-groups", groups);
	snprintf(path, sizeof(path), "%s/as-nobody.sh", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "mkdir -p home && chown -R 65534:%u . && %s && "
		"if ! %s test -x \"$PMUVM\"; then echo unreachable; exit 0; fi && "
		"%s env -u PMUVM_CACHE -u XDG_CACHE_HOME -u XDG_RUNTIME_DIR -u PMUVM_VIRTIOFSD "
		"HOME=\"$PWD/home\" sh -c '%s'\n", gid, setup ? setup : "true", who, who, script);
	fclose(f);
	snprintf(full, sizeof(full), "%s sh as-nobody.sh",
		 setup ? "unshare -m --propagation private" : "");
	sh_in(r, dir, full);
	if (!strcmp(r->out, "unreachable\n")) {
		test_skip("user nobody cannot run %s (a directory on its path is closed to others)",
			  pmuvm_path());
		pmuvm_result_free(r);
		return false;
	}
	return true;
}

/*
 * Without root, with supplementary groups and no subordinate gid (an empty
 * /etc/subgid bound over the real one in a mount namespace of the test's),
 * Debian 12's virtiofsd cannot start: refused at once with the reason
 * (docs/run.md, "What needs root").
 */
START_TEST(test_run_error_groups)
{
	struct pmuvm_result r;

	if (access("/etc/subgid", F_OK))
		TEST_SKIP("no /etc/subgid to bind an empty one over");
	if (!run_as_nobody(&r, "groups", 65534, "65534",
			   "\"$PMUVM\" run -- true", ": >subgid && mount --bind subgid /etc/subgid"))
		return;
	ck_assert_msg(r.status == 14, "status %d\n%s%s", r.status, r.out, r.err);
	ck_assert_str_eq(r.out, "");
	ck_assert_msg(strstr(r.err, "drops supplementary groups, which without root needs newgidmap") &&
		      !strchr(r.err, '\n')[1], "%s", r.err);
	pmuvm_result_free(&r);
}
END_TEST

/* The vhost-user features virtiofsd at `sock` answers with: 0, or -errno. */
static int virtiofsd_features(const char *sock, uint64_t *features)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct vhost_user_msg m;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), e;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		e = -errno;
		goto out;
	}
	vhost_user_msg_none(&m, VHOST_USER_GET_FEATURES);
	e = vhost_user_send(fd, &m, NULL, 0);
	if (!e)
		e = vhost_user_recv(fd, &m);
	if (!e)
		e = vhost_user_reply_u64(&m, VHOST_USER_GET_FEATURES, features);
out:
	if (fd >= 0)
		close(fd);
	return e;
}

/*
 * Without root, virtiofsd starts in pmuvm's user namespace
 * (vmm/run/userns.c) and answers vhost-user requests: with supplementary
 * groups, as an ordinary login has, whose gid map newgidmap writes with a
 * subordinate gid so that virtiofsd may drop them (loop 0), and with none
 * (loop 1). As user nobody, with group users (100) beside its own in loop
 * 0, /etc/subgid giving nobody a range (a file bound over it in a mount
 * namespace of the test's). No guest boots, so it runs on every machine
 * with root, virtiofsd and newgidmap.
 */
START_TEST(test_run_virtiofsd_user)
{
	const char *bin = virtiofsd_find(), *dir = test_dir(_i ? "fsd-user" : "fsd-groups");
	char subgid[600], sockdir[600];
	gid_t groups[] = { 100 };
	int st;
	pid_t pid;

	if (getuid() != 0)
		TEST_SKIP("not root: cannot become another user here");
	if (!bin)
		TEST_SKIP("no virtiofsd (qemu-system-common)");
	if (access("/usr/bin/newgidmap", X_OK))
		TEST_SKIP("no newgidmap (uidmap)");
	if (access("/etc/subgid", F_OK))
		TEST_SKIP("no /etc/subgid to bind a test's over");
	snprintf(subgid, sizeof(subgid), "%s/subgid", dir);
	snprintf(sockdir, sizeof(sockdir), "%s/sock", dir);
	mkdir(sockdir, 0700);
	ck_assert_int_eq(chown(dir, 65534, 65534), 0);
	ck_assert_int_eq(chown(sockdir, 65534, 65534), 0);
	FILE *f = fopen(subgid, "w");

	ck_assert_ptr_nonnull(f);
	fprintf(f, "nobody:1100000:65536\n");
	fclose(f);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct virtiofsd d;
		uint64_t features = 0;
		int e, tries;

		/*
		 * Dumpable, as pmuvm is after its exec: the switch to nobody
		 * left this process undumpable, its /proc/self root's.
		 */
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount(subgid, "/etc/subgid", NULL, MS_BIND, NULL) ||
		    setgroups(_i ? 0 : 1, groups) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534) || prctl(PR_SET_DUMPABLE, 1)) {
			fprintf(stderr, "cannot become nobody: %s\n", strerror(errno));
			_exit(2);
		}
		if (virtiofsd_start(&d, bin, dir, sockdir, "t"))
			_exit(3);
		/* virtiofsd answers once up, or it has gone. */
		for (tries = 0; (e = virtiofsd_features(d.socket, &features)) && tries < 20; tries++) {
			if (waitpid(d.pid, NULL, WNOHANG) == d.pid) {
				d.pid = -1;
				break;
			}
			usleep(100000);
		}
		virtiofsd_stop(&d);
		if (e) {
			fprintf(stderr, "GET_FEATURES: %s\n", strerror(-e));
			_exit(4);
		}
		_exit(features & (1ull << VHOST_USER_F_PROTOCOL_FEATURES) ? 0 : 5);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
}
END_TEST

/*
 * Without root, as an ordinary login: nobody, with its own group and
 * /dev/kvm's as a supplementary one, a range in /etc/subgid (a file bound
 * over it, as in test_run_virtiofsd_user), and a copy of the kernel cache
 * in its home (the lab has no network to fetch one). The command runs as
 * that user with those groups, and its file in the shared directory is
 * that user's.
 */
START_TEST(test_run_unprivileged)
{
	struct pmuvm_result r;
	char script[1024], want[64], path[600], groups[16];
	struct stat st;

	REQUIRE_RUN();
	if (access("/etc/subgid", F_OK))
		TEST_SKIP("no /etc/subgid to bind a test's over");
	ck_assert_int_eq(stat("/dev/kvm", &st), 0);
	if (st.st_gid == 0 || (st.st_mode & 0060) != 0060)
		TEST_SKIP("/dev/kvm is mode %03o, group %u: no group of users may open it here",
			  st.st_mode & 0777, (unsigned int)st.st_gid);
	/* The cache, copied as root before the switch. */
	sh_in(&r, test_dir("user"),
	      "L=$(dirname \"$PMUVM\")/libexec && "
	      "k=$(\"$L/pmuvm-kernel\" \"$L/pmuvm-run-init\" | head -n1) && "
	      "mkdir -p home/.cache/pmuvm && cp -a \"$(dirname \"$k\")\" home/.cache/pmuvm/");
	ck_assert_msg(r.status == 0, "status %d\n%s%s", r.status, r.out, r.err);
	pmuvm_result_free(&r);
	snprintf(script, sizeof(script),
		 "\"$PMUVM\" run -- sh -c \"id -u; id -G; echo mine > mine.txt\"");
	snprintf(groups, sizeof(groups), "%u", (unsigned int)st.st_gid);
	if (!run_as_nobody(&r, "user", 65534, groups, script,
			   "echo nobody:1100000:65536 >subgid && mount --bind subgid /etc/subgid"))
		return;
	ck_assert_msg(r.status == 0, "status %d\n%s%s", r.status, r.out, r.err);
	snprintf(want, sizeof(want), "65534\n65534 %u\n", (unsigned int)st.st_gid);
	ck_assert_str_eq(r.out, want);
	snprintf(path, sizeof(path), "%s/mine.txt", test_dir("user"));
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_uid, 65534);
	ck_assert_uint_eq(st.st_gid, 65534);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * perf test's built-in tests that need the PMU, on both vendors' models:
 * the mmap interface with user-space RDPMC of instructions and cycles (4),
 * the expression parser's #system_tsc_freq from the brand string (7),
 * PERF_RECORD_* fields (8), sched_switch tracking (35), event times (50),
 * the backward ring buffer (51) and TSC conversion (71). Each is Ok, but
 * 71.2, which needs the mmap page's cap_user_time_zero: a guest on
 * kvm-clock has none, as under QEMU/KVM (docs/conformance.md). Object
 * code reading from cycles samples (26) is test_run_perf_test_code_reading.
 */
static const struct {
	const char *pmu, *tests;
} perf_test_runs[] = {
	{ "intel", "4 7 8 35 50 51 71" },
	{ "amd", "4 7 8 35 50 51 71" },
};

START_TEST(test_run_perf_test)
{
	static const char *const want[] = {
		"4.1:", "4.2:", "4.3:", " 7:", " 8:", "35:", "50:", "51:", "71.1:",
	};
	struct pmuvm_result r;
	char script[256];
	unsigned int v, i;

	REQUIRE_RUN();
	for (v = 0; v < sizeof(perf_test_runs) / sizeof(perf_test_runs[0]); v++) {
		const char *pmu = perf_test_runs[v].pmu;

		snprintf(script, sizeof(script), "\"$PMUVM\" run --pmu %s -- perf test %s 2>&1", pmu,
			 perf_test_runs[v].tests);
		if (!run_sh(&r, test_dir("perftest"), script))
			return;
		ck_assert_msg(r.status == 0, "%s: status %d\n%s%s", pmu, r.status, r.out, r.err);
		for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			const char *p, *end;

			p = strstr(r.out, want[i]);
			end = p ? strchr(p, '\n') : NULL;
			ck_assert_msg(p && end && end - p > 4 && !strncmp(end - 3, " Ok", 3),
				      "%s: perf test %s not Ok:\n%s", pmu, want[i], r.out);
		}
		ck_assert_msg(!strstr(r.out, "FAILED"), "%s:\n%s", pmu, r.out);
		pmuvm_result_free(&r);
	}
}
END_TEST

/*
 * perf test 26, object code reading from cycles samples, on the Intel
 * model: it runs objdump at each sample and takes longest by far; what it
 * tests past the samples is perf's, and test_linux_perf samples cycles on
 * both models. Bounded by pmuvm's own --timeout, well past its usual time.
 */
#define PERF_TEST_CODE_READING_LIMIT	"480"

START_TEST(test_run_perf_test_code_reading)
{
	struct pmuvm_result r;
	const char *p, *end;

	REQUIRE_RUN();
	if (!run_sh(&r, test_dir("perftest26"),
		    "\"$PMUVM\" run --pmu intel --timeout " PERF_TEST_CODE_READING_LIMIT
		    " -- perf test 26 2>&1"))
		return;
	ck_assert_msg(r.status == 0, "status %d\n%s%s", r.status, r.out, r.err);
	p = strstr(r.out, "26:");
	end = p ? strchr(p, '\n') : NULL;
	ck_assert_msg(p && end && end - p > 4 && !strncmp(end - 3, " Ok", 3),
		      "perf test 26 not Ok:\n%s", r.out);
	pmuvm_result_free(&r);
}
END_TEST

/* Four threads on two vCPUs; then perf stat there, exact as on one. */
#define THREADS_OUT "threads: 4 cpus 2 sum 4000000\n"

START_TEST(test_run_threads)
{
	struct pmuvm_result r;

	REQUIRE_RUN();
	if (!run_sh(&r, test_dir("threads"),
		    "cc -O1 -pthread -o threads \"$SRC/tests/linux/threads.c\" && "
		    "cc -nostdlib -static -o loop \"$SRC/tests/linux/loop.S\" && "
		    "\"$PMUVM\" run --cpus 2 -- sh -c "
		    "'./threads && perf stat -x, -e instructions:u,branches:u ./loop'"))
		return;
	ck_assert_msg(r.status == 0, "status %d\n%s%s", r.status, r.out, r.err);
	ck_assert_msg(!strncmp(r.out, THREADS_OUT, strlen(THREADS_OUT)), "%s", r.out);
	ck_assert_msg(strstr(r.out, "\n20004,,instructions:u,"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "\n10001,,branches:u,"), "%s", r.out);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * The one-line errors (docs/run.md, "Errors"), before any kernel boots:
 * here on every machine, KVM or not. A virtiofsd named that is not there;
 * an unreadable --kernel (PMUVM_VIRTIOFSD=/bin/true stands for a server,
 * which is looked for before the kernel); a current directory that was
 * removed.
 */
static void run_error(const char *dir, const char *script, const char *line)
{
	struct pmuvm_result r;

	sh_in(&r, dir, script);
	ck_assert_msg(r.status == 14, "%s: status %d\n%s%s", script, r.status, r.out, r.err);
	ck_assert_str_eq(r.out, "");
	ck_assert_str_eq(r.err, line);
	pmuvm_result_free(&r);
}

START_TEST(test_run_errors)
{
	const char *dir = test_dir("errors");

	run_error(dir, "PMUVM_VIRTIOFSD=/nonexistent/virtiofsd \"$PMUVM\" run -- true",
		  "pmuvm: run: PMUVM_VIRTIOFSD=/nonexistent/virtiofsd: not an executable file\n");
	run_error(dir, "PMUVM_VIRTIOFSD=/bin/true \"$PMUVM\" run --kernel /nonexistent/vmlinuz -- true",
		  "pmuvm: run: no kernel: --kernel /nonexistent/vmlinuz: cannot read it\n");
	run_error(dir, "mkdir gone && cd gone && rmdir ../gone && \"$PMUVM\" run -- true",
		  "pmuvm: run: the current directory cannot be shared: No such file or directory\n");
}
END_TEST

static Suite *run_suite(void)
{
	Suite *s = suite_create("run");
	TCase *tc = tcase_create("run");
	TCase *errors = tcase_create("errors");

	/* No boot, but a loaded lab takes seconds to start each pmuvm. */
	tcase_set_tags(errors, TEST_TAG_KVM_NEUTRAL);
	tcase_set_timeout(errors, 120);
	tcase_add_test(errors, test_run_errors);
	tcase_add_test(errors, test_run_error_groups);
	tcase_add_loop_test(errors, test_run_virtiofsd_user, 0, 2);
	suite_add_tcase(s, errors);

	tcase_set_tags(tc, TEST_TAG_LINUX_RUN);
	tcase_set_timeout(tc, 4 * RUN_LIMIT_S);
	tcase_add_test(tc, test_run_true);
	tcase_add_test(tc, test_run_exit_status);
	tcase_add_test(tc, test_run_not_found);
	tcase_add_test(tc, test_run_stdin);
	tcase_add_test(tc, test_run_terminal_ctrl_c);
	tcase_add_test(tc, test_run_writes_cwd);
	tcase_add_test(tc, test_run_unprivileged);
	tcase_add_test(tc, test_run_perf_stat_exact);
	tcase_add_test(tc, test_run_perf_stat_default);
	tcase_add_test(tc, test_run_perf_record);
	tcase_add_test(tc, test_run_perf_test);
	tcase_add_test(tc, test_run_perf_test_code_reading);
	tcase_add_test(tc, test_run_rr);
	tcase_add_test(tc, test_run_threads);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(run_suite)
