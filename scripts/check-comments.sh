#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Part of `make check`: the sources' comments cite documentation that exists.
# Fails, listing FILE:LINE, where a source file
#   - cites the README (`README "Heading"`, `README,`, `(README`, `see the
#     README`, `the README's`): reference text lives in docs/*.md;
#   - cites a seed document ("seed 002"), an issue number ("issue #12"),
#     ../shared, or a bare "Spec 4.2" (name the spec: the SDM, the APM,
#     Windows docs, or docs/intel-pmu.md 4.2);
#   - cites `docs/X.md, "Heading"` (or tests/lab/README.md) and that file or
#     heading does not exist, or `docs/X.md N.N` and no heading N.N exists.
# A citation may wrap across comment lines. Sources: the files git tracks
# (else all files) under vmm/, guest-shim/, include/, tests/, fuzz/ with the
# endings .c .h .S .ld .py .sh, Makefile, mk/*.mk, scripts/*,
# tests/lab/*, tests/linux/*, qemu-configs/*, .ci/*; not *.md files.
# Run by scripts/run-tests.sh (the build dir as $1, unused); first it checks
# that it can fail, on a file with one of each mistake.
set -u
cd "$(dirname "$0")/.." || exit 1
command -v python3 >/dev/null || { echo "check-comments: python3 is missing (make deps)"; exit 1; }

exec python3 - "$@" <<'EOF'
import bisect, os, re, subprocess, sys, tempfile

SELF = "scripts/check-comments.sh"
CODE_DIRS = ("vmm/", "guest-shim/", "include/", "tests/", "fuzz/")
CODE_EXT = (".c", ".h", ".S", ".ld", ".py", ".sh")
ANY_UNDER = ("scripts/", "tests/lab/", "tests/linux/", "qemu-configs/", ".ci/", "mk/")

def is_source(p):
    if p == SELF or p.endswith(".md") or "/__pycache__/" in p:
        return False
    if p == "Makefile" or (p.startswith("mk/") and p.endswith(".mk")):
        return True
    if p.startswith(ANY_UNDER):
        return True
    return p.startswith(CODE_DIRS) and p.endswith(CODE_EXT)

def sources():
    try:
        out = subprocess.run(["git", "ls-files"], capture_output=True, text=True,
                             check=True).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        out = [os.path.relpath(os.path.join(d, f)) for d, _, fs in os.walk(".") for f in fs]
    return sorted(p for p in out if p and os.path.isfile(p) and is_source(p))

# Leading comment markers, stripped so that a citation can wrap across lines.
LEADER = re.compile(r'^\s*(?:/\*+|\*+/?|//+|#+|;+|\.\\")?\s?')
FORBIDDEN = [
    ("cites the README (cite docs/*.md)",
     re.compile(r'(?<![\w/.-])README(?:\.md)?(?=\s*"|,|\)|\'s\b|:)|\(README\b|\b[Ss]ee (?:the )?README\b')),
    ("cites a seed document", re.compile(r'\b[Ss]eeds? 0\d*')),
    ("cites an issue number", re.compile(r'\b[Ii]ssues? #?\d')),
    ("cites ../shared", re.compile(r'(?:\.\./|/work/)shared\b')),
    ("cites a bare \"Spec N\" (name the spec or the docs/*.md section)",
     re.compile(r'\bSpec \d')),
]
DOC = r'((?:docs/[\w.-]+|tests/lab/README)\.md)'
HEADING_CITE = re.compile(DOC + r',\s*("[^"]+"(?:\s*(?:,|and)\s*"[^"]+")*)')
NUMBER_CITE = re.compile(DOC + r' (\d+(?:\.\d+)*)(?![\d.]*\d)')

_headings = {}
def headings(doc):
    if doc not in _headings:
        hs = set()
        if os.path.isfile(doc):
            with open(doc, encoding="utf-8", errors="replace") as f:
                in_code = False
                for line in f:
                    if line.startswith("```"):
                        in_code = not in_code
                    elif not in_code and re.match(r'#+ ', line):
                        hs.add(line.split(" ", 1)[1].strip())
        _headings[doc] = hs if os.path.isfile(doc) else None
    return _headings[doc]

def has_number(hs, num):
    for n in (num, num.rsplit(".", 1)[0]) if "." in num else (num,):
        if any(re.match(re.escape(n) + r'(?:\.|\s)', h) for h in hs):
            return True
    return False

def check(path, text):
    lines = text.split("\n")
    joined, starts = [], []
    pos = 0
    for line in lines:
        s = LEADER.sub("", line, count=1)
        starts.append(pos)
        joined.append(s)
        pos += len(s) + 1
    j = " ".join(joined)
    where = lambda off: bisect.bisect_right(starts, off)
    found = []
    for why, rx in FORBIDDEN:
        for m in rx.finditer(j):
            found.append((where(m.start()), why, m.group(0)))
    for m in HEADING_CITE.finditer(j):
        doc, hs = m.group(1), headings(m.group(1))
        if hs is None:
            found.append((where(m.start()), "cites a missing file", doc))
            continue
        for h in re.findall(r'"([^"]+)"', m.group(2)):
            h = re.sub(r'\s+', " ", h)
            if h not in hs:
                found.append((where(m.start()), "cites a heading %s lacks" % doc, '"%s"' % h))
    for m in NUMBER_CITE.finditer(j):
        doc, hs = m.group(1), headings(m.group(1))
        if hs is None:
            found.append((where(m.start()), "cites a missing file", doc))
        elif not has_number(hs, m.group(2)):
            found.append((where(m.start()), "cites a section %s lacks" % doc, m.group(2)))
    return sorted(set(found))

def self_test():
    bad = ('/*\n * README, "Where counts come from"; seed 002; issue #3; Spec 4.2;\n'
           ' * docs/counting.md, "No such\n * heading"; docs/intel-pmu.md 99.1;\n'
           ' * fine: docs/counting.md, "Kernel runs"; docs/intel-pmu.md 4.2 step 1;\n'
           ' * install -m 0644 README.md; vmm/model/README.md; tests/lab/README.md,\n'
           ' * "Known failures"\n */\n')
    got = [f[1].split(" (")[0] for f in check("self-test.c", bad)]
    want = ["cites the README", "cites a seed document", "cites an issue number",
            "cites a bare \"Spec N\"", "cites a heading docs/counting.md lacks",
            "cites a section docs/intel-pmu.md lacks"]
    if sorted(got) != sorted(want):
        print("check-comments: the check itself is broken: found %r, expected %r" % (got, want))
        sys.exit(1)

self_test()
files = sources()
problems = 0
for p in files:
    with open(p, encoding="utf-8", errors="replace") as f:
        text = f.read()
    for line, why, what in check(p, text):
        print("%s:%d: %s: %s" % (p, line, why, what))
        problems += 1
if problems:
    print("check-comments: %d citation(s) to fix in %d source files" % (problems, len(files)))
    sys.exit(1)
print("check-comments: %d source files cite only documentation that exists" % len(files))
EOF
