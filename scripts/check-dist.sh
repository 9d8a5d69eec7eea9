#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make dist's tarball stands on its own: it unpacks into pmuvm-VERSION/ with
# a VERSION file holding HEAD's version (scripts/version.sh --head), builds
# there without git (make -j2 all), its pmuvm says that version, and
# `make install DESTDIR=` followed by `make uninstall DESTDIR=` (same
# PREFIX) leaves no file and none of pmuvm's directories behind; the
# tarball is removed afterwards. Run by
# scripts/run-tests.sh with the build dir as $1 (unused: the tarball builds
# its own).
set -u
cd "$(dirname "$0")/.." || exit 1
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-dist.XXXXXX") || exit 1
tarball=""
trap 'rm -rf "$tmp"; [ -z "$tarball" ] || rm -f "$tarball"' EXIT

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; fail=1; }

if [ ! -e .git ] || ! command -v git >/dev/null; then
	echo "SKIP: make dist: not a git checkout (a tarball cannot make another)"
	exit 0
fi
version=$(scripts/version.sh --head) || { not_ok "scripts/version.sh --head failed"; exit 1; }
name=pmuvm-$version
tarball=build/$name.tar.gz

# Not sub-makes of the caller's jobserver: start clean.
if MAKEFLAGS= make --no-print-directory dist >"$tmp/dist.log" 2>&1 && [ -f "$tarball" ]; then
	ok "make dist wrote $tarball"
else
	not_ok "make dist did not write $tarball:"
	cat "$tmp/dist.log"
	exit 1
fi

tar -tzf "$tarball" >"$tmp/list" || { not_ok "tar -tzf $tarball failed"; exit 1; }
outside=$(grep -v "^$name/" "$tmp/list" | head -n 3)
nver=$(grep -c "^$name/VERSION\$" "$tmp/list")
if [ -z "$outside" ] && [ "$nver" = 1 ] && grep -q "^$name/Makefile\$" "$tmp/list" &&
	! grep -q '/\.git/' "$tmp/list"; then
	ok "the tarball holds $name/ only, one VERSION file, no .git"
else
	not_ok "tarball layout: outside $name/: '$outside', VERSION files: $nver"
fi

tar -xzf "$tarball" -C "$tmp" || { not_ok "tar -xzf $tarball failed"; exit 1; }
src=$tmp/$name
if [ "$(cat "$src/VERSION")" = "$version" ]; then
	ok "VERSION holds $version"
else
	not_ok "VERSION holds '$(cat "$src/VERSION")', not $version"
fi

if (cd "$src" && MAKEFLAGS= SANITIZE=0 make --no-print-directory -j2 all) >"$tmp/build.log" 2>&1; then
	ok "the unpacked tarball builds (make -j2 all)"
else
	not_ok "the unpacked tarball does not build:"
	tail -n 30 "$tmp/build.log"
	exit 1
fi
said=$("$src/build/pmuvm" --version)
if [ "$said" = "pmuvm $version" ]; then
	ok "its pmuvm --version says $version"
else
	not_ok "its pmuvm --version says '$said', not 'pmuvm $version'"
fi

dest=$tmp/dest
if (cd "$src" && MAKEFLAGS= make --no-print-directory install DESTDIR="$dest" PREFIX=/usr) \
	>"$tmp/install.log" 2>&1; then
	n=$(find "$dest" ! -type d | wc -l)
	missing=""
	for f in bin/pmuvm share/man/man1/pmuvm.1 share/doc/pmuvm/README.md \
		share/doc/pmuvm/CHANGELOG.md share/doc/pmuvm/LICENSE \
		share/doc/pmuvm/LICENSES/GPL-2.0-only.txt share/doc/pmuvm/LICENSES/MIT.txt \
		lib/pkgconfig/pmuvm-guest.pc; do
		[ -f "$dest/usr/$f" ] || missing="$missing $f"
	done
	if [ -z "$missing" ]; then
		ok "make install DESTDIR=\$tmp PREFIX=/usr: $n files, the docs and licenses among them"
	else
		not_ok "make install did not install:$missing"
	fi
	if grep -q "^Version: $version\$" "$dest/usr/lib/pkgconfig/pmuvm-guest.pc"; then
		ok "pmuvm-guest.pc says Version: $version"
	else
		not_ok "pmuvm-guest.pc: $(grep '^Version' "$dest/usr/lib/pkgconfig/pmuvm-guest.pc")"
	fi
else
	not_ok "make install failed:"
	tail -n 20 "$tmp/install.log"
	exit 1
fi

if (cd "$src" && MAKEFLAGS= make --no-print-directory uninstall DESTDIR="$dest" PREFIX=/usr) \
	>"$tmp/uninstall.log" 2>&1; then
	left=$(cd "$dest" && { find . ! -type d; find . -type d -name '*pmuvm*'; } | head -n 10)
	if [ -z "$left" ]; then
		ok "make uninstall DESTDIR=\$tmp PREFIX=/usr leaves no file behind"
	else
		not_ok "make uninstall left:" $left
	fi
else
	not_ok "make uninstall failed:"
	tail -n 20 "$tmp/uninstall.log"
fi
exit $fail
