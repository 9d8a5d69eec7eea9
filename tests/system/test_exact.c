/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Exact counting end to end: retirement rules from inside a
 * guest, zero-skid PMIs, identical runs under --cycles model, honesty
 * about user mode where the host cannot step CPL3, and RDPMC in a guest
 * that KVM alone would #GP.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "expect.h"
#include "x86-pmu/events.h"
#include "pmuvm_run.h"
#include "suite.h"

START_TEST(test_exact_retirement_rules)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run(&r, "--timeout", "60", guest_path("exact_count"));
	expect_guest_pass(&r, "exact_count");
	expect_guest_ok(&r, "exact_count");
	pmuvm_result_free(&r);
}
END_TEST

/* Whether pmuvm -v, booting `guest` on this host, says `line` of its probes. */
static bool host_probe_says(const char *guest, const char *line)
{
	struct pmuvm_result r;
	bool says;

	pmuvm_run(&r, "-v", "--timeout", "60", guest_path(guest));
	says = strstr(r.err, line) != NULL;
	pmuvm_result_free(&r);
	return says;
}

/* False, after test_skip(), where the host cannot step CPL3. */
static bool user_mode_steppable(void)
{
	if (host_probe_says("exact_user", "exact counting: this host can single-step user mode"))
		return true;
	test_skip("this host cannot single-step user mode (CPL3)");
	return false;
}

/* The vendor module behind /dev/kvm, or NULL when it is none of these. */
static const char *kvm_vendor_module(void)
{
	static const char *const mods[] = { "kvm_intel", "kvm_amd", "kvm_pvm" };
	char path[64];

	for (unsigned int i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
		snprintf(path, sizeof(path), "/sys/module/%s", mods[i]);
		if (access(path, F_OK) == 0)
			return mods[i];
	}
	return NULL;
}

/*
 * The start-up probes against what the host's kind does. On VMX and SVM,
 * KVM_GUESTDBG_SINGLESTEP sets RFLAGS.TF, which traps after an instruction
 * at any privilege level (SDM Vol. 3B 18.3.1.4), and event delivery
 * through an interrupt gate clears TF (SDM Vol. 3A 6.12.1.3; APM Vol. 2
 * 8.7.2), so the handler runs unstepped; execution breakpoints fire. On
 * kvm_pvm guest user mode runs natively, unstepped, and its emulator steps
 * into handlers. The probes must say so whatever else the host does (on
 * Bochs 2.7's VMX, debug exits that ran nothing come first: probe.c).
 */
START_TEST(test_exact_probes_match_host)
{
	const char *rep = tmp_path("probes.json"), *mod = kvm_vendor_module();
	struct pmuvm_result r;
	json_object *root;
	bool svm_vmx;

	REQUIRE_KVM();
	if (!mod)
		TEST_SKIP("/dev/kvm is none of kvm_intel, kvm_amd, kvm_pvm");
	svm_vmx = strcmp(mod, "kvm_pvm") != 0;
	/* The probes run before any guest: the boot guest counts nothing. */
	pmuvm_run(&r, "-v", "--report", rep, "--timeout", "60", guest_path("boot"));
	expect_guest_pass(&r, "boot");
	root = report_load(rep);
	ck_assert_msg(json_u64(root, "debug.host.user_mode_steppable") == svm_vmx,
		      "%s: user_mode_steppable %d:\n%s", mod, !svm_vmx, r.err);
	ck_assert_msg(json_u64(root, "debug.host.step_follows_events") == !svm_vmx,
		      "%s: step_follows_events %d:\n%s", mod, svm_vmx, r.err);
	/* KVM's emulator drops the trap flag on VMX/SVM (exact/tf.c), kvm_pvm's keeps it. */
	ck_assert_msg(json_u64(root, "debug.host.step_survives_emulation") == !svm_vmx,
		      "%s: step_survives_emulation %d:\n%s", mod, svm_vmx, r.err);
	ck_assert_msg(!strstr(r.err, "probe failed"), "%s: a probe failed:\n%s", mod, r.err);
	if (svm_vmx)
		ck_assert_msg(json_u64(root, "debug.host.hw_breakpoints_fire"),
			      "%s: breakpoints do not fire:\n%s", mod, r.err);
	/* Every kind's MSR filter sends the probe's WRMSRs to pmuvm: their cost is known. */
	ck_assert_msg(json_u64(root, "debug.host.msr_exit_cost_ns") > 0,
		      "%s: no MSR exit cost:\n%s", mod, r.err);
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * The #UD and #BP handlers counted (exact_count with "traps"): only where
 * KVM runs guest kernel mode natively; its instruction emulator (kvm_pvm,
 * debug.host.kernel_mode_emulated) fails on UD2 and INT3 at CPL0 while
 * stepping.
 */
START_TEST(test_exact_trap_handlers)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	if (!host_probe_says("exact_off", "guest kernel mode (CPL0) runs natively"))
		TEST_SKIP("KVM emulates guest kernel mode here");
	pmuvm_run(&r, "--append", "traps", "--timeout", "60", guest_path("exact_count"));
	expect_guest_pass(&r, "exact_count traps");
	expect_guest_ok(&r, "the #UD and #BP handlers counted");
	pmuvm_result_free(&r);
}
END_TEST

/*
 * Zero skid; and PMIs delivered while stepping enter their handler: where
 * the host's single-step follows events into handlers (the probe's
 * debug.host.step_follows_events), or pmuvm follows them with breakpoints
 * (hw_breakpoints_fire and step_holds_interrupts: exact/follow.c), every
 * handler is stepped and pmuvm says nothing; elsewhere it says once that
 * handlers went uncounted and counts them in the report.
 */
START_TEST(test_exact_zero_skid)
{
	const char *rep = tmp_path("skid.json"), *w;
	const char *warning = "single-step does not follow events into their handlers";
	struct pmuvm_result r;
	json_object *root;
	bool follows, by_breakpoints;

	REQUIRE_KVM();
	pmuvm_run(&r, "--report", rep, "--timeout", "60", guest_path("exact_pmi"));
	expect_guest_pass(&r, "exact_pmi");
	expect_guest_ok(&r, "exact zero skid, instructions");
	expect_guest_ok(&r, "exact zero skid, branches");
	root = report_load(rep);
	follows = json_object_get_boolean(json_get(root, "debug.host.step_follows_events"));
	by_breakpoints = !follows &&
		json_object_get_boolean(json_get(root, "debug.host.hw_breakpoints_fire")) &&
		json_object_get_boolean(json_get(root, "debug.host.step_holds_interrupts"));
	w = strstr(r.err, warning);
	if (follows || by_breakpoints) {
		ck_assert_msg(!w, "warned although handlers are stepped:\n%s", r.err);
		ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.exact.handler_runs_uncounted"), 0);
		/* One PMI per preset tried, each caught at its handler's entry. */
		if (by_breakpoints)
			ck_assert_uint_ge(json_u64(root, "vcpus.0.debug.exact.handler_entries_followed"), 5);
	} else {
		printf("NOTE: %s: host does not step into handlers; checking that pmuvm says so\n",
		       __func__);
		ck_assert_msg(w, "no warning in:\n%s", r.err);
		ck_assert_msg(!strstr(w + 1, warning), "warned twice:\n%s", r.err);
		/* One PMI per preset tried, each into a stepped vCPU. */
		ck_assert(json_u64(root, "vcpus.0.debug.exact.handler_runs_uncounted") >= 5);
	}
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

/* Two runs of the same guest under --cycles model: same counts, same PMI IPs. */
START_TEST(test_exact_model_cycles_deterministic)
{
	const char *rep = tmp_path("model.json");
	struct pmuvm_result a, b;
	json_object *root;

	REQUIRE_KVM();
	pmuvm_run(&a, "--cycles", "model", "--cpi", "1.5", "--append", "cpi_milli=1500",
		  "--report", rep, "--timeout", "60", guest_path("exact_pmi"));
	expect_guest_pass(&a, "exact_pmi, model run 1");
	expect_guest_ok(&a, "exact sampling run");
	ck_assert_msg(strstr(a.out, "exact_pmi: sample 0 rip="), "no samples:\n%s", a.out);
	root = report_load(rep);
	ck_assert_str_eq(json_object_get_string(json_get(root, "config.pmu.cycles")), "model");
	ck_assert(json_u64(root, "vcpus.0.debug.exact.retired") > 30000);
	json_object_put(root);

	pmuvm_run(&b, "--cycles", "model", "--cpi", "1.5", "--append", "cpi_milli=1500",
		  "--timeout", "60", guest_path("exact_pmi"));
	expect_guest_pass(&b, "exact_pmi, model run 2");
	ck_assert_str_eq(a.out, b.out);
	pmuvm_result_free(&a);
	pmuvm_result_free(&b);
}
END_TEST

/* The compare guest's line "compare: KEY VALUE" as a number; fails if there is none. */
static unsigned long long compare_value(const struct pmuvm_result *r, const char *key)
{
	char pat[128];
	const char *p;

	snprintf(pat, sizeof(pat), "compare: %s ", key);
	p = strstr(r->out, pat);
	ck_assert_msg(p, "no \"%s\" line\n%s%s", key, r->out, r->err);
	return strtoull(p + strlen(pat), NULL, 10);
}

static const struct {
	const char *engine, *cpi;
	unsigned long long cycles;	/* the loop's 2,000 instructions x cpi */
} step_cycles_runs[] = {
	{ "step", "1", 2000 }, { "step", "2.5", 5000 },
	{ "emulate", "1", 2000 }, { "emulate", "2.5", 5000 },
};

/*
 * Cycles (--cycles clock, the default) of counted code that is stepped or
 * emulated: --cpi cycles an instruction, under either engine, not the
 * steps' time (docs/counting.md, "Cycles while stepping"). The compare
 * guest's loop is the difference of two runs, so the counters' own WRMSRs
 * drop out; user mode where the host can step it.
 */
START_TEST(test_exact_stepped_cycles)
{
	const char *engine = step_cycles_runs[_i].engine;
	unsigned long long want = step_cycles_runs[_i].cycles;
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run(&r, "--exact", engine, "--cpi", step_cycles_runs[_i].cpi, "--timeout", "60",
		  guest_path("compare"));
	expect_guest_pass(&r, engine);
	ck_assert_uint_eq(compare_value(&r, "count.kernel.instructions"), 2000);
	ck_assert_msg(compare_value(&r, "count.kernel.cycles") == want, "%s --cpi %s: %llu cycles, want %llu",
		      engine, step_cycles_runs[_i].cpi, compare_value(&r, "count.kernel.cycles"), want);
	if (compare_value(&r, "count.user.instructions"))
		ck_assert_msg(compare_value(&r, "count.user.cycles") == want,
			      "%s --cpi %s: %llu user cycles, want %llu", engine,
			      step_cycles_runs[_i].cpi, compare_value(&r, "count.user.cycles"), want);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * User-mode instructions: exact where the host steps CPL3, else 0 with one
 * warning and the report saying how many user-mode runs went uncounted.
 */
START_TEST(test_exact_user_mode_honesty)
{
	const char *rep = tmp_path("user.json");
	struct pmuvm_result r;
	bool steppable;
	json_object *root;
	const char *w, *warning = "this host cannot single-step user mode (CPL3): "
				  "user-mode instructions and branches are not counted";
	unsigned long long usr, want;

	REQUIRE_KVM();
	pmuvm_run(&r, "-v", "--report", rep, "--timeout", "60", guest_path("exact_user"));
	expect_guest_pass(&r, "exact_user");
	steppable = strstr(r.err, "exact counting: this host can single-step user mode");
	ck_assert_msg(steppable || strstr(r.err, "exact counting: this host cannot single-step"),
		      "no probe result in:\n%s", r.err);
	w = strstr(r.out, "exact_user: usr=");
	ck_assert_msg(w && sscanf(w, "exact_user: usr=%llu os=%*u user_insns=%llu", &usr, &want) == 2,
		      "no result line:\n%s", r.out);
	root = report_load(rep);
	ck_assert_int_eq(json_object_get_boolean(json_get(root, "debug.host.user_mode_steppable")),
			 steppable);
	if (steppable) {
		ck_assert_uint_eq(usr, want);
		ck_assert_ptr_null(strstr(r.err, warning));
	} else {
		printf("NOTE: %s: host cannot step CPL3; checking that pmuvm says so\n", __func__);
		ck_assert_uint_eq(usr, 0);
		w = strstr(r.err, warning);
		ck_assert_msg(w, "no warning in:\n%s", r.err);
		ck_assert_msg(!strstr(w + 1, warning), "warned twice:\n%s", r.err);
		ck_assert(json_u64(root, "vcpus.0.debug.exact.user_runs_uncounted") >= 1);
	}
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * SYSCALL into a kernel entry and SYSRETQ back, ten times from CPL3: the
 * user side's 33 instructions and the kernel side's 40, exactly, where the
 * host steps CPL3 and pmuvm follows SYSCALL into the kernel (its single-step
 * does, or breakpoints fire with interrupts held out of steps); where it
 * cannot follow, the kernel side is uncounted and pmuvm says so. Not run
 * where CPL3 cannot be stepped (kvm_pvm: PVM's own switcher takes a guest's
 * SYSCALL there).
 */
START_TEST(test_exact_syscall)
{
	const char *rep = tmp_path("syscall.json");
	struct pmuvm_result r;
	json_object *root;
	const char *w;
	long long usr, os, want_usr, want_os;
	bool follows;

	REQUIRE_KVM();
	if (!user_mode_steppable())
		return;
	pmuvm_run(&r, "--report", rep, "--timeout", "60", guest_path("exact_syscall"));
	expect_guest_pass(&r, "exact_syscall");
	w = strstr(r.out, "exact_syscall: usr=");
	ck_assert_msg(w && sscanf(w, "exact_syscall: usr=%lld os=%lld want %lld %lld", &usr, &os,
				  &want_usr, &want_os) == 4, "no result line:\n%s", r.out);
	root = report_load(rep);
	follows = json_u64(root, "debug.host.step_follows_events") ||
		  (json_u64(root, "debug.host.hw_breakpoints_fire") &&
		   json_u64(root, "debug.host.step_holds_interrupts"));
	ck_assert_int_eq(usr, want_usr);
	if (follows) {
		ck_assert_int_eq(os, want_os);
		ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.exact.handler_runs_uncounted"), 0);
	} else {
		ck_assert(json_u64(root, "vcpus.0.debug.exact.handler_runs_uncounted") >= 10);
		ck_assert_msg(strstr(r.err, "does not follow events into their handlers"), "%s", r.err);
	}
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * User-mode counts exact while the kernel runs unstepped (exact/krun.c):
 * where CPL3 is steppable and breakpoints fire. The syscall and timer runs
 * count exactly, their kernel stretches ran unstepped (kernel_runs.runs)
 * and ended at a watched site; the run into a SYSRETQ pmuvm had not seen
 * counts exactly too (the instruction the saved TF's trap came after is
 * counted from the SYSCALL's return address), and pmuvm says once that it
 * missed a return and counts it (kernel_runs.missed).
 */
static void expect_counts(const char *out, const char *what)
{
	long long usr, br, want_usr, want_br;
	char key[64];
	const char *w;

	snprintf(key, sizeof(key), "exact_kernel_run: %s usr=", what);
	w = strstr(out, key);
	ck_assert_msg(w && sscanf(w + strlen(key), "%lld br=%lld want %lld %lld", &usr, &br,
				  &want_usr, &want_br) == 4, "no %s line:\n%s", what, out);
	ck_assert_msg(usr == want_usr && br == want_br, "%s: usr=%lld br=%lld, want %lld %lld", what,
		      usr, br, want_usr, want_br);
}

/*
 * Runs exact_kernel_run with `append` on its command line (NULL: none) and
 * loads its report; NULL, after test_skip(), where CPL3 is not steppable
 * or breakpoints do not fire.
 */
static json_object *kernel_run_boot(struct pmuvm_result *r, const char *append)
{
	const char *rep = tmp_path("kernel_run.json");
	json_object *root;

	if (!user_mode_steppable())
		return NULL;
	if (append)
		pmuvm_run(r, "--report", rep, "--timeout", "120", "--append", append,
			  guest_path("exact_kernel_run"));
	else
		pmuvm_run(r, "--report", rep, "--timeout", "120", guest_path("exact_kernel_run"));
	expect_guest_pass(r, "exact_kernel_run");
	root = report_load(rep);
	if (!json_u64(root, "debug.host.hw_breakpoints_fire")) {
		test_skip("execution breakpoints do not fire on this host");
		json_object_put(root);
		pmuvm_result_free(r);
		return NULL;
	}
	return root;
}

START_TEST(test_exact_kernel_run)
{
	struct pmuvm_result r;
	json_object *root;

	REQUIRE_KVM();
	root = kernel_run_boot(&r, NULL);
	if (!root)
		return;
	expect_counts(r.out, "syscalls");
	expect_counts(r.out, "timer");
	ck_assert_msg(strstr(r.out, "irqs=1 from_user=1 in_loop=1"), "%s", r.out);
	expect_counts(r.out, "missed");
	/*
	 * Kernel stretches run unstepped, and those that ended at a watched
	 * site, in the USR-only runs: each starts in the kernel, enters user
	 * mode through the runtime's IRETQ (a hit) and ends with a #UD whose
	 * handler returns to CPL0 through the runtime's interrupt return,
	 * watched only once the timer run taught it (a hit from then on), and
	 * a last stretch that stops counting: nop 2/1; syscalls 12/11 (each
	 * SYSCALL a stretch ending at its SYSRETQ); timer 4/3 (its handler
	 * one); missed 2/1 (the first SYSCALL's stretch is the miss; then
	 * four sites and the runtime's RDPMC watch are more than the four
	 * debug registers, so the kernel is stepped from there on).
	 */
	ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.exact.kernel_runs.runs"), 2 + 12 + 4 + 2);
	ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.exact.kernel_runs.site_hits"), 1 + 11 + 3 + 1);
	ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.exact.kernel_runs.missed"), 1);
	ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.exact.kernel_runs.missed_uncounted"), 0);
	ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.exact.steps_not_caught_up"), 0);
	ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.exact.handler_runs_uncounted"), 0);
	ck_assert_msg(strstr(r.err, "returned to user mode outside the return sites"), "%s", r.err);
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * Counting enabled inside the kernel, which then returns through a SYSRETQ
 * no stepped kernel showed pmuvm (Linux's perf_event_open() on its
 * caller): pmuvm found it by decoding from IA32_LSTAR, watched it, and the
 * user code after it counts exactly.
 */
/*
 * The guest's "KIND at ADDR" line: the report's kernel_runs.KIND_site is
 * ADDR, no return was missed and no user-mode run went uncounted.
 */
static void expect_site_found(json_object *root, const char *out, const char *kind)
{
	unsigned long long addr = 0;
	char line[64], key[96];
	const char *p;

	snprintf(line, sizeof(line), "exact_kernel_run: %s at ", kind);
	p = strstr(out, line);
	ck_assert_msg(p && sscanf(p + strlen(line), "%llx", &addr) == 1, "no '%s':\n%s", line, out);
	snprintf(key, sizeof(key), "vcpus.0.debug.exact.kernel_runs.%s_site", kind);
	ck_assert_uint_eq(json_hex(root, key), addr);
	ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.exact.kernel_runs.missed"), 0);
	ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.exact.user_runs_uncounted"), 0);
}

START_TEST(test_exact_kernel_run_enabled_inside)
{
	struct pmuvm_result r;
	json_object *root;

	REQUIRE_KVM();
	root = kernel_run_boot(&r, "enabled");
	if (!root)
		return;
	expect_counts(r.out, "enabled");
	expect_site_found(root, r.out, "sysret");
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * The same before any kernel was stepped, into an entry that returns
 * through an IRETQ behind a conditional jump (Linux's execve, which perf
 * stat enables its counters in): pmuvm followed the code from IA32_LSTAR
 * to it, and the kernel ran unstepped from the start. Two stretches: from
 * the WRMSR that enables counting to the IRETQ (a hit), and from the
 * second SYSCALL to the WRMSR that disables it.
 */
START_TEST(test_exact_kernel_run_iret_found)
{
	struct pmuvm_result r;
	json_object *root;

	REQUIRE_KVM();
	root = kernel_run_boot(&r, "enabled_iret");
	if (!root)
		return;
	expect_counts(r.out, "enabled");
	expect_site_found(root, r.out, "iret");
	ck_assert_uint_eq(json_hex(root, "vcpus.0.debug.exact.kernel_runs.sysret_site"), 0);
	ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.exact.kernel_runs.runs"), 2);
	ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.exact.kernel_runs.site_hits"), 1);
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * RDPMC completed by pmuvm where hardware would complete it (5 in the
 * guest, then one of each counter), every other #GP passed on to the
 * guest's handler (5). Where KVM answers RDPMC itself, the reads are
 * corrected in the steps that follow PMU MSR accesses where breakpoints
 * fire, or answered at the breakpoints that watch them
 * (rdpmc/watch.c), or, for counters beyond KVM's own, completed at the
 * #GP KVM raised; the #GPs are KVM's or pmuvm's (exact.rdpmc_faulted).
 */
START_TEST(test_exact_rdpmc_unmodified_guest)
{
	const char *rep = tmp_path("rdpmc.json");
	struct pmuvm_result r;
	unsigned long long reads, emulated, engine;
	json_object *root;

	REQUIRE_KVM();
	pmuvm_run(&r, "--report", rep, "--timeout", "60", guest_path("rdpmc_emul"));
	expect_guest_pass(&r, "rdpmc_emul");
	expect_guest_ok(&r, "rdpmc at cpl0");
	expect_guest_ok(&r, "rdpmc at cpl3 and CR4.PCE");
	expect_guest_ok(&r, "rdpmc retires once while counted");
	expect_guest_ok(&r, "rdpmc of every counter");
	root = report_load(rep);
	/* Then one read of each counter. */
	reads = 5 + json_u64(root, "config.pmu.gp_counters") +
		json_u64(root, "config.pmu.fixed_counters");
	/* The one read while counted: the emulation engine answers it, unless it stepped there. */
	engine = json_u64(root, "vcpus.0.debug.exact.emulate.rdpmc_answered");
	ck_assert_uint_le(engine, 1);
	if (json_u64(root, "debug.host.rdpmc_answered_by_kvm")) {
		/*
		 * Stepped and corrected, answered at a watch breakpoint, or, for
		 * counters beyond KVM's own, completed at the #GP it raised; the
		 * reads through rdpmc_safe(), the image's RDPMC, answered at the
		 * RDMSR exit it was turned into (at CPL3 at its #GP).
		 */
		emulated = json_u64(root, "vcpus.0.debug.rdpmc.emulated");
		ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.exact.rdpmc_corrected") +
				  json_u64(root, "vcpus.0.debug.rdpmc.watch.answered") + emulated +
				  json_u64(root, "vcpus.0.debug.rdpmc.trap.answered") + engine,
				  reads);
		if (json_u64(root, "debug.host.rdpmc_partly_answered_by_kvm"))
			ck_assert_uint_gt(emulated, 0);
		else
			ck_assert_uint_eq(emulated, 0);
	} else {
		ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.rdpmc.emulated") + engine, reads);
		ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.rdpmc.gp_passed_on"), 5);
	}
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * rdpmc_late's report, or NULL after test_skip() where this host's KVM
 * answers RDPMC and pmuvm left the image's RDPMCs as they are.
 */
static json_object *rdpmc_late_report(struct pmuvm_result *r, const char *rep)
{
	json_object *root = report_load(rep);

	if (json_u64(root, "debug.host.rdpmc_answered_by_kvm") &&
	    !json_u64(root, "debug.rdpmc_trap_sites")) {
		json_object_put(root);
		pmuvm_result_free(r);
		test_skip("this host's KVM answers RDPMC and pmuvm left the image's RDPMCs as they are (-v says why)");
		return NULL;
	}
	return root;
}

/*
 * RDPMC long after the counters were last touched (kvm-unit-tests' x86/pmu,
 * Linux's perf): where KVM answers RDPMC itself, no discovery window finds
 * these reads (the guest makes sure) and the image has more than three:
 * every one is turned into an RDMSR (rdpmc/trap.c) and answered at its
 * MSR exit, at CPL3 at the #GP it raises; elsewhere every read is completed
 * at the #GP. RDMSR of those MSRs elsewhere stays RDMSR, and a site the
 * guest writes back is an RDPMC again.
 */
START_TEST(test_exact_rdpmc_late)
{
	const char *rep = tmp_path("rdpmc_late.json");
	struct pmuvm_result r;
	json_object *root;
	unsigned long long counters, engine;

	REQUIRE_KVM();
	pmuvm_run(&r, "--report", rep, "--timeout", "120", guest_path("rdpmc_late"));
	root = rdpmc_late_report(&r, rep);
	if (!root)
		return;
	expect_guest_pass(&r, "rdpmc_late");
	expect_guest_ok(&r, "rdpmc late of every counter");
	expect_guest_ok(&r, "rdpmc late of a stopped instruction counter");
	expect_guest_ok(&r, "rdpmc late of a stopped cycle counter");
	expect_guest_ok(&r, "rdpmc retires once while counted");
	expect_guest_ok(&r, "rdpmc of no counter faults");
	expect_guest_ok(&r, "rdpmc late at cpl3");
	expect_guest_ok(&r, "rdmsr of the msrs rdpmc names");
	expect_guest_ok(&r, "a site written back is an rdpmc");
	counters = json_u64(root, "config.pmu.gp_counters") +
		   json_u64(root, "config.pmu.fixed_counters");
	/* The one read while counted: the emulation engine answers it, unless it stepped there. */
	engine = json_u64(root, "vcpus.0.debug.exact.emulate.rdpmc_answered");
	ck_assert_uint_le(engine, 1);
	if (json_u64(root, "debug.host.rdpmc_answered_by_kvm")) {
		ck_assert_uint_gt(json_u64(root, "debug.rdpmc_trap_sites"), 3);
		/* Each counter, the two stopped ones, the one while counted. */
		ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.rdpmc.trap.answered") + engine,
				  counters + 3);
		/*
		 * The fast read; the RDMSR of MSR nr_gp, which no RDPMC of this
		 * PMU reaches, is KVM's and #GPs there.
		 */
		ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.rdpmc.trap.faulted"), 1);
		ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.rdpmc.trap.hits") + engine,
				  counters + 4);
		/* At CPL3, and the last GP counter's at the site written back (KVM's #GP). */
		ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.rdpmc.emulated"), 2);
		ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.rdpmc.watch.hits"), 0);
		/* The one read while counted is stepped, and answered at its exit all the same. */
		ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.exact.rdpmc_corrected"), 0);
	} else {
		ck_assert_uint_eq(json_u64(root, "debug.rdpmc_trap_sites"), 0);
		ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.rdpmc.emulated") + engine,
				  counters + 5);
	}
	/* The two RDPMCs that fault at CPL0, CPL3 without CR4.PCE, RDMSR of MSR 2. */
	ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.rdpmc.gp_passed_on"), 4);
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * The same image with no PMU (--pmu-version 0): every RDPMC #GPs (SDM vol.
 * 2B RDPMC). Where KVM answers RDPMC, its RDPMCs are traps that raise
 * #GP(0) at their MSR exits for the indices KVM answers (GP 0 and its fast
 * read at least: the probe's), and the #GP breakpoint is off; elsewhere
 * every RDPMC faults in KVM and goes to the guest's handler untouched.
 */
START_TEST(test_exact_rdpmc_late_no_pmu)
{
	const char *rep = tmp_path("rdpmc_late_no_pmu.json");
	struct pmuvm_result r;
	json_object *root;
	unsigned long long faulted;

	REQUIRE_KVM();
	pmuvm_run(&r, "--pmu-version", "0", "--pebs", "off", "--report", rep, "--timeout", "120",
		  guest_path("rdpmc_late"));
	root = rdpmc_late_report(&r, rep);
	if (!root)
		return;
	expect_guest_pass(&r, "rdpmc_late --pmu-version 0");
	expect_guest_ok(&r, "rdpmc without a pmu faults");
	expect_guest_ok(&r, "rdpmc without a pmu faults at cpl3");
	expect_guest_ok(&r, "rdmsr of the msrs rdpmc names");
	faulted = json_u64(root, "vcpus.0.debug.rdpmc.trap.faulted");
	if (json_u64(root, "debug.host.rdpmc_answered_by_kvm")) {
		ck_assert_uint_gt(json_u64(root, "debug.rdpmc_trap_sites"), 3);
		ck_assert_uint_ge(faulted, 2);
		/* 8 GP and 4 fixed indices, each also as a fast read, at CPL0. */
		ck_assert_uint_le(faulted, 24);
	} else {
		ck_assert_uint_eq(json_u64(root, "debug.rdpmc_trap_sites"), 0);
		ck_assert_uint_eq(faulted, 0);
	}
	ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.rdpmc.trap.answered"), 0);
	ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.rdpmc.trap.hits"), faulted);
	ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.rdpmc.watch.hits"), 0);
	ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.exact.rdpmc_corrected"), 0);
	/* No RDPMC completes with no PMU: the #GP breakpoint is off. */
	ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.rdpmc.emulated"), 0);
	ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.rdpmc.gp_passed_on"), 0);
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * A guest that counts no retirement event is never stepped, but where KVM
 * answers RDPMC itself and breakpoints fire (rdpmc/watch.c): for the
 * windows after its PMU MSR accesses and the watched RDPMCs it reaches.
 */
START_TEST(test_exact_costs_nothing_unused)
{
	const char *rep = tmp_path("unused.json");
	struct pmuvm_result r;
	json_object *root;
	uint64_t window;

	REQUIRE_KVM();
	pmuvm_run(&r, "--report", rep, "--timeout", "60", guest_path("pmu_overflow"));
	expect_guest_pass(&r, "pmu_overflow");
	root = report_load(rep);
	window = json_u64(root, "vcpus.0.debug.rdpmc.watch.window_steps");
	if (!json_u64(root, "debug.host.hw_breakpoints_fire"))
		ck_assert_uint_eq(window, 0);
	ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.exact.steps"), window);
	/*
	 * Each watched RDPMC reached: its breakpoint's exit, where it is
	 * answered (no retirement event counts here: none is stepped).
	 */
	ck_assert_uint_eq(json_u64(root, "vcpus.0.exits.debug"),
			  window + json_u64(root, "vcpus.0.debug.rdpmc.watch.hits"));
	ck_assert_uint_eq(json_u64(root, "vcpus.0.debug.rdpmc.watch.answered"),
			  json_u64(root, "vcpus.0.debug.rdpmc.watch.hits"));
	json_object_put(root);
	pmuvm_result_free(&r);
}
END_TEST

/* How often `needle` occurs in `s`. */
static unsigned int occurrences(const char *s, const char *needle)
{
	unsigned int n = 0;

	for (; (s = strstr(s, needle)); s += strlen(needle))
		n++;
	return n;
}

/*
 * --exact on|off (docs/counting.md, "Exact counting off"): on, the exact_off
 * guest's loop counts 2005 instructions and 1000 branches and CPUID.0AH
 * offers both (EBX bits 1 and 5 clear); off, CPUID marks both unavailable,
 * the counters read 0, nothing is stepped but the RDPMC discovery windows
 * (where KVM answers RDPMC), pmuvm says once per event that it does not
 * count it, and core cycles still count and RDPMC reads them.
 */
START_TEST(test_exact_on_off)
{
	static const char *const warn[] = {
		"the guest counts instructions, which pmuvm does not count here (--exact off",
		"the guest counts branches, which pmuvm does not count here (--exact off",
	};
	struct pmuvm_result r;
	uint64_t ebx;

	REQUIRE_KVM();
	pmuvm_run(&r, "--timeout", "60", guest_path("exact_off"));
	expect_guest_pass(&r, "exact_off");
	ebx = expect_guest_value(&r, "cpuid_0a_ebx", 0);
	ck_assert_uint_eq(ebx & (1u << 1 | 1u << 5), 0);
	ck_assert_uint_eq(expect_guest_value(&r, "instructions", 0), 2005);
	ck_assert_uint_eq(expect_guest_value(&r, "branches", 0), 1000);
	ck_assert_ptr_null(strstr(r.err, "which pmuvm does not count"));
	pmuvm_result_free(&r);

	pmuvm_run(&r, "--exact", "off", "--timeout", "60", guest_path("exact_off"));
	expect_guest_pass(&r, "exact_off --exact off");
	ck_assert_uint_eq(expect_guest_value(&r, "cpuid_0a_ebx", 0), ebx | 1u << 1 | 1u << 5);
	ck_assert_uint_eq(expect_guest_value(&r, "instructions", 0), 0);
	ck_assert_uint_eq(expect_guest_value(&r, "branches", 0), 0);
	ck_assert(expect_guest_value(&r, "cycles", 0) > 0);
	for (unsigned int i = 0; i < 2; i++)
		ck_assert_msg(occurrences(r.err, warn[i]) == 1, "want '%s' once:\n%s", warn[i], r.err);
	/*
	 * RDPMC reads the cycles counter, and nothing is stepped: where a
	 * guest RDPMC reaches pmuvm, its one debug exit is the #GP gate's
	 * breakpoint; where KVM answers RDPMC itself, pmuvm steps only the
	 * windows that find it (rdpmc/watch.c), where breakpoints fire
	 * (elsewhere RDPMC reads KVM's 0 when not stepped: docs/counting.md,
	 * "RDPMC that KVM answers").
	 */
	if (!json_u64(r.report, "debug.host.rdpmc_answered_by_kvm")) {
		ck_assert_uint_eq(expect_guest_value(&r, "cycles_rdpmc", 0),
				  expect_guest_value(&r, "cycles", 0));
		ck_assert_uint_eq(json_u64(r.report, "vcpus.0.debug.rdpmc.emulated"), 1);
		ck_assert_uint_eq(json_u64(r.report, "vcpus.0.exits.debug"), 1);
	} else if (json_u64(r.report, "debug.host.hw_breakpoints_fire")) {
		ck_assert_uint_eq(expect_guest_value(&r, "cycles_rdpmc", 0),
				  expect_guest_value(&r, "cycles", 0));
		ck_assert_uint_eq(json_u64(r.report, "vcpus.0.exits.debug"),
				  json_u64(r.report, "vcpus.0.debug.rdpmc.watch.window_steps") +
				  json_u64(r.report, "vcpus.0.debug.rdpmc.watch.hits"));
	} else {
		ck_assert_uint_eq(json_u64(r.report, "vcpus.0.exits.debug"), 0);
	}
	ck_assert_uint_eq(json_hex(r.report, "config.pmu.available_events") &
			  (1u << PMU_EV_INSTRUCTIONS | 1u << PMU_EV_BRANCHES), 0);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * A counter stops counting at the WRMSR that clears its global enable bit
 * (SDM vol. 3B 20.2.2, 20.2.4; APM vol. 2 13.2.2): the exact_global_off
 * guest's loop retires loop_insns instructions after the enabling WRMSR
 * (not counted) up to and including the disabling one (counted), then
 * runs 0 or 50 loop iterations before it reads the counters. Every
 * counter the case enabled reads exactly loop_insns, whatever ran after;
 * every other one 0. Under --cycles model (CPI 1.0, reference cycles at
 * the core clock) fixed counters 1 and 2 count one per instruction too.
 */
static void expect_global_off(const struct pmuvm_result *r, const char *what, uint64_t mask)
{
	static const char *const ctr[] = { "fixed0", "fixed1", "fixed2", "pmc0" };
	static const uint64_t bit[] = { 1ull << 32, 1ull << 33, 1ull << 34, 1 };
	static const unsigned int spins[] = { 0, 50 };
	uint64_t loop = expect_guest_value(r, "loop_insns", 0);
	char name[64];

	for (unsigned int s = 0; s < 2; s++) {
		for (unsigned int c = 0; c < 4; c++) {
			if (!strcmp(what, "alone") && c)
				break;
			snprintf(name, sizeof(name), "%s_spin%u_%s", what, spins[s], ctr[c]);
			ck_assert_msg(expect_guest_value(r, name, 0) == (mask & bit[c] ? loop : 0),
				      "%s = %llu, want %llu", name,
				      (unsigned long long)expect_guest_value(r, name, 0),
				      (unsigned long long)(mask & bit[c] ? loop : 0));
		}
	}
}

START_TEST(test_exact_global_ctrl_stops)
{
	static const struct {
		const char *what;
		uint64_t mask;
	} cases[] = {
		{ "alone", 1ull << 32 },
		{ "fixed0", 1ull << 32 },
		{ "fixed1", 1ull << 33 },
		{ "fixed2", 1ull << 34 },
		{ "pmc0", 1 },
		{ "all", 7ull << 32 | 1 },
	};
	struct pmuvm_result r;
	uint64_t loop;

	REQUIRE_KVM();
	pmuvm_run(&r, "--cycles", "model", "--timeout", "120", guest_path("exact_global_off"));
	expect_guest_pass(&r, "exact_global_off --cycles model");
	loop = expect_guest_value(&r, "loop_insns", 0);
	ck_assert_uint_eq(loop, 1 + 2 * 1000 + 3);
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_global_off(&r, cases[i].what, cases[i].mask);
	pmuvm_result_free(&r);

	pmuvm_run(&r, "--pmu", "amd", "--timeout", "120", guest_path("exact_global_off"));
	expect_guest_pass(&r, "exact_global_off --pmu amd");
	ck_assert_uint_eq(expect_guest_value(&r, "amd_spin0_ctr0", 0), loop);
	ck_assert_uint_eq(expect_guest_value(&r, "amd_spin50_ctr0", 0), loop);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * Counting goes on after a PMI taken in the middle of a stepped loop, and
 * the handler's instructions count (its counter counts at OS). The guest
 * exact_pmi_resume presets PMC0 (instructions, OS|USR|INT) to -101 and
 * runs 2,004 counted instructions (MOV, 1,000 x DEC and JNZ, XOR, XOR, the
 * disabling WRMSR); the counter wraps on the 101st and the PMI's handler
 * runs once inside the loop: its EOI and IRETQ, 12 instructions in x2APIC
 * mode (PUSH x3, MOV, XOR, XOR, WRMSR, POP x3, INCL, IRETQ) and 6 in
 * xAPIC mode (PUSH, MOVABS, the store to the EOI register, POP, INCL,
 * IRETQ). Hardware ends at -101 + 2,004 + the handler's: 1,915 or 1,909,
 * wherever the PMI lands. The xAPIC run's EOI is a store KVM completes in
 * its emulator, after which VMX/SVM single-step no longer traps unless
 * pmuvm sets it again. Where handlers cannot be stepped (neither the
 * host's single-step nor breakpoints follow them), the handler is not
 * counted: skipped there.
 */
START_TEST(test_exact_pmi_resume)
{
	static const char *const appends[] = { "x2apic", "apic=xapic" };
	struct pmuvm_result r;
	json_object *caps;
	uint64_t want;
	bool follows;

	REQUIRE_KVM();
	pmuvm_run(&r, "--append", appends[_i], "--timeout", "120", guest_path("exact_pmi_resume"));
	expect_guest_pass(&r, appends[_i]);
	caps = json_get(r.report, "debug.host");
	follows = json_object_get_boolean(json_get(caps, "step_follows_events")) ||
		  (json_object_get_boolean(json_get(caps, "hw_breakpoints_fire")) &&
		   json_object_get_boolean(json_get(caps, "step_holds_interrupts")));
	if (!follows) {
		pmuvm_result_free(&r);
		TEST_SKIP("this host's handlers run unstepped");
	}
	if (_i == 1)
		ck_assert_uint_eq(expect_guest_value(&r, "x2apic", 0), 0);
	want = 2004 - 101 + (expect_guest_value(&r, "x2apic", 0) ? 12 : 6);
	ck_assert_uint_eq(expect_guest_value(&r, "want", 0), want);
	ck_assert_uint_eq(expect_guest_value(&r, "pmis", 0), 1);
	ck_assert_uint_eq(expect_guest_value(&r, "pmc0", 0), want);
	ck_assert_uint_eq(json_u64(r.report, "vcpus.0.debug.exact.handler_runs_uncounted"), 0);
	ck_assert_uint_eq(json_u64(r.report, "vcpus.0.debug.exact.stepping_lost"), 0);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * The two counting engines agree: the exact_diff guest's generated
 * sequence (ALU, loads and stores, every conditional jump, loops, CALL/RET,
 * REP strings, locked instructions, CPUID, a #DE, an IRETQ) under --exact
 * step and --exact emulate prints the same counts, per branch class, and
 * the same hash of what it computed; the emulator ran most of it.
 */
START_TEST(test_exact_engines_agree)
{
	struct pmuvm_result step, emu;
	char seed[32];
	const char *a, *b;

	REQUIRE_KVM();
	snprintf(seed, sizeof(seed), "seed=%d", _i + 1);
	pmuvm_run(&step, "--exact", "step", "--timeout", "120", "--append", seed,
		  guest_path("exact_diff"));
	expect_guest_pass(&step, "exact_diff --exact step");
	pmuvm_run(&emu, "--exact", "emulate", "--timeout", "120", "--append", seed,
		  guest_path("exact_diff"));
	expect_guest_pass(&emu, "exact_diff --exact emulate");
	a = strstr(step.out, "exact_diff: ");
	b = strstr(emu.out, "exact_diff: ");
	ck_assert_msg(a && b, "no result line:\n%s\n%s", step.out, emu.out);
	ck_assert_msg(!strncmp(a, b, strcspn(a, "\n") + 1), "%s: the engines differ:\nstep:    %.*s\n"
		      "emulate: %.*s", seed, (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
	ck_assert_str_eq(json_object_get_string(json_get(step.report, "vcpus.0.debug.exact.engine")),
			 "step");
	ck_assert_uint_eq(json_u64(step.report, "vcpus.0.debug.exact.emulate.instructions"), 0);
	ck_assert_str_eq(json_object_get_string(json_get(emu.report, "vcpus.0.debug.exact.engine")),
			 "emulate");
	ck_assert_uint_gt(json_u64(emu.report, "vcpus.0.debug.exact.emulate.instructions") * 2,
			  json_u64(emu.report, "vcpus.0.debug.exact.retired"));
	pmuvm_result_free(&step);
	pmuvm_result_free(&emu);
}
END_TEST

/*
 * exact_scatter with `append` ("" or its options), exact under stepping and
 * then under the emulator: that run's result in `r`, for its figures.
 */
static void scatter_both_engines(struct pmuvm_result *r, const char *append)
{
	pmuvm_run(r, "--exact", "step", "--timeout", "120", "--append", append,
		  guest_path("exact_scatter"));
	expect_guest_pass(r, "exact_scatter --exact step");
	pmuvm_result_free(r);
	pmuvm_run(r, "--exact", "emulate", "--timeout", "120", "--append", append,
		  guest_path("exact_scatter"));
	expect_guest_pass(r, "exact_scatter --exact emulate");
}

/*
 * exact_scatter's shapes of address space, each exact under both engines
 * with all of its pages run by the emulator:
 *   - pages scattered in RAM but contiguous in linear address, more of
 *     them than the emulator maps regions: one mirrored region;
 *   - gap=1, an unmapped page after each: as many regions as pages, each
 *     mapped as it is reached (a kernel's stacks between guard pages);
 *   - sparse=1, more runs elsewhere than the emulator walks whole: each
 *     page walked as it is reached (a Linux kernel's address space);
 *   - clean=1, entries whose accessed and dirty flags are clear: each
 *     page's first instruction and the store run in KVM, which sets them
 *     (mem/va_map.h), and the guest checks them; the JMPs are emulated.
 */
static const struct {
	const char *append;
	uint64_t demand_maps_min, demand_maps_max, emulated_min;
} scatter_shapes[] = {
	{ "", 0, 0, 2 * 300 },
	{ "gap=1", 300, UINT64_MAX, 2 * 300 },
	{ "sparse=1", 300, UINT64_MAX, 2 * 300 },
	{ "clean=1", 0, 0, 300 },
};

/* Slots exact_scatter's own code pages may share with its scatter pages, taken in turn. */
#define SCATTER_EVICTIONS_MAX	8

START_TEST(test_exact_scatter_shapes)
{
	struct pmuvm_result r;
	uint64_t demand, evictions;

	REQUIRE_KVM();
	scatter_both_engines(&r, scatter_shapes[_i].append);
	demand = json_u64(r.report, "vcpus.0.debug.exact.emulate.demand_maps");
	ck_assert_uint_ge(json_u64(r.report, "vcpus.0.debug.exact.emulate.instructions"),
			  scatter_shapes[_i].emulated_min);
	ck_assert_msg(demand >= scatter_shapes[_i].demand_maps_min &&
		      demand <= scatter_shapes[_i].demand_maps_max, "'%s': %llu demand maps",
		      scatter_shapes[_i].append, (unsigned long long)demand);
	ck_assert_uint_eq(json_u64(r.report, "vcpus.0.debug.exact.emulate.map_failures"), 0);
	/*
	 * Its 300 code pages each keep their watch slot and translations
	 * (EMULATE_CODE_PAGES); only a page of the guest's own code may share
	 * one with a scatter page. One address space, never switched.
	 */
	evictions = json_u64(r.report, "vcpus.0.debug.exact.emulate.code_evictions");
	ck_assert_msg(evictions <= SCATTER_EVICTIONS_MAX, "'%s': %llu code evictions",
		      scatter_shapes[_i].append, (unsigned long long)evictions);
	ck_assert_uint_eq(json_u64(r.report, "vcpus.0.debug.exact.emulate.space_switches"), 0);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * The last of those pages mapped by the counted code just before the call:
 * the JMP into it completes where the emulator's next fetch faults (its
 * mapping built before), and counts. Exact under both engines.
 */
START_TEST(test_exact_page_mapped_late)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	scatter_both_engines(&r, "late=1");
	ck_assert_uint_ge(json_u64(r.report, "vcpus.0.debug.exact.emulate.stops.fault"), 1);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * exact_count's rules hold under the stepping engine as under the default
 * (test_exact_retirement_rules): stepped, the emulator runs nothing.
 */
START_TEST(test_exact_retirement_rules_stepped)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run(&r, "--exact", "step", "--timeout", "60", guest_path("exact_count"));
	expect_guest_pass(&r, "exact_count --exact step");
	expect_guest_ok(&r, "exact_count");
	ck_assert_str_eq(json_object_get_string(json_get(r.report, "vcpus.0.debug.exact.engine")),
			 "step");
	pmuvm_result_free(&r);
}
END_TEST

/* `guest` with `append` under --exact emulate, passed, with the engine it names in its report. */
static void run_emulated(struct pmuvm_result *r, const char *guest, const char *append,
			 const char *timeout)
{
	pmuvm_run(r, "--exact", "emulate", "--timeout", timeout, "--append", append,
		  guest_path(guest));
	expect_guest_pass(r, guest);
	ck_assert_str_eq(json_object_get_string(json_get(r->report, "vcpus.0.debug.exact.engine")),
			 "emulate");
}

/*
 * Timer interrupts reach counted code that the emulation engine runs:
 * exact_count's loops, ended by the LAPIC timer in one-shot and in
 * TSC-deadline mode, whose interrupts KVM raises only as it enters the
 * guest. The engine's stretches go on while nothing could be taken and
 * end at the deadline (docs/counting.md, "The emulation engine"); the
 * guest checks that each interrupt came inside its loop, counted exactly.
 */
START_TEST(test_exact_timer_in_emulator)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	run_emulated(&r, "exact_count", "", "60");
	expect_guest_ok(&r, "a TSC-deadline timer interrupt in a counted loop counted");
	ck_assert_uint_ge(json_u64(r.report, "vcpus.0.debug.exact.emulate.slices.timer_due"), 1);
	ck_assert_uint_ge(json_u64(r.report, "vcpus.0.debug.exact.emulate.slices.extended"), 1);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * REP string instructions long enough that the emulation engine's slices
 * end inside them (exact_rep: 256 KiB each, interrupts enabled), and ones
 * that come while the engine steps after short stretches (its backoff),
 * run to their end in the emulator and retire once each: the count is
 * exact and KVM stepped at most one iteration of each (stepped, their
 * iterations would take about 2,000,000 steps; docs/counting.md, "The
 * emulation engine").
 */
START_TEST(test_exact_rep_in_emulator)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	run_emulated(&r, "exact_rep", "size=262144 rounds=4", "120");
	ck_assert_uint_lt(json_u64(r.report, "vcpus.0.debug.exact.steps"), 1000);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * `guest` with `append`, under --exact step and then the emulation engine:
 * the line it prints that starts with "GUEST: " is the same under both.
 * *r holds the emulated run.
 */
static void run_both_engines(struct pmuvm_result *r, const char *guest, const char *append)
{
	char prefix[64], *stepped;
	const char *p;

	snprintf(prefix, sizeof(prefix), "%s: ", guest);
	pmuvm_run(r, "--exact", "step", "--timeout", "120", "--append", append, guest_path(guest));
	expect_guest_pass(r, guest);
	p = strstr(r->out, prefix);
	ck_assert_msg(p, "--exact step: no %s line:\n%s", prefix, r->out);
	stepped = strndup(p, strcspn(p, "\n"));
	pmuvm_result_free(r);
	run_emulated(r, guest, append, "120");
	p = strstr(r->out, prefix);
	ck_assert_msg(p && !strncmp(p, stepped, strlen(stepped)) && p[strlen(stepped)] == '\n',
		      "--exact emulate: want '%s'\n%s", stepped, r->out);
	free(stepped);
}

/*
 * x87, MMX and SSE instructions counted (exact_fpu): the emulation engine
 * runs them given the vCPU's state of those, so KVM steps none of the
 * loop's; the count and every result are what stepping gives. Only where
 * KVM runs guest kernel mode natively: its instruction emulator (kvm_pvm)
 * runs no x87 or SSE instruction at CPL0.
 */
START_TEST(test_exact_fpu_in_emulator)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	if (!host_probe_says("exact_off", "guest kernel mode (CPL0) runs natively"))
		TEST_SKIP("KVM emulates guest kernel mode here");
	run_both_engines(&r, "exact_fpu", "rounds=200");
	ck_assert_uint_ge(json_u64(r.report, "vcpus.0.debug.exact.emulate.fpu_loads"), 1);
	/* 2,800 counted in the loop: stepped, its x87/SSE instructions would be 2,400 steps. */
	ck_assert_uint_lt(json_u64(r.report, "vcpus.0.debug.exact.emulate.steps"), 50);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * RDPMC and RDTSC in counted code (exact_reads): the emulation engine
 * answers them where its stretches stop (vmm/exact/answer.c), so KVM steps
 * none of the loop's; the count, each RDPMC's reading and the TSC's order
 * are what stepping gives.
 */
START_TEST(test_exact_reads_in_emulator)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	run_both_engines(&r, "exact_reads", "rounds=200");
	/* 200 of each in the loop, one before it; some stepped after a slice's end. */
	ck_assert_uint_ge(json_u64(r.report, "vcpus.0.debug.exact.emulate.rdpmc_answered"), 190);
	ck_assert_uint_ge(json_u64(r.report, "vcpus.0.debug.exact.emulate.rdtsc_answered"), 190);
	/*
	 * Stepped, the loop's RDPMCs and RDTSCs alone would be 400 steps, and
	 * its stretches of 8 instructions thousands more (the engine steps
	 * after short ones). Some are stepped all the same: where KVM answers
	 * RDPMC, in the discovery windows after the PMU MSR writes, and after
	 * each slice's time (110 in all in the lab, where the answers' ioctls
	 * are slow).
	 */
	ck_assert_uint_lt(json_u64(r.report, "vcpus.0.debug.exact.emulate.steps"), 400);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * 100M instructions counted at CPL0 under the emulation engine: bench_exact's
 * loop of 50M `dec; jnz` iterations in fixed counter 0, exact (the guest
 * checks 100,000,000 + its 13 timing instructions), nearly all of them
 * emulated (docs/counting.md, "The emulation engine").
 */
START_TEST(test_exact_100m_cpl0)
{
	struct pmuvm_result r;

	REQUIRE_KVM();
	run_emulated(&r, "bench_exact", "sizes=100000000 reps=1", "280");
	ck_assert_msg(strstr(r.out, "bench: exact size=100000000 rep=0 insns=100000013 "),
		      "stdout: %s", r.out);
	ck_assert_uint_gt(json_u64(r.report, "vcpus.0.debug.exact.emulate.instructions"),
			  99000000);
	pmuvm_result_free(&r);
}
END_TEST

/*
 * BR_INST_RETIRED's umasks mean what the part CPUID.1 shows says they mean
 * (docs/counting.md, "CPU models"): the exact_cond guest's stretch retires
 * 4 taken and 3 not-taken conditional branches and a taken JMP.  On Ice
 * Lake-SP (the default, version 5) umask 0x01 is COND_TAKEN and 0x11 COND;
 * on Skylake-SP (version 4) 0x01 is CONDITIONAL and 0x11 no event; on
 * Nehalem (version 3) only 0x01 CONDITIONAL is; both engines alike.
 */
struct umask_case {
	const char *version, *engine;
	uint64_t model, c4_00, c4_01, c4_10, c4_11, c4_20;
};

START_TEST(test_exact_branch_umasks_per_part)
{
	static const struct umask_case cases[] = {
		{ "5", "step", 0x6a, 8, 4, 3, 7, 5 },
		{ "5", "emulate", 0x6a, 8, 4, 3, 7, 5 },
		{ "4", "step", 0x55, 8, 7, 3, 0, 5 },
		{ "4", "emulate", 0x55, 8, 7, 3, 0, 5 },
		{ "3", "step", 0x1a, 8, 7, 0, 0, 0 },
	};
	const struct umask_case *c = &cases[_i];
	struct pmuvm_result r;

	REQUIRE_KVM();
	pmuvm_run(&r, "--pmu-version", c->version, "--exact", c->engine, "--timeout", "60",
		  guest_path("exact_cond"));
	expect_guest_pass(&r, "exact_cond");
	ck_assert_uint_eq(expect_guest_value(&r, "model", 0), c->model);
	ck_assert_uint_eq(expect_guest_value(&r, "c4_00", 0), c->c4_00);
	ck_assert_uint_eq(expect_guest_value(&r, "c4_01", 0), c->c4_01);
	ck_assert_uint_eq(expect_guest_value(&r, "c4_10", 0), c->c4_10);
	ck_assert_uint_eq(expect_guest_value(&r, "c4_11", 0), c->c4_11);
	ck_assert_uint_eq(expect_guest_value(&r, "c4_20", 0), c->c4_20);
	pmuvm_result_free(&r);
}
END_TEST

static Suite *exact_suite(void)
{
	Suite *s = suite_create("exact");
	/*
	 * "host": what depends most on the host's kind (the probes, CPL3,
	 * handlers, RDPMC), the VMX lab's share of this suite
	 * (scripts/run-tests.sh); "guests": the rest.
	 */
	TCase *tc = tcase_create("host");

	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, test_exact_probes_match_host);
	tcase_add_test(tc, test_exact_retirement_rules);
	tcase_add_test(tc, test_exact_trap_handlers);
	tcase_add_test(tc, test_exact_zero_skid);
	tcase_add_test(tc, test_exact_rdpmc_unmodified_guest);
	suite_add_tcase(s, tc);
	tc = tcase_create("guests");
	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, test_exact_model_cycles_deterministic);
	tcase_add_loop_test(tc, test_exact_stepped_cycles, 0,
			    sizeof(step_cycles_runs) / sizeof(step_cycles_runs[0]));
	tcase_add_test(tc, test_exact_user_mode_honesty);
	tcase_add_test(tc, test_exact_syscall);
	tcase_add_test(tc, test_exact_kernel_run);
	tcase_add_test(tc, test_exact_kernel_run_enabled_inside);
	tcase_add_test(tc, test_exact_kernel_run_iret_found);
	tcase_add_test(tc, test_exact_costs_nothing_unused);
	tcase_add_test(tc, test_exact_rdpmc_late);
	tcase_add_test(tc, test_exact_rdpmc_late_no_pmu);
	tcase_add_test(tc, test_exact_on_off);
	suite_add_tcase(s, tc);
	/* Each in a case of its own, to be run alone (CK_RUN_CASE). */
	tc = tcase_create("global_ctrl");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_exact_global_ctrl_stops);
	suite_add_tcase(s, tc);
	tc = tcase_create("engines");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_exact_engines_agree, 0, 8);
	tcase_add_test(tc, test_exact_retirement_rules_stepped);
	tcase_add_loop_test(tc, test_exact_branch_umasks_per_part, 0, 5);
	tcase_add_loop_test(tc, test_exact_scatter_shapes, 0,
			    sizeof(scatter_shapes) / sizeof(scatter_shapes[0]));
	tcase_add_test(tc, test_exact_page_mapped_late);
	tcase_set_tags(tc, TEST_TAG_ENGINE_CHOSEN);
	suite_add_tcase(s, tc);
	tc = tcase_create("emulate_long");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_exact_100m_cpl0);
	tcase_add_test(tc, test_exact_rep_in_emulator);
	tcase_add_test(tc, test_exact_fpu_in_emulator);
	tcase_add_test(tc, test_exact_reads_in_emulator);
	tcase_set_tags(tc, TEST_TAG_ENGINE_CHOSEN);
	suite_add_tcase(s, tc);
	/*
	 * Whether a slice's poll finds the deadline passed depends on the
	 * host's pace: where the setup before the loop is stepped past the
	 * deadline, KVM delivers the interrupt during a step.
	 */
	tc = tcase_create("emulate_timer");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_exact_timer_in_emulator);
	tcase_set_tags(tc, TEST_TAG_ENGINE_CHOSEN " " TEST_TAG_TIMING);
	suite_add_tcase(s, tc);
	tc = tcase_create("pmi_resume");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_exact_pmi_resume, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(exact_suite)
