#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The installed man page documents pmuvm as --help does: `make install`
# into a temporary DESTDIR, then every option that `pmuvm --help` lists
# (the names before each option line's description) is in the rendered
# pmuvm(1), which renders without a groff warning and has the sections
# that --help cannot carry (docs/pmuvm.h2m). Run by scripts/run-tests.sh
# with the build dir as $1; a man page as $2 is checked instead of the
# installed one (to see this check fail).
set -u
O=${1:-build}
cd "$(dirname "$0")/.." || exit 1
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-man.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; fail=1; }

if ! command -v man >/dev/null; then
	echo "SKIP: man page: man is not installed (man-db)"
	exit 0
fi

page=${2:-}
if [ -z "$page" ]; then
	# Not a sub-make of the caller's jobserver: start clean; the build is done.
	if ! MAKEFLAGS= make --no-print-directory install O="$O" SANITIZE="${SANITIZE:-0}" \
		DESTDIR="$tmp/dest" PREFIX=/usr >"$tmp/install.log" 2>&1; then
		not_ok "make install DESTDIR=\$tmp PREFIX=/usr failed:"
		cat "$tmp/install.log"
		exit 1
	fi
	page=$tmp/dest/usr/share/man/man1/pmuvm.1
fi

# Wide and in ASCII, so that no option is hyphenated or drawn with a Unicode dash.
if MANWIDTH=250 man --warnings -E ascii -l "$page" >"$tmp/man.txt" 2>"$tmp/man.err" &&
	[ ! -s "$tmp/man.err" ]; then
	ok "man -l pmuvm.1 renders without warnings"
else
	not_ok "man -l pmuvm.1:"
	cat "$tmp/man.err"
fi

"$O/pmuvm" --help >"$tmp/help.txt" || { not_ok "pmuvm --help failed"; exit 1; }
# Option lines: indented, starting with '-'; their names come before the
# first run of two spaces (the description).
opts=$(sed -n 's/^ \{1,8\}\(-[^ ].*\)$/\1/p' "$tmp/help.txt" | sed 's/  .*//' |
	grep -o -- '--\{0,1\}[A-Za-z0-9][A-Za-z0-9-]*' | sort -u)
n=$(echo "$opts" | grep -c .)
if [ "$n" -lt 20 ]; then
	not_ok "only $n options found in pmuvm --help"
fi
missing=""
for o in $opts; do
	grep -q -E -- "(^|[^A-Za-z0-9-])$o([^A-Za-z0-9-]|\$)" "$tmp/man.txt" ||
		missing="$missing $o"
done
if [ -z "$missing" ]; then
	ok "all $n options of pmuvm --help are in pmuvm(1)"
else
	not_ok "options of pmuvm --help missing from pmuvm(1):$missing"
fi

missing=""
for s in NAME SYNOPSIS DESCRIPTION "EXIT STATUS" ENVIRONMENT FILES "SEE ALSO"; do
	grep -q "^$s\$" "$tmp/man.txt" || missing="$missing '$s'"
done
if [ -z "$missing" ]; then
	ok "pmuvm(1) has NAME, SYNOPSIS, DESCRIPTION, EXIT STATUS, ENVIRONMENT, FILES, SEE ALSO"
else
	not_ok "sections missing from pmuvm(1):$missing"
fi
exit $fail
