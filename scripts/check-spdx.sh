#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every source file names its license in an SPDX-License-Identifier line
# within its first 3 lines, and that license is its directory's (LICENSE):
# MIT for the guest SDK (guest-shim/, include/), GPL-2.0-only for the rest.
# Files are the git checkout's (tracked and new, not ignored), or a
# tarball's. Data (fuzz corpora, JSON), Markdown and the license texts
# carry none; a file of a kind listed nowhere below fails, so that a new
# kind is classified rather than missed. Run by scripts/run-tests.sh.
set -u
cd "$(dirname "$0")/.." || exit 1

# The license a path must name.
license_of() {
	case "$1" in
	guest-shim/*|include/*) echo MIT ;;
	*) echo GPL-2.0-only ;;
	esac
}

# source: check it; skip: no identifier expected; anything else: unclassified.
kind_of() {
	case "$1" in
	fuzz/corpus/*|*/__pycache__/*|*.pyc) echo skip ;;
	*.md|LICENSE|LICENSES/*|VERSION|.gitignore|.gitattributes|*.json) echo skip ;;
	*.c|*.h|*.S|*.ld|*.py|*.sh|*.mk|*.in|*.cfg|*.xml|*.h2m) echo source ;;
	Makefile|*/Makefile|.ci/*|scripts/*|tests/lab/*|tests/linux/*|qemu-configs/*) echo source ;;
	tests/report-schema/invalid/reasons) echo source ;;
	*) if head -c 2 "$1" 2>/dev/null | grep -q '^#!'; then echo source; else echo unknown; fi ;;
	esac
}

if [ -e .git ] && command -v git >/dev/null; then
	files=$(git ls-files --cached --others --exclude-standard | sort -u)
else
	files=$(find . -path ./build -prune -o -type f -print | sed 's|^\./||' | sort)
fi

bad=0 n=0
for f in $files; do
	[ -f "$f" ] || continue		# deleted in the work tree
	case $(kind_of "$f") in
	skip) continue ;;
	unknown)
		echo "$f: not classified (a source kind or skipped data? see scripts/check-spdx.sh)"
		bad=$((bad + 1))
		continue ;;
	esac
	n=$((n + 1))
	want=$(license_of "$f")
	have=$(head -n 3 "$f" | sed -n 's/.*SPDX-License-Identifier: *\([^ ]*[^ */>-]\).*/\1/p' | head -n 1)
	if [ -z "$have" ]; then
		echo "$f: no SPDX-License-Identifier in its first 3 lines (want $want)"
		bad=$((bad + 1))
	elif [ "$have" != "$want" ]; then
		echo "$f: SPDX-License-Identifier: $have, but its directory's license is $want"
		bad=$((bad + 1))
	fi
done
if [ "$bad" -gt 0 ]; then
	echo "not ok - $bad files above ($n source files checked): each names its directory's license (LICENSE) in its first 3 lines"
	exit 1
fi
echo "ok - all $n source files name their directory's license (SPDX-License-Identifier)"
