#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""make bench: what pmuvm's virtual PMU costs, measured side by side.

Runs the tests/guests/bench_*.c guests under pmuvm, prints a table and
writes every sample to BUILD/bench.json.  Nothing here asserts on time; the
run fails only if a guest fails or the exact source shows skid.  Compared
quantities are measured in the same run, interleaved (A/B/A/B), and
reported as the median with the min..max spread of the per-pair values.

usage: scripts/bench.py [BUILD_DIR] [--quick] [--linux-only OUT.json [--only linux,run]]
"""
import json
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

BUILD = "build"
QUICK = False
TIMEOUT = 180          # seconds per pmuvm run (--timeout)
ENTRY_INSNS = 38       # bench_pmi.c: entry stub + dispatcher before the handler's RDTSC
LINE = re.compile(r"^bench: (\w+) (.*)$")


def die(msg):
    print("bench: " + msg, file=sys.stderr)
    sys.exit(1)


def run_guest(name, append, cpus=1, env=None, valgrind=None, may_fail=False, opts=()):
    """Boots build/guests/NAME.elf (pmuvm options `opts`); returns ([(kind, {k: v})], report, stdout)."""
    with tempfile.TemporaryDirectory() as tmp:
        rep = os.path.join(tmp, "report.json")
        cmd = [os.path.join(BUILD, "pmuvm"), "--timeout", str(TIMEOUT), "--cpus", str(cpus),
               "--report", rep, "--append", append] + list(opts) + [
               os.path.join(BUILD, "guests", name + ".elf")]
        if valgrind:
            cmd = ["valgrind", "--vgdb=no", "--tool=callgrind", "--callgrind-out-file=" + valgrind] + cmd
        e = dict(os.environ)
        e.pop("PMUVM_BENCH_RAW_STEP", None)
        e["PMUVM_BENCH_TIMING"] = "1"      # the report's vcpus[].debug.bench (docs/report.md)
        e.update(env or {})
        p = subprocess.run(cmd, env=e, capture_output=True, text=True)
        # 1: the guest passed, 3: an assertion failed (pmuvm(1), EXIT STATUS)
        if p.returncode != 1 and not (may_fail and p.returncode == 3):
            die("%s %r failed with status %d:\n%s%s" % (name, append, p.returncode,
                                                       p.stdout[-3000:], p.stderr[-3000:]))
        with open(rep) as f:
            report = json.load(f)
    out = []
    for line in p.stdout.splitlines():
        m = LINE.match(line)
        if m:
            kv = dict(w.split("=", 1) for w in m.group(2).split())
            out.append((m.group(1), {k: int(v, 0) for k, v in kv.items()}))
    return out, report, p.stdout


def vmm_time(report):
    """pmuvm's own time between KVM_RUNs: (share of the vCPU threads' time, us per exit)."""
    vmm = sum(v["debug"]["bench"]["vmm_ns"] for v in report["vcpus"])
    run = sum(v["debug"]["bench"]["kvm_run_ns"] for v in report["vcpus"])
    exits = sum(v["exits"]["total"] for v in report["vcpus"])
    return vmm / float(vmm + run), vmm / 1000.0 / exits


def stats(xs):
    xs = list(xs)
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "n": len(xs)}


def fmt(s, unit="", nd=2):
    f = "%%.%df" % nd
    return (f + "%s [" + f + ".." + f + "]") % (s["median"], unit, s["min"], s["max"])


def msr_exits(report):
    return sum(v["exits"]["msr_read"] + v["exits"]["msr_write"] for v in report["vcpus"])


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def machine():
    model = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    kvm = sorted(m for m in os.listdir("/sys/module") if m.startswith("kvm"))
    return {
        "date_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
        "nproc": os.cpu_count(),
        "cpu_model": model,
        "kernel": platform.release(),
        "kvm_modules": kvm,
        "loadavg_start": open("/proc/loadavg").read().split()[:3],
        "commit": sh("git rev-parse --short HEAD") + (" (dirty)" if sh("git status --porcelain -uno") else ""),
        "lab": os.environ.get("PMUVM_LAB") == "1",
    }


def callgrind_incl(path):
    """Inclusive Ir per function name (the last path component)."""
    txt = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100",
                          "--auto=no", path], capture_output=True, text=True).stdout
    res = {}
    for line in txt.splitlines():
        m = re.match(r"^\s*([\d,]+) \([\d. %]+\)\s+(\S+):(\S+) \[", line)
        if m and m.group(3) not in res:
            res[m.group(3)] = int(m.group(1).replace(",", ""))
        m = re.match(r"^\s*([\d,]+) \([\d. %]+\)\s+PROGRAM TOTALS", line)
        if m:
            res["TOTAL"] = int(m.group(1).replace(",", ""))
    return res


def callgrind_diff(guest, small, large, count, funcs, opts=()):
    """Ir per event: (Ir(large run) - Ir(small run)) / (events large - small)."""
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, app in enumerate((small, large)):
            cg = os.path.join(tmp, "cg.%d" % i)
            # pmuvm's normal path: without the bench timing's clock reads
            _, rep, _ = run_guest(guest, app, valgrind=cg, env={"PMUVM_BENCH_TIMING": "0"},
                                  opts=opts)
            runs.append((callgrind_incl(cg), count(rep)))
    (a, na), (b, nb) = runs
    if nb <= na:
        die("callgrind runs of %s differ by no events" % guest)
    return {f: (b.get(f, 0) - a.get(f, 0)) / (nb - na) for f in funcs}, nb - na


# ---- 1. MSR path --------------------------------------------------------------
def bench_msr(tsc_khz):
    n, reps = (500, 3) if QUICK else (2000, 9)
    lines, rep, _ = run_guest("bench_msr", "n=%d reps=%d" % (n, reps))
    us = lambda t: t / n / tsc_khz * 1000.0
    reps_ = [d for k, d in lines if k == "msr"]
    res = {"n": n, "kvm_msr": "%#x" % reps_[0]["kvm_msr"], "samples": reps_,
           "exits": msr_exits(rep)}
    # Nearly every exit of this run is an MSR exit (the rest: console output).
    res["vmm_us_per_exit"] = vmm_time(rep)[1]
    for key in ("empty", "pmu_rd", "kvm_rd", "pmu_wr", "kvm_wr"):
        res[key + "_us"] = stats(us(d[key]) for d in reps_)
    res["ratio_rd"] = stats(d["pmu_rd"] / d["kvm_rd"] for d in reps_)
    res["ratio_wr"] = stats(d["pmu_wr"] / d["kvm_wr"] for d in reps_)
    # Emulated CPL0 instructions: the empty loop is 2 per iteration.
    insn = lambda d: d["empty"] / 2.0
    res["cpl0_insn_us"] = stats(us(insn(d)) for d in reps_)
    # Net of the loop around the access: 3 (rd) and 5 (wr) other emulated
    # instructions per iteration in bench_msr.c, at the empty loop's rate;
    # from the medians (a single block's emulation rate is too noisy).
    med = lambda key: statistics.median(d[key] for d in reps_)
    i = med("empty") / 2.0
    res["ratio_rd_net"] = (med("pmu_rd") - 3 * i) / (med("kvm_rd") - 3 * i)
    res["ratio_wr_net"] = (med("pmu_wr") - 5 * i) / (med("kvm_wr") - 5 * i)
    funcs = ("TOTAL", "vcpu_thread", "pmu_msr", "rdpmc_before_run", "clock_before_run",
             "exact_before_run")
    ir, nexits = callgrind_diff("bench_msr", "n=100 reps=1 quiet=1", "n=200 reps=1 quiet=1",
                               msr_exits, funcs)
    res["callgrind_ir_per_exit"] = ir
    res["callgrind_exits"] = nexits
    return res


# ---- 2 and 5. Sampling overhead, 1 vs 2 vCPUs ------------------------------------
def bench_sample(tsc_khz):
    iters, reps, rounds = (20000000, 1, 1) if QUICK else (50000000, 2, 2)
    app = "tsc_khz=%d iters=%d reps=%d" % (tsc_khz, iters, reps)
    runs = {1: [], 2: []}
    for i in range(rounds):
        for cpus in ((1, 2) if i % 2 == 0 else (2, 1)):
            lines, _, _ = run_guest("bench_sample", app, cpus=cpus)
            runs[cpus].append([d for k, d in lines if k == "sample"])
    res = {"iters": iters, "samples": {str(c): runs[c] for c in runs}}

    def ticks(run, rep, freq, cpu):
        return next(d["ticks"] for d in run
                    if d["rep"] == rep and d["freq"] == freq and d["cpu"] == cpu)

    for cpus in (1, 2):
        r = {}
        for freq in (1000, 10000):
            ratios, rates, cost = [], [], []
            for run in runs[cpus]:
                for d in run:
                    if d["freq"] == freq:
                        base = ticks(run, d["rep"], 0, d["cpu"])
                        ratios.append(d["ticks"] / base)
                        rates.append(d["pmis"] / (d["ticks"] / (tsc_khz * 1000.0)))
                        # run time added per PMI taken
                        cost.append((d["ticks"] - base) / max(d["pmis"], 1) / tsc_khz * 1000.0)
            r["ratio_%dHz" % freq] = stats(ratios)
            r["pmis_per_s_%dHz" % freq] = stats(rates)
            r["us_per_pmi_%dHz" % freq] = stats(cost)
        r["base_ms"] = stats(d["ticks"] / tsc_khz for run in runs[cpus] for d in run
                             if d["freq"] == 0)
        res["cpus%d" % cpus] = r
    # Scaling: a vCPU's run time with two vCPUs busy over one alone, paired by round.
    for freq in (0, 1000, 10000):
        ratios = []
        for one, two in zip(runs[1], runs[2]):
            for d in two:
                if d["freq"] == freq:
                    ratios.append(d["ticks"] / ticks(one, d["rep"], freq, 0))
        res["scaling_%dHz" % freq] = stats(ratios)
    return res


# ---- 3. Exact counting against bare single-stepping ------------------------------
def bench_exact(tsc_khz):
    sizes, rounds = ((1000, 10000), 2) if QUICK else ((1000, 10000, 100000), 6)
    app = "sizes=%s reps=1" % ",".join(map(str, sizes))
    runs = {"counted": [], "raw": []}
    timing = {"counted": [], "raw": []}
    for i in range(rounds):
        for mode in (("counted", "raw") if i % 2 == 0 else ("raw", "counted")):
            env = {"PMUVM_BENCH_RAW_STEP": "1"} if mode == "raw" else {}
            lines, rep, _ = run_guest("bench_exact", app + (" raw=1" if mode == "raw" else ""),
                                      env=env, opts=("--exact", "step"))
            runs[mode].append([d for k, d in lines if k == "exact"])
            timing[mode].append(vmm_time(rep))
    res = {"samples": runs, "sizes": {}}
    # Measured by pmuvm itself over each whole run (almost all of it steps).
    for mode in timing:
        res["vmm_share_" + mode] = stats(t[0] for t in timing[mode])
        res["vmm_us_per_exit_" + mode] = stats(t[1] for t in timing[mode])
    for size in sizes:
        insns = size // 2 * 2 + 13     # bench_exact.c: loop + EXTRA_INSNS
        rate = lambda d: insns / (d["ticks"] / (tsc_khz * 1000.0))
        c = [rate(d) for run in runs["counted"] for d in run if d["size"] == size]
        r = [rate(d) for run in runs["raw"] for d in run if d["size"] == size]
        ratio = [a / b for a, b in zip(c, r)]
        res["sizes"][str(size)] = {
            "insns": insns,
            "counted_per_s": stats(c), "raw_per_s": stats(r), "ratio": stats(ratio),
            # pmuvm's own work per step over the whole step round trip
            "pmuvm_share": stats(1.0 - x for x in ratio),
            "step_us_counted": stats(1e6 / x for x in c),
            "step_us_raw": stats(1e6 / x for x in r),
        }
    steps = lambda rep: sum(v["debug"]["exact"]["steps"] for v in rep["vcpus"])
    funcs = ("TOTAL", "vcpu_thread", "exact_before_run", "exact_after_run", "icache_fetch",
             "exit_debug")
    ir, nsteps = callgrind_diff("bench_exact", "sizes=1000 reps=1", "sizes=2000 reps=1",
                                steps, funcs, opts=("--exact", "step"))
    res["callgrind_ir_per_step"] = ir
    res["callgrind_steps"] = nsteps
    return res


# ---- 3b. The counting engines ---------------------------------------------------
# bench_exact's loop, at CPL0 and at CPL3, counted by single-stepping (--exact step),
# in the emulator (--exact emulate), and not counted (--exact off: the loop runs in
# KVM). Each mode gets a loop long enough to time (stepping is ~1000x slower).
ENGINE_SIZES = {"step": 200000, "emulate": 20000000, "off": 20000000}


def bench_engines(tsc_khz):
    rounds = 1 if QUICK else 3
    res = {}
    for user in (0, 1):
        where = "cpl3" if user else "cpl0"
        rates = {m: [] for m in ENGINE_SIZES}
        counted = {m: [] for m in ENGINE_SIZES}
        for i in range(rounds):
            for mode in (ENGINE_SIZES if i % 2 == 0 else list(reversed(list(ENGINE_SIZES)))):
                size = ENGINE_SIZES[mode] if not QUICK else ENGINE_SIZES[mode] // 10
                app = "sizes=%d reps=1 user=%d%s" % (size, user, " raw=1" if mode == "off" else "")
                lines, rep, _ = run_guest("bench_exact", app, opts=("--exact", mode))
                d = [d for k, d in lines if k == "exact"][0]
                rates[mode].append(size / (d["ticks"] / (tsc_khz * 1000.0)))
                counted[mode].append(d["insns"])
        res[where] = {m: {"per_s": stats(rates[m]), "counted": counted[m][-1],
                          "size": ENGINE_SIZES[m] // (10 if QUICK else 1)} for m in ENGINE_SIZES}
        res[where]["emulate_over_step"] = (res[where]["emulate"]["per_s"]["median"] /
                                           res[where]["step"]["per_s"]["median"])
        res[where]["off_over_emulate"] = (res[where]["off"]["per_s"]["median"] /
                                          res[where]["emulate"]["per_s"]["median"])
    return res


# ---- 4. PMI latency and skid -----------------------------------------------------
def bench_pmi(tsc_khz):
    pmis = 20 if QUICK else 60
    lines, _, _ = run_guest("bench_pmi", "tsc_khz=%d pmis=%d period_us=2000" % (tsc_khz, pmis))
    lat = [d["ticks"] / tsc_khz * 1000.0 for k, d in lines if k == "pmi_latency"]
    # exact_pmi asserts zero skid; it prints each case first, so a failure still shows it.
    _, _, out = run_guest("exact_pmi", "", may_fail=True)
    skid = [{"n": int(n), "pmis": int(p),
             "insns": int(rip, 0) - int(want, 0) if int(p) == 1 else None}
            for n, p, rip, want in
            re.findall(r"preset -(\d+): pmis=(\d+) rip=(0x[0-9a-f]+|0) \(want (0x[0-9a-f]+)\)",
                       out)]
    if not skid:
        die("exact_pmi printed no skid lines:\n" + out)
    s = stats(lat)
    s["p90"] = sorted(lat)[int(0.9 * (len(lat) - 1))]
    bad = [d for d in skid if d["insns"] != 0]
    return {"latency_us": s, "latency_samples_us": lat, "skid": skid,
            "skid_max_abs": max((abs(d["insns"]) for d in skid if d["insns"] is not None),
                                default=0),
            "skid_bad_cases": len(bad)}


LINUX_APPEND = "console=ttyS0 panic=-1 rdinit=/init pmuvm_end=poweroff loglevel=4"
LINUX_TIME = re.compile(r"^pmuvm-linux: time (\S+) ([0-9.]+)\s*$")
# tests/linux/init's steps after "up", each timed from the step before it;
# the checks' costs beside their programs run alone (pmuvm_bench=1).
LINUX_CHECKS = (("stat-user", "perf stat -e instructions:u,branches:u loop", "loop-alone"),
                ("self-read", "selfread: read() of its own running counter", "selfread-alone"),
                ("stat-all", "perf stat -e cycles,instructions,branches loop", "loop-alone"),
                ("stat-fixed", "perf stat fixed counter 0 + ref-cycles, loop", "loop-alone"),
                ("record-warmup", "perf record -e cycles -F 1000 hot, the boot's first",
                 "hot-alone"),
                ("record-cycles", "perf record -e cycles -F 1000 hot", "hot-alone"),
                ("record-instructions", "perf record -e instructions:u -c 10000 hot 20000",
                 "hot-20000-alone"))
# pmuvm_checks=gzip: perf on an ordinary program (busybox gzip of 1 MB), with
# pmuvm's defaults and with --exact off (instructions and branches not
# offered). The init stops the counted runs after 600 s (status 143).
GZIP_CHECKS = (("gzip-stat-cycles", "perf stat -e cycles gzip 1 MB", "gzip-alone"),
               ("gzip-record-warmup", "perf record -e cycles -F 1000 hot, the boot's first",
                None),
               ("gzip-record-cycles", "perf record -e cycles -F 1000 gzip 1 MB", "gzip-alone"),
               ("gzip-stat", "perf stat (default events) gzip 1 MB", "gzip-alone"),
               ("gzip-stat-user", "perf stat -e instructions:u,branches:u gzip 1 MB",
                "gzip-alone"))
GZIP_STATUS = re.compile(r"^pmuvm-linux: gzip (\S+): status (\d+)\s*$", re.M)
GZIP_STOPPED = 143      # busybox timeout's SIGTERM


def linux_boot(cmd):
    """Runs one Linux boot; returns (wall seconds, {step: seconds it took}, stdout)."""
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    out = p.stdout.replace("\r", "")
    if p.returncode != 0 or "pmuvm-linux: userspace up" not in out:
        die("Linux boot %r failed with status %d:\n%s%s" % (" ".join(cmd), p.returncode,
                                                            out[-3000:], p.stderr[-2000:]))
    steps, last = {}, 0.0
    for line in out.splitlines():
        m = LINUX_TIME.match(line)
        if m:
            t = float(m.group(2))
            steps[m.group(1)] = t - last if steps else t
            last = t
    return wall, steps, out


def gzip_on_host(kernel, reps):
    """The guest's gzip of 1 MB on this host, alone and under Cachegrind, interleaved.

    What users pick for exact instruction counts without a PMU: Valgrind's
    Cachegrind, here with --cache-sim=no (instruction counts only, its
    fastest). The same static busybox and input as the guest's
    (tests/linux/mkinitramfs copies it from beside the kernel).
    """
    bb = os.path.join(os.path.dirname(kernel), "busybox")
    if not os.access(bb, os.X_OK):
        return {"skipped": "no busybox beside " + kernel}
    if not shutil.which("valgrind"):
        return {"skipped": "no valgrind (make deps-check installs it)"}
    times = {"alone": [], "cachegrind": []}
    with tempfile.TemporaryDirectory() as tmp:
        big = os.path.join(tmp, "big")
        with open(bb, "rb") as f, open(big, "wb") as o:
            o.write(f.read(1048576))
        for _ in range(reps):
            for which in ("alone", "cachegrind"):
                cmd = [bb, "gzip", "-c", big]
                if which == "cachegrind":
                    cmd = ["valgrind", "--vgdb=no", "--tool=cachegrind", "--cache-sim=no",
                           "--cachegrind-out-file=/dev/null"] + cmd
                t0 = time.monotonic()
                p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   text=True)
                times[which].append(time.monotonic() - t0)
                if p.returncode != 0:
                    die("%s failed with status %d:\n%s" % (" ".join(cmd), p.returncode,
                                                          p.stderr[-2000:]))
    return {"alone_s": stats(times["alone"]), "cachegrind_s": stats(times["cachegrind"]),
            "ratio": stats(c / a for a, c in zip(times["alone"], times["cachegrind"]))}


def bench_linux():
    """Debian's kernel with the perf image: boot time beside QEMU/KVM, each check's cost."""
    qemu = shutil.which(os.environ.get("QEMU", "qemu-system-x86_64"))
    with tempfile.TemporaryDirectory() as tmp:
        img = os.path.join(tmp, "perf.cpio")
        p = subprocess.run(["tests/linux/mkinitramfs", "--perf", img], capture_output=True,
                           text=True)
        if p.returncode == 77:
            return {"skipped": "no perf image: " + p.stderr.strip()}
        if p.returncode != 0:
            die("mkinitramfs failed:\n" + p.stderr)
        kernel = p.stdout.strip().splitlines()[-1]

        def pmuvm(extra, opts=()):
            return [os.path.join(BUILD, "pmuvm"), "--pmu", "intel", "--mem", "512M",
                    "--timeout", "900"] + list(opts) + ["--initrd", img, "--append",
                                                        LINUX_APPEND + " " + extra, kernel]

        def qemu_kvm():
            return ["qemu-configs/qemu-run", "--timeout", "900", "--mem", "512M", "--initrd",
                    img, "--append", LINUX_APPEND + " pmuvm_checks=none", kernel]

        reps = 1 if QUICK else 3
        boot = {"pmuvm_wall_s": [], "pmuvm_up_s": [], "qemu_wall_s": [], "qemu_up_s": []}
        for _ in range(reps):
            w, st, _ = linux_boot(pmuvm("pmuvm_checks=none"))
            boot["pmuvm_wall_s"].append(w)
            boot["pmuvm_up_s"].append(st["up"])
            if qemu:
                w, st, _ = linux_boot(qemu_kvm())
                boot["qemu_wall_s"].append(w)
                boot["qemu_up_s"].append(st["up"])
        res = {"reps": reps, "boot": {k: stats(v) for k, v in boot.items() if v}}
        if boot["qemu_wall_s"]:
            res["boot"]["wall_ratio"] = stats(a / b for a, b in zip(boot["pmuvm_wall_s"],
                                                                    boot["qemu_wall_s"]))
        checks = {}
        for _ in range(reps):
            _, st, _ = linux_boot(pmuvm("pmuvm_bench=1"))
            for step, t in st.items():
                checks.setdefault(step, []).append(t)
        res["steps_s"] = {k: stats(v) for k, v in checks.items()}
        gzip = {"exact": {}, "exact_off": {}}
        for _ in range(reps):
            for mode, extra, opts in (("exact", "", ()),
                                      ("exact_off", "", ("--exact", "off"))):
                _, st, out = linux_boot(pmuvm("pmuvm_checks=gzip" + extra, opts))
                for step, t in st.items():
                    gzip[mode].setdefault(step, []).append(t)
                for step, status in GZIP_STATUS.findall(out):
                    if int(status) == GZIP_STOPPED:
                        gzip[mode + "_stopped"] = gzip.get(mode + "_stopped", []) + [step]
                top = re.search(r"^pmuvm-linux: perf record gzip: top (.*)$", out, re.M)
                gzip[mode + "_top"] = top.group(1).strip() if top else "none"
        res["gzip_s"] = {m: {k: stats(v) for k, v in gzip[m].items()}
                         for m in ("exact", "exact_off")}
        res["gzip_top"] = {m: gzip[m + "_top"] for m in ("exact", "exact_off")}
        res["gzip_stopped"] = {m: sorted(set(gzip.get(m + "_stopped", [])))
                               for m in ("exact", "exact_off")}
        res["gzip_host"] = gzip_on_host(kernel, reps)
        return res


def linux_lines(lx):
    """Section 6 of the table: the Linux boot and checks."""
    if "skipped" in lx:
        return ["6. Linux guest: skipped: " + lx["skipped"]]
    b, st = lx["boot"], lx["steps_s"]
    out = ["6. Linux guest (Debian's kernel, tests/linux/ perf image, --pmu intel, %d boots each)"
           % lx["reps"]]
    if lx.get("in_lab"):
        out.append("   IN THE LAB (%s): the emulator's times" % lx["in_lab"])
    out.append("   boot to user space (guest uptime): pmuvm %s, QEMU/KVM %s" % (
        fmt(b["pmuvm_up_s"], " s", 2), fmt(b["qemu_up_s"], " s", 2) if "qemu_up_s" in b
        else "not run (no QEMU)"))
    out.append("   whole run, boot to poweroff (wall): pmuvm %s, QEMU/KVM %s%s" % (
        fmt(b["pmuvm_wall_s"], " s", 2), fmt(b["qemu_wall_s"], " s", 2) if "qemu_wall_s" in b
        else "not run", ", ratio " + fmt(b["wall_ratio"], "x", 2) if "wall_ratio" in b else ""))
    for step, what, alone in LINUX_CHECKS:
        if step in st:
            out.append("   %-50s %s (program alone: %s)" % (
                what, fmt(st[step], " s", 2), fmt(st[alone], " s", 2) if alone in st else "-"))
    for mode, title in (("exact", "pmuvm's defaults"),
                        ("exact_off", "--exact off (instructions, branches not offered)")):
        g = lx.get("gzip_s", {}).get(mode)
        if not g:
            continue
        out.append("   an ordinary program, busybox gzip, %s:" % title)
        stopped = lx.get("gzip_stopped", {}).get(mode, [])
        for step, what, alone in GZIP_CHECKS:
            if step in g:
                out.append("     %-48s %s%s (program alone: %s)" % (
                    what, fmt(g[step], " s", 2), ", STOPPED unfinished" if step in stopped
                    else "", fmt(g[alone], " s", 2) if alone and alone in g else "-"))
        out.append("     perf report's top line for gzip: %s" % lx["gzip_top"][mode])
    gh = lx.get("gzip_host")
    if gh and "skipped" in gh:
        out.append("   the same gzip on this host: skipped: " + gh["skipped"])
    elif gh:
        out.append("   the same gzip on this host: alone %s, under valgrind --tool=cachegrind %s"
                   " (%s)" % (fmt(gh["alone_s"], " s", 3), fmt(gh["cachegrind_s"], " s", 2),
                              fmt(gh["ratio"], "x", 1)))
        g = lx.get("gzip_s", {}).get("exact", {})
        if "gzip-stat" in g and "gzip-alone" in g:
            out.append("   perf stat (default events) / gzip alone in the guest: %.1fx (goal <= 20x,"
                       " and below Cachegrind's); Cachegrind / gzip alone on the host: %.1fx" % (
                           g["gzip-stat"]["median"] / g["gzip-alone"]["median"],
                           gh["ratio"]["median"]))
    return out


# ---- 7. pmuvm run: boot to COMMAND ----------------------------------------------
# `pmuvm run -- true` (docs/run.md) beside QEMU/KVM booting the same kernel
# and initramfs with the same spec archive, the same virtiofsd shares and the
# same kernel command line, on QEMU's microvm machine, whose ACPI DSDT
# announces its virtio-mmio devices as LNRO0005 as pmuvm's does.
RUN_APPEND = "console=ttyS0 rdinit=/init panic=-1 quiet loglevel=1"   # vmm/run/run.c, without -v
RUN_MEM = "1G"               # pmuvm run's default --mem
RUN_TIMEOUT = 600
# vmm/run/virtiofsd.c: Debian 13's Rust virtiofsd, Debian 12's (qemu-system-common).
VIRTIOFSD_PATHS = ("/usr/libexec/virtiofsd", "/usr/lib/qemu/virtiofsd")
QEMU_FALLBACK_CPU = "qemu64,+x2apic"     # qemu-configs/qemu-run: where -cpu host cannot start


def newc(name, mode, ino, data):
    """One newc cpio entry: header, name, data, each padded to 4 bytes (vmm/run/spec.c)."""
    name = name.encode() + b"\0"
    hdr = b"070701" + b"".join(b"%08X" % v for v in (ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0,
                                                      0, len(name), 0))
    out = hdr + name
    out += b"\0" * (-len(out) % 4) + data
    return out + b"\0" * (-len(out) % 4)


def run_spec(argv, env):
    """The archive pmuvm run appends to the initramfs (vmm/run/spec.c, read by
    guest-shim/linux/run-init.c): /pmuvm-run's NUL-terminated key=value strings.
    Standard input and output are not terminals here (the bench's /dev/null and
    pipe), so the terminal keys are 0, as pmuvm writes them for these runs."""
    items = [b"uid=%d" % os.getuid(), b"gid=%d" % os.getgid(),
             b"groups=" + ",".join(str(g) for g in os.getgroups()).encode(),
             b"cwd=" + os.getcwd().encode(), b"stdin_tty=0", b"stdout_tty=0", b"rows=0",
             b"cols=0"]
    items += [b"arg=" + os.fsencode(a) for a in argv]
    items += [b"env=" + k + b"=" + v for k, v in env.items()]
    return (newc("pmuvm-run", 0o100644, 1, b"".join(i + b"\0" for i in items)) +
            newc("TRAILER!!!", 0, 0, b""))


def virtiofsd_find():
    """The virtiofsd pmuvm run would start (vmm/run/virtiofsd.c: virtiofsd_find)."""
    env = os.environ.get("PMUVM_VIRTIOFSD")
    if env:
        return env if os.access(env, os.X_OK) else None
    for path in VIRTIOFSD_PATHS:
        if os.access(path, os.X_OK):
            return path
    return shutil.which("virtiofsd")


def virtiofsd_start(binary, source, sock):
    """One share as pmuvm run starts it (vmm/run/virtiofsd.c): a listening socket
    handed over as --fd, chroot sandbox, cache=auto; in a user namespace that
    maps the caller when unprivileged (docs/run.md, "What needs root")."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(sock)
    s.listen(1)
    cmd = [binary, "--fd=%d" % s.fileno(), "-o", "source=" + source, "-o", "cache=auto",
           "-o", "log_level=err", "-o", "sandbox=chroot"]
    if os.geteuid() != 0:
        cmd = ["unshare", "--user", "--map-user=%d" % os.geteuid(),
               "--map-group=%d" % os.getegid(), "--keep-caps", "--"] + cmd
    try:
        return subprocess.Popen(cmd, pass_fds=(s.fileno(),), start_new_session=True,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    finally:
        s.close()


def qemu_run(qemu, fsd, helper, init, tmp, cpu, argv=("true",), machine="microvm",
             append=RUN_APPEND, timeout=RUN_TIMEOUT):
    """QEMU/KVM doing what `pmuvm run -- ARGV` does, timed from the kernel helper
    to QEMU's exit; returns (wall seconds, helper seconds, QEMU's CompletedProcess)."""
    t0 = time.monotonic()
    p = subprocess.run([helper, init], capture_output=True, text=True)
    t_helper = time.monotonic() - t0
    if p.returncode != 0 or len(p.stdout.split("\n")) < 2:
        die("%s failed (status %d): %s" % (helper, p.returncode, p.stderr.strip()))
    kernel, initrd = p.stdout.split("\n")[:2]
    # pmuvm boots the kernel unpacked (docs/run.md, "How it works");
    # QEMU's -kernel takes a vmlinux only with a PVH note, which Debian's has
    # not: QEMU boots the bzImage beside it, decompressing it in the guest.
    if os.path.basename(kernel) == "vmlinux" and os.path.exists(
            os.path.join(os.path.dirname(kernel), "vmlinuz")):
        kernel = os.path.join(os.path.dirname(kernel), "vmlinuz")
    img = os.path.join(tmp, "initrd")
    with open(img, "wb") as f, open(initrd, "rb") as g:
        f.write(g.read() + run_spec(argv, os.environb))
    shares = []
    try:
        for tag, source in (("root", "/"), ("cwd", os.getcwd())):
            sock = os.path.join(tmp, tag + ".sock")
            shares.append(virtiofsd_start(fsd, source, sock))
        cmd = [qemu, "-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
               # no virtio_mmio.device= on the command line: the DSDT's LNRO0005
               "-M", ("microvm,acpi=on,auto-kernel-cmdline=off,memory-backend=mem"
                      if machine == "microvm" else machine + ",memory-backend=mem"),
               "-accel", "kvm", "-cpu", cpu, "-smp", "1", "-m", RUN_MEM,
               "-object", "memory-backend-memfd,id=mem,size=%s,share=on" % RUN_MEM,
               "-kernel", kernel, "-initrd", img, "-append", append,
               "-chardev", "stdio,id=con", "-serial", "chardev:con",
               "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
        if machine == "microvm":
            # microvm's virtio-mmio is legacy (version 1) by default, which
            # virtiofsd's libvhost-user refuses; pmuvm's is version 2
            cmd += ["-global", "virtio-mmio.force-legacy=false"]
        for tag in ("root", "cwd"):
            cmd += ["-chardev", "socket,id=fs-%s,path=%s" % (tag, os.path.join(tmp, tag + ".sock")),
                    "-device", "vhost-user-fs-%s,chardev=fs-%s,tag=%s" % (
                        "device" if machine == "microvm" else "pci", tag, tag)]
        try:
            p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                               timeout=timeout)
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else e.stdout
            die("QEMU/KVM's run of %r did not end in %d s:\n%s" % (argv, timeout,
                                                                  (out or "")[-3000:]))
    finally:
        # as pmuvm ends them (SIGKILL), inside the time measured
        for d in shares:
            d.kill()
            d.wait()
        for tag in ("root", "cwd"):
            if os.path.exists(os.path.join(tmp, tag + ".sock")):
                os.unlink(os.path.join(tmp, tag + ".sock"))
    return time.monotonic() - t0, t_helper, p


def bench_run():
    """Boot to COMMAND: `pmuvm run -- true` against QEMU/KVM doing the same."""
    helper = os.path.join(BUILD, "libexec", "pmuvm-kernel")
    init = os.path.join(BUILD, "libexec", "pmuvm-run-init")
    fsd = virtiofsd_find()
    if not fsd:
        return {"skipped": "no virtiofsd (Debian: apt-get install qemu-system-common)"}
    p = subprocess.run([helper, init], capture_output=True, text=True)
    if p.returncode != 0:
        return {"skipped": "no kernel: " + p.stderr.strip()}
    qemu = shutil.which(os.environ.get("QEMU", "qemu-system-x86_64"))
    cpu = "host"
    reps = 1 if QUICK else 3
    t = {"pmuvm_s": [], "qemu_s": [], "helper_s": []}
    for i in range(reps):
        for who in (("pmuvm", "qemu") if i % 2 == 0 else ("qemu", "pmuvm")):
            if who == "pmuvm":
                cmd = [os.path.join(BUILD, "pmuvm"), "run", "--timeout", str(RUN_TIMEOUT),
                       "--", "true"]
                t0 = time.monotonic()
                p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                                   text=True)
                t["pmuvm_s"].append(time.monotonic() - t0)
                if p.returncode != 0:
                    die("%s failed with status %d:\n%s%s" % (" ".join(cmd), p.returncode,
                                                             p.stdout[-3000:], p.stderr[-2000:]))
                continue
            if not qemu:
                continue
            with tempfile.TemporaryDirectory() as tmp:
                wall, th, p = qemu_run(qemu, fsd, helper, init, tmp, cpu)
                if (p.returncode % 2 == 0 and cpu == "host" and
                        "failed to set MSR 0x10a" in p.stderr):
                    cpu = QEMU_FALLBACK_CPU
                    wall, th, p = qemu_run(qemu, fsd, helper, init, tmp, cpu)
            # isa-debug-exit: QEMU ends with (V << 1) | 1; run-init writes true's 0
            if p.returncode != 1:
                die("QEMU/KVM's run of true failed with status %d:\n%s%s" % (
                    p.returncode, p.stdout[-3000:], p.stderr[-2000:]))
            t["qemu_s"].append(wall)
            t["helper_s"].append(th)
    res = {"reps": reps, "virtiofsd": fsd, "qemu_cpu": cpu if qemu else None}
    res.update({k: stats(v) for k, v in t.items() if v})
    if t["qemu_s"]:
        res["ratio"] = stats(a / b for a, b in zip(t["pmuvm_s"], t["qemu_s"]))
    return res


def run_lines(rn):
    """Section 7 of the table: pmuvm run's boot to COMMAND."""
    if "skipped" in rn:
        return ["7. pmuvm run, boot to COMMAND: skipped: " + rn["skipped"]]
    out = ["7. pmuvm run, boot to COMMAND (`pmuvm run -- true`, wall, %d runs each; QEMU/KVM: "
           "microvm, the same kernel as its bzImage, initramfs, spec and virtiofsd)" % rn["reps"]]
    if rn.get("in_lab"):
        out.append("   IN THE LAB (%s): the emulator's times" % rn["in_lab"])
    out.append("   pmuvm %s, QEMU/KVM %s%s" % (
        fmt(rn["pmuvm_s"], " s", 2), fmt(rn["qemu_s"], " s", 2) if "qemu_s" in rn
        else "not run (no QEMU)", ", ratio " + fmt(rn["ratio"], "x", 2) if "ratio" in rn else ""))
    if "helper_s" in rn:
        out.append("   of which pmuvm-kernel alone (in both times) %s" %
                   fmt(rn["helper_s"], " s", 2))
    return out


LINUX_SECTIONS = (("linux", bench_linux), ("run", bench_run))


def linux_sections(kernel_mode_emulated, only=None):
    """Sections 6 and 7, which boot Linux: {"linux": ..., "run": ...} (`only`: those named)."""
    names = only or [n for n, _ in LINUX_SECTIONS]
    if kernel_mode_emulated:
        # A Linux boot takes many minutes where KVM emulates guest kernel
        # mode (kvm_pvm): these sections run in the lab instead, in one boot.
        with tempfile.TemporaryDirectory(dir=os.path.abspath(BUILD)) as tmp:
            out = os.path.join(tmp, "linux.json")
            p = subprocess.run(["tests/lab/pmuvm-lab", "--quiet", "--", sys.executable,
                                sys.argv[0], BUILD] + (["--quick"] if QUICK else []) +
                               ["--linux-only", out, "--only", ",".join(names)],
                               capture_output=True, text=True)
            if p.returncode != 0 or not os.path.exists(out):
                die("the Linux sections in the lab failed (status %d):\n%s%s" % (
                    p.returncode, p.stdout[-3000:], p.stderr[-2000:]))
            with open(out) as f:
                res = json.load(f)
        for r in res.values():
            r["in_lab"] = "this host's KVM emulates guest kernel mode: run in the lab"
        return res
    res = {}
    for name, fn in LINUX_SECTIONS:
        if name in names:
            print("bench: %s ..." % name, file=sys.stderr, flush=True)
            res[name] = fn()
    return res

def table(m, r):
    msr, smp, ex, pmi = r["msr"], r["sample"], r["exact"], r["pmi"]
    out = []
    p = out.append
    p("pmuvm bench  %s  %s, %d CPUs, kernel %s, %s, load %s -> %s" % (
        m["date_utc"], m["cpu_model"], m["nproc"], m["kernel"], ",".join(m["kvm_modules"]),
        " ".join(m["loadavg_start"]), " ".join(m["loadavg_end"])))
    p("median [min..max] over interleaved repetitions; TSC %d kHz" % m["tsc_khz"])
    if m.get("lab"):
        p("RUN IN THE LAB (nested KVM under QEMU TCG, tests/lab/): the callgrind instruction")
        p("counts are pmuvm's own and hold anywhere; the times and rates are the emulator's,")
        p("not benchmarks.")
    p("")
    p("1. MSR path (guest RDTSC, CPL0 loop, %d accesses per block; KVM MSR %s)" % (
        msr["n"], msr["kvm_msr"]))
    p("   RDMSR PMC0 (pmuvm)  %s   vs KVM %s   ratio %s (net of loop %s)" % (
        fmt(msr["pmu_rd_us"], " us"), fmt(msr["kvm_rd_us"], " us"), fmt(msr["ratio_rd"], "x", 1),
        "%.1fx" % msr["ratio_rd_net"]))
    p("   WRMSR PMC0 (pmuvm)  %s   vs KVM %s   ratio %s (net of loop %s)" % (
        fmt(msr["pmu_wr_us"], " us"), fmt(msr["kvm_wr_us"], " us"), fmt(msr["ratio_wr"], "x", 1),
        "%.1fx" % msr["ratio_wr_net"]))
    p("   one emulated CPL0 instruction: %s" % fmt(msr["cpl0_insn_us"], " us", 3))
    p("   pmuvm's own time per exit (between two KVM_RUNs): %.2f us" % msr["vmm_us_per_exit"])
    ir = msr["callgrind_ir_per_exit"]
    p("   pmuvm instructions per MSR exit (callgrind): %.0f in the vCPU thread "
      "(goal <= 300; the PMU's MSR handler pmu_msr %.0f, the idle sources' hooks: "
      "rdpmc %.0f, clock %.0f, exact %.0f)" % (
          ir["vcpu_thread"], ir["pmu_msr"], ir["rdpmc_before_run"], ir["clock_before_run"],
          ir["exact_before_run"]))
    p("")
    p("2. Sampling overhead (CPL3 loop, %d iterations, fixed counter 1 USR+PMI)" % smp["iters"])
    c1 = smp["cpus1"]
    p("   no counter: %s" % fmt(c1["base_ms"], " ms", 1))
    for f in (1000, 10000):
        p("   %5d Hz: run time ratio %s%s, PMIs per second of run time %s, "
          "run time added per PMI %s" % (
              f, fmt(c1["ratio_%dHz" % f], "", 3), " (goal <= 1.02)" if f == 1000 else "",
              fmt(c1["pmis_per_s_%dHz" % f], "", 0), fmt(c1["us_per_pmi_%dHz" % f], " us", 0)))
    p("")
    p("3. Exact counting vs bare single-step (CPL0 loop, PMUVM_BENCH_RAW_STEP=1)")
    for size, d in ex["sizes"].items():
        p("   %6s insns: counted %s/s, raw %s/s, ratio %s (goal >= 0.95), "
          "pmuvm share of a step %s" % (
              size, fmt(d["counted_per_s"], "", 0), fmt(d["raw_per_s"], "", 0),
              fmt(d["ratio"], "", 3), fmt(d["pmuvm_share"], "", 3)))
    p("   pmuvm's own time between two KVM_RUNs, share of the step round trip: counted %s "
      "(%s per step), raw %s (%s)" % (
          fmt(ex["vmm_share_counted"], "", 3), fmt(ex["vmm_us_per_exit_counted"], " us", 2),
          fmt(ex["vmm_share_raw"], "", 3), fmt(ex["vmm_us_per_exit_raw"], " us", 2)))
    ir = ex["callgrind_ir_per_step"]
    p("   pmuvm instructions per step (callgrind): %.0f in the vCPU thread (goal <= 1000; "
      "exact_before_run %.0f incl. icache_fetch %.0f; exact_after_run %.0f; exit_debug %.0f)" % (
          ir["vcpu_thread"], ir["exact_before_run"], ir["icache_fetch"],
          ir["exact_after_run"], ir["exit_debug"]))
    p("")
    en = r["engines"]
    p("3b. Counting engines (bench_exact's loop; --exact step / emulate / off)")
    for where, what in (("cpl0", "CPL0"), ("cpl3", "CPL3")):
        e = en[where]
        p("   %s: step %s/s, emulate %s/s, uncounted %s/s; emulate/step %.0fx, "
          "uncounted/emulate %.1fx%s" % (
              what, fmt(e["step"]["per_s"], "", 0), fmt(e["emulate"]["per_s"], "", 0),
              fmt(e["off"]["per_s"], "", 0), e["emulate_over_step"], e["off_over_emulate"],
              "" if e["emulate"]["counted"] else " (not counted: this host cannot step CPL3)"))
    p("")
    p("4. PMI latency, clock source (CPL3 loop's last RDTSC -> handler): %s, p90 %.1f us" % (
        fmt(pmi["latency_us"], " us", 1), pmi["latency_us"]["p90"]))
    p("   of which the guest's emulated entry stub, ~%d CPL0 instructions: ~%.1f us" % (
        ENTRY_INSNS, ENTRY_INSNS * msr["cpl0_insn_us"]["median"]))
    p("   exact source skid (exact_pmi, preset -N, N in %s): max |skid| = %d instructions, "
      "%d bad cases (must be 0)" % (",".join(str(d["n"]) for d in pmi["skid"]),
                                    pmi["skid_max_abs"], pmi["skid_bad_cases"]))
    p("")
    p("5. Scaling: a vCPU's run time with 2 vCPUs busy / with 1 vCPU")
    for f in (0, 1000, 10000):
        p("   %5d Hz: %s" % (f, fmt(smp["scaling_%dHz" % f], "", 3)))
    p("")
    out += linux_lines(r["linux"])
    p("")
    out += run_lines(r["run"])
    return "\n".join(out)


def markdown(m, r):
    """The summary table of build/bench.md (docs/benchmarks.md, "Reading the results")."""
    msr, smp, ex, pmi = r["msr"], r["sample"], r["exact"], r["pmi"]
    c1 = smp["cpus1"]
    rows = [
        ("RDMSR IA32_PMC0, answered by pmuvm", fmt(msr["pmu_rd_us"], " us", 1)),
        ("RDMSR %s, answered inside KVM" % msr["kvm_msr"], fmt(msr["kvm_rd_us"], " us", 1)),
        ("ratio (net of the emulated loop)", "%s (%.1fx)" % (fmt(msr["ratio_rd"], "x", 1),
                                                             msr["ratio_rd_net"])),
        ("WRMSR IA32_PMC0 / %s" % msr["kvm_msr"], "%s / %s" % (
            fmt(msr["pmu_wr_us"], " us", 1), fmt(msr["kvm_wr_us"], " us", 1))),
        ("ratio (net of the emulated loop)", "%s (%.1fx)" % (fmt(msr["ratio_wr"], "x", 1),
                                                             msr["ratio_wr_net"])),
        ("pmuvm's own time per MSR exit (between two KVM_RUNs)",
         "%.1f us" % msr["vmm_us_per_exit"]),
        ("pmuvm instructions per MSR exit (callgrind; goal <= 300)", "%.0f (pmu_msr: %.0f)" % (
            msr["callgrind_ir_per_exit"]["vcpu_thread"], msr["callgrind_ir_per_exit"]["pmu_msr"])),
        ("one emulated CPL0 instruction", fmt(msr["cpl0_insn_us"], " us", 2)),
        ("CPL3 loop run time, sampling at 1 kHz / none (goal <= 1.02)",
         fmt(c1["ratio_1000Hz"], "", 3)),
        ("... PMIs per second of run time; run time added per PMI", "%.0f; %s" % (
            c1["pmis_per_s_1000Hz"]["median"], fmt(c1["us_per_pmi_1000Hz"], " us", 0))),
        ("CPL3 loop run time, sampling at 10 kHz / none", fmt(c1["ratio_10000Hz"], "", 2)),
        ("... PMIs per second of run time; run time added per PMI", "%.0f; %s" % (
            c1["pmis_per_s_10000Hz"]["median"], fmt(c1["us_per_pmi_10000Hz"], " us", 0))),
    ]
    for size, d in ex["sizes"].items():
        rows.append(("exact counting, %s-instruction loop: counted / raw instructions per s" % size,
                     "%.0f / %.0f" % (d["counted_per_s"]["median"], d["raw_per_s"]["median"])))
        rows.append(("ratio (goal >= 0.95)", fmt(d["ratio"], "", 2)))
    for where, what in (("cpl0", "CPL0"), ("cpl3", "CPL3")):
        e = r["engines"][where]
        rows.append(("counted %s instructions per s: --exact step / emulate / off (goal: "
                     "emulate >= 50M)" % what, "%.0f / %.0f / %.0f%s" % (
                         e["step"]["per_s"]["median"], e["emulate"]["per_s"]["median"],
                         e["off"]["per_s"]["median"],
                         "" if e["emulate"]["counted"] else " (CPL3 not steppable here: uncounted)")))
    rows += [
        ("pmuvm's own time between two KVM_RUNs / step round trip, counted (goal < 0.05)",
         "%s (%s per step)" % (fmt(ex["vmm_share_counted"], "", 3),
                               fmt(ex["vmm_us_per_exit_counted"], " us", 1))),
        ("... the same under the raw hook", "%s (%s per step)" % (
            fmt(ex["vmm_share_raw"], "", 3), fmt(ex["vmm_us_per_exit_raw"], " us", 1))),
        ("pmuvm instructions per step (callgrind)",
         "%.0f (goal <= 1000)" % ex["callgrind_ir_per_step"]["vcpu_thread"]),
        ("PMI latency, clock source (last user RDTSC -> handler)",
         fmt(pmi["latency_us"], " us", 0)),
        ("skid, exact source (preset -N on instructions)",
         "%d instructions in %d cases" % (pmi["skid_max_abs"], len(pmi["skid"]))),
        ("a vCPU's run time, 2 vCPUs busy / 1: no counter", fmt(smp["scaling_0Hz"], "", 2)),
        ("... sampling at 1 kHz", fmt(smp["scaling_1000Hz"], "", 2)),
    ]
    lx = r["linux"]
    if "skipped" in lx:
        rows.append(("Linux guest", "skipped: " + lx["skipped"]))
    else:
        b, st = lx["boot"], lx["steps_s"]
        rows.append(("Linux boot to user space (guest uptime): pmuvm / QEMU/KVM", "%s / %s" % (
            fmt(b["pmuvm_up_s"], " s", 2),
            fmt(b["qemu_up_s"], " s", 2) if "qemu_up_s" in b else "not run")))
        if "wall_ratio" in b:
            rows.append(("Linux boot to poweroff (wall), pmuvm / QEMU/KVM",
                         fmt(b["wall_ratio"], "x", 2)))
        for step, what, alone in LINUX_CHECKS:
            if step in st:
                rows.append(("Linux: %s (program alone)" % what, "%s (%s)" % (
                    fmt(st[step], " s", 2), fmt(st[alone], " s", 2) if alone in st else "-")))
        for mode, how in (("exact", ""), ("exact_off", ", --exact off")):
            g = lx.get("gzip_s", {}).get(mode, {})
            stopped = lx.get("gzip_stopped", {}).get(mode, [])
            for step, what, alone in GZIP_CHECKS:
                if step in g:
                    rows.append(("Linux%s: %s (program alone)" % (how, what), "%s%s (%s)" % (
                        "stopped after " if step in stopped else "", fmt(g[step], " s", 2),
                        fmt(g[alone], " s", 2) if alone and alone in g else "-")))
    rn = r["run"]
    if "skipped" in rn:
        rows.append(("pmuvm run, boot to COMMAND", "skipped: " + rn["skipped"]))
    else:
        rows.append(("`pmuvm run -- true` (wall): pmuvm / QEMU/KVM doing the same",
                     "%s / %s" % (fmt(rn["pmuvm_s"], " s", 2), fmt(rn["qemu_s"], " s", 2)
                                  if "qemu_s" in rn else "not run")))
        if "ratio" in rn:
            rows.append(("... ratio pmuvm / QEMU/KVM", fmt(rn["ratio"], "x", 2)))
    out = ["Measured %s UTC on %s (`nproc` %d), kernel %s, KVM modules %s, "
           "load average %s at the start and %s at the end, commit %s." % (
               m["date_utc"], m["cpu_model"], m["nproc"], m["kernel"],
               " + ".join(m["kvm_modules"]), " ".join(m["loadavg_start"]),
               " ".join(m["loadavg_end"]), m["commit"]),
           "Median [min..max] over interleaved repetitions." + (
               " Run in the lab (nested KVM under QEMU TCG): the instruction counts hold,"
               " the times are the emulator's, not benchmarks." if m.get("lab") else ""), "",
           "| measure | result |", "|---|---|"]
    out += ["| %s | %s |" % row for row in rows]
    return "\n".join(out) + "\n"


def main():
    global BUILD, QUICK
    args = sys.argv[1:]
    QUICK = "--quick" in args
    args = [a for a in args if a != "--quick"]
    linux_only, only = None, None
    if "--linux-only" in args:     # the Linux sections alone, their JSON to a file (the lab's run)
        i = args.index("--linux-only")
        linux_only = args[i + 1]
        del args[i:i + 2]
    if "--only" in args:           # with --linux-only: some of them (linux, run)
        i = args.index("--only")
        only = args[i + 1].split(",")
        del args[i:i + 2]
        if not linux_only or set(only) - set(n for n, _ in LINUX_SECTIONS):
            die("--only takes linux and/or run, with --linux-only")
    if args:
        BUILD = args[0]
    if linux_only:
        res = linux_sections(False, only)
        with open(linux_only, "w") as f:
            json.dump(res, f)
        for name, lines in (("linux", linux_lines), ("run", run_lines)):
            if name in res:
                print("\n".join(lines(res[name])))
        return
    if not os.path.exists(os.path.join(BUILD, "pmuvm")):
        die("no %s/pmuvm: run make first" % BUILD)
    for tool in ("valgrind", "callgrind_annotate"):
        if not shutil.which(tool):
            die("%s is needed (Debian: apt-get install valgrind)" % tool)
    m = machine()
    _, rep, _ = run_guest("bench_msr", "n=1 reps=1")
    tsc_khz = rep["config"]["pmu"]["tsc_khz"]
    m["tsc_khz"] = tsc_khz
    res = {}
    for name, fn in (("msr", bench_msr), ("sample", bench_sample), ("exact", bench_exact),
                     ("engines", bench_engines), ("pmi", bench_pmi)):
        print("bench: %s ..." % name, file=sys.stderr, flush=True)
        res[name] = fn(tsc_khz)
    res.update(linux_sections(bool(rep["debug"]["host"].get("kernel_mode_emulated"))))
    m["loadavg_end"] = open("/proc/loadavg").read().split()[:3]
    text = table(m, res)
    print(text)
    out = os.path.join(BUILD, "bench.json")
    with open(out, "w") as f:
        json.dump({"bench_version": 1, "quick": QUICK, "machine": m, "results": res}, f,
                  indent=1)
    md = os.path.join(BUILD, "bench.md")
    with open(md, "w") as f:
        f.write(markdown(m, res))
    print("\nwritten: %s, %s" % (out, md))
    if res["pmi"]["skid_bad_cases"]:
        die("the exact source showed skid or a missing PMI: %r" % res["pmi"]["skid"])


if __name__ == "__main__":
    main()
