#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Branch coverage of the objects built from SRC_DIR into BUILD_DIR.
#
#   scripts/coverage.sh BUILD_DIR SRC_DIR [MIN_PERCENT]
#
# Runs gcov -b over the .gcda files under BUILD_DIR/SRC_DIR (run the tests of
# a --coverage build first), prints per-file and total "branches taken at
# least once", and exits 1 if the total is under MIN_PERCENT (default 90).
# Headers included by several objects are merged by gcov and counted once.
set -eu

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: $0 BUILD_DIR SRC_DIR [MIN_PERCENT]" >&2
	exit 2
fi
build=${1%/}
src=${2%/}
min=${3:-90}
objdir=$build/$src

if ! command -v gcov >/dev/null 2>&1; then
	echo "coverage: gcov not found" >&2
	exit 2
fi
gcdas=$(find "$objdir" -name '*.gcda' 2>/dev/null | sort)
if [ -z "$gcdas" ]; then
	echo "coverage: no .gcda files under $objdir (build with COVERAGE=1 and run the tests)" >&2
	exit 2
fi

# gcov names sources as they were given to the compiler (relative to the
# directory make ran in); -n writes no .gcov files.
# shellcheck disable=SC2086
gcov -b -n $gcdas 2>/dev/null | awk -v src="$src/" -v min="$min" '
/^File / {
	file = substr($0, 7, length($0) - 7)
	mine = index(file, src) == 1 || index(file, "/" src) > 0
	next
}
mine && /^Taken at least once:/ {
	split(substr($0, 21), part, "% of ")
	n = part[2] + 0
	t = int(part[1] * n / 100 + 0.5)
	taken[file] = t
	total[file] = n
	files[++nfiles] = file
	next
}
mine && /^No branches/ {
	taken[file] = 0
	total[file] = 0
	files[++nfiles] = file
}
END {
	for (i = 1; i <= nfiles; i++) {
		f = files[i]
		if (total[f])
			printf "  %-40s %4d/%-4d  %6.2f%%\n", f, taken[f], total[f],
			       100 * taken[f] / total[f]
		else
			printf "  %-40s    no branches\n", f
		sum_t += taken[f]
		sum_n += total[f]
	}
	if (!sum_n) {
		print "coverage: no branches found" > "/dev/stderr"
		exit 1
	}
	pct = 100 * sum_t / sum_n
	printf "  %-40s %4d/%-4d  %6.2f%% (minimum %s%%)\n", "TOTAL", sum_t, sum_n, pct, min
	exit pct < min ? 1 : 0
}'
