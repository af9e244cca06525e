#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Split callgrind profiles into user-space instructions per round trip.

Usage: cgsplit.py [--loop FUNCTION] LABEL TOOL N1 OUT1 N2 OUT2 [CAL]
       cgsplit.py --find TOOL N1 OUT1 N2 OUT2

OUTn is the --callgrind-out-file of a client run of Nn round trips, written
with --compress-strings=no --compress-pos=no.  Our tools run with
--dump-before=LOOPFN --dump-after=LOOPFN: OUTn.1 is the profile before the
loop, OUTn.2 the loop, OUTn (part 3) after it; so does perftest, at the
function --find names.  A tool whose runs are not cut (the stock tools,
whose loop is in main) writes OUTn alone: its loop is the function of the
tool's binary that calls the provider's poll_cq most often (named by its
address where the binary is stripped; printed as PPICOUNT-LOOPFN), with
all it calls, inclusive: a sort of the samples after the loop and whatever
else differs between its runs (its connection, its reports) stay out.  Its
calls are split by object as each callee's whole inclusive cost is (the
provider's locks in libc count as libc, as in our loop's part).  (Without
such a function: all that grows with N but the calls to qsort.)

--loop names the function the profiles were cut at.  A call that it, or
a function it calls, makes as many times in both runs, and that reaches
neither libibverbs nor the provider (as every round trip does: it posts
and polls), is the loop's set-up or its end, not a round trip's, and is
left out of the loop with all it calls: its cost would cancel out, were it
not for work whose length depends on timing (perftest measures the CPU's
clock rate inside its loop function, for as long as its samples take to
agree).  Prints

  PPICOUNT-ONCE,LABEL,FUNCTION,INSTR1,INSTR2   (each call left out: its
                                               inclusive cost in each run)

--find prints the loop function of TOOL found in two profiles that are not
cut (as PPICOUNT-LOOPFN names it below; by its address where the binary is
stripped): two first runs learn where to cut the profiles of the next
ones.

What grows from N1 to N2 round trips, divided by N2 - N1, is the cost of one
round trip in the steady state: start-up and tear-down cancel out.  TOOL is
the file name of the tool's binary: its instructions are "own".  Prints

  PPICOUNT,LABEL,TOTAL,LOOP,AFTER,OWN,VERBS,LIBC,OTHER,POLLS,POLLCOST
  PPICOUNT-FN,LABEL,FUNCTION,INSTR     (the tool's own functions in the loop)

TOTAL all user-space instructions per round trip; LOOP those of the loop;
AFTER = TOTAL - LOOP; OWN/VERBS/LIBC/OTHER split LOOP by the object the
instructions ran in (the tool's binary; libibverbs and its provider; libc;
anything else).  POLLS: calls of the provider's poll_cq per round trip in
the loop, and POLLCOST the instructions of one such call on average
(inclusive).  ibv_poll_cq(), ibv_post_send() and ibv_post_recv() are inline
functions of verbs.h that call the provider through its ops table, and the
provider's functions are static (stripped, callgrind names them by address):
the provider function called most often from outside libibverbs and the
provider is poll_cq, as each round trip polls at least once and posts one
send (and at most one receive).

CAL, when given, is the profile of a third run of N2 round trips during
which the server was stopped for a while (icount-inside.sh): the client
polled an empty CQ all that time, and nothing else changed.  What its loop
has more than OUT2's, over the polls it has more, is the cost of one empty
poll: the provider's, libc's and the tool's own instructions for it (its
spin test, and what the tool does every so many empty polls).  Prints

  PPICOUNT-POLL,LABEL,EXTRA,EMPTY,EMPTY_OWN

EXTRA the polls the calibration run made more than OUT2's (the more, the
more exact: the only error is what else differed between the two runs,
spread over them), EMPTY the instructions of one empty poll (all objects),
EMPTY_OWN the tool's own part of it.

A tool that waits by looking at memory (RDMA Write: the last byte of the
peer's message) spins in its own code, where no call can be counted.  Its
profiles made with --dump-instr=yes --collect-jumps=yes count each
conditional jump's executions; with CAL, the jump of the tool's loop whose
executions the pause multiplied most is its look's test (of those within
5 % of that growth, the one run most often in OUT2: the test that runs on
the last look too, once a round trip at least).  Prints

  PPICOUNT-LOOK,LABEL,EXTRA,LOOKS,COST,COST_OWN

EXTRA the looks the calibration run made more than OUT2's, LOOKS the looks
per round trip (at least 1), COST the instructions of one more look (all
objects: the tool's polls of its CQ between looks are in it), COST_OWN
the tool's own part.
"""
import glob
import re
import sys


def is_verbs(obj):
    name = obj.rsplit("/", 1)[-1]
    return re.match(
        r"lib(ibverbs|rxe|mlx[45]|efa|bnxt|hns|irdma|siw|qedr|erdma|mana)",
        name) is not None


def is_provider(obj):
    return is_verbs(obj) and not obj.rsplit("/", 1)[-1].startswith(
        "libibverbs")


def is_libc(obj):
    return re.match(r"libc[.-]", obj.rsplit("/", 1)[-1]) is not None


class Profile:
    """Self cost per object and per (object, function); calls into the
    provider from outside verbs; inclusive cost of qsort calls from outside
    libc."""

    def __init__(self):
        self.by_obj = {}
        self.by_fn = {}
        self.pcalls = {}
        self.pcost = {}
        self.qsort = 0
        # (object, function) -> {(object, function) called: inclusive cost}
        self.calls_to = {}
        # (object, function) -> {(object, function) called: calls}
        self.ncalls = {}
        # (object, function) -> {provider function: calls to it}
        self.pcalls_from = {}
        # (object, function, address) -> executions of the conditional
        # jump there (with --dump-instr=yes --collect-jumps=yes)
        self.jumps = {}

    def add(self, path):
        obj = fn = "?"
        cob = cfn = None
        call = None  # (count, callee object, callee function)
        npos = 1  # position columns: "line", or "instr line" (--dump-instr)
        jcnd = None  # a conditional jump's execution count, its line next
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.rstrip("\n")
                if not line or line.startswith("#"):
                    continue
                if line.startswith("positions:"):
                    npos = len(line.split()) - 1
                    continue
                if line.startswith("jcnd="):
                    # jcnd=TAKEN/EXECUTED TARGET, then the jump's position
                    jcnd = int(line[5:].split()[0].split("/")[1])
                    continue
                if line.startswith("jump="):
                    continue
                if line.startswith("ob="):
                    obj = line[3:]
                    continue
                if line.startswith("fn="):
                    fn = line[3:]
                    cob = None
                    continue
                if line.startswith("cob="):
                    cob = line[4:]
                    continue
                if line.startswith("cfn="):
                    cfn = line[4:]
                    continue
                if line.startswith("calls="):
                    call = (int(line[6:].split()[0]), cob or obj, cfn)
                    continue
                if line[0].isdigit() or line[0] in "+-*":
                    parts = line.split()
                    if jcnd is not None:
                        # its instruction (absolute: --compress-pos=no)
                        if npos > 1 and parts[0].startswith("0x"):
                            k = (obj, fn, int(parts[0], 16))
                            self.jumps[k] = self.jumps.get(k, 0) + jcnd
                        jcnd = None
                        continue
                    cost = int(parts[npos]) if len(parts) > npos else 0
                    if call:
                        n, callee_ob, callee = call
                        # cob= names the object of the next call only
                        # (none: the caller's own)
                        call = cob = None
                        to = self.calls_to.setdefault((obj, fn), {})
                        ck = (callee_ob, callee)
                        to[ck] = to.get(ck, 0) + cost
                        nc = self.ncalls.setdefault((obj, fn), {})
                        nc[ck] = nc.get(ck, 0) + n
                        if is_provider(callee_ob) and not is_verbs(obj):
                            k = (callee_ob, callee)
                            self.pcalls[k] = self.pcalls.get(k, 0) + n
                            self.pcost[k] = self.pcost.get(k, 0) + cost
                            pf = self.pcalls_from.setdefault((obj, fn), {})
                            pf[k] = pf.get(k, 0) + n
                        if callee and callee.startswith("qsort") and \
                                not is_libc(obj):
                            self.qsort += cost
                        continue
                    self.by_obj[obj] = self.by_obj.get(obj, 0) + cost
                    k = (obj, fn)
                    self.by_fn[k] = self.by_fn.get(k, 0) + cost

    def total(self):
        return sum(self.by_obj.values())

    def loop_fn(self, tool, k):
        """The tool's function that calls provider function @k (poll_cq)
        most often: its loop, named by address where the binary is
        stripped; None if none."""
        fns = [(n.get(k, 0), f) for f, n in self.pcalls_from.items()
               if f[0].rsplit("/", 1)[-1] == tool]
        best = max(fns, key=lambda x: x[0]) if fns else (0, None)
        return best[1] if best[0] > 0 else None

    def inclusive(self, key, tool, seen=None):
        """Function @key's instructions and its callees', by group.  A
        callee's cost is split as that callee's whole inclusive cost is
        (the share of each call, as gprof does): a provider function costs
        the same per call whoever calls it."""
        if seen is None:
            seen = set()
            self.memo = {}
        if key in self.memo:
            return self.memo[key]
        g = {"own": 0, "verbs": 0, "libc": 0, "other": 0}
        g[group_of(key[0], tool)] += self.by_fn.get(key, 0)
        seen.add(key)
        for ck, n in self.calls_to.get(key, {}).items():
            sub = None if ck in seen else self.inclusive(ck, tool, seen)
            t = sum(sub.values()) if sub else 0
            if t <= 0:
                g[group_of(ck[0], tool)] += n
                continue
            for k in g:
                g[k] += n * sub[k] / t
        seen.discard(key)
        self.memo[key] = g
        return g


def load(out, parts):
    """The whole run and, when it has parts, its loop (part 2)."""
    whole, loop = Profile(), None
    files = sorted(glob.glob(out + ".*")) + [out]
    files = [f for f in files if re.fullmatch(re.escape(out) + r"(\.\d+)?", f)]
    for f in files:
        whole.add(f)
    if parts:
        if len(files) != 3:
            raise SystemExit("cgsplit: %s: %d parts, expected 3 (was the "
                             "loop function called once?)" % (out, len(files)))
        loop = Profile()
        loop.add(out + ".2")
    return whole, loop


def group_of(obj, tool):
    if obj.rsplit("/", 1)[-1] == tool:
        return "own"
    if is_verbs(obj):
        return "verbs"
    return "libc" if is_libc(obj) else "other"


def groups(p, tool):
    g = {"own": 0, "verbs": 0, "libc": 0, "other": 0}
    for obj, n in p.by_obj.items():
        g[group_of(obj, tool)] += n
    return g


def reaches_verbs(p, key):
    """Whether function KEY of profile P is of libibverbs or the provider,
    or calls one of theirs, directly or not."""
    todo, seen = [key], {key}
    while todo:
        f = todo.pop()
        if is_verbs(f[0]):
            return True
        for ck in p.ncalls.get(f, {}):
            if ck not in seen:
                seen.add(ck)
                todo.append(ck)
    return False


def once_calls(a, b, root):
    """The calls (caller, callee) that function ROOT and the functions it
    calls make as many times in loop profile A (N1 round trips) as in B
    (N2) and that reach no verbs: its set-up and its end.  What such a
    call calls is not searched further."""
    todo = [k for k in set(b.ncalls) | set(b.by_fn)
            if k[1] == root or k[1].startswith(root + "'")]
    seen, edges = set(todo), []
    while todo:
        f = todo.pop()
        for ck, n in sorted(b.ncalls.get(f, {}).items()):
            if n == a.ncalls.get(f, {}).get(ck, 0) and \
                    not reaches_verbs(b, ck):
                edges.append((f, ck))
            elif ck not in seen:
                seen.add(ck)
                todo.append(ck)
    return edges


def without(p, edges, tool):
    """groups() of loop profile P less the calls EDGES, each by the split
    of its callee's inclusive cost."""
    g = groups(p, tool)
    for f, ck in edges:
        cost = p.calls_to.get(f, {}).get(ck, 0)
        sub = p.inclusive(ck, tool)
        t = sum(sub.values())
        if t <= 0:
            g[group_of(ck[0], tool)] -= cost
            continue
        for k in g:
            g[k] -= cost * sub[k] / t
    return g


def loop_of(whole, loop, tool, fn, pk):
    """The loop's instructions, its own part and its calls of @pk, the
    provider's poll_cq (a run's): part 2 of a profile cut at the loop,
    else function @fn, inclusive."""
    if loop:
        return loop.total(), groups(loop, tool)["own"], loop.pcalls.get(pk, 0)
    if fn:
        g = whole.inclusive(fn, tool)
        return sum(g.values()), g["own"], whole.pcalls.get(pk, 0)
    g = groups(whole, tool)
    return whole.total() - whole.qsort, g["own"], whole.pcalls.get(pk, 0)


def poll_and_loop(w1, w2, a, b, c, tool, parts):
    """(grow, pk, found, fn): the calls of each provider function that grow
    from run A to run B (their loops, or the whole runs W1, W2); pk, which
    of them is poll_cq; found, whether calibration run C named it; fn, the
    tool's loop function where the runs are not cut (else None)."""
    # poll_cq: the provider function whose calls the calibration's pause
    # multiplied; without one, whose calls grow most with N (not the one
    # called most: a tool may post all its receives before the loop; at
    # one poll per round trip poll_cq and post_send tie)
    grow = {k: b.pcalls.get(k, 0) - a.pcalls.get(k, 0) for k in b.pcalls}
    pk = max(grow, key=lambda x: grow[x]) if grow else None
    found = False  # the pause named poll_cq
    if c and c.pcalls:
        paused = {k: c.pcalls[k] - b.pcalls.get(k, 0) for k in c.pcalls}
        top = max(paused, key=lambda x: paused[x])
        if paused[top] > 0 and top in grow:
            pk, found = top, True
    fn = None if parts else w2.loop_fn(tool, pk)
    if not parts and pk and not found:
        # no calibration that named it (none, or one whose client spun
        # in memory, not in poll_cq), and poll_cq tied with post_send (one
        # poll per round trip, as a server finds its message there): the
        # loop is the outer function, the one calling the tied function
        # that costs the most, inclusive (the tool's post function is
        # inside it)
        # (callers counted by the calls that grow with N: a tool may post
        # its receives before the loop)
        def caller(k):
            fns = [(n.get(k, 0) - w1.pcalls_from.get(f, {}).get(k, 0), f)
                   for f, n in w2.pcalls_from.items()
                   if f[0].rsplit("/", 1)[-1] == tool]
            best = max(fns, key=lambda x: x[0]) if fns else (0, None)
            return best[1] if best[0] > 0 else None

        tied = [(k, caller(k)) for k in grow if grow[k] == grow[pk]]
        tied = [(k, f) for k, f in tied if f]
        if len(tied) > 1:
            pk, fn = max(tied, key=lambda x: sum(
                w2.inclusive(x[1], tool).values()))
    return grow, pk, found, fn


def main(argv):
    if len(argv) == 7 and argv[1] == "--find":
        tool, n1, out1, n2, out2 = argv[2:]
        w1, _ = load(out1, False)
        w2, _ = load(out2, False)
        fn = poll_and_loop(w1, w2, w1, w2, None, tool, False)[3]
        if fn is None:
            print("cgsplit: %s, %s: no loop function of %s found"
                  % (out1, out2, tool), file=sys.stderr)
            return 1
        print(fn[1])
        return 0
    root = None
    if len(argv) > 2 and argv[1] == "--loop":
        root = argv[2]
        argv = argv[:1] + argv[3:]
    if len(argv) not in (7, 8):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    label, tool, n1, out1, n2, out2 = argv[1:7]
    d = int(n2) - int(n1)
    parts = bool(glob.glob(out1 + ".1"))
    w1, l1 = load(out1, parts)
    w2, l2 = load(out2, parts)
    total = (w2.total() - w1.total()) / d
    a, b = (l1, l2) if parts else (w1, w2)
    wc = lc = None
    if len(argv) == 8:
        wc, lc = load(argv[7], parts)
    c = lc if parts else wc
    grow, pk, found, fn = poll_and_loop(w1, w2, a, b, c, tool, parts)
    if parts:
        edges = once_calls(a, b, root) if root else []
        g1, g2 = without(a, edges, tool), without(b, edges, tool)
        for f, ck in edges:
            print("PPICOUNT-ONCE,%s,%s,%d,%d" % (
                label, ck[1], a.calls_to.get(f, {}).get(ck, 0),
                b.calls_to.get(f, {}).get(ck, 0)))
    elif fn:
        # the tool's function that polls, and what it calls (inclusive)
        g1, g2 = a.inclusive(fn, tool), b.inclusive(fn, tool)
        print("PPICOUNT-LOOPFN,%s,%s" % (label, fn[1]))
    else:
        g1, g2 = groups(a, tool), groups(b, tool)
        # qsort's instructions are libc's and the comparator's
        g1["libc"] -= w1.qsort  # (approximately: all in libc)
        g2["libc"] -= w2.qsort
    split = {k: (g2[k] - g1[k]) / d for k in g1}
    loop = sum(split.values())
    polls = cost = 0.0
    if pk:
        polls = grow[pk] / d
        if grow[pk] > 0:
            cost = (b.pcost.get(pk, 0) - a.pcost.get(pk, 0)) / grow[pk]
    print("PPICOUNT,%s,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.2f,%.0f" %
          (label, total, loop, total - loop, split["own"], split["verbs"],
           split["libc"], split["other"], polls, cost))
    fns = {}
    for (obj, name), n in b.by_fn.items():
        if obj.rsplit("/", 1)[-1] == tool:
            fns[name] = (n - a.by_fn.get((obj, name), 0)) / d
    for name, n in sorted(fns.items(), key=lambda x: -x[1])[:10]:
        if n >= 0.5:
            print("PPICOUNT-FN,%s,%s,%.1f" % (label, name, n))
    if wc:
        n_b, own_b, polls_b = loop_of(w2, l2, tool, fn, pk)
        n_c, own_c, polls_c = loop_of(wc, lc, tool, fn, pk)
        extra = polls_c - polls_b
        if extra > 0:
            print("PPICOUNT-POLL,%s,%d,%.2f,%.2f" %
                  (label, extra, (n_c - n_b) / extra, (own_c - own_b) / extra))
        look = looks(a, b, lc if parts else wc, tool, fn, d)
        if look:
            print("PPICOUNT-LOOK,%s,%d,%.2f,%.2f,%.2f" %
                  (label, look[0], look[1], (n_c - n_b) / look[0],
                   (own_c - own_b) / look[0]))
    return 0


def looks(a, b, c, tool, fn, d):
    """(extra, per round trip) of the look's test in the loop's profiles
    A (N1), B (N2) and C (the calibration), each a Profile with jumps; the
    loop is the tool's part of them, or its function FN; None without
    jumps or growth."""
    def mine(p):
        return {k: n for k, n in p.jumps.items()
                if k[0].rsplit("/", 1)[-1] == tool and
                (fn is None or k[:2] == fn)}
    ja, jb, jc = mine(a), mine(b), mine(c)
    grow = {k: n - jb.get(k, 0) for k, n in jc.items()}
    if not grow or max(grow.values()) <= 0:
        return None
    top = max(grow.values())
    near = [k for k, g in grow.items() if g >= 0.95 * top]
    k = max(near, key=lambda x: jb.get(x, 0) - ja.get(x, 0))
    return grow[k], (jb.get(k, 0) - ja.get(k, 0)) / d


if __name__ == "__main__":
    sys.exit(main(sys.argv))
