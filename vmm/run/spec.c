/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The newc ("070701") cpio format the kernel's initramfs unpacker reads
 * (Documentation/driver-api/early-userspace/buffer-format.rst): a 110-byte
 * ASCII header of 13 hex fields, the name, the data, each padded to 4 bytes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/spec.h"

#define NEWC_HDR_LEN	110

struct buf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->oom || !n)
		return;
	if (b->len + n > b->cap) {
		size_t cap = (b->cap ? b->cap * 2 : 4096) + n;
		uint8_t *p = realloc(b->p, cap);

		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void put_str(struct buf *b, const char *key, const char *v)
{
	put(b, key, strlen(key));
	put(b, v, strlen(v) + 1);
}

static void put_uint(struct buf *b, const char *key, unsigned long v)
{
	char s[32];

	snprintf(s, sizeof(s), "%lu", v);
	put_str(b, key, s);
}

static void pad4(struct buf *b)
{
	static const uint8_t zero[4];

	put(b, zero, (4 - b->len % 4) % 4);
}

/* One newc entry: header, name, data. */
static void newc_entry(struct buf *b, const char *name, unsigned int mode, unsigned int ino,
		       const void *data, size_t len)
{
	char hdr[NEWC_HDR_LEN + 1];

	snprintf(hdr, sizeof(hdr),
		 "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		 ino, mode, 0u, 0u, 1u, 0u, (unsigned int)len, 0u, 0u, 0u, 0u,
		 (unsigned int)strlen(name) + 1, 0u);
	put(b, hdr, NEWC_HDR_LEN);
	put(b, name, strlen(name) + 1);
	pad4(b);
	put(b, data, len);
	pad4(b);
}

int run_spec_cpio(const struct run_spec *s, uint8_t **out, size_t *len)
{
	struct buf spec = { 0 }, arc = { 0 };
	char groups[RUN_SPEC_MAX_GROUPS * 11 + 1] = "";
	unsigned int i;
	size_t at = 0;

	put_uint(&spec, "uid=", s->uid);
	put_uint(&spec, "gid=", s->gid);
	for (i = 0; i < s->nr_groups && i < RUN_SPEC_MAX_GROUPS; i++)
		at += (size_t)snprintf(groups + at, sizeof(groups) - at, "%s%u", i ? "," : "",
				       (unsigned int)s->groups[i]);
	put_str(&spec, "groups=", groups);
	put_str(&spec, "cwd=", s->cwd);
	put_str(&spec, "stdin_tty=", s->stdin_tty ? "1" : "0");
	put_str(&spec, "stdout_tty=", s->stdout_tty ? "1" : "0");
	put_uint(&spec, "rows=", s->rows);
	put_uint(&spec, "cols=", s->cols);
	for (i = 0; s->argv[i]; i++)
		put_str(&spec, "arg=", s->argv[i]);
	for (i = 0; s->envp && s->envp[i]; i++)
		put_str(&spec, "env=", s->envp[i]);
	if (!spec.oom) {
		newc_entry(&arc, "pmuvm-run", 0100644, 1, spec.p, spec.len);
		newc_entry(&arc, "TRAILER!!!", 0, 0, NULL, 0);
	}
	free(spec.p);
	if (spec.oom || arc.oom) {
		free(arc.p);
		return -ENOMEM;
	}
	*out = arc.p;
	*len = arc.len;
	return 0;
}
