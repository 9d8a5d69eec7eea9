/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Skipped tests (suite.h). Check 0.15 has no skip result: a test passes,
 * fails or errs. So a skipped test passes, and says why where Check prints
 * it: a result's line reads "ok N - FILE:TCASE:TEST: MESSAGE" (TAP, with
 * CK_TAP_LOG_FILE_NAME; "FILE:LINE:P:..." with CK_VERBOSITY=verbose), FILE
 * being the file of the test's last check or mark point. The skip is a
 * mark point whose file is "FILE # SKIP reason", so the TAP line carries
 * the SKIP directive and srunner_results() the same text (tr_lfile()).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "suite.h"

void test_skip_at(const char *file, int line, const char *fmt, ...)
{
	static char loc[512];
	size_t n;
	va_list ap;
	char *p;

	n = (size_t)snprintf(loc, sizeof(loc), "%s" TEST_SKIP_DIRECTIVE " ", file);
	if (n < sizeof(loc)) {
		va_start(ap, fmt);
		vsnprintf(loc + n, sizeof(loc) - n, fmt, ap);
		va_end(ap);
	}
	/* One line: a reason from a program's output may hold newlines. */
	for (p = loc; *p; p++)
		if ((unsigned char)*p < ' ')
			*p = ' ';
	while (p > loc && p[-1] == ' ')
		*--p = '\0';
	_mark_point(loc, line);
}

bool test_result_skipped(TestResult *tr)
{
	const char *file = tr_lfile(tr);

	return tr_rtype(tr) == CK_PASS && file && strstr(file, TEST_SKIP_DIRECTIVE);
}
