#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make fuzz-engines: the counting engines' differential test
# (tests/system/test_exact.c, test_exact_engines_agree) over random seeds
# for SECONDS (FUZZ_SECONDS, 60): each seed's generated sequence
# (tests/guests/exact_diff.c) runs under --exact step and --exact emulate,
# and the two result lines must be the same. Stops at the first seed that
# differs, prints both lines and exits 1; 0 if none did; 77 without a
# usable /dev/kvm (scripts/kvm-unusable).
#
#   scripts/fuzz-engines.sh [BUILD_DIR [SECONDS]]
set -u
build=${1:-build}
seconds=${2:-${FUZZ_SECONDS:-60}}
cd "$(dirname "$0")/.." || exit 1
if why=$(scripts/kvm-unusable); then
	echo "fuzz-engines: skipped: $why"
	exit 77
fi
end=$(($(date +%s) + seconds))
n=0
while [ "$(date +%s)" -lt "$end" ]; do
	seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
	a=$("$build/pmuvm" -q --exact step --timeout 120 --append "seed=$seed" \
		"$build/guests/exact_diff.elf" 2>&1 | grep '^exact_diff:')
	b=$("$build/pmuvm" -q --exact emulate --timeout 120 --append "seed=$seed" \
		"$build/guests/exact_diff.elf" 2>&1 | grep '^exact_diff:')
	if [ -z "$a" ] || [ "$a" != "$b" ]; then
		echo "fuzz-engines: seed $seed differs (or did not run):"
		echo "  step:    $a"
		echo "  emulate: $b"
		exit 1
	fi
	n=$((n + 1))
done
echo "fuzz-engines: $n seeds, the engines agreed on each"
