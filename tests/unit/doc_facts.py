#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check the numbers the documents quote against the code.

pp_mangen (docs/man/pp_mangen.c) prints the facts from the code: wire
record sizes, defaults, limits and exit statuses ("pp_mangen facts").  This
script finds where README.md, docs/*.md and docs/dev/*.md quote them and fails on any that
differ.  It also checks the generated blocks: the lines between

    <!-- generated: pp_mangen ARGS -->
    <!-- end generated -->

must be what "pp_mangen ARGS" prints (README.md's exit status table), and
every docs/*.md and docs/dev/*.md must be linked from README.md (its
document map), and every relative link of a document must name a file
that exists.

Usage: doc_facts.py PP_MANGEN SOURCE_DIR [--update]
  --update rewrites the generated blocks instead of checking them.
"""
import glob
import os
import re
import subprocess
import sys

# (fact, pattern): group 1 of every match of the pattern must be the fact.
PATTERNS = [
    ("wire_header", r"\b(\d+)-byte header"),
    # (a --trace line "sent HELLO (76 bytes)" counts the header too)
    ("wire_hello", r"(?<!sent )(?<!received )\bHELLO\**:? \((\d+) bytes"),
    ("wire_addr", r"\bADDRS\b[^\n]{0,40}?\b4 \+ (\d+)"),
    ("wire_addr", r"struct pp_addr[^\n]{0,40}?\b(\d+) bytes"),
    ("wire_gid", r"\bGIDS\b[^\n]{0,40}?\b4 \+ (\d+)"),
    ("wire_done", r"(?<!sent )(?<!received )\bDONE\**:? \((\d+) bytes"),
    ("wire_error", r"\bERROR\**:? \((\d+) bytes"),
    ("wire_alive", r"(?<!sent )(?<!received )\bALIVE\**:? \((\d+) bytes"),
    ("default_port", r"TCP port \(?(?:default )?(\d{4,5})"),
    ("default_port", r"`-p`[^\n]{0,20}\(default (\d+)\)"),
    ("default_iters", r"(\d+) iterations by default"),
    ("default_hop_limit", r"hop limit[^\n]{0,10}\(default (\d+)\)"),
    ("max_qps", r"\(1\.\.(\d+)\) and one record per QP"),
    ("exit_status", r"\bexit status (\d+)\b"),
    ("exit_status", r"\bexits? (\d+)\b"),
]
# Exit statuses of other programs that the documents quote.
NOT_OURS = {"77": "a test that finds no RDMA device (CTest's skip)",
            "124": "timeout(1)"}
GEN = re.compile(r"^<!-- generated: pp_mangen (.+?) -->$")
END = "<!-- end generated -->"


def facts(mangen):
    out = subprocess.run([mangen, "facts"], check=True, capture_output=True,
                         text=True).stdout
    f = {}
    for line in out.splitlines():
        name, value = line.split()
        f.setdefault(name, set()).add(value)
    return f


def generated(path, lines, mangen, update):
    """Check or rewrite the generated blocks of LINES; return the errors."""
    errors, i = [], 0
    while i < len(lines):
        m = GEN.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j] != END:
            j += 1
        if j == len(lines):
            errors.append("%s:%d: generated block without %s" % (path, i + 1, END))
            break
        want = subprocess.run([mangen] + m.group(1).split(), check=True,
                              capture_output=True, text=True).stdout
        want = want.rstrip("\n").split("\n")
        if update:
            lines[i + 1:j] = want
            j = i + 1 + len(want)
        elif lines[i + 1:j] != want:
            errors.append("%s:%d: not what \"pp_mangen %s\" prints now (run "
                          "tests/unit/doc_facts.py PP_MANGEN SOURCE_DIR --update)"
                          % (path, i + 1, m.group(1)))
        i = j + 1
    return errors


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    mangen, top = argv[1], argv[2]
    update = "--update" in argv[3:]
    f = facts(mangen)
    files = [os.path.join(top, "README.md")] + sorted(
        glob.glob(os.path.join(top, "docs", "*.md")) +
        glob.glob(os.path.join(top, "docs", "dev", "*.md")))
    errors, quoted = [], 0
    for path in files:
        text = open(path, encoding="utf-8").read()
        lines = text.split("\n")
        errors += generated(path, lines, mangen, update)
        if update:
            open(path, "w", encoding="utf-8").write("\n".join(lines))
        rel = os.path.relpath(path, top)
        for name, pat in PATTERNS:
            for m in re.finditer(pat, text):
                value = m.group(1)
                line = text.count("\n", 0, m.start()) + 1
                if name == "exit_status" and value in NOT_OURS:
                    continue
                quoted += 1
                if value not in f[name]:
                    errors.append("%s:%d: \"%s\": %s is %s in the code" % (
                        rel, line, m.group(0), name, " or ".join(sorted(f[name]))))
    # every document is in README.md's list
    readme = open(files[0], encoding="utf-8").read()
    for path in files[1:]:
        rel = os.path.relpath(path, top)
        if "](%s)" % rel not in readme:
            errors.append("README.md: %s is not in the document list" % rel)
    # every relative link names a file that exists
    for path in files:
        text = open(path, encoding="utf-8").read()
        for m in re.finditer(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue
            if not os.path.exists(os.path.join(os.path.dirname(path), target)):
                line = text.count("\n", 0, m.start()) + 1
                errors.append("%s:%d: the link to %s names no file" % (
                    os.path.relpath(path, top), line, target))
    for e in errors:
        print("FAIL: " + e)
    print("%d quoted facts checked, %d wrong" % (quoted, len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
