/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The user namespace an unprivileged virtiofsd runs in (docs/run.md,
 * "What needs root"): the caller's own uid and gid mapped to themselves,
 * its capabilities kept there. Where the caller has supplementary groups,
 * which virtiofsd drops at start, setgroups() must be allowed in it, and
 * only a gid map written by newgidmap(1) with one of the caller's
 * subordinate gids (subgid(5)) allows it (user_namespaces(7)).
 */
#ifndef PMUVM_RUN_USERNS_H
#define PMUVM_RUN_USERNS_H

#include <stdbool.h>
#include <sys/types.h>

/* Where the subordinate gid goes inside: a gid no file or user has. */
#define USERNS_SUBGID_INNER	4294967294u

/*
 * The first range in subordinate-id file `path` (lines NAME:START:COUNT,
 * NAME a user name or a uid) of user `name` or uid `uid`: 0, -ENOENT when
 * it names none, or -errno when it cannot be read.
 */
int userns_subid(const char *path, const char *name, uid_t uid, unsigned long *start,
		 unsigned long *count);

/* newgidmap's path (/usr/bin, /bin, then PATH), or NULL. */
const char *userns_newgidmap(void);

/*
 * Why this process cannot have a user namespace where setgroups() works
 * (no newgidmap, no subordinate gid), in `why`: false when it can.
 */
bool userns_no_setgroups(char *why, size_t len);

/*
 * Moves the calling process into a new user namespace as above, with its
 * capabilities raised as ambient ones so that they survive execve(): 0,
 * or negative errno after one line on standard error. For a process that
 * is about to exec; it forks newgidmap when it has supplementary groups.
 */
int userns_enter(void);

#endif
