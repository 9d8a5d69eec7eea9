#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Runs every test of build dir $1 and prints one closing line:
#   "tests: N passed, N failed, N skipped"  (checks, a check whose TAP line
#   has the SKIP directive skipped; each extra script is one, and each
#   "SKIP:" line it prints one skipped)
#
#   run-tests.sh O            unit tests, system tests, scripts/check-*.sh
#   run-tests.sh O --lab      system tests in the labs only, and their reports
#                             validated (make check-lab)
#
# System tests boot guests under pmuvm, so they need a KVM: they run on this
# machine's /dev/kvm when it is usable, and in the labs when it is not, or
# with --lab: the SVM lab (tests/lab/pmuvm-lab: a real kvm_amd under QEMU)
# runs them all, the VMX lab (tests/lab/pmuvm-lab-vmx: kvm_intel under
# Bochs) the suites VMX_SUITES names (below). PMUVM_LABS="svm vmx" (the
# default) says which labs run. Results stream as each test ends (Check's
# TAP lines); each binary's log is kept in $O/tests/.
set -u
O=${1:-build}
MODE=${2:-all}
export PMUVM="$O/pmuvm" GUEST_DIR="$O/guests"
# Every report the system tests get from pmuvm is kept here, natively and in
# the lab (which shares this machine's root), for scripts/check-reports.sh.
mkdir -p "$O/tests"
PMUVM_REPORT_DIR=$(cd "$O/tests" && pwd)/reports
rm -rf "$PMUVM_REPORT_DIR"
mkdir -p "$PMUVM_REPORT_DIR"
export PMUVM_REPORT_DIR
pass=0
fail=0
skip=0
xfail=0
failed_names=""

# Adds one Check binary's log to the totals: its TAP lines ("ok"/"not ok N -
# FILE:TCASE:TEST: message"), a skipped test's being "ok N - FILE # SKIP
# reason:TCASE:TEST: Passed" (TEST_SKIP, tests/lib/skip.c). A failing test
# named in the known-failures file $4 (if any) is counted there, not as a
# failure, and reported with its reason every time.
count_log() {
	log=$1 what=$2 st=$3 known=${4:-}
	[ -n "$known" ] || known=/dev/null
	set -- $(awk -v known="$known" '
		BEGIN { while ((getline l < known) > 0) if (l !~ /^#/ && split(l, w, " ") > 0) k[w[1]] = 1 }
		/^ok [0-9]+ - / { n++ }
		/^not ok [0-9]+ - / {
			n++
			split(substr($0, index($0, " - ") + 3), p, ":")
			if (p[3] in k) x++; else f++
		}
		/^ok [0-9]+ - [^ ]* # SKIP/ { s++ }
		/^total: [0-9]+ checks run/ { t += $2; tl = 1 }
		END { printf "%d %d %d %d %d\n", n, f, s, x, (tl ? t : -1) }' "$log")
	n=$1 f=$2 s=$3 x=$4 t=$5
	if [ "$n" = 0 ] || [ "$t" != "$n" ] || { [ "$st" != 0 ] && [ "$f" = 0 ] && [ "$x" = 0 ]; }; then
		# No result, a binary that did not finish (its closing "total:" line
		# missing or disagreeing: a crash, the lab's time limit), or a
		# failure Check did not count: one failure more.
		echo "   $what did not finish cleanly (exit status $st, $n results, total line: $t)"
		f=$((f + 1))
	fi
	pass=$((pass + n - f - s - x))
	fail=$((fail + f))
	skip=$((skip + s))
	xfail=$((xfail + x))
	kf=""
	[ "$known" = /dev/null ] || kf=", $x known failures"
	echo "-- $what: $n checks, $((n - f - s - x)) passed, $f failed, $s skipped$kf"
	if [ "$s" -gt 0 ]; then
		sed -n 's/^ok [0-9]* - [^ ]* # SKIP \(.*\):[^:]*:\([^:]*\): Passed$/skipped: \2: \1/p' \
			"$log" | sort | uniq -c |
			sed 's/^ *\([0-9]*\) \(.*\)$/   \2 (x\1)/; s/ (x1)$//'
	fi
	if [ "$known" != /dev/null ]; then
		# Each listed test: failed as known (with the reason), or passed now.
		grep -v '^#' "$known" | while read -r t why; do
			[ -n "$t" ] || continue
			if grep -q "^not ok [0-9]* - [^:]*:[^:]*:$t:" "$log"; then
				echo "   known failure: $t: $why"
			elif grep -q "^ok [0-9]* - [^:]*:[^:]*:$t:" "$log"; then
				echo "   known failure passed this time (take it off $known once it passes every time): $t"
			fi
		done
	fi
	[ "$f" -eq 0 ] || failed_names="$failed_names
   $what"
}

# run_logged LOG CMD...: runs a Check binary, streaming into LOG; its exit
# status in $run_st.
run_logged() {
	rl_log=$1
	shift
	mkdir -p "$(dirname "$rl_log")"
	rm -f "$rl_log.status"
	{ CK_TAP_LOG_FILE_NAME=- "$@"; echo $? >"$rl_log.status"; } 2>&1 | tee "$rl_log"
	run_st=$(cat "$rl_log.status" 2>/dev/null || echo 1)
}

# run_check NAME LOG KNOWN CMD...: runs a Check binary, streaming and logging.
run_check() {
	what=$1 log=$2 known=$3
	shift 3
	echo "== $what"
	run_logged "$log" "$@"
	count_log "$log" "$what" "$run_st" "$known"
}

# run_extra NAME CMD...: a script check, one result: passed (status 0),
# skipped as a whole (status 77, the automake convention) or failed; each
# "SKIP: <what>: <reason>" line it prints is a skipped check besides.
run_extra() {
	name=$1
	shift
	echo "== $name"
	run_logged "$O/tests/$(basename "$name" .sh).log" "$@"
	s=$(grep -c '^SKIP: ' "$rl_log")
	case "$run_st" in
	0) pass=$((pass + 1)); skip=$((skip + s)) ;;
	77) skip=$((skip + (s > 0 ? s : 1))) ;;
	*)
		fail=$((fail + 1))
		skip=$((skip + s))
		failed_names="$failed_names
   $name"
		;;
	esac
	sed -n 's/^SKIP: /   skipped: /p' "$rl_log"
}

# The unit tests. In the sanitizer build (make check SANITIZE=1)
# LeakSanitizer's check at each forked test's exit would cost a fifth of a
# second, some 1,300 times over: the tests run forked with it off, then once
# more in one process (CK_FORK=no), checked for leaks at that process's
# exit, which counts as one check.
unit_tests() {
	if [ "${SANITIZE:-0}" = 0 ]; then
		run_check "unit tests" "$O/tests/unit.log" "" "$O/tests/unit-tests"
		return
	fi
	run_check "unit tests" "$O/tests/unit.log" "" \
		env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$O/tests/unit-tests"
	what="unit tests in one process, LeakSanitizer at its exit"
	echo "== $what"
	run_logged "$O/tests/unit-leaks.log" env CK_FORK=no "$O/tests/unit-tests" >/dev/null
	if [ "$run_st" = 0 ]; then
		pass=$((pass + 1))
		echo "-- $what: passed"
	else
		grep -v -E '^(not )?ok [0-9]+ - |^[0-9]+%: Checks|^\(|^1\.\.' "$O/tests/unit-leaks.log"
		fail=$((fail + 1))
		failed_names="$failed_names
   $what"
		echo "-- $what: failed (exit status $run_st)"
	fi
}

# The scripts whose outcome does not depend on the build they are given:
# they read the sources, or build their own (check-dist's tarball,
# check-fuzz's libFuzzer targets). The sanitizer build skips them, each one
# skip.
BUILD_NEUTRAL_CHECKS="check-comments check-dist check-fuzz check-layers check-spdx"
build_neutral() {
	case " $BUILD_NEUTRAL_CHECKS " in
	*" $(basename "$1" .sh) "*) return 0 ;;
	esac
	return 1
}

kvm_module() {
	for m in kvm_intel kvm_amd kvm_pvm; do
		[ -d "/sys/module/$m" ] && { echo "$m"; return; }
	done
	echo "kvm"
}

system_native() {
	run_check "system tests on this machine's KVM ($(kvm_module))" \
		"$O/tests/system-native.log" "" "$O/tests/system-tests"
}

# The exact suite once more under the stepping engine (--exact step): every
# exact guest passes under both engines with the same counts, the emulation
# engine being the default (docs/counting.md, "The emulation engine"). A
# test that names its engine keeps it (PMUVM_EXTRA_ARGS comes first), so
# the test cases tagged engine-chosen, whose tests all do, are left out.
system_exact_step() {
	export PMUVM_EXTRA_ARGS="--exact step" PMUVM_TESTS_SUITES=exact CK_EXCLUDE_TAGS=engine-chosen
	run_check "$1, exact suite under --exact step" "$2" "$3" "$O/tests/system-tests"
	unset PMUVM_EXTRA_ARGS PMUVM_TESTS_SUITES CK_EXCLUDE_TAGS
}

# When the lab itself fails (pmuvm-lab's status 125: QEMU, its boot, its
# kernel stalled or panicked), a new lab runs the suites from the one it cut
# short on, up to LAB_RETRIES times; the results of the suites before it
# are kept. The lab's kernel has panicked under test_ntpmu_etw_amd (a known
# fault of its nested SVM, tests/lab/known-failures) twice in a row in one
# CI run: one new lab was not enough.
LAB_RETRIES=2

# lab_exec LOG: the system tests Check's CK_INCLUDE_TAGS and
# CK_EXCLUDE_TAGS (exported by the caller) select, in a lab (a new one from
# where a failed lab stopped, above); streams them and leaves them in LOG,
# the last lab's status in $run_st.
lab_exec() {
	log=$1
	run_logged "$log.cur" tests/lab/pmuvm-lab "$O/tests/system-tests"
	: >"$log.kept"
	skipped=0 retries=0
	while [ "$run_st" = 125 ] && [ "$retries" -lt "$LAB_RETRIES" ]; do
		started=$(grep -c '^Running suite(s): ' "$log.cur")
		cut=$((started > 0 ? started - 1 : 0))
		awk -v n="$started" '/^Running suite\(s\): / { c++ } c < n' "$log.cur" >"$log.before"
		done_before=$(grep -c -E '^(not )?ok [0-9]+ - ' "$log.before")
		skipped=$((skipped + cut))
		retries=$((retries + 1))
		echo "pmuvm: the lab failed (status 125) in its suite $((skipped + 1)); a new lab runs the suites from there ($retries of $LAB_RETRIES)"
		{
			cat "$log.before"
			echo "total: $done_before checks run (before the lab failed)"
		} >>"$log.kept"
		export PMUVM_TESTS_SKIP="$skipped"
		run_logged "$log.cur" tests/lab/pmuvm-lab "$O/tests/system-tests"
		unset PMUVM_TESTS_SKIP
	done
	cat "$log.kept" "$log.cur" >"$log"
	rm -f "$log.kept" "$log.before" "$log.cur" "$log.cur.status"
}

lab_what() {
	echo "system tests in the lab (SVM): kvm_amd, nested SVM under QEMU TCG$1"
}

# system_lab WHAT LOG: lab_exec, streamed and counted.
system_lab() {
	echo "== $(lab_what "$1")"
	lab_exec "$2"
	count_log "$2" "$(lab_what "$1")" "$run_st" tests/lab/known-failures
}

# A lab whose tests print nothing for longer than the longest test case's
# Check timeout (tcase_set_timeout: 300 s outside test_linux.c, 1300 s in
# it) has stopped: pmuvm-lab ends it as failed, and lab_exec goes on in a
# new one, rather than waiting for its time limit (PMUVM_LAB_SILENCE).
SILENCE_MAIN=480
SILENCE_LINUX=1500

# The SVM lab runs the system tests in parts, one lab after the other, each
# under pmuvm-lab's time limit: those whose checks depend on the host's
# pace (Check tag timing) first, with no other lab beside them; those that
# boot Linux (linux-boot, tests/system/test_linux.c) last; the rest
# between. The VMX lab's own Linux case (linux-vmx) runs in no SVM lab.
# Tests tagged kvm-neutral (pmuvm's own code above KVM, tests/lib/suite.h)
# stay out of the lab where this machine's KVM ran them (NATIVE_RAN).
svm_lab_part() {
	neutral=
	if [ -n "${NATIVE_RAN:-}" ]; then
		neutral=" kvm-neutral"
	fi
	export CK_EXCLUDE_TAGS="linux-boot linux-run linux-vmx$neutral$3" PMUVM_LAB_SILENCE=$SILENCE_MAIN
	system_lab "$1" "$2"
	unset CK_EXCLUDE_TAGS PMUVM_LAB_SILENCE
}

svm_lab_timing() {
	export CK_INCLUDE_TAGS=timing
	svm_lab_part ", pace-dependent checks" "$O/tests/system-lab-timing.log" ""
	unset CK_INCLUDE_TAGS
}

# The main part's checks took 30 minutes beside pmuvm run's lab, pmuvm-lab's
# default limit: it gets MAIN_LAB_LIMIT (a hang still ends it at
# PMUVM_LAB_SILENCE).
MAIN_LAB_LIMIT=2400
svm_lab_main() {
	export PMUVM_LAB_TIMEOUT=${PMUVM_LAB_TIMEOUT:-$MAIN_LAB_LIMIT}
	svm_lab_part "" "$O/tests/system-lab.log" " timing"
	unset PMUVM_LAB_TIMEOUT
}

# The sanitizer build (make check SANITIZE=1) where this machine has no
# usable KVM: what the labs ran in make check runs again there only for the
# suites that feed pmuvm hostile guests and bad input (SANITIZE_LAB_SUITES;
# PMUVM_SANITIZE_SUITES replaces it), since a second whole lab run would
# double CI's time. The other suites are one skip, with why.
SANITIZE_LAB_SUITES=${PMUVM_SANITIZE_SUITES:-hostile cli outputs ucall_guest}
svm_lab_sanitize() {
	export PMUVM_TESTS_SUITES="$SANITIZE_LAB_SUITES"
	svm_lab_part ", sanitizer build, suites $SANITIZE_LAB_SUITES" \
		"$O/tests/system-lab-sanitize.log" ""
	unset PMUVM_TESTS_SUITES
	echo "   skipped: the other system suites, in the sanitizer build: its lab runs $SANITIZE_LAB_SUITES (make check ran them all)"
	skip=$((skip + 1))
}

# The exact suite under --exact step in a lab of its own (system_exact_step):
# there CPL3 and handlers are stepped, which kvm_pvm cannot.
svm_lab_exact_step() {
	echo "== $(lab_what ", exact suite under --exact step")"
	export PMUVM_EXTRA_ARGS="--exact step" PMUVM_TESTS_SUITES=exact CK_EXCLUDE_TAGS=engine-chosen
	export PMUVM_LAB_SILENCE=$SILENCE_MAIN
	lab_exec "$O/tests/system-lab-step.log"
	unset PMUVM_EXTRA_ARGS PMUVM_TESTS_SUITES PMUVM_LAB_SILENCE CK_EXCLUDE_TAGS
	count_log "$O/tests/system-lab-step.log" "$(lab_what ", exact suite under --exact step")" \
		"$run_st" tests/lab/known-failures
}

# The Linux guests' images and their kernel, uncompressed, made here before
# the lab boots and named to the tests by PMUVM_LINUX_IMAGES
# (tests/system/test_linux.c): packing the perf image inside the lab, over
# its 9p root, is slow (tests/lab/README.md, "The Linux guests' images"). Where one cannot be packed, the tests pack it
# themselves and say why not.
linux_images() {
	[ -z "${PMUVM_LINUX_IMAGES:-}" ] || return 0
	li=$O/tests/linux-images
	rm -rf "$li"
	mkdir -p "$li"
	li=$(cd "$li" && pwd)
	k=$(tests/linux/mkinitramfs "$li/linux.cpio" 2>/dev/null) || return 0
	tests/linux/mkinitramfs --perf "$li/perf.cpio" >/dev/null 2>&1 || rm -f "$li/perf.cpio"
	# Uncompressed, as pmuvm run boots it (scripts/pmuvm-kernel).
	if scripts/pmuvm-kernel --unpack "$k" "$li/vmlinux" 2>/dev/null; then
		k=$li/vmlinux
	fi
	echo "$k" >"$li/kernel"
	export PMUVM_LINUX_IMAGES="$li"
}

# The Linux guests (linux-boot, tests/system/test_linux.c), and with
# TAGS "linux-boot linux-run" pmuvm run's tests (tests/system/test_run.c)
# as well.
svm_lab_linux() {
	linux_images
	export CK_INCLUDE_TAGS="$1" PMUVM_LAB_SILENCE=$SILENCE_LINUX
	system_lab ", $2" "$O/tests/system-lab-linux.log"
	unset CK_INCLUDE_TAGS PMUVM_LAB_SILENCE
}

# The kernel pmuvm run boots, fetched here (apt-get download): the lab has
# no network.
run_kernel() {
	"$O/libexec/pmuvm-kernel" "$O/libexec/pmuvm-run-init" >/dev/null ||
		echo "pmuvm: no kernel for pmuvm run: its tests skip"
}

# pmuvm run's tests (linux-run) in an SVM lab of their own, started in the
# background after the pace-dependent checks, beside the other parts: its
# guests mostly run one vCPU at a time. When it ends, the VMX lab starts
# in its place, unless the SVM lab's main part ended first and started it
# (vmx_lab_once). Beside the other labs its 13 checks take about 30
# minutes, so its limit is RUN_LAB_LIMIT, not pmuvm-lab's 30. Counted by
# run_lab_count.
run_what="$(lab_what ", pmuvm run")"
run_log=$O/tests/system-lab-run.log
RUN_LAB_LIMIT=2400
run_lab_start() {
	run_kernel
	echo "== $run_what: started beside the next, its lines in $run_log as they end"
	(
		export CK_INCLUDE_TAGS=linux-run PMUVM_LAB_SILENCE=$SILENCE_LINUX
		export PMUVM_LAB_TIMEOUT=${PMUVM_LAB_TIMEOUT:-$RUN_LAB_LIMIT}
		lab_exec "$run_log"
		echo "$run_st" >"$run_log.status"
		unset CK_INCLUDE_TAGS PMUVM_LAB_SILENCE PMUVM_LAB_TIMEOUT
		[ -z "${vmx_flag:-}" ] || vmx_lab_once
	) >/dev/null &
	run_pid=$!
}

run_lab_count() {
	wait "$run_pid"
	echo "== $run_what"
	cat "$run_log"
	count_log "$run_log" "$run_what" "$(cat "$run_log.status" 2>/dev/null || echo 1)" \
		tests/lab/known-failures
}

# The VMX lab's share of the system suites (PMUVM_VMX_SUITES replaces it;
# "suite:tcase" runs one test case). Bochs runs a few tens of millions of
# instructions a second, a tenth or less of the SVM lab's QEMU TCG, each
# exit to pmuvm costs thousands of them and each pmuvm start a dozen
# throwaway VMs, and its kernel takes about three minutes to boot, so
# make check-lab runs what only a VMX KVM can show (tests/lab/README.md
# has the measurements): the guests boot (boot), the PMU MSRs under every
# PMU version (pmu_msr), the start-up probes against the host's kind,
# exact counts at CPL3 and in handlers, and RDPMC (exact:host), PMIs,
# sampling and overflow (pmu), each hostile guest with its default seed
# (hostile:default), and Linux's perf stat of the loop (linux:stat). The
# rest passes in the SVM lab and natively; by hand, PMUVM_LABS=vmx
# PMUVM_VMX_SUITES="exact pebs hostile linux" make check-lab runs more.
# Not on VMX at all: cli, ucall_guest, event_filter_guest, amd, rt, ntpmu
# and ntpmu_etw test pmuvm's own code above KVM, the same on every host,
# and bench only times it; compare, qemu and rt_qemu run QEMU/KVM, which
# is not in the VMX lab.
VMX_SUITES=${PMUVM_VMX_SUITES:-boot pmu_msr exact:host pmu hostile:default linux:stat}
vmx_what="system tests in the lab (VMX): kvm_intel under Bochs, suites $VMX_SUITES"
vmx_log=$O/tests/system-lab-vmx.log

# One Bochs for all of them: its boot is the dearest part. Nothing written
# in the VMX lab comes back, so its reports are not kept for
# check-reports.sh (empty PMUVM_REPORT_DIR). The Linux guests' images and
# their kernel go in with the rest (linux_images, packed before).
vmx_lab_run() {
	set -- --with "$O/pmuvm" --with "$O/guests" --with "$O/tests/system-tests"
	if [ -n "${PMUVM_LINUX_IMAGES:-}" ] && [ -r "$PMUVM_LINUX_IMAGES/kernel" ]; then
		set -- "$@" --with "$PMUVM_LINUX_IMAGES" --with "$(cat "$PMUVM_LINUX_IMAGES/kernel")"
	fi
	run_logged "$vmx_log" tests/lab/pmuvm-lab-vmx "$@" -- \
		env PMUVM_TESTS_SUITES="$VMX_SUITES" PMUVM_REPORT_DIR= "$O/tests/system-tests"
}

# vmx_lab_run, unless it has been started already ($vmx_flag, made by the
# first caller).
vmx_lab_once() {
	mkdir "$vmx_flag" 2>/dev/null || return 0
	vmx_lab_run
}

# Suites and failures are counted as the SVM lab's, against
# tests/lab/known-failures-vmx.
vmx_lab_count() {
	count_log "$vmx_log" "$vmx_what" "$run_st" tests/lab/known-failures-vmx
}

# The labs PMUVM_LABS names. With both, pmuvm run's lab starts after the
# SVM lab's pace-dependent checks (which run alone), and the VMX lab after
# pmuvm run's lab or the SVM lab's main part, whichever ends first (Bochs
# is one thread, and those tests count, they do not time): each beside the
# parts that follow, so that two labs share the machine's two CPUs to the
# end. Their results are printed when all ended. The sanitizer build (make
# check SANITIZE=1) runs the SVM lab's sanitizer share only
# (svm_lab_sanitize), unless PMUVM_LABS says otherwise: what the VMX share
# checks does not depend on the build.
system_labs() {
	labs="svm vmx"
	[ "${SANITIZE:-0}" = 0 ] || labs=svm
	svm=0 vmx=0
	for lab in ${PMUVM_LABS:-$labs}; do
		case "$lab" in
		svm) svm=1 ;;
		vmx) vmx=1 ;;
		*) echo "pmuvm: PMUVM_LABS: no lab '$lab' (svm, vmx)"
			fail=$((fail + 1)); failed_names="$failed_names
   PMUVM_LABS=$lab" ;;
		esac
	done
	if [ "$svm" = 1 ] && [ "$vmx" = 1 ]; then
		svm_lab_timing
		linux_images
		vmx_flag=$O/tests/vmx-lab-started
		rm -rf "$vmx_flag"
		run_lab_start
		echo "== $vmx_what: starts after pmuvm run's lab or the next, its lines in $vmx_log as they end"
		svm_lab_main
		(vmx_lab_once >/dev/null) &
		vmx_pid=$!
		svm_lab_exact_step
		svm_lab_linux linux-boot "Linux guests"
		run_lab_count
		wait "$vmx_pid"
		rm -rf "$vmx_flag"
		echo "== $vmx_what"
		cat "$vmx_log"
		run_st=$(cat "$vmx_log.status" 2>/dev/null || echo 1)
		vmx_lab_count
	elif [ "$svm" = 1 ] && [ "${SANITIZE:-0}" != 0 ] && [ "$MODE" != --lab ]; then
		svm_lab_sanitize
	elif [ "$svm" = 1 ]; then
		svm_lab_timing
		svm_lab_main
		svm_lab_exact_step
		run_kernel
		svm_lab_linux "linux-boot linux-run" "Linux guests and pmuvm run"
	elif [ "$vmx" = 1 ]; then
		linux_images
		echo "== $vmx_what"
		vmx_lab_run
		vmx_lab_count
	fi
}

if [ "$MODE" = --lab ]; then
	scripts/kvm-unusable >/dev/null || NATIVE_RAN=1
	system_labs
	run_extra scripts/check-reports.sh scripts/check-reports.sh "$O"
else
	unit_tests
	if ! why=$(scripts/kvm-unusable); then
		system_native
		system_exact_step "system tests on this machine's KVM ($(kvm_module))" \
			"$O/tests/system-native-step.log" ""
	else
		echo "pmuvm: $why: the system tests run in the labs"
		system_labs
	fi
	for extra in scripts/check-*.sh; do
		[ -x "$extra" ] || continue
		if [ "${SANITIZE:-0}" != 0 ] && build_neutral "$extra"; then
			echo "   skipped: $extra, in the sanitizer build: it checks the sources and builds of its own, the same whatever the build (make check runs it)"
			skip=$((skip + 1))
			continue
		fi
		run_extra "$extra" "$extra" "$O"
	done
fi

[ -z "$failed_names" ] || echo "FAILED:$failed_names"
[ "$xfail" -eq 0 ] || echo "known failures (listed with their reasons above): $xfail"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
