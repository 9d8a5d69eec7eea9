#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pmuvm-kernel --unpack (docs/run.md, "How it works") on synthetic bzImages:
# setup sectors with the boot protocol's payload_offset and payload_length,
# a payload compressed with xz, gzip and zstd (each where its tool is
# installed) and the uncompressed size after it, as the kernel's build
# appends it. The output must be the original bytes; a payload whose size
# word disagrees, and a file with no known payload, must be refused with
# exit status 1 and no output file. Run by scripts/run-tests.sh with the
# build dir as $1.
set -u
cd "$(dirname "$0")/.." || exit 1
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-kernel-unpack.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; fail=1; }

# le32 N: N as 4 little-endian bytes (printf octal escapes).
le32() {
	printf "\\$(printf %o $(($1 & 255)))\\$(printf %o $(($1 >> 8 & 255)))"
	printf "\\$(printf %o $(($1 >> 16 & 255)))\\$(printf %o $(($1 >> 24 & 255)))"
}

# mkimage TOOL OUT [SIZE]: a bzImage of 3 setup sectors (setup_sects = 2)
# whose payload, 100 bytes into the protected-mode part, is $tmp/kernel
# compressed by TOOL, then SIZE (the true size unless given).
mkimage() {
	$1 -c "$tmp/kernel" >"$tmp/payload" 2>/dev/null || return 1
	size=${3:-$(wc -c <"$tmp/kernel")}
	le32 "$size" >>"$tmp/payload"
	plen=$(wc -c <"$tmp/payload")
	head -c 1536 /dev/zero >"$2"
	printf '\002' | dd of="$2" bs=1 seek=497 conv=notrunc 2>/dev/null
	le32 100 | dd of="$2" bs=1 seek=584 conv=notrunc 2>/dev/null
	le32 "$plen" | dd of="$2" bs=1 seek=588 conv=notrunc 2>/dev/null
	head -c 100 /dev/zero >>"$2"
	cat "$tmp/payload" >>"$2"
	head -c 512 /dev/zero >>"$2"	# what follows the payload in a bzImage
}

# 300 KB that compress, with a byte pattern that catches reordering.
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "line %d of the kernel\n", i }' >"$tmp/kernel"

for tool in xz gzip zstd; do
	if ! command -v $tool >/dev/null; then
		echo "SKIP: pmuvm-kernel --unpack of a $tool payload: $tool is not installed"
		continue
	fi
	opt=
	[ $tool != zstd ] || opt=-q
	mkimage "$tool $opt" "$tmp/bz.$tool" || { not_ok "$tool could not compress"; continue; }
	rm -f "$tmp/out"
	if scripts/pmuvm-kernel --unpack "$tmp/bz.$tool" "$tmp/out" && cmp -s "$tmp/out" "$tmp/kernel"; then
		ok "a $tool payload unpacks to the original bytes"
	else
		not_ok "a $tool payload did not unpack to the original bytes"
	fi
done

if command -v xz >/dev/null; then
	mkimage xz "$tmp/bad" 12345
	rm -f "$tmp/out"
	scripts/pmuvm-kernel --unpack "$tmp/bad" "$tmp/out" 2>"$tmp/err"
	st=$?
	if [ $st = 1 ] && [ ! -e "$tmp/out" ] && grep -q "cannot unpack its kernel" "$tmp/err" &&
		[ -z "$(ls "$tmp" | grep '^out')" ]; then
		ok "a payload whose size word disagrees is refused (status 1, no output)"
	else
		not_ok "a payload whose size word disagrees: status $st, $(cat "$tmp/err")"
	fi
fi

scripts/pmuvm-kernel --unpack "$tmp/kernel" "$tmp/out2" 2>"$tmp/err"
st=$?
if [ $st = 1 ] && [ ! -e "$tmp/out2" ]; then
	ok "a file with no known payload is refused (status 1, no output)"
else
	not_ok "a file with no known payload: status $st"
fi
exit $fail
