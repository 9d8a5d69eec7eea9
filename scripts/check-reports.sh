#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pmuvm's --report files against docs/report.schema.json (docs/report.md):
# the schema itself, its samples (tests/report-schema/: valid ones
# accepted, invalid ones and any undocumented key rejected), docs/report.md
# naming each of its keys, and every report the system tests collected in
# $O/tests/reports (tests/lib/pmuvm_run.c keeps a copy of each when
# PMUVM_REPORT_DIR is set, as scripts/run-tests.sh does, in the lab too).
# Run by scripts/run-tests.sh with the build dir as $1; one check.
set -u
O=${1:-build}
cd "$(dirname "$0")/.." || exit 1
dir=$O/tests/reports

# Debian's python3-jsonschema (make deps) is /usr/bin/python3's; a python3
# earlier in PATH may have its own.
py=""
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import jsonschema; jsonschema.Draft202012Validator' 2>/dev/null; then
		py=$p
		break
	fi
done
if [ -z "$py" ]; then
	echo "not ok - no python3 with jsonschema 4 (Debian's python3-jsonschema: make deps)"
	exit 1
fi

fail=0
"$py" scripts/report-schema.py selftest || fail=1
set -- "$dir"/*.json
if [ ! -e "$1" ]; then
	echo "SKIP: report schema: no reports in $dir (no system tests ran)"
elif "$py" scripts/report-schema.py validate "$@"; then
	echo "ok - the $# reports the system tests collected in $dir are valid"
else
	echo "not ok - reports in $dir are invalid (above)"
	fail=1
fi
exit $fail
