#!/bin/sh
# Runs every test binary of build dir $1 and prints one closing line:
#   "tests: N passed, N failed"  (suites, counted by binary)
set -u
O=${1:-build}
export PMUVM="$O/pmuvm" GUEST_DIR="$O/guests"
pass=0
fail=0

run() {
	name=$1; shift
	echo "== $name"
	if "$@"; then
		pass=$((pass + 1))
	else
		echo "FAILED: $name"
		fail=$((fail + 1))
	fi
}

run "unit tests (Check)" "$O/tests/unit-tests"
run "system tests (Check, boot guests under pmuvm)" "$O/tests/system-tests"
for extra in scripts/check-*.sh; do
	[ -x "$extra" ] && run "$extra" "$extra" "$O"
done

echo "tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
