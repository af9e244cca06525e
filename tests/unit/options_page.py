#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Make docs/options.md from the tools' --help, or check it.

The four tools' --help come from one option table (common/base/pp_opts.c).
This script runs each tool with --help, reads every option's whole text and
default, and writes one page that lists each option once, with the tools
that accept it; where the tools differ (a default), each tool's text.

Usage: options_page.py PAGE TOOL... [--update]
  TOOL: the path of each of the four tools (rc_pingpong, ud_pingpong,
  srq_pingpong, xrc_pingpong), e.g. build/*_pingpong/*_pingpong.
  Without --update, exit 1 when PAGE is not what the tools print now.
"""
import os
import re
import subprocess
import sys

TOOLS = ["rc_pingpong", "ud_pingpong", "srq_pingpong", "xrc_pingpong"]
OPT = re.compile(r"^  (?:-(\S), |    )--([A-Za-z0-9_-]+)(=\S+)?(?:\s+(.*))?$")

HEAD = """# Options

Every option of the four tools, with the text and the default that their
`--help` prints. An option marked with some tools only is refused by the
others as unknown.

This page is made from the tools' `--help` by `tests/unit/options_page.py`
(`python3 tests/unit/options_page.py docs/options.md
build/*_pingpong/*_pingpong --update`); the
unit test `unit.options_page` fails when the page and the tools differ.

A client gives the server's host name or address as its last argument; a
server gives none:

    rc_pingpong [options]            start a server and wait for a client
    rc_pingpong [options] <host>     connect to the server at <host>

Numbers take a `0x` prefix for hexadecimal; sizes (`-s`, `-r`, `--max-mem`)
also take a K, M or G suffix. The exit statuses are listed in
[README.md](../README.md#exit-status).
"""


def parse_help(text):
    """[(key, label, text)] of every option of one --help, in its order."""
    opts, cur = [], None
    for line in text.split("\n"):
        m = OPT.match(line)
        if m:
            letter, name, arg, rest = m.groups()
            label = ("`-%s`, " % letter if letter else "") + \
                "`--%s%s`" % (name, arg or "")
            cur = [name, label, rest or ""]
            opts.append(cur)
        elif cur and line.startswith(" ") and line.strip():
            cur[2] = (cur[2] + " " + line.strip()).strip()
        elif not line.strip():
            cur = None
    return [tuple(o) for o in opts]


def merge(lists):
    """One order of the option names of every tool, each tool's order kept."""
    order = []
    for names in lists:
        prev = -1
        for n in names:
            if n in order:
                prev = order.index(n)
            else:
                order.insert(prev + 1, n)
                prev += 1
    return order


def page(exes):
    per_tool = {}
    for t in TOOLS:
        exe = exes[t]
        out = subprocess.run([exe, "--help"], check=True, capture_output=True,
                             text=True).stdout
        per_tool[t] = parse_help(out)
    order = merge([[o[0] for o in per_tool[t]] for t in TOOLS])
    lines = HEAD.rstrip("\n").split("\n") + [""]
    for name in order:
        have = {t: o for t in TOOLS for o in per_tool[t] if o[0] == name}
        label = next(iter(have.values()))[1]
        tools = [t for t in TOOLS if t in have]
        where = "all tools" if len(tools) == len(TOOLS) else ", ".join(tools)
        texts = {}
        for t in tools:
            texts.setdefault(have[t][2], []).append(t)
        if len(texts) == 1:
            lines.append("- %s (%s): %s" % (label, where, next(iter(texts))))
        else:
            lines.append("- %s (%s):" % (label, where))
            for text, ts in texts.items():
                lines.append("  - %s: %s" % (", ".join(ts), text))
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    path = argv[1]
    exes = {os.path.basename(a): a for a in argv[2:] if a != "--update"}
    if sorted(exes) != sorted(TOOLS):
        print("options_page.py: give the four tools: " + " ".join(TOOLS),
              file=sys.stderr)
        return 2
    want = page(exes)
    if "--update" in argv[3:]:
        open(path, "w", encoding="utf-8").write(want)
        return 0
    have = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    if have != want:
        import difflib
        sys.stdout.writelines(difflib.unified_diff(
            have.splitlines(True), want.splitlines(True), path, "--help"))
        print("FAIL: %s is not what the tools' --help prints; run "
              "python3 tests/unit/options_page.py %s "
              "build/*_pingpong/*_pingpong --update" % (path, path))
        return 1
    print("%s: %d lines, as the tools print" % (path, want.count("\n")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
