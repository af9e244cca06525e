#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check the examples of tool output in the documents against real output.

An example is a fenced code block preceded by a marker comment:

    <!-- example: NAME [mask=ints] [last=optional] -->
    ```
    $ rc_pingpong -d rxe0 10.99.0.1        (optional: the command)
      local address:  LID 0x0000, QPN 0x000012, ...
    ...                                    (any number of lines left out)
    ```

NAME is a capture made by tests/e2e/doc_examples.sh on the Soft-RoCE bed: a
file NAME in the captures directory whose first line is "$ COMMAND" and
whose other lines are what COMMAND printed (stdout and stderr, in order).
The example must have the capture's shape: its lines are the capture's
lines, in order, where a line "..." stands for any number of them; a "$"
line must be the capture's command.  Before comparing, both sides are
masked: what changes from run to run (times, rates and other decimals,
hexadecimal numbers such as QPNs, PSNs, LIDs and keys, GIDs and IPv6
addresses, TCP ports, counter deltas, git commits, the clock check's
"differs") becomes a placeholder,
and runs of blanks one blank.  Sizes, counts, names, flags and messages are
compared as they are.  mask=ints also masks every integer and drops
histogram bars (for examples of counts that depend on timing: histogram
bins, samples, intervals, the JSON document's QPNs and PSNs).
last=optional lets the capture end without the example's last line, for a
line the tool prints only sometimes (the histogram's overflow bin, printed
only when a sample lies beyond the last bin); when the capture has a line
there, it must still match.

Usage:
  doc_examples.py check CAPTURES FILE.md...   exit 1 on any mismatch
  doc_examples.py update CAPTURES FILE.md...  rewrite each example from its
                                               capture (keeps a "$" line and
                                               "..." gaps where they match)
  doc_examples.py split EMIT CAPTURES          the captures printed by
                                               "doc_examples.sh --emit" (a
                                               test log) into files
  doc_examples.py list FILE.md...             the examples and their captures
"""
import os
import re
import sys

MARKER = re.compile(r"^<!--\s*example:\s*(\S+)((?:\s+\w+=\S+)*)\s*-->\s*$")
GAP = "..."

MASKS = [
    # git commit in --version: "(git aef06da)" or "(git aef06da-dirty)"
    # (a build outside a git checkout says "unknown", or null in JSON)
    (re.compile(r"\bgit (?:[0-9a-f]{7,40}(?:-dirty)?|unknown)"), "git <commit>"),
    (re.compile(r'"git": (?:"[0-9a-f]{7,40}(?:-dirty)?"|null)'), '"git": "<commit>"'),
    (re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"), "<time>"),
    # the counters that moved (which ones move depends on timing)
    (re.compile(r"(port counters \S+ \([^)]*\): ).*"), r"\1<counters>"),
    # a peer's address and port: "client 10.99.0.1:60662"
    (re.compile(r"\b(\d{1,3}(?:\.\d{1,3}){3}):\d+\b"), r"\1:<port>"),
    # IPv6 addresses and GIDs, IPv4-mapped ones included
    (re.compile(r"(?<![\w:])(?:[0-9a-fA-F]{0,4}:){2,}[0-9a-fA-F.]*[0-9a-fA-F]"),
     "<gid>"),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "<hex>"),
    # the TCP port of a connection (an option's value "-p N" is kept)
    (re.compile(r"\bport \d{4,5}\b"), "port <port>"),
    (re.compile(r"\bpid \d+\b"), "pid <pid>"),
    # counter deltas: "rcvd_pkts +1592" (not "+767.087", a time)
    (re.compile(r"(?<=\w )[+-]\d+(?![\d.])"), "<delta>"),
    # messages per second, printed without decimals
    (re.compile(r"\b\d+ msg/sec"), "<num> msg/sec"),
    # whether the cycle counter and CLOCK_MONOTONIC disagreed over the run
    # (timing: on the emulated bed a short run's two clocks may part)
    (re.compile(r'"differs": (?:true|false)'), '"differs": <bool>'),
]
IPV4 = re.compile(r"\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b")
DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+(?![\w.])")
INTEGER = re.compile(r"(?<![\w.<])\d+(?![\w.>])")
BAR = re.compile(r"#+")


def mask(line, ints=False):
    """Return LINE with its run-to-run values replaced by placeholders."""
    line = line.rstrip()
    for rx, rep in MASKS:
        line = rx.sub(rep, line)
    keep = []

    def protect(m):
        keep.append(m.group(0))
        return "\0" + chr(0xE000 + len(keep) - 1) + "\0"

    line = IPV4.sub(protect, line)
    line = DECIMAL.sub("<num>", line)
    if ints:
        line = INTEGER.sub("<int>", line)
        line = BAR.sub("", line)
    line = re.sub("\0(.)\0", lambda m: keep[ord(m.group(1)) - 0xE000], line)
    # blanks that pad a number to its width: "[ 767.087 ms" and "[1026.559 ms"
    line = re.sub(r"\[\s+", "[", line)
    return " ".join(line.split())


def examples(path):
    """Yield (name, options, first line index, end index) of each example."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if not m:
            i += 1
            continue
        opts = dict(kv.split("=", 1) for kv in m.group(2).split())
        j = i + 1
        if j >= len(lines) or not lines[j].startswith("```"):
            raise SystemExit("%s:%d: example marker not followed by a fenced block"
                             % (path, i + 1))
        k = j + 1
        while k < len(lines) and not lines[k].startswith("```"):
            k += 1
        if k >= len(lines):
            raise SystemExit("%s:%d: unterminated fenced block" % (path, j + 1))
        yield m.group(1), opts, j + 1, k
        i = k + 1


def read_capture(captures, name):
    path = os.path.join(captures, name)
    if not os.path.exists(path):
        return None, None
    text = open(path, encoding="utf-8", errors="replace").read().split("\n")
    if text and text[-1] == "":
        text.pop()
    if not text or not text[0].startswith("$ "):
        return None, None
    return text[0], text[1:]


def segments(body):
    """Split an example body at its "..." lines."""
    segs, cur = [], []
    for line in body:
        if line.strip() == GAP:
            segs.append(cur)
            cur = []
        else:
            cur.append(line)
    segs.append(cur)
    return segs


def find(seg, out, start):
    for p in range(start, len(out) - len(seg) + 1):
        if out[p:p + len(seg)] == seg:
            return p
    return -1


def compare(body, cmd, out, ints):
    """Return None when BODY has the shape of the capture, or a reason."""
    mbody = list(body)
    if mbody and mbody[0].startswith("$ "):
        if mask(mbody[0], ints) != mask(cmd, ints):
            return "the command differs:\n  document: %s\n  capture:  %s" % (
                mbody[0], cmd)
        mbody = mbody[1:]
    mout = [mask(x, ints) for x in out]
    segs = [[mask(x, ints) for x in s] for s in segments(mbody)]
    pos = 0
    for n, seg in enumerate(segs):
        if not seg:
            continue
        first, last = n == 0, n == len(segs) - 1
        if last:
            p = len(mout) - len(seg)
            if p < pos or mout[p:] != seg:
                p = -1
            if first and p != 0:
                p = -1
        else:
            p = find(seg, mout, pos)
            if first and p != 0:
                p = -1
        if p < 0:
            return explain(seg, mout, pos, first, last)
        pos = p + len(seg)
    return None


def explain(seg, mout, pos, first, last):
    """Name the first line of SEG that the capture does not have there."""
    where = "at the start" if first else "at the end" if last else "after line %d" % pos
    for line in seg:
        if line not in mout[pos:] and line not in mout:
            return ("line not in the tool's output (masked):\n  %s\n"
                    "the output (masked) has:\n%s" %
                    (line, "\n".join("  " + x for x in mout)))
    return ("lines not in this order %s of the tool's output (masked):\n%s\n"
            "the output (masked) has:\n%s" %
            (where, "\n".join("  " + x for x in seg),
             "\n".join("  " + x for x in mout)))


def compare_opts(body, cmd, out, opts):
    """compare() with the marker's options: mask=ints, last=optional."""
    ints = opts.get("mask") == "ints"
    why = compare(body, cmd, out, ints)
    if why and opts.get("last") == "optional" and body and \
            body[-1].strip() != GAP and not compare(body[:-1], cmd, out, ints):
        return None
    return why


def check(captures, files):
    bad = ok = 0
    for path in files:
        for name, opts, first, end in examples(path):
            lines = open(path, encoding="utf-8").read().split("\n")
            body = lines[first:end]
            cmd, out = read_capture(captures, name)
            where = "%s:%d: example %s" % (path, first, name)
            if cmd is None:
                print("FAIL: %s: no capture %s in %s" % (where, name, captures))
                bad += 1
                continue
            why = compare_opts(body, cmd, out, opts)
            if why:
                print("FAIL: %s: %s" % (where, why))
                bad += 1
            else:
                ok += 1
    print("%d examples match the tools' output, %d do not" % (ok, bad))
    return 1 if bad or not ok else 0


def index_of(line, mout, start):
    """The first position at or after START where MOUT has LINE, or -1."""
    for p in range(start, len(mout)):
        if mout[p] == line:
            return p
    return -1


def refresh(body, cmd, out, ints):
    """BODY rewritten from the capture with its "..." gaps kept: each part
    between gaps becomes the capture's lines from where its first line is
    to where its last line is (lines the tool now prints between them come
    in, lines it no longer prints go); the part before the first gap starts
    at the capture's first line, the part after the last one ends at its
    last line.  None when a part's first or last line is not in the capture
    in order (the caller rewrites the whole example then)."""
    head = [cmd] if body and body[0].startswith("$ ") else []
    rest = body[1:] if head else body
    gaps = [x for x in rest if x.strip() == GAP]
    segs = segments(rest)
    mout = [mask(x, ints) for x in out]
    new, pos = [], 0
    for n, seg in enumerate(segs):
        if n:
            new.append(gaps[n - 1])
        if not seg:
            continue
        first_line, last_line = mask(seg[0], ints), mask(seg[-1], ints)
        start = 0 if n == 0 else index_of(first_line, mout, pos)
        tail = len(mout) - len(seg)
        if n and n == len(segs) - 1 and tail >= max(start, pos) and \
                mout[tail] == first_line:
            start = tail  # the last part: as many lines as before, if it can
        if start < 0 or mout[start] != first_line:
            return None
        if n == len(segs) - 1:
            stop = len(mout)
            if mout[stop - 1] != last_line:
                return None
        else:
            # the last line where the part would end if nothing changed,
            # or the nearest to it (a trace repeats lines such as "mask")
            want = start + len(seg) - 1
            ends = [p for p in range(start, len(mout)) if mout[p] == last_line]
            if not ends:
                return None
            stop = min(ends, key=lambda p: abs(p - want)) + 1
        new.extend(out[start:stop])
        pos = stop
    return head + new


def update(captures, files):
    for path in files:
        lines = open(path, encoding="utf-8").read().split("\n")
        for name, opts, first, end in reversed(list(examples(path))):
            cmd, out = read_capture(captures, name)
            if cmd is None:
                print("%s: no capture %s, left alone" % (path, name))
                continue
            ints = opts.get("mask") == "ints"
            body = lines[first:end]
            new = refresh(body, cmd, out, ints)
            if new is None and opts.get("last") == "optional" and body:
                # the capture lacks the optional last line: keep it
                new = refresh(body[:-1], cmd, out, ints)
                new = None if new is None else new + body[-1:]
            if new is None or compare_opts(new, cmd, out, opts):
                new = ([cmd] if body and body[0].startswith("$ ") else []) + out
                print("%s:%d: example %s rewritten whole: its parts no longer "
                      "match the capture; put its \"...\" gaps back by hand"
                      % (path, first, name))
            lines[first:end] = new
        open(path, "w", encoding="utf-8").write("\n".join(lines))
    return 0


def split(emit, captures):
    os.makedirs(captures, exist_ok=True)
    name, out, n = None, [], 0
    for line in open(emit, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if name is None:
            m = re.match(r"^=== capture (\S+)$", line)
            if m:
                name, out = m.group(1), []
        elif line == "=== end " + name:
            with open(os.path.join(captures, name), "w", encoding="utf-8") as f:
                f.write("\n".join(out) + "\n")
            name, n = None, n + 1
        else:
            out.append(line)
    print("%d captures in %s" % (n, captures))
    return 0 if n else 1


def main(argv):
    if len(argv) >= 3 and argv[1] in ("check", "update"):
        fn = check if argv[1] == "check" else update
        return fn(argv[2], argv[3:])
    if len(argv) == 4 and argv[1] == "split":
        return split(argv[2], argv[3])
    if len(argv) >= 2 and argv[1] == "list":
        for path in argv[2:]:
            for name, opts, first, _ in examples(path):
                print("%s:%d %s %s" % (path, first, name, opts or ""))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
