#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Split callgrind profiles into instructions per round trip.

Usage: cgsplit.py LABEL N1 FULL1 LOOP1 N2 FULL2 LOOP2

FULLn is the profile of a client run of Nn round trips; LOOPn the profile
of the same run collected only inside the tool's loop function
(--collect-atstart=no --toggle-collect=FN), or "-" when the tool has no
such function (its loop is in main: everything that grows with N is the
loop).  Both profiles must be written with --compress-strings=no
--compress-pos=no.

What grows from N1 to N2 round trips, divided by N2 - N1, is the cost of
one round trip in the steady state: start-up and tear-down cancel out.
Prints one line:

  PPICOUNT,LABEL,TOTAL,LOOP,AFTER,OURS,VERBS,LIBC,OTHER,POLLS

TOTAL all user-space instructions per round trip; LOOP those inside the
loop function (or TOTAL); AFTER = TOTAL - LOOP (sorting samples, statistics:
work after the loop that grows with N); OURS/VERBS/LIBC/OTHER split LOOP by
the object the instructions ran in (the tool's own binary; libibverbs and
its provider; libc; anything else); POLLS the provider's poll_cq calls per
round trip (two of them, at least, return a completion: the rest found the
CQ empty).
"""
import re
import sys


def parse(path):
    """Self cost per object and calls of poll_cq functions."""
    by_obj = {}
    polls = 0
    obj = "?"
    cfn = None
    after_calls = False
    events = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("events:"):
                events = line.split()[1:]
                continue
            if line.startswith("ob="):
                obj = line[3:]
                continue
            if line.startswith("cfn="):
                cfn = line[4:]
                continue
            if line.startswith("calls="):
                if cfn and "poll_cq" in cfn:
                    polls += int(line[6:].split()[0])
                after_calls = True
                continue
            if line[0].isdigit() or line[0] in "+-*":
                if after_calls:
                    after_calls = False  # inclusive cost of a call
                    continue
                parts = line.split()
                if events and len(parts) >= 2:
                    by_obj[obj] = by_obj.get(obj, 0) + int(parts[1])
                continue
    return by_obj, polls


def classify(obj, tool):
    name = obj.rsplit("/", 1)[-1]
    if tool and name == tool:
        return "ours"
    if re.match(r"lib(ibverbs|rxe|mlx[45]|efa|bnxt|hns|irdma|siw|qedr)", name):
        return "verbs"
    if re.match(r"libc[.-]", name):
        return "libc"
    return "other"


def groups(by_obj, tool):
    g = {"ours": 0, "verbs": 0, "libc": 0, "other": 0}
    for obj, n in by_obj.items():
        g[classify(obj, tool)] += n
    return g


def main(argv):
    if len(argv) != 8:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    label, n1, full1, loop1, n2, full2, loop2 = argv[1:]
    n1, n2 = int(n1), int(n2)
    tool = label.split(":")[0]
    f1, p1 = parse(full1)
    f2, p2 = parse(full2)
    d = n2 - n1
    total = (sum(f2.values()) - sum(f1.values())) / d
    polls = (p2 - p1) / d
    if loop1 != "-":
        l1, _ = parse(loop1)
        l2, _ = parse(loop2)
    else:
        l1, l2 = f1, f2
    g1, g2 = groups(l1, tool), groups(l2, tool)
    split = {k: (g2[k] - g1[k]) / d for k in g1}
    loop = sum(split.values())
    print("PPICOUNT,%s,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.2f" %
          (label, total, loop, total - loop, split["ours"], split["verbs"],
           split["libc"], split["other"], polls))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
