#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pmuvm's --report files against their schema, docs/report.schema.json.

  report-schema.py validate FILE...
      Every FILE must be a report the schema accepts; each one that is not
      is listed with its errors.
  report-schema.py selftest
      The schema is a valid JSON Schema (draft 2020-12); docs/report.md
      documents each key it describes and no other; the samples under
      tests/report-schema/ are accepted (valid/) or rejected (invalid/), each
      invalid one for the reason invalid/reasons gives it and no other; and
      a key added to any object of a valid sample is rejected.

Exit status 0 when all is well, 1 when something failed, 2 when this
program cannot run (no jsonschema: Debian's python3-jsonschema, make deps).
"""
import glob
import json
import os
import re
import sys

try:
    import jsonschema
    Validator = jsonschema.Draft202012Validator
except (ImportError, AttributeError) as e:
    print("report-schema: needs python3-jsonschema 4 or later (make deps): %s" % e,
          file=sys.stderr)
    sys.exit(2)

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SCHEMA = os.path.join(TOP, "docs", "report.schema.json")
DOC = os.path.join(TOP, "docs", "report.md")
SAMPLES = os.path.join(TOP, "tests", "report-schema")
MAX_ERRORS = 5          # listed per report


def load(path):
    with open(path) as f:
        return json.load(f)


def where(error):
    """An error's place in the report, as docs/report.md writes keys."""
    return ".".join(str(p) for p in error.absolute_path) or "(top level)"


def short(text, n=200):
    return text if len(text) <= n else text[:n] + "..."


def errors_of(validator, path):
    """The validation errors of the report at path, as lines (none: valid)."""
    try:
        report = load(path)
    except (OSError, ValueError) as e:
        return ["not a JSON file: %s" % e]
    errs = sorted(validator.iter_errors(report), key=lambda e: list(e.absolute_path))
    lines = ["at %s: %s" % (where(e), short(e.message)) for e in errs[:MAX_ERRORS]]
    if len(errs) > MAX_ERRORS:
        lines.append("... and %d more" % (len(errs) - MAX_ERRORS))
    return lines


def reasons():
    """invalid/reasons: each invalid sample's name and the regular
    expression every one of its errors must match."""
    out = {}
    with open(os.path.join(SAMPLES, "invalid", "reasons")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                name, _, regex = line.rstrip("\n").partition("\t")
                out[name] = re.compile(regex)
    return out


def unexpected_errors(validator, path, reason):
    """The errors of the invalid sample at path its reason does not explain."""
    errs = validator.iter_errors(load(path))
    return ["at %s: %s" % (where(e), short(e.message)) for e in errs
            if not reason.search("at %s: %s" % (where(e), e.message))]


def image_of(path):
    try:
        return load(path)["config"]["image"]
    except (OSError, ValueError, KeyError, TypeError):
        return "?"


def validate(files):
    validator = Validator(load(SCHEMA))
    bad = 0
    for path in files:
        errs = errors_of(validator, path)
        if errs:
            bad += 1
            print("%s (guest %s): invalid report" % (path, image_of(path)))
            for line in errs:
                print("    " + line)
    print("%d of %d reports valid against %s" % (len(files) - bad, len(files),
                                                  os.path.relpath(SCHEMA, TOP)))
    return 1 if bad else 0


def resolve(schema, node):
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        if not ref.startswith("#/"):
            raise ValueError("only local $refs are expected: %s" % ref)
        node = schema
        for part in ref[2:].split("/"):
            node = node[part]
    return node


def key_paths(schema, node=None, prefix="", out=None):
    """Every key the schema describes, as a dotted path; arrays as name[]."""
    if out is None:
        out = set()
        node = schema
    node = resolve(schema, node)
    if not isinstance(node, dict):
        return out
    for key, sub in node.get("properties", {}).items():
        out.add(prefix + key)
        sub = resolve(schema, sub)
        if isinstance(sub, dict) and "items" in sub:
            key_paths(schema, sub["items"], prefix + key + "[].", out)
        key_paths(schema, sub, prefix + key + ".", out)
    for comb in ("allOf", "anyOf", "oneOf"):
        for sub in node.get(comb, []):
            key_paths(schema, sub, prefix, out)
    for cond in ("then", "else"):
        if cond in node:
            key_paths(schema, node[cond], prefix, out)
    return out


def doc_keys(text):
    """The keys docs/report.md's key tables document: rows with a part, S or D."""
    return set(re.findall(r"^\| `([^`]+)` \| [^|]+ \| [SD] \|", text, re.M))


def add_key_everywhere(report):
    """Copies of report, each with an undocumented key in one of its objects."""
    def objects(node, path):
        if isinstance(node, dict):
            yield path
            for k, v in node.items():
                yield from objects(v, path + [k])
        elif isinstance(node, list):
            for i, v in enumerate(node):
                yield from objects(v, path + [i])

    for path in list(objects(report, [])):
        copy = json.loads(json.dumps(report))
        node = copy
        for p in path:
            node = node[p]
        node["undocumented_key"] = 1
        yield ".".join(str(p) for p in path) or "(top level)", copy


def selftest():
    fails = []
    schema = load(SCHEMA)
    try:
        Validator.check_schema(schema)
    except jsonschema.SchemaError as e:
        print("not ok - %s is not a valid draft 2020-12 schema: %s" % (SCHEMA, e.message))
        return 1
    print("ok - %s is a valid draft 2020-12 schema" % os.path.relpath(SCHEMA, TOP))
    validator = Validator(schema)

    with open(DOC) as f:
        documented = doc_keys(f.read())
    described = key_paths(schema)
    for k in sorted(described - documented):
        fails.append("docs/report.md does not document `%s`" % k)
    for k in sorted(documented - described):
        fails.append("docs/report.md documents `%s`, which the schema does not have" % k)
    print("%s - docs/report.md documents the schema's %d keys and no others" %
          ("ok" if described == documented else "not ok", len(described)))

    valid = sorted(glob.glob(os.path.join(SAMPLES, "valid", "*.json")))
    invalid = sorted(glob.glob(os.path.join(SAMPLES, "invalid", "*.json")))
    if not valid or not invalid:
        fails.append("no samples in %s/valid and /invalid" % SAMPLES)
    for path in valid:
        errs = errors_of(validator, path)
        name = os.path.relpath(path, TOP)
        print("%s - %s is accepted" % ("not ok" if errs else "ok", name))
        fails += ["%s: %s" % (name, e) for e in errs]
    why = reasons()
    for path in invalid:
        errs = errors_of(validator, path)
        name = os.path.relpath(path, TOP)
        reason = why.get(os.path.basename(path))
        other = unexpected_errors(validator, path, reason) if errs and reason else []
        ok = errs and reason and not other
        print("%s - %s is rejected%s" % ("ok" if ok else "not ok", name,
                                         ": " + errs[0] if errs else ""))
        if not errs:
            fails.append("%s: accepted, but must be rejected" % name)
        elif not reason:
            fails.append("%s: no reason in invalid/reasons" % name)
        fails += ["%s: rejected for another reason too: %s" % (name, e) for e in other]
    for path in valid:
        report = load(path)
        accepted = [where for where, copy in add_key_everywhere(report)
                    if validator.is_valid(copy)]
        name = os.path.relpath(path, TOP)
        print("%s - %s with an undocumented key in any of its objects is rejected" %
              ("not ok" if accepted else "ok", name))
        fails += ["%s: an undocumented key is accepted at %s" % (name, w) for w in accepted]

    for f in fails:
        print("    " + f)
    return 1 if fails else 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "validate":
        return validate(argv[2:])
    if len(argv) == 2 and argv[1] == "selftest":
        return selftest()
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
