#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mesh_check.py: check what rank 0 of a --mesh run printed (docs/mesh.md).

  mesh_check.py [--json FILE] [--text FILE] [--svg FILE] [EXPECTATIONS]

--json FILE   the --json document; --text FILE the text output (matrix,
host table, odd ones out, summary line); --svg FILE the --mesh-svg picture,
rendered with rsvg-convert and read back pixel by pixel. Whatever is given
must agree with each other: every cell's text, the labels, the counts;
each cell of the picture has the colour of its rect, dark for a failed pair
and bright for a passed one.

Expectations (each checked against every source given):
  --ranks N         N ranks, N x N matrix, N(N-1)/2 pairs
  --all-ok          every pair passed, exit status 0
  --bad R           every pair with rank R failed, every other passed
  --absent R        rank R never joined
  --gone R          rank R named as gone during the mesh; with --json, a
                    pair with R that ran in a round before the first of R's
                    failed pairs passed (R was still there), every later one
                    failed
  --slow R          rank R, and no other, named as slow (a slow NIC or
                    host verdict)
  --mtu R:M         rank R's active MTU is M, every other rank's is the
                    same as each other's; the host table names rank R's as
                    differing; each pair with R ran at path MTU min(M, its
                    peer's), each other pair at the others' MTU
  --launcher NAME   the launcher rank 0 names (slurm, none, ...)
  --hosts H,H,...   with --json: the hosts' names (before the first dot), in
                    rank order, K ranks on each (--per-host K, default 1);
                    the matrix's labels are host:device, with K > 1
                    host:device#rank (the ranks of a host share its device)
  --rounds N        with --json: the mesh ran in N rounds
  --took-ms MS      with --json: the mesh's elapsed time is within the bound
                    it announced, and MS (from the launch to rank 0's end)
                    within that bound plus 15 s; prints each failed pair

Rails (several devices per host, -d DEV,DEV...):
  --devices D,D,... with --hosts: K devices per host, one rank each, in
                    that order (srun --ntasks-per-node=K: rank r on host
                    r // K, device r % K); labels host:device, and with
                    --json each rank's device
  --pairs MODE      the pairs the mesh selects (--mesh-pairs): rail (same
                    device index, different hosts), remote (different
                    hosts), all (default); the others are not run: their
                    cells all show the same text, neither a number nor the
                    code of a failed pair, and a listed pair is not passed
  --cross-rail-fail every run pair of two different device indexes
                    failed, with a reason (no path between the rails)
  --flag R:CODE     every run pair with rank R ran but its cell is CODE
                    (MTU, SLOW: a threshold flagged it); repeatable
  --flag-pair A-B:CODE  the same for the pair of ranks A and B
  --exit N          the exit status (default: 1 if a pair failed, else 4
                    if a pair is flagged or a verdict expected, else 0)
  --verdict KIND:STATE[:WHO[:WHO]]  a verdict of KIND (nic, host, link,
                    rails) and STATE (slow, failing, no_path); WHO is a
                    label host:device (host and device fields) or a host;
                    a link's second WHO is its other end; the text has a
                    line "verdict: ..." naming every WHO; repeatable
  --no-verdict KIND:STATE  no verdict of KIND and STATE (in the text: no
                    line "verdict: STATE KIND ..."); repeatable
  --verdicts-exact  no verdict other than the --verdict ones (none when
                    there is no --verdict)
  --line-has W,W,...  a line of the text holds every word W
  --gid-net DEV=TEXT  with --json: every rank on DEV uses a GID holding TEXT

--prom FILE   the --mesh-prom file, read as monitoring reads it: promtool
check metrics passes it, a real node_exporter's textfile collector serves
it on a loopback port; what it served holds the mesh's counts and exit
status, each selected pair's result (and no pair that was not selected),
the --verdict expectations, and with --text the same cells as the matrix.
Prints one "ok: ..." line per check that held and "FAIL: ..." for each that
did not; exit status 1 if any failed.
"""
import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

import prom_scrape

failed = False


def ok(msg):
    print(f"ok: {msg}")


def fail(msg):
    global failed
    failed = True
    print(f"FAIL: {msg}")


def check(cond, msg, why=""):
    if cond:
        ok(msg)
    else:
        fail(f"{msg}{': ' + why if why else ''}")
    return cond


# --- the text ---------------------------------------------------------------


def parse_text(path):
    """The matrix (labels, cells by row), the host table rows, the odd ones
    out lines and the summary line of the text output."""
    lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    t = {"rows": [], "labels": [], "hosts": {}, "differs": [], "odd": [],
         "verdicts": [], "summary": None, "legend": "", "lines": lines}
    i = 0
    while i < len(lines) and not lines[i].startswith("median round trip"):
        if re.match(r"^[0-9,]+ ranks: too many for a matrix", lines[i]):
            t["rows"] = None  # the summary per rank stands for it
            break
        i += 1
    if i == len(lines):
        return None
    i += 2  # the header of column labels
    row = re.compile(r"^ *(\d+)  (\S+)\s+(.*)$")
    while t["rows"] is not None and i < len(lines):
        m = row.match(lines[i])
        if not m:
            break
        t["labels"].append(m.group(2))
        t["rows"].append(m.group(3).split())
        i += 1
    section = None
    for line in lines[i:]:
        if line.startswith("legend:"):
            t["legend"] = line
        elif line == "hosts:":
            section = "hosts"
        elif line == "odd ones out:":
            section = "odd"
        elif line.startswith("mesh: "):
            t["summary"] = line
            section = None
        elif line.startswith("verdict: "):
            t["verdicts"].append(line)
            section = None
        elif section == "hosts" and line.startswith("  differs: "):
            t["differs"].append(line)
        elif section == "hosts":
            m = re.match(r"^ +(\d+)  (\S+)\s+(.*)$", line)
            if m:
                t["hosts"][int(m.group(1))] = (m.group(2), m.group(3))
        elif section == "odd" and line.strip():
            t["odd"].append(line)
    return t


def slow_ranks(verdicts):
    """The ranks that the slow NIC and slow host verdicts name."""
    ranks = []
    for line in verdicts:
        m = re.match(r"^verdict: slow NIC \S+ \(rank (\d+)[,)]", line)
        if m:
            ranks.append(int(m.group(1)))
        m = re.match(r"^verdict: slow host \S+: its \d+ NICs \(ranks ([\d, ]+)", line)
        if m:
            ranks += [int(x) for x in m.group(1).split(",")]
    return ranks


# --- the picture ------------------------------------------------------------


def png_pixels(data):
    """Width, height and rows of (r, g, b) of an 8-bit RGB or RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, inter = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and inter == 0, (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], None
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        up = prev or bytearray(stride)
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = up[x]
            c = up[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pr) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


def parse_svg(path):
    """The cells of the picture: (x, y, w, h, fill, title) of each rect with
    a title, in document order, and the picture rendered by rsvg-convert."""
    svg = open(path, encoding="utf-8").read()
    cells = []
    for m in re.finditer(
            r'<rect x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)" '
            r'fill="(#[0-9a-fA-F]{6})"[^>]*><title>([^<]*)</title></rect>', svg):
        x, y, w, h = (int(v) for v in m.groups()[:4])
        title = (m.group(6).replace("&lt;", "<").replace("&gt;", ">")
                 .replace("&quot;", '"').replace("&apos;", "'")
                 .replace("&amp;", "&"))
        cells.append((x, y, w, h, m.group(5).lower(), title))
    with tempfile.NamedTemporaryFile(suffix=".png") as png:
        subprocess.run(["rsvg-convert", "-o", png.name, path], check=True)
        pixels = png_pixels(open(png.name, "rb").read())
    return cells, pixels


def hexrgb(s):
    return tuple(int(s[i:i + 2], 16) for i in (1, 3, 5))


# --- rails: cells and verdicts ---------------------------------------------


def cell_checks(cells, want_ok, flag, notrun, src):
    """Each pair's cell in the matrix CELLS (from SRC): a number when it
    passed, its CODE when flagged, a code when it failed, and one text
    (neither a number nor a failed pair's code) for every pair not run."""
    num = re.compile(r"[0-9]+(\.[0-9]+)?")
    # the codes of a failed pair (docs/mesh.md), and the diagonal's "-"
    codes_failed = {"CONN", "RTR", "RTS", "1ST", "RUN", "DATA", "TIME", "GONE",
                    "ABSENT", "DEV", "-"}
    for p, w in want_ok.items():
        c = cells.get(p, "?")
        if w is None:
            continue
        if p in flag:
            if c != flag[p]:
                fail(f"{src}: pair {p} shows {c}, expected {flag[p]}")
        elif (num.fullmatch(c) is not None) != w:
            fail(f"{src}: pair {p} shows {c}")
        elif not w:
            codes_failed.add(c)
    if flag:
        ok(f"{src}: the flagged pairs' cells: {sorted(set(flag.values()))}")
    if notrun:
        texts = {cells.get(p, "?") for p in notrun}
        t = texts.pop() if len(texts) == 1 else None
        check(t is not None and num.fullmatch(t) is None and t not in codes_failed,
              f"{src}: the {len(notrun)} pairs not run show one text, '{t}'",
              f"{sorted(texts | ({t} if t else set()))}; neither a number, a "
              f"rank with itself nor a failed pair's code {sorted(codes_failed)}")


def verdict_matches(v, kind, state, who):
    """Does the JSON verdict V say KIND and STATE about WHO (labels
    host:device or hosts; a link's second label is its other end)?"""
    if v.get("kind") != kind or v.get("state") != state:
        return False
    if not who:
        return True
    if v.get("ends"):
        # a link: its two ends, {"rank", "host", "device"}, in either order
        ends = sorted(f"{e['host'].split('.')[0]}:{e['device']}" for e in v["ends"])
        return ends == sorted(w for w in who if w)
    if len(who) == 2 and who[::-1] != who:
        # a link: either end may be the one in host and device
        return (verdict_matches(v, kind, state, [who[0], who[1], None]) or
                verdict_matches(v, kind, state, [who[1], who[0], None]))
    host, _, dev = who[0].partition(":")
    if (v.get("host") or "").split(".")[0] != host:
        return False
    if dev and v.get("device") != dev:
        return False
    if kind == "host" and v.get("device"):
        return False
    # the other end of a link: named in some other field of the verdict
    rest = json.dumps({x: y for x, y in v.items() if x not in ("host", "device")})
    return all(w.split(":")[0] in rest and w.split(":")[-1] in rest
               for w in who[1:] if w)


def verdict_checks(verdicts, a, src, lines=None):
    """The --verdict expectations, against the JSON's "verdicts" or the
    text's "verdict: " lines (LINES)."""
    want = [v.split(":", 2) for v in a.verdict]
    want = [(w[0], w[1], w[2].split(":") if len(w) > 2 else []) for w in want]
    # host:device labels were split by the colon: join them back in twos
    want = [(kind, state, [":".join(x[i:i + 2]) for i in range(0, len(x), 2)]
             if kind in ("nic", "link") else x) for kind, state, x in want]
    for nv in a.no_verdict:
        kind, state = nv.split(":")
        if lines is not None:
            # "verdict: failing NIC ...", "verdict: slow host ..."
            word = {"nic": "NIC", "rails": "rails"}.get(kind, kind)
            bad = [x for x in lines if x.startswith(f"verdict: {state} {word} ")]
        else:
            bad = [v for v in verdicts or [] if v.get("kind") == kind and
                   v.get("state") == state]
        check(not bad, f"{src}: no {state} {kind} verdict", str(bad))
    if not want and not a.verdicts_exact:
        return
    if lines is not None:
        for line in lines:
            print(f"note: {src}: {line}")
        for kind, state, who in want:
            check(any(all(w in x for w in who) and
                      (who or kind in x or kind.rstrip("s") in x) for x in lines),
                  f"{src}: a verdict line for {kind} {state} {' '.join(who)}",
                  "; ".join(lines) or "no verdict line")
        if a.verdicts_exact:
            check(len(lines) == len(want), f"{src}: {len(want)} verdict lines",
                  f"{len(lines)}")
        return
    if verdicts is None:
        fail(f"{src}: no verdicts")
        return
    for v in verdicts:
        print(f"note: {src}: verdict {json.dumps(v)}")
    used = set()
    for kind, state, who in want:
        hit = [i for i, v in enumerate(verdicts) if verdict_matches(v, kind, state, who)]
        used |= set(hit)
        check(bool(hit), f"{src}: a verdict {kind} {state} {' '.join(who)}",
              json.dumps(verdicts))
    if a.verdicts_exact:
        extra = [verdicts[i] for i in range(len(verdicts)) if i not in used]
        check(not extra, f"{src}: no other verdict", json.dumps(extra))


# --- the Prometheus file -----------------------------------------------------


def prom_verdicts(got):
    """The rdma_mesh_verdict samples as the JSON's verdict objects."""
    out = []
    for ls, _ in prom_scrape.samples_of(got, "rdma_mesh_verdict"):
        v = {"kind": ls.get("kind"), "state": ls.get("state"),
             "host": ls.get("host"), "device": ls.get("device")}
        if "host_a" in ls:
            v["ends"] = [{"host": ls["host_a"], "device": ls["device_a"]},
                         {"host": ls["host_b"], "device": ls["device_b"]}]
        out.append(v)
    return out


def prom_checks(a, n, want_ok, flag, run_pairs, notrun, want_exit, sources):
    """The --prom file, served by node_exporter, against the expectations
    and the text's cells."""
    promtool, exporter = prom_scrape.tools()
    if not promtool or not exporter:
        fail("prom: promtool or prometheus-node-exporter not installed "
             "(tests/install-deps.sh installs both)")
        return
    try:
        text = open(a.prom).read()
    except OSError as e:
        fail(f"prom: {e}")
        return
    passed, said = prom_scrape.promtool_check(promtool, text)
    check(passed, "prom: promtool check metrics passes it, silent", said)
    tdir = tempfile.mkdtemp(prefix="mesh_check.")
    try:
        shutil.copy(a.prom, os.path.join(tdir, "mesh.prom"))
        body, why = prom_scrape.scrape(exporter, tdir, os.path.join(tdir, "exporter.err"))
    finally:
        shutil.rmtree(tdir, ignore_errors=True)
    if not check(body is not None, "prom: node_exporter served /metrics", why):
        return
    got = prom_scrape.parse_metrics(body)
    fm = prom_scrape.find_metric
    check(fm(got, "node_textfile_scrape_error") == [0.0],
          "prom: node_exporter's textfile collector read it without error")
    npass = sum(v is True for p, v in want_ok.items() if p not in flag)
    nfail = len(run_pairs) - npass - len(flag)
    want = {"rdma_mesh_ranks": n, "rdma_mesh_ranks_joined": n - len(a.absent),
            "rdma_mesh_pairs": len(run_pairs), "rdma_mesh_pairs_passed": npass,
            "rdma_mesh_pairs_flagged": len(flag), "rdma_mesh_pairs_failed": nfail}
    verdicts = prom_verdicts(got)
    exit_want = want_exit
    if a.exit is None and exit_want != 1 and verdicts:
        exit_want = 4
    want["rdma_mesh_exit_status"] = exit_want
    wrong = [f"{k} {fm(got, k)}, expected {v}" for k, v in want.items()
             if fm(got, k) != [float(v)]]
    check(not wrong, "prom: the mesh's counts and exit status "
          + ", ".join(f"{k[10:]} {v}" for k, v in want.items()), "; ".join(wrong))
    cells = {}
    for ls, _ in prom_scrape.samples_of(got, "rdma_mesh_pair_result"):
        i, j = int(ls["rank_a"]), int(ls["rank_b"])
        cells[(i, j)] = cells[(j, i)] = ls["result"]
    for ls, v in prom_scrape.samples_of(got, "rdma_mesh_pair_rtt_median_seconds"):
        i, j = int(ls["rank_a"]), int(ls["rank_b"])
        if cells.get((i, j)) == "ok":
            cells[(i, j)] = cells[(j, i)] = "%.3f" % (v * 1e6)
    listed = [p for p in notrun if p in cells]
    check(not listed, f"prom: none of the {len(notrun)} pairs not selected has a sample",
          str(listed))
    for p in notrun:
        cells[p] = cells[p[::-1]] = "none"
    for i in range(n):
        cells[(i, i)] = "-"
    cell_checks(cells, want_ok, flag, notrun, "prom")
    verdict_checks(verdicts, a, "prom")
    if "text" in sources:
        diff = []
        for k, c in sources["text"].items():
            q = cells.get(k)
            if k[0] == k[1] or (tuple(sorted(k)) in notrun):
                continue
            try:
                same = abs(float(c) - float(q)) <= max(0.5, float(q) * 0.001)
            except (TypeError, ValueError):
                same = c == q
            if not same:
                diff.append(f"{k}: text {c}, prom {q}")
        check(not diff, "prom and text: every pair's result and round trip the same",
              "; ".join(diff[:6]))


# --- main -------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--text")
    ap.add_argument("--svg")
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--all-ok", action="store_true")
    ap.add_argument("--bad", type=int, action="append", default=[])
    ap.add_argument("--absent", type=int, action="append", default=[])
    ap.add_argument("--gone", type=int, action="append", default=[])
    ap.add_argument("--slow", type=int, action="append", default=[])
    ap.add_argument("--mtu")
    ap.add_argument("--launcher")
    ap.add_argument("--hosts")
    ap.add_argument("--per-host", type=int, default=1)
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--took-ms", type=int)
    ap.add_argument("--devices")
    ap.add_argument("--pairs", choices=("all", "rail", "remote"), default="all")
    ap.add_argument("--cross-rail-fail", action="store_true")
    ap.add_argument("--flag", action="append", default=[])
    ap.add_argument("--flag-pair", action="append", default=[])
    ap.add_argument("--exit", type=int)
    ap.add_argument("--verdict", action="append", default=[])
    ap.add_argument("--verdicts-exact", action="store_true")
    ap.add_argument("--no-verdict", action="append", default=[])
    ap.add_argument("--line-has", action="append", default=[])
    ap.add_argument("--gid-net", action="append", default=[])
    ap.add_argument("--prom")
    a = ap.parse_args()
    n = a.ranks
    bad = set(a.bad) | set(a.absent)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    want_ok = {p: not (set(p) & bad) for p in pairs}
    # rails: K devices per host, rank r on host r // K with device r % K
    devs = a.devices.split(",") if a.devices else [None]
    k = len(devs) if a.devices else a.per_host
    a.per_host = k
    host_of = {r: r // k for r in range(n)}
    rail_of = {r: r % k for r in range(n)}
    run = {p: a.pairs == "all" or
           (host_of[p[0]] != host_of[p[1]] and
            (a.pairs == "remote" or rail_of[p[0]] == rail_of[p[1]])) for p in pairs}
    if a.cross_rail_fail:
        for p in pairs:
            if rail_of[p[0]] != rail_of[p[1]]:
                want_ok[p] = False
    # flagged: ran (and counts as passed) but the cell shows a code
    flag = {}
    for f in a.flag:
        r, code = f.split(":")
        for p in pairs:
            if int(r) in p:
                flag[p] = code
    for f in a.flag_pair:
        ab, code = f.split(":")
        x, y = sorted(int(v) for v in ab.split("-"))
        flag[(x, y)] = code
    flag = {p: c for p, c in flag.items() if run[p] and want_ok[p]}
    run_pairs = [p for p in pairs if run[p]]
    notrun = [p for p in pairs if not run[p]]
    if notrun:
        print(f"note: {len(run_pairs)} pairs selected ({a.pairs}), {len(notrun)} not run")
    # the not-run pairs count as neither passed nor failed
    for p in notrun:
        want_ok[p] = None
    want_exit = a.exit
    if want_exit is None:
        want_exit = (1 if any(v is False for v in want_ok.values())
                     else 4 if flag or a.verdict else 0)
    labels_want = None
    if a.hosts:
        hl = a.hosts.split(",")
        if a.devices:
            labels_want = [f"{hl[host_of[r]]}:{devs[rail_of[r]]}" for r in range(n)]
    # cells[(a, b)] from each source, as text, for the agreement checks
    sources = {}

    d = None
    if a.json:
        try:
            d = json.load(open(a.json))
        except (OSError, ValueError) as e:
            fail(f"json: does not parse: {e}")
    if d is not None:
        m, s = d["mesh"], d["summary"]
        # streamed: the header first, then a pair a line as each settles
        lines = open(a.json).read().split("\n")
        # a pair not run may be left out or listed as not run
        listed = (len(pairs),) if not notrun else (len(run_pairs), len(pairs))
        check(lines[0].startswith('{"mesh":') and
              sum(x.startswith((',{"a":', '{"a":')) for x in lines) in listed,
              "json: the header first, then a line per pair",
              f"{len(lines)} lines")
        check(m["size"] == n and len(d["hosts"]) == n and
              len(d["pairs"]) in listed, f"json: {n} ranks, {len(run_pairs)} pairs run",
              f"size {m['size']}, {len(d['hosts'])} hosts, {len(d['pairs'])} pairs")
        if a.launcher:
            check(m["launcher"] == a.launcher, f"json: launcher {a.launcher}",
                  m["launcher"])
        got = {(p["a"], p["b"]): p for p in d["pairs"]}
        check(set(got) in (set(pairs), set(run_pairs)), "json: every unordered pair once")
        listed_notrun = [p for p in notrun if p in got and got[p]["passed"]]
        check(not listed_notrun, "json: no pair that was not to run passed",
              str(listed_notrun))
        # each pair not run is not passed, every other is judged below
        got_run = {p: q for p, q in got.items() if run[p]}
        for r in a.gone:
            # R's pairs before it went passed; from then on they fail
            mine = [p for p in pairs if r in p and p in got]
            failed_rounds = [got[p]["round"] for p in mine
                             if not got[p]["passed"] and got[p]["round"] is not None]
            first = min(failed_rounds, default=None)
            check(first is not None, f"json: a pair with gone rank {r} failed")
            for p in mine:
                q = got[p]["round"]
                if first is not None and q is not None and q < first:
                    want_ok[p] = not (set(p) & (bad - {r}))
            before = [p for p in mine if want_ok[p]]
            if before:
                print(f"note: pairs with rank {r} before it went (round < {first}): {before}")
        # a flagged pair (MTU, SLOW) ran but did not pass: its result is
        # its code, its median kept
        wrong = [f"{p}: {got[p]['result']}" for p in run_pairs
                 if p in got and (got[p]["passed"] != (want_ok[p] and p not in flag) or
                                  (p in flag and (got[p]["result"] != flag[p] or
                                                  not got[p]["median_usec"])))]
        check(not wrong, "json: the pairs that passed and failed are the expected ones",
              ", ".join(wrong))
        for p in run_pairs:
            if p not in got:
                continue
            q = got[p]
            if q["passed"]:
                if not (q["median_usec"] and q["median_usec"] > 0 and
                        q["result"] == "ok" and
                        all(x["doc"] for x in q["sides"])):
                    fail(f"json: pair {p} passed without a median or both sides' documents")
            elif not (q["why"] or any(x.get("error") for x in q["sides"])):
                if not set(p) & set(a.absent):
                    fail(f"json: pair {p} failed ({q['result']}) without a reason")
        passed = sum(v is True for p, v in want_ok.items() if p not in flag)
        nfail = len(run_pairs) - passed - len(flag)
        check(s["pairs"] in listed and
              (s["passed"], s.get("flagged", 0), s["failed"]) == (passed, len(flag), nfail),
              f"json: summary {passed} passed, {len(flag)} flagged, {nfail} failed",
              f"{s['pairs']} pairs, {s['passed']} passed, {s.get('flagged')} flagged, "
              f"{s['failed']} failed")
        # 1: a pair failed; else 4 when a threshold or a verdict flagged
        # something (the document's verdicts too: 4 if and only if some)
        want = want_exit
        if a.exit is None and want != 1 and s["verdicts"]:
            want = 4
        check(s["exit_status"] == want, f"json: exit_status {want}",
              f"it says {s['exit_status']}")
        check(sorted(s["absent"]) == sorted(a.absent),
              f"json: absent ranks {sorted(a.absent)}", str(s["absent"]))
        if a.gone:
            check(set(a.gone) <= set(s["gone"]), f"json: ranks {a.gone} gone",
                  str(s["gone"]))
        if a.slow:
            slow = sorted(x["rank"] for x in s["slow"])
            check(slow == sorted(a.slow), f"json: slow ranks {sorted(a.slow)}",
                  str(slow))
        if a.mtu:
            r, mtu = (int(v) for v in a.mtu.split(":"))
            mtus = [h["active_mtu"] for h in d["hosts"]]
            others = {v for i, v in enumerate(mtus) if i != r}
            check(mtus[r] == mtu and len(others) == 1 and mtu not in others,
                  f"json: rank {r} active MTU {mtu}, the others {others}", str(mtus))
            other = others.pop() if others else 0
            wrong = [f"{p}: {got[p]['path_mtu']}" for p in pairs if p in got and
                     got[p]["path_mtu"] != (min(mtu, other) if r in p else other)]
            check(not wrong, f"json: pairs with rank {r} at path MTU "
                  f"{min(mtu, other)}, the others at {other}", ", ".join(wrong))
        if a.hosts:
            want_hosts = [h for h in a.hosts.split(",") for _ in range(a.per_host)]
            hosts = [h["host"].split(".")[0] for h in d["hosts"]]
            check(hosts == want_hosts, f"json: the hosts in rank order: {a.hosts}",
                  str(hosts))
            if labels_want:
                got_devs = [h["device"] for h in d["hosts"]]
                check(got_devs == [devs[rail_of[r]] for r in range(n)],
                      f"json: the devices in rank order, {','.join(devs)} on each host",
                      str(got_devs))
                check(d["matrix"]["labels"] == labels_want,
                      f"json: labels host:device, {labels_want[0]} ... {labels_want[-1]}",
                      str(d["matrix"]["labels"]))
            else:
                # host:device, and #rank where ranks share host and device
                devs = [h["device"] for h in d["hosts"]]
                want_labels = [f"{h}:{dv}" if dv else h for h, dv in zip(want_hosts, devs)]
                if a.per_host > 1:
                    want_labels = [f"{x}#{r}" for r, x in enumerate(want_labels)]
                check(d["matrix"]["labels"] == want_labels,
                      f"json: labels host:device{'#rank' if a.per_host > 1 else ''}, "
                      f"{want_labels[0]} ... {want_labels[-1]}",
                      str(d["matrix"]["labels"]))
        if a.rounds is not None:
            check(m["rounds"] == a.rounds, f"json: {a.rounds} rounds", str(m["rounds"]))
        if a.took_ms is not None:
            took = a.took_ms / 1000
            print(f"note: elapsed {s['elapsed_s']} s, bound {m['bound_s']} s, "
                  f"{took:.1f} s from the launch to rank 0's end")
            check(s["elapsed_s"] <= m["bound_s"], "json: elapsed within the bound")
            # the launch to the meeting: a few seconds in the guests
            check(took <= m["bound_s"] + 15,
                  "json: rank 0 ended within the bound (plus 15 s) of the launch")
            for p in d["pairs"]:
                if not p["passed"]:
                    print(f"note: pair {p['a']}-{p['b']}: {p['result']}: {p['why']}")
        for g in a.gid_net:
            dev, text = g.split("=", 1)
            wrong = [f"rank {r}: {h.get('gid')}" for r, h in enumerate(d["hosts"])
                     if h.get("device") == dev and text not in (h.get("gid") or "")]
            check(not wrong, f"json: every rank on {dev} uses a GID holding {text}",
                  ", ".join(wrong))
        verdict_checks(d["summary"].get("verdicts"), a, "json")
        cells = d["matrix"]["cells"]
        sources["json"] = {(i, j): cells[i][j] for i in range(n) for j in range(n)}
        cell_checks(sources["json"], want_ok, flag, notrun, "json")
        labels = d["matrix"]["labels"]
        # the numbers in the cells are the medians (a flagged pair's cell is
        # its code, its median kept beside it)
        for (i, j), c in sources["json"].items():
            v = d["matrix"]["median_usec"][i][j]
            if (i != j and v is not None and c not in ("MTU", "SLOW") and
                    abs(float(c) - v) > max(0.06, v * 0.001)):
                fail(f"json: cell {i},{j} says {c}, its median is {v}")
        sources["json-labels"] = labels

    t = parse_text(a.text) if a.text else None
    if a.text and t is None:
        fail(f"text: no matrix in {a.text}")
    if t and t["rows"] is None:
        ok(f"text: {n} ranks too many for the matrix: the summary per rank")
    elif t:
        check(len(t["rows"]) == n and all(len(r) == n for r in t["rows"]),
              f"text: {n} x {n} matrix", f"{len(t['rows'])} rows")
        sources["text"] = {(i, j): t["rows"][i][j] for i in range(len(t["rows"]))
                           for j in range(len(t["rows"][i]))}
    if t:
        if "text" in sources:
            cell_checks(sources["text"], want_ok, flag, notrun, "text")
        passed = sum(v is True for p, v in want_ok.items() if p not in flag)
        nfail = len(run_pairs) - passed - len(flag)
        # "F flagged (MTU m, SLOW s)" when a threshold was given; with pairs
        # not run, the line may say so between "failed" and "in"
        sm = re.match(r"mesh: (\d+) of (\d+) ranks joined, (\d+) pairs: (\d+) passed, "
                      r"(?:(\d+) flagged \([^()]*\), )?"
                      r"(\d+) failed\b[^()]*? in ([0-9.]+) s \(bound (\d+) s\)",
                      t["summary"] or "")
        check(sm is not None and
              [int(v or 0) for v in sm.groups()[:2] + sm.groups()[3:6]] ==
              [n - len(a.absent), n, passed, len(flag), nfail] and
              int(sm.group(3)) in ((len(pairs),) if not notrun else (len(run_pairs), len(pairs))),
              f"text: summary line {passed} passed, {len(flag)} flagged, {nfail} failed",
              t["summary"] or "none")
        verdict_checks(None, a, "text", t["verdicts"])
        for words in a.line_has:
            ws = words.split(",")
            hit = [x for x in t["lines"] if all(w in x for w in ws)]
            check(bool(hit), f"text: a line holds {', '.join(ws)}",
                  "none does")
            for x in hit[:2]:
                print(f"note: {x.strip()}")
        if sm:
            took, bound = float(sm.group(7)), int(sm.group(8))
            check(took <= bound, f"text: the mesh took {took} s, within its bound {bound} s")
        for r in a.absent:
            check(any(re.match(rf"^  never joined: rank {r}\b", x) for x in t["odd"]),
                  f"text: rank {r} named as never joined", "; ".join(t["odd"]))
        for r in a.gone:
            check(any(re.match(rf"^  gone: \S+ \(rank {r}\)", x) for x in t["odd"]),
                  f"text: rank {r} named as gone", "; ".join(t["odd"]))
        slow = sorted(slow_ranks(t["verdicts"]))
        if a.slow:
            check(slow == sorted(a.slow), f"text: slow ranks {sorted(a.slow)}",
                  "; ".join(t["verdicts"]) or "no verdict")
        if a.mtu:
            r = int(a.mtu.split(":")[0])
            check(any(re.search(rf"\(rank {r}\): active MTU", x) for x in t["differs"]) and
                  len(t["differs"]) == 1,
                  f"text: the host table names rank {r}'s active MTU, and nothing else",
                  "; ".join(t["differs"]) or "no differs line")
        if d is not None and "text" in sources:
            check(t["labels"] == sources["json-labels"], "text and json: the same labels",
                  f"{t['labels']} vs {sources['json-labels']}")
        if labels_want and "text" in sources:
            check(t["labels"] == labels_want,
                  f"text: labels host:device, {labels_want[0]} ... {labels_want[-1]}",
                  str(t["labels"]))

    if a.svg:
        try:
            rects, (w, h, px) = parse_svg(a.svg)
        except (OSError, subprocess.CalledProcessError, AssertionError) as e:
            fail(f"svg: does not render: {e}")
            rects = None
        if rects is not None:
            check(len(rects) == n * n, f"svg: {n} x {n} cells", f"{len(rects)} cells")
            pic, labels = {}, []
            for k, (x, y, cw, ch, fill, title) in enumerate(rects[:n * n]):
                i, j = divmod(k, n)
                tm = re.fullmatch(r"(\S+) - (\S+): (\S+)", title)
                if not tm:
                    fail(f"svg: cell {i},{j} has the title '{title}'")
                    continue
                if j == 0:
                    labels.append(tm.group(1))
                pic[(i, j)] = tm.group(3)
                # a pixel inside the cell, clear of its border and its text
                rgb = px[y + 3][x + 3] if y + 3 < h and x + 3 < w else None
                if rgb is None or max(abs(u - v) for u, v in zip(rgb, hexrgb(fill))) > 8:
                    fail(f"svg: cell {i},{j} renders as {rgb}, its rect says {fill}")
                    continue
                if i == j:
                    continue
                p = (min(i, j), max(i, j))
                dark = max(rgb) < 0x50
                if want_ok[p] is None or p in flag:
                    continue  # not run or flagged: no colour is asserted
                if dark == want_ok[p]:
                    fail(f"svg: cell {i},{j} ({tm.group(3)}) is "
                         f"{'dark' if dark else 'bright'} {rgb}")
            sources["svg"] = pic
            ok(f"svg: renders ({w} x {h}); failed cells dark, passed cells bright "
               f"unless named above")
            if d is not None:
                check(labels == sources["json-labels"], "svg and json: the same labels",
                      f"{labels}")

    if a.prom:
        prom_checks(a, n, want_ok, flag, run_pairs, notrun, want_exit, sources)

    # agreement, cell by cell, of the sources from one run
    names = [k for k in ("json", "text", "svg") if k in sources]
    for x in range(len(names)):
        for y in range(x + 1, len(names)):
            p, q = sources[names[x]], sources[names[y]]
            diff = [f"{k}: {p.get(k)} vs {q.get(k)}" for k in sorted(set(p) | set(q))
                    if p.get(k) != q.get(k)]
            check(not diff, f"{names[x]} and {names[y]}: every cell the same",
                  "; ".join(diff[:6]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
