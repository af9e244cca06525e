#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""probe_check.py: check rc_pingpong --probe's table and JSON document.

Usage: probe_check.py CLIENT-GIDS.json SERVER-GIDS.json PROBE.txt PROBE.json
                      CLIENT-AUTO-IP SERVER-AUTO-IP

The GID tables are the two hosts' --show-gids --json documents; the pairs
and MTUs expected are computed here from them, by the rules of
docs/probe.md, independently of common/verbs/pp_probe.c:
RoCE GIDs of the same type and family (IPv4, IPv6, link-local), every MTU
from 256 to the lower active MTU.  Checks:

  - the plan line comes first and names the row count;
  - the table has one row per expected pair and MTU, in order, and no other;
  - the JSON document parses and has the same rows with the same results;
  - ok rows have a median round trip; failed rows name a step and a reason;
  - the automatic pair (the GIDs of the two addresses of the connection) at
    the path MTU is marked auto and works;
  - a pair whose two addresses share a subnet (the same netdev on both
    hosts) works at every MTU; an IPv4 pair across subnets fails.

Prints "ok: ..." lines, "FAIL: ..." lines, and exits 1 on a failure.
"""
import ipaddress
import json
import re
import sys

failed = False


def fail(msg):
    global failed
    failed = True
    print(f"FAIL: {msg}")


def ok(msg):
    print(f"ok: {msg}")


def family(ip):
    a = ipaddress.ip_address(ip)
    if a.version == 4:
        return "IPv4"
    return "link-local" if a.is_link_local else "IPv6"


def gids(path):
    with open(path) as f:
        doc = json.load(f)
    port = doc["ports"][0]
    return port["active_mtu"], [
        g for g in port["gids"]
        if g["type"] in ("RoCE v1", "RoCE v2") and g.get("ip")
    ]


ROW = re.compile(
    r"^\s*(\d+) (RoCE v[12]) +(\S+) +(\S+) +(\d+) +(\S+) +(\S+) +(\d+) +"
    r"(auto)? *(?:ok: median ([0-9.]+) us( \(2nd try\))?|failed at (.+?): (.+))$")


def main():
    cl_mtu, cl = gids(sys.argv[1])
    sv_mtu, sv = gids(sys.argv[2])
    with open(sys.argv[3]) as f:
        text = f.read().splitlines()
    with open(sys.argv[4]) as f:
        doc = json.load(f)
    cl_auto_ip, sv_auto_ip = sys.argv[5], sys.argv[6]

    pairs = [(c, s) for c in sorted(cl, key=lambda g: g["index"])
             for s in sorted(sv, key=lambda g: g["index"])
             if c["type"] == s["type"] and family(c["ip"]) == family(s["ip"])]
    top = min(cl_mtu, sv_mtu)
    mtus = [m for m in (256, 512, 1024, 2048, 4096) if m <= top]
    want = [(c["index"], s["index"], m) for c, s in pairs for m in mtus]
    print(f"expected: {len(pairs)} pairs x MTUs {mtus} = {len(want)} rows")

    plan = [i for i, line in enumerate(text) if line.startswith("probe: ")]
    if not plan or plan[0] != 0:
        fail("the plan line does not come first")
    elif f"= {len(want)} rows" not in text[0]:
        fail(f"plan line: {text[0]!r}, expected {len(want)} rows")
    else:
        ok(f"plan first: {text[0]}")

    rows = []
    for line in text:
        m = ROW.match(line)
        if m:
            rows.append(m)
    got = [(int(m[1]), int(m[5]), int(m[8])) for m in rows]
    if got == want:
        ok(f"table: one row per compatible pair and MTU ({len(got)})")
    else:
        fail(f"table rows {got}, expected {want}")
    if any(int(m[8]) > top for m in rows):
        fail(f"a row above the lower active MTU {top}")
    else:
        ok(f"no row above the lower active MTU {top}")

    jrows = doc["rows"]
    jgot = [(r["local"]["index"], r["server"]["index"], r["mtu"])
            for r in jrows]
    if jgot == want:
        ok("JSON: the same rows")
    else:
        fail(f"JSON rows {jgot}, expected {want}")
    if doc.get("rows_planned") != len(want):
        fail(f"JSON rows_planned {doc.get('rows_planned')}, expected {len(want)}")
    if doc.get("exit_status") != 0 or doc.get("error") is not None:
        fail(f"JSON exit_status {doc.get('exit_status')}, error {doc.get('error')}")

    by_key = {(int(m[1]), int(m[5]), int(m[8])): m for m in rows}
    agree = True
    for r in jrows:
        k = (r["local"]["index"], r["server"]["index"], r["mtu"])
        m = by_key.get(k)
        if not m:
            continue
        t_ok = m[10] is not None
        if t_ok != r["ok"] or (not t_ok and m[12] != r["step"]) or \
                (m[9] == "auto") != r["auto"]:
            agree = False
            fail(f"row {k}: table says {m[0]!r}, JSON says ok={r['ok']} "
                 f"step={r['step']} auto={r['auto']}")
        if r.get("tries") not in (1, 2) or \
                (t_ok and (m[11] is not None) != (r["tries"] == 2)):
            fail(f"row {k}: tries {r.get('tries')}, table {m[0]!r}: a row "
                 "tried twice says '(2nd try)' when it worked")
        if r["ok"] and not (r["rtt_median_us"] and r["rtt_median_us"] > 0):
            fail(f"row {k}: ok without a median round trip in JSON")
        if not r["ok"] and (r["step"] not in
                            ("handshake", "RTR", "RTS", "first completion",
                             "run", "data check", "row deadline")
                            or not r["reason"]):
            fail(f"row {k}: a failed row without its step and reason: {r}")
        if r["local"]["ip"] != m[4] or r["server"]["ip"] != m[7]:
            fail(f"row {k}: addresses differ: {m[4]} {m[7]} / {r['local']['ip']} {r['server']['ip']}")
    if agree:
        ok("JSON agrees with the table (ok, step of each row)")
    # A failed row gives a code; the reason is printed once below the table,
    # its hexadecimal numbers written 0x...
    notes = dict(re.match(r"^E(\d+): (.+)$", line).groups()
                 for line in text if re.match(r"^E\d+: ", line))
    coded = True
    for r in jrows:
        m = by_key.get((r["local"]["index"], r["server"]["index"], r["mtu"]))
        if r["ok"] or not m:
            continue
        code = re.fullmatch(r"E(\d+)", m[13] or "")
        want_note = re.sub(r"0x[0-9a-fA-F]+", "0x...", r["reason"])
        if not code or notes.get(code[1]) != want_note:
            coded = False
            fail(f"row {m[0]!r}: no code whose note below the table is "
                 f"its reason {want_note!r}")
    if len(set(notes.values())) != len(notes):
        fail(f"a reason printed twice below the table: {notes}")
    elif coded:
        ok(f"failed rows give codes; {len(notes)} reasons printed once below the table")
    n_ok = sum(1 for r in jrows if r["ok"])
    n_bad = len(jrows) - n_ok
    if n_ok and n_bad:
        ok(f"{n_ok} rows work, {n_bad} fail")
    else:
        fail(f"{n_ok} rows work, {n_bad} fail: expected some of each")
    for r in jrows:
        if not r["ok"]:
            print(f"  failed row: GID {r['local']['index']} -> "
                  f"{r['server']['index']} MTU {r['mtu']}: "
                  f"{r['step']}: {r['reason']}")

    autos = [r for r in jrows if r["auto"]]
    tauto = [m for m in rows if m[9] == "auto"]
    if len(autos) != 1 or len(tauto) != 1:
        fail(f"{len(autos)} JSON rows and {len(tauto)} table rows marked auto, expected 1")
    else:
        a = autos[0]
        if a["local"]["ip"] != cl_auto_ip or a["server"]["ip"] != sv_auto_ip \
                or a["mtu"] != top:
            fail(f"auto row {a['local']['ip']} -> {a['server']['ip']} MTU "
                 f"{a['mtu']}, expected {cl_auto_ip} -> {sv_auto_ip} MTU {top}")
        elif not a["ok"]:
            fail(f"the automatic pair fails: {a['reason']}")
        else:
            ok(f"auto: {cl_auto_ip} -> {sv_auto_ip} at MTU {top}, ok")
        if doc["auto"]["mtu"] != top:
            fail(f"JSON auto.mtu {doc['auto']['mtu']}, expected {top}")

    for r in jrows:
        lf, sf = family(r["local"]["ip"]), family(r["server"]["ip"])
        same_dev = r["local"]["netdev"] == r["server"]["netdev"]
        k = (r["local"]["ip"], r["server"]["ip"], r["mtu"])
        if same_dev and lf != "link-local" and not r["ok"]:
            fail(f"{k}: same subnet, fails: {r['step']}: {r['reason']}")
        if lf == "IPv4" and not same_dev and r["ok"]:
            fail(f"{k}: IPv4 across subnets works (expected a failure)")
    ok("same-subnet pairs checked, IPv4 pairs across subnets checked")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
