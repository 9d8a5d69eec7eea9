#!/bin/sh
# Installs the Debian 12 packages pmuvm needs, but only when something is
# missing; without root it prints the exact apt-get line and fails.
set -u

PKGS="build-essential pkg-config check libsubunit-dev libzydis-dev libjson-c-dev \
qemu-system-x86 libvirt-clients valgrind"
# libFuzzer targets (mk/fuzz.mk): clang 14; its compiler-rt (libFuzzer, ASan,
# UBSan runtimes) is only a Recommends, which --no-install-recommends skips.
PKGS="$PKGS clang libclang-rt-14-dev"
# The lab (tests/lab/pmuvm-lab) packs its initramfs with cpio.
PKGS="$PKGS cpio"
# The Linux guests' perf image (tests/linux/mkinitramfs --perf): Debian's perf.
PKGS="$PKGS linux-perf"
# ...and rr, recorded and replayed in that image (README "rr in the guest").
PKGS="$PKGS rr"
# The VMX lab (tests/lab/pmuvm-lab-vmx): Bochs with VMX, its BIOS and VGA
# BIOS, and the FAT boot disk it boots from (syslinux, mtools, dosfstools).
PKGS="$PKGS bochs bochsbios vgabios syslinux syslinux-common mtools dosfstools"

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
