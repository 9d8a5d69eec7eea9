#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# qemu-configs/: the libvirt domains are valid (virt-xml-validate) and the
# checked-in ones are mkdomain's output; the QEMU configuration and launcher
# boot guests under TCG and KVM with the guest's exit code coming through.
# Run by scripts/run-tests.sh with the build dir as $1.
set -u
O=${1:-build}
cd "$(dirname "$0")/.." || exit 1
LV=qemu-configs/libvirt
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-qemu-configs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; fail=1; }

validate() {	# FILE DESCRIPTION
	if virt-xml-validate "$1" domain >"$tmp/v.out" 2>&1; then
		ok "$2 validates"
	else
		not_ok "$2 does not validate:"
		cat "$tmp/v.out"
	fi
}

if [ -n "${CHECK_QEMU_KVM_ONLY:-}" ]; then
	:	# inside the lab, for the KVM runs below only
elif ! command -v virt-xml-validate >/dev/null; then
	echo "SKIP: libvirt domain XML: virt-xml-validate is not installed (libvirt-clients)"
else
	# The validator must be able to say no, or the rest proves nothing.
	sed 's/<pmu state/<pmu_typo state/' "$LV/demo-kvm.xml" >"$tmp/bad.xml"
	if virt-xml-validate "$tmp/bad.xml" domain >/dev/null 2>&1; then
		not_ok "virt-xml-validate accepted an unknown element"
	else
		ok "virt-xml-validate rejects an unknown element"
	fi

	demo=/usr/local/share/pmuvm/guests/demo.elf
	"$LV/mkdomain" --cpus 2 "$demo" >"$tmp/demo-kvm.xml"
	"$LV/mkdomain" --cpus 2 --cpu qemu64 --name pmuvm-demo-qemu64 "$demo" \
		>"$tmp/demo-kvm-qemu64.xml"
	"$LV/mkdomain" --accel tcg --cpus 2 --name pmuvm-demo-tcg "$demo" >"$tmp/demo-tcg.xml"
	for x in demo-kvm demo-kvm-qemu64 demo-tcg; do
		validate "$LV/$x.xml" "$LV/$x.xml"
		if cmp -s "$LV/$x.xml" "$tmp/$x.xml"; then
			ok "$LV/$x.xml is mkdomain's output"
		else
			not_ok "$LV/$x.xml differs from mkdomain's output:"
			diff "$LV/$x.xml" "$tmp/$x.xml"
		fi
	done
	"$LV/mkdomain" --append "k=v <&'\">" "$demo" >"$tmp/escaped.xml"
	validate "$tmp/escaped.xml" "a domain with XML characters in the command line"
	for g in "$O"/guests/*.elf; do
		"$LV/mkdomain" "$PWD/$g" >"$tmp/guest.xml"
		validate "$tmp/guest.xml" "domain for $(basename "$g")"
	done
fi

# runs WANT DESCRIPTION qemu-run-args...: QEMU's status must be WANT.
runs() {
	want=$1 what=$2
	shift 2
	qemu-configs/qemu-run --timeout 30 --serial "$tmp/serial" "$@" 2>"$tmp/err"
	st=$?
	if [ "$st" = "$want" ] && grep -q "^PASS" "$tmp/serial"; then
		ok "$what: status $st, PASS on the serial file"
	elif [ "$st" = "$want" ] && [ "$want" != 1 ]; then
		ok "$what: status $st"
	else
		not_ok "$what: status $st (want $want)"
		cat "$tmp/serial" "$tmp/err"
	fi
}

# runs_demo DESCRIPTION qemu-run-args...: the demo passes where QEMU gives
# the guest a PMU and fails saying so, status 3, where it gives none (TCG
# never does; KVM passes on the host's PMU, if any).
runs_demo() {
	what=$1
	shift
	qemu-configs/qemu-run --timeout 30 --serial "$tmp/serial" "$@" 2>"$tmp/err"
	st=$?
	if [ "$st" = 1 ] && grep -q "^PASS" "$tmp/serial" && [ "$what" = "${what#TCG}" ]; then
		ok "$what: QEMU/KVM gives a PMU: status 1, PASS on the serial file"
	elif [ "$st" = 3 ] && grep -q "^demo: no PMU on this .* CPU" "$tmp/serial"; then
		ok "$what: no PMU from QEMU: status 3, the demo says so"
	else
		not_ok "$what: status $st (want 3 and 'demo: no PMU', or 1 and PASS with KVM's PMU)"
		cat "$tmp/serial" "$tmp/err"
	fi
}

if ! command -v qemu-system-x86_64 >/dev/null; then
	echo "SKIP: qemu-run: qemu-system-x86_64 is not installed"
else
	if [ -z "${CHECK_QEMU_KVM_ONLY:-}" ]; then
		runs_demo "TCG: demo on 2 CPUs" --accel tcg --cpus 2 "$O/guests/demo.elf"
		# exitcode writes code=V to port 0xf4: (V << 1) | 1, as under pmuvm.
		runs 11 "TCG: exit code 5" --accel tcg --append code=5 "$O/guests/exitcode.elf"
	fi
	if [ -n "${CHECK_QEMU_KVM_ONLY:-}" ] || ! scripts/kvm-unusable >/dev/null; then
		runs_demo "KVM: demo on 2 CPUs" --cpus 2 "$O/guests/demo.elf"
		if grep -q "falling back to -cpu" "$tmp/err"; then
			ok "KVM: -cpu host cannot start here; the fallback said so"
		fi
		runs 11 "KVM: exit code 5" --append code=5 "$O/guests/exitcode.elf"
	else
		echo "# $(scripts/kvm-unusable): the KVM runs go to the lab"
		CHECK_QEMU_KVM_ONLY=1 tests/lab/pmuvm-lab --quiet "$0" "$O" || fail=1
	fi
fi
exit $fail
