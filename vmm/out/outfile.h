/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The files pmuvm writes (--report, --profile, --profile-folded, --serial),
 * opened and checked before the guest starts and written through the path
 * the user gave, symlinks followed.  Only a regular file (or a new one) is
 * replaced, atomically: a temporary file in its directory, then rename.  A
 * character device, FIFO or pmuvm's own standard output or error is written
 * in place; a directory, block device or socket is refused.  "-" is
 * standard output.  Every failure is said once, as one line
 * "pmuvm: OPT: PATH: reason".
 */
#ifndef PMUVM_OUTFILE_H
#define PMUVM_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum outfile_mode {
	OUTFILE_WHOLE,		/* written once, at the end (report, profile) */
	OUTFILE_STREAM,		/* written as it comes (serial output) */
};

enum outfile_kind {
	OUTFILE_NONE,		/* not asked for */
	OUTFILE_FD,		/* an open descriptor, written in place */
	OUTFILE_DEVICE,		/* a character device or FIFO, opened when written */
	OUTFILE_REPLACE,	/* a regular or new file: temporary file, then rename */
	OUTFILE_TRUNCATE,	/* a regular file in a directory pmuvm cannot write */
};

struct outfile {
	const char *opt;	/* "--report": the start of every message */
	const char *name;	/* the path as given, or "standard output" for "-" */
	enum outfile_kind kind;
	int fd;			/* OUTFILE_FD and open streams; -1 otherwise */
	bool own_fd;
	bool tty;		/* a stream to a terminal: the status line is cleared first */
	char *target;		/* the file itself, its symlinks followed */
	mode_t mode;		/* permissions of a replacing file */
	uid_t uid;		/* ...and its owner, where it replaces one */
	gid_t gid;
	bool keep_owner;
	int error;		/* the first failure, -errno (said once); 0 */
};

/*
 * Checks PATH for OPT before the guest starts (a stream is opened now):
 * 0, or -errno after one line.  With path NULL the output is off.
 */
int outfile_open(struct outfile *o, const char *opt, const char *path, enum outfile_mode mode);

/* A stream's next bytes (OUTFILE_STREAM): 0, or -errno (said once). */
int outfile_write(struct outfile *o, const void *buf, size_t len);

/* A whole file's contents (OUTFILE_WHOLE), written once: 0, or -errno after one line. */
int outfile_replace(struct outfile *o, const void *buf, size_t len);

static inline bool outfile_on(const struct outfile *o)
{
	return o->kind != OUTFILE_NONE;
}

void outfile_close(struct outfile *o);

/*
 * Standard input, output and error open, before anything else is: a closed
 * one gets /dev/null, so no file pmuvm opens later becomes "standard output".
 */
int outfile_std_fds(void);

/*
 * Removes the temporary file a replace is writing, if any: for a process
 * that ends at once (a second stop signal).  Safe from any thread.
 */
void outfile_abandon(void);

#endif
