#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The installed guest SDK (docs/guest-sdk.md): `make install` into a
# temporary DESTDIR with PREFIX=/usr, the man page renders, every installed
# header compiles alone with pkg-config's cflags only, the installed
# examples (share/pmuvm/examples: hello, pmc_count, ntpmu_counters) build
# out of tree with their own Makefile and pkg-config pmuvm-guest from the
# installed files alone, and the installed pmuvm boots them with the
# results they promise: exit status, console lines and the ucall results
# in --report (the counter examples on --pmu intel and --pmu amd). Boots
# run on this machine's KVM, or in the lab (one lab for all of them) where
# that is unusable. Run by scripts/run-tests.sh with the build dir as $1;
# exit status 77 when it cannot run at all (a tool missing), said on a
# "SKIP:" line.
#
#   check-sdk.sh [O]          the check
#   check-sdk.sh --boot DIR   (the check, here or in the lab) boot what
#                             DIR/boots lists: "NAME PMUVM-ARGS..." lines;
#                             NAME.out, NAME.err, NAME.status, NAME.json
set -u
cd "$(dirname "$0")/.." || exit 1

if [ "${1:-}" = --boot ]; then
	dir=$2
	while read -r name args; do
		# shellcheck disable=SC2086
		"$dir/usr/bin/pmuvm" --timeout 60 --report "$dir/$name.json" $args \
			>"$dir/$name.out" 2>"$dir/$name.err"
		echo $? >"$dir/$name.status"
	done <"$dir/boots"
	exit 0
fi

O=${1:-build}
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-sdk.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; fail=1; }

for tool in pkg-config gcc make; do
	if ! command -v "$tool" >/dev/null; then
		echo "SKIP: guest SDK: $tool is not installed"
		exit 77
	fi
done

# Not a sub-make of the caller's jobserver: start clean; the build is done.
if MAKEFLAGS='' make --no-print-directory install O="$O" SANITIZE="${SANITIZE:-0}" \
	DESTDIR="$dest" PREFIX=/usr >"$tmp/install.log" 2>&1; then
	ok "make install DESTDIR=\$tmp PREFIX=/usr"
else
	not_ok "make install DESTDIR=\$tmp PREFIX=/usr failed:"
	cat "$tmp/install.log"
	exit 1
fi

missing=""
for f in bin/pmuvm share/man/man1/pmuvm.1 lib/pkgconfig/pmuvm-guest.pc \
	lib/pmuvm-guest/libpmuvm-guest.a lib/pmuvm-guest/pmuvm-guest.ld \
	include/pmuvm-guest/rt.h include/pmuvm-guest/rt/panic.h include/pmuvm-guest/rt/pmc.h \
	include/pmuvm-guest/ntpmu/ntpmu.h include/pmuvm-guest/ntpmu/pebs.h \
	include/pmuvm-guest/nt/ntddk.h include/pmuvm-guest/x86-pmu/events.h \
	include/pmuvm-guest/pmuvm/ucall.h share/pmuvm/examples/Makefile \
	share/pmuvm/examples/hello.c share/pmuvm/examples/pmc_count.c \
	share/pmuvm/examples/ntpmu_counters.c; do
	[ -f "$dest/usr/$f" ] || missing="$missing $f"
done
if [ -z "$missing" ]; then
	ok "the SDK's library, headers, linker script, pkg-config file, examples and man page are installed"
else
	not_ok "not installed:$missing"
fi
private=$(find "$dest/usr/include" -name 'ntpmu_*.h' -o -name 'internal.h' -o -name 'sched.h')
if [ -z "$private" ]; then
	ok "no private header is installed"
else
	not_ok "private headers installed: $private"
fi

# The man page: renders without a groff warning, and says this version.
version=$("$dest/usr/bin/pmuvm" --version)
if ! command -v man >/dev/null; then
	echo "SKIP: man page: man is not installed (man-db)"
elif MANWIDTH=80 man --warnings -l "$dest/usr/share/man/man1/pmuvm.1" >"$tmp/man.txt" \
	2>"$tmp/man.err" && ! grep -qi 'warning\|error' "$tmp/man.err" &&
	grep -q '^EXIT STATUS' "$tmp/man.txt" && grep -q -- '--pebs-format' "$tmp/man.txt" &&
	grep -q "^$version  " "$tmp/man.txt"; then
	ok "man -l pmuvm.1 renders (EXIT STATUS, the options, $version)"
else
	not_ok "man -l pmuvm.1:"
	cat "$tmp/man.err"
	head -n 20 "$tmp/man.txt"
fi

export PKG_CONFIG_SYSROOT_DIR="$dest" PKG_CONFIG_LIBDIR="$dest/usr/lib/pkgconfig"
unset PKG_CONFIG_PATH
if ! cflags=$(pkg-config --cflags pmuvm-guest) || ! libs=$(pkg-config --libs pmuvm-guest); then
	not_ok "pkg-config pmuvm-guest"
	exit 1
fi
case "$cflags $libs" in
*"$PWD"*) not_ok "pkg-config points into the source tree: $cflags $libs" ;;
esac

# Each installed header alone: everything it includes is installed too.
bad=""
incdir=$dest/usr/include/pmuvm-guest
for h in $(cd "$incdir" && find . -name '*.h' | sed 's|^\./||' | sort); do
	# shellcheck disable=SC2086
	if ! echo "#include <$h>" | gcc $cflags -Wall -Wextra -Werror -fsyntax-only -x c - \
		>"$tmp/h.log" 2>&1; then
		bad="$bad $h"
		sed "s|^|$h: |" "$tmp/h.log" | head -n 5
	fi
done
nh=$(cd "$incdir" && find . -name '*.h' | wc -l)
if [ -z "$bad" ]; then
	ok "each of the $nh installed headers compiles alone with pkg-config's cflags"
else
	not_ok "installed headers that do not compile alone:$bad"
fi

# The examples, from a copy of the directory pkg-config names, with their Makefile.
# (pkgconf puts the sysroot in front of paths in variables too.)
exdir=$(pkg-config --variable=examplesdir pmuvm-guest)
exdir=${exdir#"$dest"}
if [ "$exdir" = /usr/share/pmuvm/examples ] && cp -r "$dest$exdir" "$tmp/ex"; then
	ok "pkg-config --variable=examplesdir pmuvm-guest: $exdir"
else
	not_ok "pkg-config --variable=examplesdir pmuvm-guest: '$exdir'"
	exit 1
fi
if MAKEFLAGS='' make --no-print-directory -C "$tmp/ex" CC=gcc \
	CFLAGS="-O2 -g -Wall -Wextra -Werror" >"$tmp/ex.log" 2>&1; then
	ok "the installed examples build out of tree (their Makefile, pkg-config pmuvm-guest, gcc)"
else
	not_ok "the installed examples do not build:"
	cat "$tmp/ex.log"
	exit 1
fi
# pmuvm boots multiboot ELF32 images (docs/guest-sdk.md).
for e in hello pmc_count ntpmu_counters; do
	if ! readelf -h "$tmp/ex/$e.elf" | grep -q 'Class: *ELF32'; then
		not_ok "$e.elf is not an ELF32 image"
	fi
done

# What each boot must show: NAME, the pmuvm arguments, the exit status, a
# console line, and the ucall results (report "guest.results", one
# "kind name values..." line each, in order).
cat >"$tmp/expect" <<EOF
hello|--mem 2M $tmp/ex/hello.elf|1|hello: a pmuvm guest on 1 cpu with 1663 KiB of RAM|value hello.ram_kib 1663;ok hello;done 0
hello_fail|--append fail $tmp/ex/hello.elf|3|hello: asked to fail|value hello.ram_kib *;ok hello;done 1
pmc_count_intel|--pmu intel $tmp/ex/pmc_count.elf|1|pmc_count: intel PMU version 5, 8 counters of 48 bits|value pmc_count.instructions 2000;value pmc_count.cycles *;ok pmc_count;done 0
pmc_count_amd|--pmu amd $tmp/ex/pmc_count.elf|1|pmc_count: amd PMU version 2, 6 counters of 48 bits|value pmc_count.instructions 2000;value pmc_count.cycles *;ok pmc_count;done 0
pmc_count_none|--pmu none $tmp/ex/pmc_count.elf|3|FAIL pmc_count.c:*: no PMU on this * CPU|fail pmc_count.c:*
ntpmu_counters_intel|--pmu intel --mem 2M $tmp/ex/ntpmu_counters.elf|1|ntpmu_counters: pmu version 5, 8 gp counters, 3 fixed counters|value ntpmu_counters.configured 2;ok ntpmu_counters;done 0
ntpmu_counters_amd|--pmu amd $tmp/ex/ntpmu_counters.elf|1|ntpmu_counters: pmu version 2, 6 gp counters, 0 fixed counters|value ntpmu_counters.configured 2;ok ntpmu_counters;done 0
EOF
cut -d'|' -f1,2 "$tmp/expect" | tr '|' ' ' >"$dest/boots"
if why=$(scripts/kvm-unusable); then
	echo "# $why: the installed pmuvm boots the examples in the lab"
	tests/lab/pmuvm-lab --quiet "$0" --boot "$dest" >"$tmp/lab.out" 2>&1
	st=$?
	if [ "$st" != 0 ]; then
		not_ok "the lab failed (status $st):"
		cat "$tmp/lab.out"
		exit 1
	fi
else
	"$0" --boot "$dest"
fi

# The report's ucall results as "kind name values..." lines; a failure's
# name is its file:line, a done's its status.
results() {
	python3 - "$1" <<'EOF'
import json, sys
for r in json.load(open(sys.argv[1]))["guest"]["results"]:
    k = r["kind"]
    if k == "fail":
        print("fail %s:%d" % (r["file"], r["line"]))
    elif k == "done":
        print("done %d" % r["status"])
    else:
        print(" ".join([k, r.get("name", "")] + [str(v) for v in r.get("values", [])]))
EOF
}

have_python=1
command -v python3 >/dev/null || {
	have_python=0
	echo "SKIP: guest SDK: the examples' ucall results: python3 is not installed"
}
# A pattern of the expectations above as a basic regular expression: * is any text.
pattern() {
	sed 's/[].[]/\\&/g; s/\*/.*/g'
}

while IFS='|' read -r name args want line ucalls; do
	st=$(cat "$dest/$name.status" 2>/dev/null || echo none)
	what="pmuvm $(echo "$args" | sed "s|$tmp/ex/||")"
	echo "$ucalls" | tr ';' '\n' | pattern >"$tmp/want"
	if [ "$st" != "$want" ]; then
		not_ok "$what: status $st (want $want)"
	elif ! grep -q -x -- "$(echo "$line" | pattern)" "$dest/$name.out"; then
		not_ok "$what: no line '$line'"
	elif [ "$have_python" = 1 ] && ! results "$dest/$name.json" >"$tmp/got" 2>&1; then
		not_ok "$what: no ucall results in the report:"
		cat "$tmp/got"
	elif [ "$have_python" = 1 ] && ! awk 'NR == FNR { re[FNR] = "^" $0 "$"; n = FNR; next }
		$0 !~ re[FNR] { bad = 1 } { m = FNR } END { exit bad || m != n }' "$tmp/want" "$tmp/got"; then
		not_ok "$what: ucall results (want: $ucalls):"
		cat "$tmp/got"
	else
		ok "$what: status $st, '$line', ucalls $ucalls"
		continue
	fi
	cat "$dest/$name.out" "$dest/$name.err"
done <"$tmp/expect"
exit $fail
