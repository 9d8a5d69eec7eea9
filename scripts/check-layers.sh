#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Part of `make check`: vmm/'s folders include each other only down the
# layers declared below (docs/architecture.md, "Layers"). Fails, listing
# FILE:LINE, where an `#include "dir/file.h"` of vmm/ points to a folder on
# the same line or a line above, or where a folder is on no line.
#
# A node is a folder of vmm/ (vmm/exact/...), or a file at vmm/'s top by
# its name without the ending (config: config.c and config.h). An include
# is resolved as the compiler does (the including file's folder, then
# -Iinclude -Ivmm: the Makefile's HOST_CFLAGS); one that is not a file of
# vmm/ (include/, a system header) is not part of the graph.
#
#   scripts/check-layers.sh [BUILD_DIR]   checks this tree (BUILD_DIR unused)
#   scripts/check-layers.sh --graph       prints the folder graph, by layer
#   scripts/check-layers.sh --root DIR    checks the tree at DIR instead
# First it checks that it can fail, on a tree with one of each mistake.
set -u
cd "$(dirname "$0")/.." || exit 1
command -v python3 >/dev/null || { echo "check-layers: python3 is missing (make deps)"; exit 1; }

exec python3 - "$@" <<'EOF'
import os, re, sys, tempfile

# Top to bottom; each line's nodes include only nodes on lines below it.
LAYERS = """
main                                    the program: the only place that exits
board report signals run                the board, the report, stopping, pmuvm run
report_debug progress                   the report's debug part, the progress line
exact clock pebs rdpmc profile dev      vCPU features and devices
pmu                                     the PMU glue: model, MSR exits, PMIs, listeners
machine                                 VM, vCPUs, run loop, port I/O, guest debug
emu                                     the x86 emulator the exact source runs counted code in
kvm boot x86 out report_json            /dev/kvm, image loading, x86 helpers, output files
mem config                              guest memory, the configuration
config_filter                           the event filter's file
model                                   the PMU model, pure C
log exitcode                            used everywhere
"""

INC_DIRS = ("include", "vmm")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')

def layers():
    order = {}
    for n, line in enumerate(l for l in LAYERS.split("\n") if l.strip()):
        for name in line.split("  ")[0].split():
            order[name] = n
    return order

def node(path):
    """The node of a file under vmm/: its folder, or its name at the top."""
    parts = path.split("/")
    return parts[1] if len(parts) > 2 else os.path.splitext(parts[1])[0]

def resolve(root, src, inc):
    for base in (os.path.dirname(src),) + INC_DIRS:
        p = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(os.path.join(root, p)):
            return p
    return None

def edges(root):
    """(file, line, from node, to node, included path) of every include between nodes."""
    out = []
    for d, dirs, files in os.walk(os.path.join(root, "vmm")):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            src = os.path.relpath(os.path.join(d, f), root)
            with open(os.path.join(root, src), encoding="utf-8", errors="replace") as fh:
                for n, line in enumerate(fh, 1):
                    m = INCLUDE.match(line)
                    t = m and resolve(root, src, m.group(1))
                    if t and t.startswith("vmm/") and node(src) != node(t):
                        out.append((src, n, node(src), node(t), m.group(1)))
    return out

def check(root):
    order, problems, unknown = layers(), [], set()
    for src, n, a, b, inc in edges(root):
        for x in (a, b):
            if x not in order and x not in unknown:
                unknown.add(x)
                problems.append("%s:%d: %s is on no line of the layers: add it" % (src, n, x))
        if a in order and b in order and order[b] <= order[a]:
            where = "the same layer as" if order[b] == order[a] else "a layer above"
            problems.append("%s:%d: includes \"%s\": %s is on %s %s" % (src, n, inc, b, where, a))
    return problems

def self_test():
    files = {
        "vmm/pmu/glue.c": '#include "exact/exact.h"\n#include "pmu/glue.h"\n#include "x86-pmu/msr.h"\n',
        "vmm/pmu/glue.h": '#include "machine/vm.h"\n',
        "vmm/exact/exact.h": '#include "rdpmc/rdpmc.h"\n#include "x86/decode.h"\n',
        "vmm/rdpmc/rdpmc.h": '',
        "vmm/machine/vm.h": '#include "config.h"\n',
        "vmm/x86/decode.h": '#include <linux/kvm.h>\n',
        "vmm/config.h": '',
        "vmm/newdir/x.c": '#include "log.h"\n',
        "vmm/log.h": '',
        "include/x86-pmu/msr.h": '',
    }
    with tempfile.TemporaryDirectory() as root:
        for p, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(p)), exist_ok=True)
            with open(os.path.join(root, p), "w") as f:
                f.write(text)
        got = sorted(p.split(": ")[0] for p in check(root))
    want = ["vmm/exact/exact.h:1", "vmm/newdir/x.c:1", "vmm/pmu/glue.c:1"]
    if got != want:
        print("check-layers: the check itself is broken: found %r, expected %r" % (got, want))
        sys.exit(1)

def graph(root):
    order, out = layers(), {}
    for src, n, a, b, inc in edges(root):
        out.setdefault(a, set()).add(b)
    for a in sorted(out, key=lambda x: (order.get(x, -1), x)):
        print("%-14s -> %s" % (a, " ".join(sorted(out[a], key=lambda x: (order.get(x, -1), x)))))

args = sys.argv[1:]
root = "."
if "--root" in args:
    root = args[args.index("--root") + 1]
if "--graph" in args:
    graph(root)
    sys.exit(0)
self_test()
problems = check(root)
for p in problems:
    print(p)
if problems:
    print("check-layers: %d include(s) against the layers (scripts/check-layers.sh, docs/architecture.md \"Layers\")"
          % len(problems))
    sys.exit(1)
print("check-layers: %d includes between %d nodes of vmm/ go down the layers"
      % (len(edges(root)), len(layers())))
EOF
