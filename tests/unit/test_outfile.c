/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The output files (vmm/out/outfile.h): which paths are replaced, written
 * in place or refused, and that a replace follows symlinks, keeps the
 * permissions and leaves nothing behind.  Everything here lives in a
 * scratch directory: no test touches /dev.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "out/outfile.h"
#include "pmuvm_run.h"
#include "suite.h"

static const char *scratch(const char *name)
{
	return tmp_path(name);
}

static void expect_contents(const char *path, const char *want)
{
	char *got = read_file_str(path);

	ck_assert_msg(got, "%s: %s", path, strerror(errno));
	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(test_off_and_dash)
{
	struct outfile o;

	ck_assert_int_eq(outfile_open(&o, "--report", NULL, OUTFILE_WHOLE), 0);
	ck_assert(!outfile_on(&o));
	ck_assert_int_eq(outfile_open(&o, "--report", "-", OUTFILE_WHOLE), 0);
	ck_assert_int_eq(o.kind, OUTFILE_FD);
	ck_assert_int_eq(o.fd, STDOUT_FILENO);
	ck_assert_str_eq(o.name, "standard output");
	outfile_close(&o);
}
END_TEST

START_TEST(test_new_file_replaced)
{
	char dir[600], path[700];
	struct outfile o;
	struct stat st;
	mode_t mask = umask(022);

	snprintf(dir, sizeof(dir), "%s", scratch("new"));
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/r.json", dir);
	ck_assert_int_eq(outfile_open(&o, "--report", path, OUTFILE_WHOLE), 0);
	ck_assert_int_eq(o.kind, OUTFILE_REPLACE);
	ck_assert_uint_eq(dir_entries(dir), 0);	/* nothing made before the end */
	ck_assert_int_eq(outfile_replace(&o, "{}\n", 3), 0);
	expect_contents(path, "{}\n");
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0644);
	ck_assert_uint_eq(dir_entries(dir), 1);
	outfile_close(&o);
	umask(mask);
}
END_TEST

/* An existing file is replaced by a new inode (atomic) with its permissions. */
START_TEST(test_existing_file_replaced)
{
	const char *path = scratch("old.json");
	struct stat before, after;
	struct outfile o;

	ck_assert(write_file(path, "old old old\n", 12));
	ck_assert_int_eq(chmod(path, 0600), 0);
	ck_assert_int_eq(stat(path, &before), 0);
	ck_assert_int_eq(outfile_open(&o, "--report", path, OUTFILE_WHOLE), 0);
	ck_assert_int_eq(o.kind, OUTFILE_REPLACE);
	ck_assert_int_eq(outfile_replace(&o, "new\n", 4), 0);
	expect_contents(path, "new\n");
	ck_assert_int_eq(stat(path, &after), 0);
	ck_assert_uint_eq(after.st_mode & 07777, 0600);
	ck_assert(after.st_ino != before.st_ino);
	outfile_close(&o);
}
END_TEST

/* a -> sub/b -> ../c: the file replaced is c; both links stay links. */
START_TEST(test_symlink_chain)
{
	char dir[600], a[700], b[700], c[700], sub[700];
	struct outfile o;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", scratch("chain"));
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/sub/b", dir);
	snprintf(c, sizeof(c), "%s/c", dir);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	ck_assert_int_eq(symlink("sub/b", a), 0);
	ck_assert_int_eq(symlink("../c", b), 0);
	ck_assert_int_eq(outfile_open(&o, "--report", a, OUTFILE_WHOLE), 0);
	ck_assert_int_eq(o.kind, OUTFILE_REPLACE);
	ck_assert_int_eq(outfile_replace(&o, "x\n", 2), 0);
	expect_contents(c, "x\n");
	ck_assert_int_eq(lstat(a, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(lstat(b, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_uint_eq(dir_entries(dir), 3);	/* a, sub, c: no temporary file left */
	ck_assert_uint_eq(dir_entries(sub), 1);
	outfile_close(&o);
}
END_TEST

START_TEST(test_refused)
{
	char sock[600], loop1[600], loop2[600];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct outfile o;
	int fd;

	snprintf(sock, sizeof(sock), "%s", scratch("s.sock"));
	snprintf(loop1, sizeof(loop1), "%s", scratch("loop1"));
	snprintf(loop2, sizeof(loop2), "%s", scratch("loop2"));
	ck_assert_int_eq(outfile_open(&o, "--report", test_tmpdir(), OUTFILE_WHOLE), -EISDIR);
	ck_assert(!outfile_on(&o));
	ck_assert_int_eq(outfile_open(&o, "--serial", test_tmpdir(), OUTFILE_STREAM), -EISDIR);
	ck_assert_int_eq(outfile_open(&o, "--report", "/nonexistent-dir/r.json", OUTFILE_WHOLE),
			 -ENOENT);
	ck_assert_int_eq(symlink("loop2", loop1), 0);
	ck_assert_int_eq(symlink("loop1", loop2), 0);
	ck_assert_int_eq(outfile_open(&o, "--report", loop1, OUTFILE_WHOLE), -ELOOP);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_uint_lt(strlen(sock), sizeof(sa.sun_path));
	memcpy(sa.sun_path, sock, strlen(sock) + 1);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(outfile_open(&o, "--report", sock, OUTFILE_WHOLE), -EINVAL);
	ck_assert(!outfile_on(&o));
	close(fd);
}
END_TEST

/* A FIFO is opened only when written, and written in place. */
START_TEST(test_fifo_in_place)
{
	const char *fifo = scratch("f.fifo");
	struct outfile o;
	char buf[16] = { 0 };
	struct stat st;
	int rd;

	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(outfile_open(&o, "--report", fifo, OUTFILE_WHOLE), 0);
	ck_assert_int_eq(o.kind, OUTFILE_DEVICE);
	rd = open(fifo, O_RDONLY | O_NONBLOCK);
	ck_assert_int_ge(rd, 0);
	ck_assert_int_eq(outfile_replace(&o, "fifo\n", 5), 0);
	ck_assert_int_eq(read(rd, buf, sizeof(buf)), 5);
	ck_assert_str_eq(buf, "fifo\n");
	ck_assert_int_eq(lstat(fifo, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	close(rd);
	outfile_close(&o);
}
END_TEST

/* A stream truncates a file once, then appends; a failure is said once and kept. */
START_TEST(test_stream)
{
	const char *path = scratch("serial.txt");
	struct outfile o;
	int fds[2];

	ck_assert(write_file(path, "previous run\n", 13));
	ck_assert_int_eq(outfile_open(&o, "--serial", path, OUTFILE_STREAM), 0);
	ck_assert_int_eq(outfile_write(&o, "a\n", 2), 0);
	ck_assert_int_eq(outfile_write(&o, "b\n", 2), 0);
	expect_contents(path, "a\nb\n");
	outfile_close(&o);

	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(pipe(fds), 0);
	o.opt = "serial output";
	o.name = "pipe";
	o.kind = OUTFILE_FD;
	o.fd = fds[1];
	o.own_fd = true;
	o.error = 0;
	close(fds[0]);
	ck_assert_int_eq(outfile_write(&o, "x", 1), -EPIPE);
	ck_assert_int_eq(outfile_write(&o, "y", 1), -EPIPE);
	ck_assert_int_eq(o.error, -EPIPE);
	outfile_close(&o);
}
END_TEST

/*
 * Where the directory cannot be written, a writable file is rewritten in
 * place.  Root writes every directory, so as root this runs as nobody.
 */
#define NOBODY	65534

static int truncate_case(const char *dir, const char *path)
{
	struct stat before, after;
	struct outfile o;
	char *got;
	int bad = 0;

	if (stat(path, &before) || outfile_open(&o, "--report", path, OUTFILE_WHOLE))
		return 1;
	if (o.kind != OUTFILE_TRUNCATE || outfile_replace(&o, "new\n", 4))
		return 2;
	got = read_file_str(path);
	bad = !got || strcmp(got, "new\n") || stat(path, &after) || after.st_ino != before.st_ino;
	free(got);
	outfile_close(&o);
	return bad ? 3 : 0;
}

START_TEST(test_truncate_in_readonly_dir)
{
	char dir[600], path[700];
	int status;
	pid_t pid;

	snprintf(dir, sizeof(dir), "%s", scratch("ro"));
	snprintf(path, sizeof(path), "%s/r.json", dir);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert(write_file(path, "old old\n", 8));
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(path, NOBODY, NOBODY), 0);
		ck_assert_int_eq(chmod(test_tmpdir(), 0755), 0);
	}
	ck_assert_int_eq(chmod(dir, 0555), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (geteuid() == 0 && (setgid(NOBODY) || setuid(NOBODY)))
			_exit(9);
		_exit(truncate_case(dir, path));
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	chmod(dir, 0755);
	ck_assert(WIFEXITED(status));
	ck_assert_msg(WEXITSTATUS(status) == 0, "case failed at step %d", WEXITSTATUS(status));
}
END_TEST

/* A closed stdout gets /dev/null, so the next file opened is not descriptor 1. */
START_TEST(test_std_fds)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct stat st;
		int fd;

		close(STDOUT_FILENO);
		if (outfile_std_fds() || fstat(STDOUT_FILENO, &st) || !S_ISCHR(st.st_mode) ||
		    st.st_rdev != makedev(1, 3))
			_exit(1);
		fd = open(scratch("next"), O_WRONLY | O_CREAT, 0600);
		_exit(fd > STDERR_FILENO ? 0 : 2);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
}
END_TEST

static Suite *outfile_suite(void)
{
	Suite *s = suite_create("outfile");
	TCase *tc = tcase_create("outfile");

	tcase_add_test(tc, test_off_and_dash);
	tcase_add_test(tc, test_new_file_replaced);
	tcase_add_test(tc, test_existing_file_replaced);
	tcase_add_test(tc, test_symlink_chain);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_fifo_in_place);
	tcase_add_test(tc, test_stream);
	tcase_add_test(tc, test_truncate_in_readonly_dir);
	tcase_add_test(tc, test_std_fds);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(outfile_suite)
