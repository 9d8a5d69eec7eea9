# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0-only
# Shared by the labs (pmuvm-lab, pmuvm-lab-vmx), sourced: Debian's kernel,
# its modules and busybox, fetched once per machine into a cache.  The
# caller sets LAB_NAME (for messages) and QUIET, and defines nothing else.

die() {
	echo "$LAB_NAME: $*" >&2
	exit 125
}

say() {
	[ "$QUIET" = 1 ] || echo "$LAB_NAME: $*" >&2
}

# The kernel version linux-image-amd64 points at, e.g. 6.1.0-56-amd64.
lab_kernel_version() {
	v=$(apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/.*Depends: linux-image-\([0-9].*-amd64\)$/\1/p' | head -n1)
	if [ -z "$v" ]; then
		apt-get update -q >/dev/null 2>&1 || return 1
		v=$(apt-cache depends linux-image-amd64 2>/dev/null |
			sed -n 's/.*Depends: linux-image-\([0-9].*-amd64\)$/\1/p' | head -n1)
	fi
	[ -n "$v" ] && echo "$v"
}

# lab_prepare_kernel CACHE "MODULE..." fills CACHE/$KVER/{vmlinuz,busybox,
# modules/*.ko} from linux-image-$KVER-unsigned and busybox-static (a
# finished one has ./ok) and sets KVER.  The newest finished one is used
# unless PMUVM_LAB_REFRESH is set.
lab_prepare_kernel() {
	lc=$1 lmods=$2
	mkdir -p "$lc" 2>/dev/null || die "cannot create $lc (set the lab's cache variable)"
	KVER=$(ls "$lc" 2>/dev/null | grep '^[0-9]' | while read -r d; do
		[ -f "$lc/$d/ok" ] && echo "$d"; done | sort -V | tail -n1)
	if [ -n "$KVER" ] && [ -z "${PMUVM_LAB_REFRESH:-}" ]; then
		return 0
	fi
	command -v apt-get >/dev/null || die "apt-get not found: the lab needs Debian's packages"
	KVER=$(lab_kernel_version) || die "cannot tell which kernel linux-image-amd64 depends on (apt-get update failed?)"
	[ -f "$lc/$KVER/ok" ] && return 0
	say "fetching linux-image-$KVER-unsigned and busybox-static into $lc (once per machine)"
	dl=$(mktemp -d "$lc/.dl.XXXXXX") || die "cannot write to $lc"
	# apt's sandbox user must be able to write where it downloads.
	chmod 0777 "$dl"
	(cd "$dl" && apt-get download -q "linux-image-$KVER-unsigned" busybox-static \
		>download.log 2>&1) || { cat "$dl/download.log" >&2; rm -rf "$dl";
		die "apt-get download failed"; }
	mkdir -p "$dl/x" "$dl/out/modules"
	for deb in "$dl"/*.deb; do
		dpkg-deb -x "$deb" "$dl/x" || { rm -rf "$dl"; die "dpkg-deb -x $deb failed"; }
	done
	cp "$dl/x/boot/vmlinuz-$KVER" "$dl/out/vmlinuz" || { rm -rf "$dl"; die "no vmlinuz-$KVER in the package"; }
	cp "$dl/x/bin/busybox" "$dl/out/busybox" || { rm -rf "$dl"; die "no busybox in busybox-static"; }
	for m in $lmods; do
		f=$(find "$dl/x/lib/modules/$KVER" -name "$m.ko" | head -n1)
		[ -n "$f" ] || { rm -rf "$dl"; die "module $m.ko not in linux-image-$KVER-unsigned"; }
		cp "$f" "$dl/out/modules/"
	done
	rm -rf "${lc:?}/$KVER"
	mv "$dl/out" "$lc/$KVER" && touch "$lc/$KVER/ok"
	rm -rf "$dl"
}

# lab_command_script CMD...: the caller's environment, plus PMUVM_LAB=1 and
# the lab's kind in PMUVM_LAB_KIND, then "cd" to the caller's directory and
# exec the command, as a shell script on stdout.
lab_command_script() {
	echo "# written by $LAB_NAME: the command to run in the lab"
	export -p | grep -v -e '^export PWD=' -e '^export OLDPWD=' -e '^export SHLVL=' \
		-e '^export PMUVM_LAB=' -e '^export PMUVM_LAB_KIND='
	echo "export PMUVM_LAB=1"
	echo "export PMUVM_LAB_KIND=$LAB_KIND"
	printf "cd '%s' || exit 126\n" "$(pwd | sed "s/'/'\\\\''/g")"
	printf 'exec'
	for a in "$@"; do
		printf " '%s'" "$(printf '%s' "$a" | sed "s/'/'\\\\''/g")"
	done
	printf '\n'
}
