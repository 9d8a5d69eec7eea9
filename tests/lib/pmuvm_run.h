/* SPDX-License-Identifier: GPL-2.0-only */
/* Running pmuvm from system tests: exec, capture output, skip without KVM. */
#ifndef TESTS_PMUVM_RUN_H
#define TESTS_PMUVM_RUN_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "suite.h"

struct pmuvm_result {
	int status;		/* exit status, or 128+signal */
	char *out;		/* stdout, NUL-terminated */
	char *err;		/* stderr */
	json_object *report;	/* pmuvm's --report, parsed; NULL if none was written */
};

/* Path of build/pmuvm ($PMUVM) and of a guest ($GUEST_DIR/NAME.elf). */
const char *pmuvm_path(void);
const char *guest_path(const char *name);	/* static buffer, one at a time */

/* Scratch directory for this test process (removed at exit). */
const char *test_tmpdir(void);
const char *tmp_path(const char *name);		/* static buffer */

/*
 * Runs pmuvm with argv (NULL-terminated, without argv[0]) and extra
 * environment "K=V" strings (NULL-terminated, may be NULL).  Kills it after
 * `limit_s` seconds.  Returns 0 or -1 if it could not be started.
 * Always asks for a report, which r->report holds (expect.h's guest
 * verdicts read its "guest" results): at argv's --report path if it has
 * one (removed first if it is a regular file, so never a previous run's),
 * else in test_tmpdir().  Always quiet (-q): no progress lines on stderr.
 * $PMUVM_EXTRA_ARGS (words split at blanks) go before argv.
 */
int pmuvm_run_env(struct pmuvm_result *r, const char *const *env, double limit_s,
		  const char *const *argv);
#define pmuvm_run(r, ...) \
	pmuvm_run_env(r, NULL, 120, (const char *const[]){ __VA_ARGS__, NULL })
void pmuvm_result_free(struct pmuvm_result *r);

/* Runs any program (argv[0], looked up in PATH) the same way. */
int cmd_run(struct pmuvm_result *r, const char *const *env, double limit_s,
	    const char *const *argv);
#define cmd_run_args(r, ...) \
	cmd_run(r, NULL, 120, (const char *const[]){ __VA_ARGS__, NULL })

/* True if `prog` is found in PATH. */
bool have_program(const char *prog);

/* NULL if /dev/kvm is usable, else why not. */
const char *kvm_unusable_reason(void);

/* At the top of a test that needs KVM: skips it (TEST_SKIP) with the reason. */
#define REQUIRE_KVM()							\
	do {								\
		const char *why_ = kvm_unusable_reason();		\
		if (why_)						\
			TEST_SKIP("%s", why_);				\
	} while (0)

char *read_file_str(const char *path);	/* malloc'd, or NULL */
bool write_file(const char *path, const void *data, size_t len);
unsigned int dir_entries(const char *dir);	/* entries but . and .. */

#endif
