#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Part of `make check`: a short run of every libFuzzer target (mk/fuzz.mk),
# from the committed seeds only, failing on any crash or broken invariant.
# FUZZ_CHECK_SECONDS per target (default 4). Crash inputs: build/fuzz/artifacts/.
set -u
secs=${FUZZ_CHECK_SECONDS:-4}
corpus=build/fuzz/check-corpus
log=build/fuzz/check.log
rm -rf "$corpus"
mkdir -p build/fuzz
# Not a sub-make of the caller's jobserver: start clean.
MAKEFLAGS= make --no-print-directory -j2 fuzz FUZZ_SECONDS="$secs" \
	FUZZ_CORPUS="$corpus" >"$log" 2>&1
rc=$?
grep -e '^== ' -e '^Done ' -e '^fuzz:' "$log"
if [ "$rc" -ne 0 ]; then
	tail -n 60 "$log"
	echo "check-fuzz: failed, full log in $log"
fi
exit "$rc"
