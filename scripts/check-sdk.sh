#!/bin/sh
# The installed guest SDK: `make install` into a temporary DESTDIR with
# PREFIX=/usr, the man page renders, the out-of-tree guest tests/sdk/ builds
# from the installed files alone (pkg-config pmuvm-guest with the sysroot in
# DESTDIR, and gcc), and the installed pmuvm boots it to a pass, status 1
# (pmuvm(1), EXIT STATUS): on this machine's KVM, or in the lab where that
# is unusable. Run by scripts/run-tests.sh with the build dir as $1.
set -u
O=${1:-build}
cd "$(dirname "$0")/.." || exit 1
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-sdk.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; fail=1; }

for tool in pkg-config gcc; do
	if ! command -v "$tool" >/dev/null; then
		echo "SKIP: guest SDK: $tool is not installed"
		exit 0
	fi
done

# Not a sub-make of the caller's jobserver: start clean; the build is done.
if MAKEFLAGS= make --no-print-directory install O="$O" SANITIZE="${SANITIZE:-0}" \
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
	include/pmuvm-guest/rt.h include/pmuvm-guest/rt/panic.h \
	include/pmuvm-guest/ntpmu/ntpmu.h include/pmuvm-guest/ntpmu/pebs.h \
	include/pmuvm-guest/nt/ntddk.h include/pmuvm-guest/pmu/events.h; do
	[ -f "$dest/usr/$f" ] || missing="$missing $f"
done
if [ -z "$missing" ]; then
	ok "the SDK's library, headers, linker script, pkg-config file and man page are installed"
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

# The guest, from a directory of its own, with nothing of this tree but its source.
mkdir -p "$tmp/src"
cp tests/sdk/sdk_guest.c "$tmp/src/"
export PKG_CONFIG_SYSROOT_DIR="$dest" PKG_CONFIG_LIBDIR="$dest/usr/lib/pkgconfig"
unset PKG_CONFIG_PATH
if ! cflags=$(pkg-config --cflags pmuvm-guest) || ! libs=$(pkg-config --libs pmuvm-guest); then
	not_ok "pkg-config pmuvm-guest"
	exit 1
fi
case "$cflags $libs" in
*"$PWD"*) not_ok "pkg-config points into the source tree: $cflags $libs" ;;
esac
# shellcheck disable=SC2086
if (cd "$tmp/src" && gcc $cflags -O2 -Wall -Wextra -Werror -o sdk_guest.elf sdk_guest.c \
	$libs) >"$tmp/gcc.log" 2>&1; then
	ok "tests/sdk/sdk_guest.c builds with pkg-config pmuvm-guest and gcc"
else
	not_ok "tests/sdk/sdk_guest.c does not build:"
	echo "gcc $cflags -O2 -Wall -Wextra -Werror -o sdk_guest.elf sdk_guest.c $libs"
	cat "$tmp/gcc.log"
	exit 1
fi
# pmuvm boots multiboot ELF32 images (docs/machine.md, "Boot").
if readelf -h "$tmp/src/sdk_guest.elf" | grep -q 'Class: *ELF32'; then
	ok "the guest is an ELF32 image"
else
	not_ok "the guest is not an ELF32 image"
fi

guest=$tmp/src/sdk_guest.elf
if why=$(scripts/kvm-unusable); then
	echo "# $why: the installed pmuvm boots the guest in the lab"
	tests/lab/pmuvm-lab --quiet "$dest/usr/bin/pmuvm" --timeout 60 "$guest" >"$tmp/run.out" 2>&1
else
	"$dest/usr/bin/pmuvm" --timeout 60 "$guest" >"$tmp/run.out" 2>&1
fi
st=$?
if [ "$st" = 1 ] && grep -q '^ok - sdk guest$' "$tmp/run.out" && grep -q '^PASS$' "$tmp/run.out"; then
	ok "the installed pmuvm boots the guest: status 1, ok - sdk guest, PASS"
else
	not_ok "the installed pmuvm on the guest: status $st (want 1):"
	cat "$tmp/run.out"
fi
exit $fail
