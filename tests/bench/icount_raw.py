# SPDX-License-Identifier: MIT
"""The output of tests/bench/icount-inside.sh, read once for each section
that tests/bench/icount.sh writes from it (the Send rows, the one-sided
rows, the servers' rows: kind_of())."""

import sys

ONE_SIDED = ("write", "read", "fetch-add")  # rows of the one-sided section


def kind_of(label):
    """The section a row's LABEL (WHO:TRANSPORT-OR-OPERATION:SIZE) belongs
    to: "server" (WHO srv-*: the server counted), "ops" (the one-sided
    operations) or "send"."""
    f = label.split(":")
    if f[0].startswith("srv-"):
        return "server"
    return "ops" if f[1:2] and f[1] in ONE_SIDED else "send"


def load(path, kind):
    """rows, fns, info, rss, cal of the raw output at PATH: the PPICOUNT rows
    (and their PPICOUNT-FN, PPICOUNT-POLL lines) of section KIND (kind_of())."""
    rows, fns, info, rss, cal, loopfn = {}, {}, {}, [], {}, {}
    for line in open(path):
        f = line.rstrip("\n").split(",")
        if f[0] in ("PPICOUNT", "PPICOUNT-FN", "PPICOUNT-POLL",
                    "PPICOUNT-LOOPFN") and \
                len(f) > 1 and kind_of(f[1]) != kind:
            continue
        if f[0] == "PPICOUNT" and len(f) == 11:
            rows[f[1]] = Row(float(x) for x in f[2:])
        elif f[0] == "PPICOUNT-LOOPFN" and len(f) == 3:
            loopfn[f[1]] = f[2]
        elif f[0] == "PPICOUNT-FN" and len(f) == 4:
            fns.setdefault(f[1], []).append((f[2], float(f[3])))
        elif f[0] == "PPICOUNT-INFO" and len(f) >= 3:
            info.setdefault(f[1], ",".join(f[2:]))
        elif f[0] == "PPRSS" and len(f) == 5:
            rss.append([int(x) for x in f[1:]])
        elif f[0] == "PPICOUNT-POLL" and len(f) == 5:
            cal[f[1]] = [float(x) for x in f[2:]]
    for label, fn in loopfn.items():
        if label in rows:
            rows[label].floor = dict(fns.get(label, [])).get(fn, 0.0)
    return rows, fns, info, rss, cal


def looks(path):
    """{label: [extra, looks, cost, cost_own]}: the PPICOUNT-LOOK lines of
    the raw output at PATH (cgsplit.py: the looks at memory of a Write
    client, calibrated)."""
    out = {}
    for line in open(path):
        f = line.rstrip("\n").split(",")
        if f[0] == "PPICOUNT-LOOK" and len(f) == 6:
            out[f[1]] = [float(x) for x in f[2:]]
    return out


class Row(list):
    """A PPICOUNT row's figures; floor: the instructions per round trip of
    its loop function alone (the PPICOUNT-FN line of its PPICOUNT-LOOPFN),
    or 0 (ours: the loop is cut out whole)."""
    floor = 0.0


def below_floor(r):
    """Whether row R's own code (a Row) is below its loop function's own
    instructions alone beyond rounding: the rest of the tool's functions in
    the loop, own minus r.floor, below zero."""
    return r[3] - getattr(r, "floor", 0.0) < -1


def disagree(r):
    """Whether row R (a PPICOUNT row's figures, a Row) has a part below
    zero beyond rounding: its two runs' extra round trips did not cost
    alike (one run did work the other did not), so the row says nothing.
    Its own code counts as two parts: the loop function's own instructions
    (r.floor), and the rest (below_floor())."""
    return below_floor(r) or min(r[4], r[5], r[6]) < -1


def fn_lines(rows, fns, key):
    """One line per row of ours: its own code by function, in KEY order."""
    lines = []
    for k in sorted(fns, key=key):
        who, t, s = k.split(":")
        if who not in ("ours", "ours-N", "ours-mono", "srv-ours"):
            continue
        lines.append("- %s%s %s B (%.2f polls): %s." % (
            t, {"ours-N": " -N", "ours-mono": " CLOCK_MONOTONIC"}.get(who, ""),
            s, rows[k][7] if k in rows else 0,
            ", ".join("`%s` %.0f" % (fn, n) for fn, n in fns[k])))
    return lines


def made(info):
    """valgrind, N1, N2 of the run, for the first sentence of a section."""
    n = info.get("n", "?,?").split(",")
    return (info.get("valgrind", "valgrind ?"), n[0], n[-1])


def head(name, title):
    """The first lines of section NAME of benchmarks.md, headed TITLE."""
    return ["<!-- %s:begin -->" % name, "## " + title, ""]


def section(path, kind, name, title):
    """rows, fns, info of section KIND (kind_of()) in the raw output at PATH,
    and the first lines of section NAME headed TITLE; exits when the run has
    no rows of KIND (the section in benchmarks.md stays as it is)."""
    rows, fns, info, _, _ = load(path, kind)
    if not rows:
        sys.exit(0)
    return rows, fns, info, head(name, title)


def finish(path, out, name):
    """Ends the lines OUT of section NAME and writes them to PATH."""
    out.append("<!-- %s:end -->" % name)
    open(path, "w").write("\n".join(out) + "\n")
