#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Installs the Debian 12 packages pmuvm needs, but only when something is
# missing; without root it prints the exact apt-get line and fails.
#
#   deps.sh          building, installing and running pmuvm (make deps:
#                    make, make run, make install)
#   deps.sh lab      that and the lab (tests/lab/), where make run boots the
#                    demo when this machine's /dev/kvm is unusable
#   deps.sh check    all of that and what the tests and tools need
#                    (make deps-check: make check, fuzz, bench, compare)
#
# One package a line, with why it is needed.
set -u

build_pkgs() {
	sed 's/[[:space:]]*#.*//; /^$/d' <<'EOF_PKGS'
build-essential		# gcc, make, binutils: pmuvm, the guests, the guest SDK
pkg-config		# the SDK's pmuvm-guest.pc; Check's flags for the tests
libzydis-dev		# x86 decoder: exact counting, RDPMC sites, profiles
libjson-c-dev		# --report, the guests' results (ucall)
libunicorn-dev		# x86 emulator: exact counting at emulation speed (--exact emulate)
help2man		# the man page, generated from pmuvm --help
qemu-system-common	# virtiofsd: the shares of pmuvm run (docs/run.md)
cpio			# pmuvm run's initramfs (scripts/pmuvm-kernel)
uidmap			# newgidmap: pmuvm run without root for a user with supplementary groups
EOF_PKGS
}

lab_pkgs() {
	sed 's/[[:space:]]*#.*//; /^$/d' <<'EOF_PKGS'
qemu-system-x86		# the lab's libraries and firmware (its QEMU is backports'); the comparisons with QEMU
cpio			# the initramfs of the lab and of the Linux guests
EOF_PKGS
}

check_pkgs() {
	sed 's/[[:space:]]*#.*//; /^$/d' <<'EOF_PKGS'
check			# the unit and system tests' runner (libcheck)
libsubunit-dev		# Check's pkg-config file names -lsubunit
clang			# the libFuzzer targets (mk/fuzz.mk) and CI's clang build
libclang-rt-14-dev	# clang's libFuzzer, ASan and UBSan runtimes (only a Recommends of clang)
linux-perf		# perf in the Linux guests' image (tests/linux/mkinitramfs --perf)
rr			# rr, recorded and replayed in that image
libpapi-dev		# PAPI's API, built into that image (tests/linux/papi.c)
papi-tools		# papi_avail, in that image
libvirt-clients		# virt-xml-validate of the libvirt domains (scripts/check-qemu-configs.sh)
valgrind		# make bench: an exit's cost in instructions (callgrind)
man-db			# the installed man page rendered (scripts/check-man.sh)
python3			# scripts/check-comments.sh, make bench (scripts/bench.py)
python3-jsonschema	# every --report validated against docs/report.schema.json (scripts/check-reports.sh)
bochs			# the VMX lab (tests/lab/pmuvm-lab-vmx): Bochs with VMX...
bochsbios		# ...its BIOS,
vgabios			# ...its VGA BIOS,
syslinux		# ...and the FAT boot disk it boots from
syslinux-common
mtools
dosfstools
EOF_PKGS
}

case "${1:-}" in
"") PKGS=$(build_pkgs) ;;
lab) PKGS="$(build_pkgs) $(lab_pkgs)" ;;
check) PKGS="$(build_pkgs) $(lab_pkgs) $(check_pkgs)" ;;
*) echo "usage: $0 [lab|check]" >&2; exit 2 ;;
esac

missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)
	case "$st" in
	ii*) ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0

line="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" != 0 ]; then
	echo "pmuvm: missing Debian packages:$missing" >&2
	echo "pmuvm: run as root:  $line" >&2
	exit 1
fi
echo "pmuvm: installing missing packages:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null || { echo "pmuvm: apt-get update failed" >&2; exit 1; }
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing || {
	echo "pmuvm: package installation failed: $line" >&2
	exit 1
}
