/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "run/userns.h"
#include "run/which.h"

int userns_subid(const char *path, const char *name, uid_t uid, unsigned long *start,
		 unsigned long *count)
{
	char line[512], who[256], id[16];
	FILE *f = fopen(path, "r");
	int r = -ENOENT;

	if (!f)
		return errno == ENOENT ? -ENOENT : -errno;
	snprintf(id, sizeof(id), "%u", (unsigned int)uid);
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, c;
		char end;

		if (sscanf(line, "%255[^:\n]:%lu:%lu%c", who, &s, &c, &end) < 3 || !c ||
		    (strcmp(who, name ? name : "") && strcmp(who, id)))
			continue;
		*start = s;
		*count = c;
		r = 0;
		break;
	}
	fclose(f);
	return r;
}

const char *userns_newgidmap(void)
{
	static const char *const places[] = { "/usr/bin/newgidmap", "/bin/newgidmap" };
	static char found[4096];

	return run_which("newgidmap", places, 2, found, sizeof(found));
}

/* The caller's first subordinate gid: 0, or -ENOENT. */
static int userns_my_subgid(unsigned long *start)
{
	struct passwd *pw = getpwuid(getuid());
	unsigned long count;

	return userns_subid("/etc/subgid", pw ? pw->pw_name : NULL, getuid(), start, &count);
}

bool userns_no_setgroups(char *why, size_t len)
{
	struct passwd *pw = getpwuid(getuid());
	unsigned long start;

	if (!userns_newgidmap()) {
		snprintf(why, len, "no newgidmap (Debian: apt-get install uidmap)");
		return true;
	}
	if (userns_my_subgid(&start)) {
		snprintf(why, len, "no subordinate gid of %s's in /etc/subgid (usermod --add-subgids)",
			 pw ? pw->pw_name : "this user");
		return true;
	}
	return false;
}

static int userns_write(const char *file, const char *text)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC), e = 0;

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		e = -errno;
	if (fd >= 0)
		close(fd);
	if (e)
		pr_err("%s: %s", file, strerror(-e));
	return e;
}

/*
 * newgidmap, forked before unshare() so that it runs outside: once told
 * (a byte on `sync`), it maps the gid to itself and one subordinate gid to
 * USERNS_SUBGID_INNER for process `pid`, which allows setgroups() there.
 */
static pid_t userns_gidmapper(int sync, pid_t pid, gid_t gid, unsigned long subgid)
{
	char a[4][24];
	const char *bin = userns_newgidmap();
	pid_t child = fork();
	char c;

	if (child != 0)
		return child;
	if (read(sync, &c, 1) != 1)
		_exit(1);
	snprintf(a[0], sizeof(a[0]), "%d", (int)pid);
	snprintf(a[1], sizeof(a[1]), "%u", (unsigned int)gid);
	snprintf(a[2], sizeof(a[2]), "%u", USERNS_SUBGID_INNER);
	snprintf(a[3], sizeof(a[3]), "%lu", subgid);
	execl(bin, bin, a[0], a[1], a[1], "1", a[2], a[3], "1", (char *)NULL);
	_exit(127);
}

/* Permitted capabilities made inheritable and ambient (capabilities(7)). */
static int userns_keep_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	unsigned int cap;

	if (syscall(SYS_capget, &h, d))
		return -errno;
	d[0].inheritable = d[0].permitted;
	d[1].inheritable = d[1].permitted;
	if (syscall(SYS_capset, &h, d))
		return -errno;
	for (cap = 0; cap < 64; cap++)
		if ((d[cap / 32].permitted >> (cap % 32)) & 1)
			prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0);
	return 0;
}

int userns_enter(void)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	bool groups = getgroups(0, NULL) > 0;
	int sync[2] = { -1, -1 }, st = -1, e;
	unsigned long subgid;
	char map[64];
	pid_t mapper = -1;

	if (groups) {
		char why[256];

		if (userns_no_setgroups(why, sizeof(why)) || userns_my_subgid(&subgid)) {
			pr_err("virtiofsd drops supplementary groups: %s", why);
			return -ENOENT;
		}
		if (pipe2(sync, O_CLOEXEC))
			return -errno;
		mapper = userns_gidmapper(sync[0], getpid(), gid, subgid);
		close(sync[0]);
		if (mapper < 0) {
			e = -errno;
			close(sync[1]);
			return e;
		}
	}
	e = unshare(CLONE_NEWUSER) ? -errno : 0;
	if (e)
		pr_err("unshare(CLONE_NEWUSER): %s", strerror(-e));
	if (groups) {
		/* On failure the closed pipe ends newgidmap's wait unmapped. */
		if (!e && write(sync[1], "", 1) != 1)
			e = -errno;
		close(sync[1]);
		while (waitpid(mapper, &st, 0) < 0 && errno == EINTR)
			;
		if (!e && (!WIFEXITED(st) || WEXITSTATUS(st))) {
			pr_err("newgidmap could not map gid %u and a subordinate gid",
			       (unsigned int)gid);
			e = -EPERM;
		}
	} else if (!e) {
		snprintf(map, sizeof(map), "%u %u 1\n", (unsigned int)gid, (unsigned int)gid);
		e = userns_write("/proc/self/setgroups", "deny");
		if (!e)
			e = userns_write("/proc/self/gid_map", map);
	}
	if (e)
		return e;
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned int)uid, (unsigned int)uid);
	e = userns_write("/proc/self/uid_map", map);
	if (!e && (e = userns_keep_caps()))
		pr_err("capabilities: %s", strerror(-e));
	return e;
}
