#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The mesh at scale, with no RDMA device: the real rank 0 (TOOL --mesh)
against pp_mesh_standin playing the other ranks over loopback
(docs/dev/testing.md, "The mesh at scale").

Usage: sim_test.py CASE --tool PATH --standin PATH --port P [--nodev PATH] [--n N]

Cases (N=1024 unless --n says otherwise):
  all_join     every rank reads its facts for ~0.5 s, then joins at once:
               all N join, every round completes, the pair counts match
  slow_rank    one rank adds 200 usec to each of its pairs: rank 0 names it
               slow, and only it
  slow_link    (N=40) one pair alone 2,000 usec slower: rank 0's one
               verdict is a slow link naming both ends, neither end blamed
  slow_nic     (N=40, two ranks a host, --json) one rank adds 2,000 usec:
               the one verdict is a slow NIC, its host's other NIC fine
  absent_dead  one rank never joins, one dies at round 3: both named, with
               their reasons
  stray        (N=3) one rank missing, --mesh-join 5, a silent connection
               every 0.3 s and a garbage one every 0.7 s: rank 0's "mesh:"
               line within --mesh-join + 2 s, the real ranks welcomed
  foreign      another mesh's 16 ranks (another mesh id) join first: each
               refused naming both ids; the mesh finishes with its own N
  emfile       (N=200) rank 0 under ulimit -n 64 (soft and hard): it exits
               within 5 s, non-zero, with one line naming the limit, and
               does not spin
  rails        (N=8) 4 hosts x 2 NICs: rank 0 (this host, -d rxe0,rxe1,
               local index 0 by arrival) and the stand-in's ranks placed
               host:rxeK with local index K.  Rail mode (the default of a
               list): 12 of 28 pairs run, same local index on different
               hosts, the others '.' and out of --json's pairs; rank 0's 3
               pairs DEV (no device here), 9 pass.  Then --mesh-pairs all
               with PP_MESH_LOCAL=2 for rank 0: all 28 pairs run, rank 0's
               7 DEV with "local index 2 ... is beyond -d rxe0,rxe1"
  prom         (N=8) --mesh-prom into a directory, one slow rank, one failed
               pair: promtool check metrics passes the file; a real
               node_exporter's textfile collector serves it, and a pair's
               round trip and the slow rank's added delay read back over
               HTTP are the stand-in's (exit 77 without promtool or
               prometheus-node-exporter)
  prom_stopped (N=6) an unwritable --mesh-prom: one line naming the path,
               exit 1, before the join; rank 0 interrupted by SIGINT after
               its first round: the file written all the same, exit status
               130, the pairs not run TIME
  thresh_mtu   (N=8) --expect-mtu 4096, rank 3 at active MTU 1024 (netdev
               1500), the others 4096 (9000): exactly rank 3's pairs are
               MTU, the line names its side, 1024 and 1500; every rank
               exits 4
  thresh_slow  (N=8) --max-rtt 100, rank 5 adds 200 usec: exactly its
               pairs are SLOW; every rank exits 4
  thresh_met   (N=8) both thresholds met: every pair passes; every rank
               exits 0
  thresh_fail  (N=8) pair 1-2 fails at RTR besides rank 3's MTU cells:
               every rank exits 1 (a failure wins over a flag)

Rank 0's own worker has no device here: its N-1 pairs end DEV, and so its
exit status is 1; every check counts them.  The thresh_* cases preload
pp_sim_nodev.c into rank 0 instead: its own worker never joins, the
stand-in plays rank 0 too, and the mesh can end 0 or 4.  Each process is bounded; a case
prints what it checked and, on failure, each failed check and the tails of
the outputs, and exits 1.
"""
import argparse
import json
import math
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import socket
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "e2e"))
import prom_scrape  # noqa: E402

LAUNCHER_VARS = re.compile(r"^(SLURM_|PMIX_|PMI_|OMPI_|JOB_COMPLETION_INDEX$|PP_MESH_)")


def clean_env(extra=None):
    """The environment without any launcher's variables (a CI runner
    inside Slurm must not make rank 0 a rank of its step)."""
    env = {k: v for k, v in os.environ.items() if not LAUNCHER_VARS.match(k)}
    env.update(extra or {})
    return env


class Proc:
    """A process in its own session (rank 0's worker child dies with it),
    its stdout lines timestamped by a reader thread, its stderr to a file."""

    def __init__(self, argv, workdir, name, env=None, nofile=None):
        self.name = name
        self.t0 = time.monotonic()
        self.lines = []  # (seconds since start, line)
        self.err_path = os.path.join(workdir, name + ".err")
        self.out_path = os.path.join(workdir, name + ".out")
        preexec = None
        if nofile:
            def preexec():
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
        self.errf = open(self.err_path, "wb")
        self.p = subprocess.Popen(argv, stdout=subprocess.PIPE,
                                  stderr=self.errf, env=env or clean_env(),
                                  start_new_session=True,
                                  preexec_fn=preexec)
        self.rc = None
        self.rusage = None
        self.elapsed = None
        self.killed = False
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        with open(self.out_path, "w", errors="replace") as out:
            for raw in self.p.stdout:
                line = raw.decode(errors="replace")
                self.lines.append((time.monotonic() - self.t0, line))
                out.write(line)

    def first(self, pattern):
        """(time, match) of the first stdout line matching, or None."""
        for t, line in list(self.lines):
            m = re.search(pattern, line)
            if m:
                return t, m
        return None

    def wait_for_line(self, pattern, bound):
        """Wait until a stdout line matches or @bound s from the start."""
        while time.monotonic() - self.t0 < bound:
            hit = self.first(pattern)
            if hit or self.poll():
                return hit or self.first(pattern)
            time.sleep(0.02)
        return self.first(pattern)

    def poll(self):
        if self.rc is not None:
            return True
        pid, status, ru = os.wait4(self.p.pid, os.WNOHANG)
        if pid == 0:
            return False
        self.rc = os.waitstatus_to_exitcode(status)
        self.rusage = ru
        self.elapsed = time.monotonic() - self.t0
        self.p.returncode = self.rc
        return True

    def wait(self, bound):
        """Wait until @bound s from the start; then kill it (killed=True)."""
        while not self.poll():
            if time.monotonic() - self.t0 >= bound:
                self.kill()
                while not self.poll():
                    time.sleep(0.01)
                break
            time.sleep(0.02)
        self.reader.join(timeout=10)
        self.errf.close()
        return self.rc

    def kill(self):
        self.killed = True
        try:
            os.killpg(self.p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def text(self):
        return "".join(line for _, line in self.lines)

    def stderr(self):
        with open(self.err_path, errors="replace") as f:
            return f.read()

    def cpu(self):
        return self.rusage.ru_utime + self.rusage.ru_stime if self.rusage else None


class Case:
    def __init__(self, args):
        self.a = args
        self.failures = []
        self.procs = []
        self.dir = tempfile.mkdtemp(prefix="mesh_sim.")

    def check(self, ok, what):
        print(("ok:   " if ok else "FAIL: ") + what, flush=True)
        if not ok:
            self.failures.append(what)
        return ok

    def rank0(self, n, extra, env=None, nofile=None):
        # -T 10: rank 0 probes an idle connection from -T/2 on and drops it
        # when a probe is unanswered at -T (pp_sock_silent_peer()); a
        # thousand connections that joined at once probe at once, and on
        # loopback the bursts overflow the kernel's backlog
        # (net.core.netdev_max_backlog, 1000 by default: softnet_stat's
        # drops).  With 10 s no wait for the join (8 s here) is idle long
        # enough for that.
        argv = [self.a.tool, "--mesh", "--mesh-size", str(n), "--mesh-root",
                "127.0.0.1", "-p", str(self.a.port), "-T", "10", "-n", "10"]
        p = Proc(argv + extra, self.dir, "rank0", env=env, nofile=nofile)
        self.procs.append(p)
        return p

    def standin(self, n, extra, name="standin"):
        argv = [self.a.standin, "--port", str(self.a.port), "--size", str(n),
                "--root", "127.0.0.1"]
        p = Proc(argv + extra, self.dir, name)
        self.procs.append(p)
        return p

    def finish(self):
        for p in self.procs:
            if p.rc is None:
                p.wait(0)
        if self.failures:
            for p in self.procs:
                lines = p.text().splitlines()
                print("---- %s: exit %s%s, stdout (%d lines; first 3, last 12), "
                      "stderr (last 10):" % (p.name, p.rc,
                                            " (killed)" if p.killed else "",
                                            len(lines)))
                if len(lines) > 15:
                    lines = lines[:3] + ["..."] + lines[-12:]
                for line in lines:
                    print("  " + line[:300])
                for line in p.stderr().splitlines()[-10:]:
                    print("  ! " + line[:300])
            print("%d check(s) failed; outputs in %s" % (len(self.failures),
                                                        self.dir))
            return 1
        shutil.rmtree(self.dir, ignore_errors=True)
        return 0


def standin_counts(p):
    m = re.search(r"standin: ranks (\d+) \((\w+)\), welcomed (\d+), refused "
                  r"(\d+), not taken in (\d+), ended (\d+), gone (\d+), died "
                  r"(\d+), silent (\d+)", p.text())
    if not m:
        return None
    keys = ("ranks", "mode", "welcomed", "refused", "not_in", "ended", "gone",
            "died", "silent")
    return {k: (v if k == "mode" else int(v)) for k, v in zip(keys, m.groups())}


def num(s):
    return int(s.replace(",", ""))


N_ = r"([\d,]+)"


def first_line(p):
    """Rank 0's "mesh: J of N ranks joined ..." line before the rounds."""
    return p.first(r"^mesh: " + N_ + " of " + N_ + r" ranks joined \(")


def summary_line(p):
    """Groups: joined, N, pairs, passed, failed, then flagged, MTU and
    SLOW (None when no threshold was given)."""
    hit = p.first(r"^mesh: " + N_ + " of " + N_ + r" ranks joined, " + N_ +
                  r" pairs: " + N_ + r" passed,(?: " + N_ + r" flagged \(MTU " +
                  N_ + r", SLOW " + N_ + r"\),)? " + N_ + r" failed")
    if hit is None:
        return None
    g = hit[1].groups()
    return hit[0], (g[0], g[1], g[2], g[3], g[7], g[4], g[5], g[6])


def check_mesh(c, r0, n, joined, failed, rc=1):
    """Rank 0's lines: @joined of @n joined, before and after the rounds,
    every pair counted, @failed failed (None: not checked), exit @rc."""
    c.check(not r0.killed and r0.rc == rc,
            "rank 0 ended by itself with exit status %d (got %s%s)" %
            (rc, r0.rc, ", killed at its bound" if r0.killed else ""))
    f = first_line(r0)
    c.check(f is not None and num(f[1].group(1)) == joined and
            num(f[1].group(2)) == n,
            "rank 0's first line: %d of %d ranks joined (got: %s)" %
            (joined, n, f[1].group(0) if f else "no such line"))
    s = summary_line(r0)
    pairs = n * (n - 1) // 2
    if not c.check(s is not None, "rank 0's summary line is there"):
        return None
    g = [num(x) if x is not None else 0 for x in s[1]]
    c.check(g[0] == joined and g[1] == n,
            "summary: %d of %d joined (got %d of %d)" % (joined, n, g[0], g[1]))
    c.check(g[2] == pairs and g[3] + g[4] + g[5] == pairs,
            "summary: %d pairs, passed + failed + flagged = pairs (got %d: "
            "%d + %d + %d)" % (pairs, g[2], g[3], g[4], g[5]))
    if failed is not None:
        c.check(g[4] == failed,
                "summary: %d failed, %d passed (got %d failed, %d passed)" %
                (failed, pairs - failed, g[4], g[3]))
    return g


def check_standin(c, s, **want):
    got = standin_counts(s)
    if not c.check(got is not None and not s.killed,
                   "%s printed its summary and ended by itself" % s.name):
        return None
    for k, v in want.items():
        c.check(got[k] == v, "%s: %s %d (got %d)" % (s.name, k, v, got[k]))
    return got


def case_all_join(c, n):
    r0 = c.rank0(n, ["--mesh-join", "20"])
    s = c.standin(n, ["--any", "--facts", "500", "--join-s", "20"])
    r0.wait(150)
    s.wait(r0.elapsed + 15)
    # rank 0's own pairs: DEV (its worker has no device), all others pass
    check_mesh(c, r0, n, n, n - 1)
    check_standin(c, s, welcomed=n - 1, ended=n - 1, not_in=0, gone=0)
    c.check(re.search(r"standin: end status 1: %d ranks" % (n - 1), s.text())
            is not None, "every stand-in rank got END with status 1")
    text = r0.text()
    c.check("DEV" in text and "ABSENT" not in text and "GONE" not in text,
            "rank 0's failed pairs are DEV, none ABSENT or GONE")


def case_slow_rank(c, n):
    slow = 17 if n > 17 else n - 1
    env = clean_env({"OMPI_COMM_WORLD_RANK": "0",
                     "OMPI_COMM_WORLD_SIZE": str(n)})
    r0 = c.rank0(n, ["--mesh-id", "sim-slow", "--mesh-join", "20"], env=env)
    s = c.standin(n, ["--mesh-id", "sim-slow", "--base-us", "20", "--add",
                      "%d:200" % slow, "--join-s", "20"])
    r0.wait(150)
    s.wait(r0.elapsed + 15)
    check_mesh(c, r0, n, n, n - 1)
    check_standin(c, s, welcomed=n - 1, ended=n - 1)
    named = re.findall(r"^verdict: slow NIC (\S+) \(rank (\d+)[,)].*? adds "
                       r"([\d.,]+) usec", r0.text(), re.M)
    c.check([int(r) for _, r, _ in named] == [slow],
            "rank 0 names rank %d slow, and no other (named: %s)" %
            (slow, ", ".join("%s (rank %s) +%s" % x for x in named) or "none"))
    if named:
        add = float(named[0][2].replace(",", ""))
        c.check(abs(add - 200) <= 2,
                "it adds 200 usec per pair (said: %.1f)" % add)


def verdicts_of(text):
    return re.findall(r"^verdict: .*$", text, re.M)


def case_slow_link(c, n):
    a, b = 11, n - 11
    env = clean_env({"OMPI_COMM_WORLD_RANK": "0",
                     "OMPI_COMM_WORLD_SIZE": str(n)})
    r0 = c.rank0(n, ["--mesh-id", "sim-link", "--mesh-join", "20"], env=env)
    s = c.standin(n, ["--mesh-id", "sim-link", "--base-us", "20",
                      "--add-pair", "%d-%d:2000" % (a, b), "--join-s", "20"])
    r0.wait(60)
    s.wait(r0.elapsed + 15)
    # rank 0's own pairs are DEV (no device here): exit 1 wins over 4
    check_mesh(c, r0, n, n, n - 1)
    check_standin(c, s, welcomed=n - 1, ended=n - 1)
    v = verdicts_of(r0.text())
    want = (r"^verdict: slow link sim%d:sim0 \(rank %d\) - sim%d:sim0 "
            r"\(rank %d\): 2020 usec, 20\d\d usec more than its two ends "
            r"predict \(\d+\.\d usec\); both ends are fine with their "
            r"other pairs$" % (a, a, b, b))
    c.check(len(v) == 1 and re.match(want, v[0]) is not None,
            "rank 0's one verdict: the slow link %d - %d, about 2,000 usec "
            "above its ends (verdicts: %s)" % (a, b, " | ".join(v) or "none"))


def case_slow_nic(c, n):
    slow = 17  # host sim8: ranks 16 and 17
    env = clean_env({"OMPI_COMM_WORLD_RANK": "0",
                     "OMPI_COMM_WORLD_SIZE": str(n)})
    r0 = c.rank0(n, ["--mesh-id", "sim-nic", "--mesh-join", "20", "--json"],
                 env=env)
    s = c.standin(n, ["--mesh-id", "sim-nic", "--base-us", "20",
                      "--per-host", "2", "--add", "%d:2000" % slow,
                      "--join-s", "20"])
    r0.wait(60)
    s.wait(r0.elapsed + 15)
    c.check(not r0.killed and r0.rc == 1,
            "rank 0 ended by itself with exit status 1 (its own pairs are "
            "DEV) (got %s)" % r0.rc)
    check_standin(c, s, welcomed=n - 1, ended=n - 1)
    try:
        d = json.loads(r0.text())
    except ValueError as e:
        c.check(False, "rank 0's --json document parses (%s)" % e)
        return
    v = d["summary"]["verdicts"]
    c.check(len(v) == 1 and v[0]["kind"] == "nic" and
            v[0]["state"] == "slow" and v[0]["ranks"] == [slow] and
            v[0]["host"] == "sim8" and v[0]["device"] == "sim1" and
            v[0]["host_nics"] == 2 and v[0]["pairs"] == n - 2 and
            abs(v[0]["added_usec"] - 2000) <= 2,
            "the one verdict: a slow NIC, sim8:sim1 (rank %d) of a host of "
            "2, %d pairs, 2,000 usec added (verdicts: %s)" %
            (slow, n - 2, json.dumps(v)))
    c.check(d["summary"]["exit_status"] == 1 and
            d["summary"]["verdicts_left_off"] == 0,
            "the summary's exit_status 1, no verdict left off")


def case_absent_dead(c, n):
    env = clean_env({"OMPI_COMM_WORLD_RANK": "0",
                     "OMPI_COMM_WORLD_SIZE": str(n)})
    absent, dead, k = n - 1, n // 2, 3
    r0 = c.rank0(n, ["--mesh-id", "sim-dead", "--mesh-join", "8"], env=env)
    s = c.standin(n, ["--mesh-id", "sim-dead", "--ranks",
                      "1-%d" % (absent - 1), "--die", "%d:%d" % (dead, k),
                      "--join-s", "20"])
    r0.wait(150)
    s.wait(r0.elapsed + 15)
    check_mesh(c, r0, n, n - 1, None)
    check_standin(c, s, welcomed=n - 2, died=1, ended=n - 3)
    text = r0.text()
    c.check(re.search(r"never joined: rank %d \(within [^)]*--mesh-join 8" %
                      absent, text) is not None,
            "rank 0 names rank %d: never joined, within --mesh-join 8 s" %
            absent)
    m = re.search(r"gone: \S+ \(rank %d\): (.*)" % dead, text)
    c.check(m is not None and "round %d" % k in m.group(1) and
            "closed" in m.group(1),
            "rank 0 names rank %d gone: its connection closed in round %d "
            "(said: %s)" % (dead, k, m.group(1) if m else "nothing"))
    c.check(re.search(r"gone: \S+ \(rank (?!%d\))" % dead, text) is None,
            "no other rank is gone")


def case_stray(c, n):
    join, slack = 5, 2
    r0 = c.rank0(n, ["--mesh-join", str(join), "-T", "5"])
    s = c.standin(n, ["--any", "--ranks", "1", "--stray", "300", "--garbage",
                      "700", "--stray-for", "30", "--join-s", str(join)])
    bound = join + slack + 0.5  # + rank 0's own start
    hit = r0.wait_for_line(r"^mesh: ", bound)
    if not c.check(hit is not None and hit[0] <= bound,
                   "rank 0's mesh: line within --mesh-join %d s + %d s "
                   "(+0.5 s to start) (it came %s)" %
                   (join, slack, "at %.1f s" % hit[0] if hit else
                    "not within %.1f s" % bound)):
        r0.kill()
    r0.wait(bound + 30)
    s.wait(r0.elapsed + 15)
    if hit:
        check_mesh(c, r0, n, n - 1, None)
    st = check_standin(c, s, welcomed=1, ended=1)
    m = re.search(r"standin: strays (\d+)", s.text())
    c.check(m is not None and int(m.group(1)) >= 10,
            "the stand-in opened stray connections while rank 0 waited "
            "(%s)" % (m.group(1) if m else "none"))
    if st:
        c.check(re.search(r"never joined: rank %d\b" % (n - 1), r0.text())
                is not None, "rank 0 names the missing rank %d" % (n - 1))


def case_slow_facts(c, n):
    """A rank whose device takes longer than -T to open still joins: rank
    0 waits -T + 3 s for a connection's JOIN, as the worker allows itself
    -T + 2 s to read its facts."""
    slow = n - 1
    # rank 0's -T is 2 here (the last one given wins): the last rank's
    # JOIN comes 3.5 s after it connected (its fact read), past -T and
    # within -T + 3 s
    r0 = c.rank0(n, ["--mesh-join", "15", "-T", "2"])
    s = c.standin(n, ["--ranks", "1-%d" % slow, "--facts", "%d:3500" % slow,
                      "--join-s", "15"])
    r0.wait(60)
    s.wait(r0.elapsed + 15)
    check_mesh(c, r0, n, n, n - 1)
    check_standin(c, s, welcomed=n - 1, ended=n - 1, not_in=0)
    c.check(re.search(r"never joined", r0.text()) is None,
            "no rank is named as never joined")


def case_foreign(c, n):
    nb = min(16, n - 1)
    r0 = c.rank0(n, ["--mesh-id", "sim-A", "--mesh-join", "20"])
    b = c.standin(n, ["--mesh-id", "sim-B", "--ranks", "1-%d" % nb,
                      "--join-s", "20"], name="standin-B")
    time.sleep(0.3)  # B's JOINs first: they ask for ranks 1..16
    a = c.standin(n, ["--mesh-id", "sim-A", "--any", "--join-s", "20"],
                  name="standin-A")
    r0.wait(150)
    a.wait(r0.elapsed + 15)
    b.wait(r0.elapsed + 15)
    check_mesh(c, r0, n, n, n - 1)
    check_standin(c, a, welcomed=n - 1, ended=n - 1)
    check_standin(c, b, welcomed=0, refused=nb)
    texts = re.findall(r"standin: refused (\d+): (.*) \(ranks", b.text())
    c.check(len(texts) == 1 and "sim-A" in texts[0][1] and
            "sim-B" in texts[0][1],
            "each refusal names both mesh ids (said: %s)" %
            (texts[0][1] if texts else "nothing"))


def case_emfile(c, n):
    limit, bound = 64, 5.0
    r0 = c.rank0(n, ["--mesh-join", "5"], nofile=limit)
    s = c.standin(n, ["--any", "--join-s", "5"])
    r0.wait(bound + 3)  # past the join deadline: a spin would show as CPU
    s.wait(r0.elapsed + 12)
    c.check(not r0.killed and r0.elapsed <= bound,
            "rank 0 (ulimit -n %d, --mesh-size %d) exits within %.0f s (%s)" %
            (limit, n, bound, "it was killed at %.0f s, %.1f s of CPU" %
             (bound + 3, r0.cpu()) if r0.killed else "%.1f s" % r0.elapsed))
    c.check(r0.rc not in (0, None) and not r0.killed,
            "rank 0's exit status is non-zero (got %s)" % r0.rc)
    cpu = r0.cpu()
    c.check(cpu is not None and cpu < 2.0,
            "rank 0 does not spin: under 2 s of CPU (used %.2f s)" %
            (cpu or 0))
    err = [l for l in r0.stderr().splitlines() if l.strip()]
    hits = [l for l in err if re.search(r"ulimit -n|descriptor|open files", l,
                                        re.I)]
    c.check(len(hits) == 1 and str(limit) in hits[0],
            "one line names the descriptor limit (%d) (stderr: %s)" %
            (limit, " | ".join(err[-3:]) or "empty"))


def rails_standin(c, n, host0, mesh_id):
    """Ranks 1..7 of 4 hosts x 2 NICs: rank 1 on rank 0's host."""
    place = []
    for r in range(1, n):
        host = host0 if r < 2 else "rail%s" % "BCD"[r // 2 - 1]
        place += ["--place", "%d:%s:rxe%d:%d" % (r, host, r % 2, r % 2)]
    return c.standin(n, ["--mesh-id", mesh_id, "--join-s", "20"] + place,
                     name="standin-" + mesh_id)


def case_rails(c, n):
    import json
    import socket
    host0 = socket.gethostname()
    short0 = host0.split(".")[0]
    # rail mode, the default of a -d list
    r0 = c.rank0(n, ["--mesh-id", "rails-a", "--mesh-join", "20", "-d",
                     "rxe0,rxe1", "--json"])
    s = rails_standin(c, n, host0, "rails-a")
    r0.wait(25)
    s.wait(r0.elapsed + 10)
    check_standin(c, s, welcomed=n - 1, ended=n - 1)
    c.check(not r0.killed and r0.rc == 1,
            "rail: rank 0 ends by itself, exit 1 (its own device is not "
            "here) (got %s%s)" % (r0.rc, ", killed" if r0.killed else ""))
    try:
        d = json.loads(r0.text())
    except ValueError as e:
        c.check(False, "rail: rank 0's --json parses (%s)" % e)
        return
    want = ["%s:rxe0" % short0, "%s:rxe1" % short0] + \
        ["rail%s:rxe%d" % (h, k) for h in "BCD" for k in (0, 1)]
    c.check(d["matrix"]["labels"] == want,
            "rail: labels host:device %s (got %s)" %
            (want, d["matrix"]["labels"]))
    hosts = d["hosts"]
    c.check([h["local"] for h in hosts] == [k % 2 for k in range(n)] and
            [h["device"] for h in hosts] == ["rxe%d" % (k % 2)
                                             for k in range(n)],
            "rail: hosts' local index and device: rank 0 took rxe0 by "
            "arrival (got %s)" % [(h["local"], h["device"]) for h in hosts])
    ran = {(p["a"], p["b"]): p["result"] for p in d["pairs"]}
    rail = {(a, b) for a in range(n) for b in range(a + 1, n)
            if a % 2 == b % 2 and a // 2 != b // 2}
    c.check(set(ran) == rail,
            "rail: --json's pairs are the 12 rail pairs (same local index, "
            "other host) (got %s)" % sorted(ran))
    c.check(all(ran[p] == ("DEV" if p[0] == 0 else "ok") for p in ran),
            "rail: rank 0's pairs DEV, the others ok (got %s)" % ran)
    cells = d["matrix"]["cells"]
    c.check(all(cells[a][b] == "." for a in range(n) for b in range(n)
                if a != b and (min(a, b), max(a, b)) not in rail),
            "rail: every pair not selected is '.' in the matrix")
    sm = d["summary"]
    c.check((sm["pairs"], sm["passed"], sm["failed"], sm["not_selected"],
             sm["exit_status"]) == (12, 9, 3, 16, 1),
            "rail: summary 12 pairs, 9 passed, 3 failed, 16 not selected, "
            "exit 1 (got %s)" % ({k: sm[k] for k in ("pairs", "passed",
                                                    "failed", "not_selected",
                                                    "exit_status")}))
    c.check(d["mesh"]["pair_mode"] == "rail" and d["mesh"]["rounds"] == 3,
            "rail: mode rail, 3 rounds (rails of 4 side by side, not 7) "
            "(got %s, %s)" % (d["mesh"]["pair_mode"], d["mesh"]["rounds"]))
    # all pairs; rank 0's local index 2 is beyond the list
    env = clean_env({"PP_MESH_LOCAL": "2"})
    r0 = c.rank0(n, ["--mesh-id", "rails-b", "--mesh-join", "20", "-d",
                     "rxe0,rxe1", "--mesh-pairs", "all"], env=env)
    s = rails_standin(c, n, host0, "rails-b")
    r0.wait(25)
    s.wait(r0.elapsed + 10)
    check_mesh(c, r0, n, n, n - 1)
    text = r0.text()
    c.check("all pairs: 28 of 28\n" in text and "\n. " not in text and
            " . " not in text.split("legend:")[0],
            "all: 28 of 28 pairs run, none marked not selected")
    c.check(re.search(r"local index 2 \(PP_MESH_LOCAL\) is beyond -d "
                      r"rxe0,rxe1", text) is not None,
            "all: rank 0's device line names its local index and the list")


def skip(c, what):
    print("SKIP: %s" % what, flush=True)
    shutil.rmtree(c.dir, ignore_errors=True)
    sys.exit(77)


def case_prom(c, n):
    """The model: every pair 20 usec; rank SLOW adds 300 usec; the pair
    A-B fails at RTR.  Rank 0's own pairs are DEV (no device here)."""
    promtool, exporter = prom_scrape.tools()
    if not promtool:
        skip(c, "promtool not found: install the Debian package prometheus "
             "(tests/install-deps.sh)")
    if not exporter:
        skip(c, "prometheus-node-exporter not found: install the Debian package "
             "prometheus-node-exporter (tests/install-deps.sh)")
    slow, a, b, base, add = n - 3, 2, n - 2, 20, 300
    tdir = os.path.join(c.dir, "textfile")
    os.mkdir(tdir)
    path = os.path.join(tdir, "mesh.prom")
    env = clean_env({"OMPI_COMM_WORLD_RANK": "0",
                     "OMPI_COMM_WORLD_SIZE": str(n)})
    r0 = c.rank0(n, ["--mesh-id", "sim-prom", "--mesh-join", "20",
                     "--mesh-prom", path], env=env)
    s = c.standin(n, ["--mesh-id", "sim-prom", "--base-us", str(base),
                      "--add", "%d:%d" % (slow, add), "--fail-pair",
                      "%d-%d:RTR:boom" % (a, b), "--join-s", "20"])
    r0.wait(40)
    s.wait(r0.elapsed + 10)
    check_mesh(c, r0, n, n, n)  # rank 0's n - 1, and A-B
    left = sorted(os.listdir(tdir))
    if not c.check(left == ["mesh.prom"],
                   "the directory holds mesh.prom alone, no temporary file "
                   "(holds: %s)" % ", ".join(left)):
        return
    with open(path) as f:
        text = f.read()
    passed, said = prom_scrape.promtool_check(promtool, text)
    c.check(passed, "promtool check metrics passes it, silent (%s)" % said)
    body, why = prom_scrape.scrape(exporter, tdir,
                                   os.path.join(c.dir, "exporter.err"))
    if not c.check(body is not None, "node_exporter served /metrics within "
                   "15 s" + ("" if body is not None else " (%s)" % why)):
        return
    got = prom_scrape.parse_metrics(body)
    c.check(prom_scrape.find_metric(got, "node_textfile_scrape_error") == [0.0],
            "its textfile collector read the file without error")
    rtt = prom_scrape.find_metric(got, "rdma_mesh_pair_rtt_median_seconds",
                      rank_a=1, rank_b=a, transport="rc")
    c.check(len(rtt) == 1 and abs(rtt[0] - base * 1e-6) < 1e-12,
            "pair 1-%d's round trip: %g s (got %s)" % (a, base * 1e-6, rtt))
    rtt = prom_scrape.find_metric(got, "rdma_mesh_pair_rtt_median_seconds",
                      rank_a=1, rank_b=slow)
    c.check(len(rtt) == 1 and abs(rtt[0] - (base + add) * 1e-6) < 1e-12,
            "pair 1-%d's round trip: %g s (got %s)" %
            (slow, (base + add) * 1e-6, rtt))
    added = prom_scrape.find_metric(got, "rdma_mesh_rank_added_delay_seconds", rank=slow)
    c.check(len(added) == 1 and abs(added[0] - add * 1e-6) < 1e-6,
            "rank %d adds %g s (got %s)" % (slow, add * 1e-6, added))
    c.check(prom_scrape.find_metric(got, "rdma_mesh_rank_slow", rank=slow) == [1.0] and
            sum(prom_scrape.find_metric(got, "rdma_mesh_rank_slow")) == 1,
            "rank %d is judged slow, and no other" % slow)
    c.check(prom_scrape.find_metric(got, "rdma_mesh_pair_result", rank_a=a, rank_b=b,
                        result="RTR") == [1.0],
            "pair %d-%d's result is RTR" % (a, b))
    c.check(len(prom_scrape.find_metric(got, "rdma_mesh_pair_result", rank_a=0,
                            result="DEV")) == n - 1,
            "rank 0's %d pairs are DEV" % (n - 1))
    c.check(prom_scrape.find_metric(got, "rdma_mesh_pairs_failed", mesh_id="sim-prom")
            == [float(n)], "%d pairs failed" % n)
    c.check(prom_scrape.find_metric(got, "rdma_mesh_ranks_joined") == [float(n)],
            "%d ranks joined" % n)
    c.check(prom_scrape.find_metric(got, "rdma_mesh_exit_status") == [float(r0.rc)],
            "the exit status is rank 0's (%s)" % r0.rc)
    ts = prom_scrape.find_metric(got, "rdma_mesh_last_run_timestamp_seconds")
    c.check(len(ts) == 1 and abs(ts[0] - os.path.getmtime(path)) < 5,
            "the run's end is the file's time (%s)" % ts)


def case_prom_stopped(c, n):
    # an unwritable path: refused before anyone joins
    bad = os.path.join(c.dir, "no", "such", "mesh.prom")
    r0 = c.rank0(n, ["--mesh-join", "10", "--mesh-prom", bad])
    r0.wait(10)
    err = [l for l in r0.stderr().splitlines() if l.strip()]
    c.check(not r0.killed and r0.rc == 1 and r0.elapsed < 5,
            "an unwritable --mesh-prom: exit 1 within 5 s (got %s%s, %.1f s)"
            % (r0.rc, ", killed" if r0.killed else "", r0.elapsed or 0))
    c.check(len(err) == 1 and bad in err[0] and "--mesh-prom" in err[0] and
            os.strerror(2) in err[0],
            "one line naming the path and the error (%s)" % " | ".join(err))
    c.check(first_line(r0) is None, "rank 0 said nothing of a mesh")
    # SIGINT after the first round: the file all the same, with what it has
    path = os.path.join(c.dir, "mesh.prom")
    c.procs.remove(r0)
    r0 = c.rank0(n, ["--mesh-join", "20", "--mesh-prom", path])
    s = c.standin(n, ["--any", "--answer-ms", "1500", "--join-s", "20"])
    hit = r0.wait_for_line(r"^mesh: ", 25)
    if c.check(hit is not None, "rank 0 started the rounds"):
        time.sleep(0.5)
        os.kill(r0.p.pid, signal.SIGINT)
    r0.wait(40)
    s.wait(r0.elapsed + 10)
    c.check(not r0.killed and r0.rc == 130,
            "rank 0 interrupted: exit status 130 (got %s)" % r0.rc)
    if not c.check(os.path.exists(path) and
                   sorted(os.listdir(c.dir)).count("mesh.prom") == 1 and
                   not [f for f in os.listdir(c.dir) if ".tmp-" in f],
                   "the file is there, no temporary file beside it"):
        return
    with open(path) as f:
        got = prom_scrape.parse_metrics(f.read())
    c.check(prom_scrape.find_metric(got, "rdma_mesh_exit_status") == [130.0],
            "it says exit status 130")
    pairs = n * (n - 1) // 2
    time_ = len(prom_scrape.find_metric(got, "rdma_mesh_pair_result", result="TIME"))
    c.check(0 < time_ < pairs and
            len(prom_scrape.find_metric(got, "rdma_mesh_pair_result")) == pairs,
            "every pair has a result, those not run TIME (%d of %d)" %
            (time_, pairs))


def matrix(p, n):
    """Rank 0's text matrix: {(a, b): cell} for a != b, or None."""
    cells = {}
    for line in p.text().splitlines():
        m = re.match(r"^ +(\d+)  \S+ +(.*)$", line)
        if not m or int(m.group(1)) >= n:
            continue
        row = m.group(2).split()
        if len(row) != n:
            continue
        a = int(m.group(1))
        for b, cell in enumerate(row):
            if b != a:
                cells[(a, b)] = cell
    return cells if len(cells) == n * (n - 1) else None


def thresh_mesh(c, n, extra, model, rc, name):
    """Rank 0 with pp_sim_nodev preloaded (its own worker never joins)
    and @extra; the stand-in plays every rank, rank 0 too, with @model.
    Checks every rank's exit status @rc; returns rank 0's matrix."""
    env = clean_env({"OMPI_COMM_WORLD_RANK": "0",
                     "OMPI_COMM_WORLD_SIZE": str(n),
                     "LD_PRELOAD": c.a.nodev,
                     # an ASan build's runtime need not come first
                     "ASAN_OPTIONS": (os.environ.get("ASAN_OPTIONS", "") +
                                      ":verify_asan_link_order=0").lstrip(":")})
    mid = "sim-" + name
    # -T 2: the own worker gives up on its facts after 4 s, and rank 0
    # waits for it at most 5 s at the end
    r0 = c.rank0(n, ["--mesh-id", mid, "--mesh-join", "15", "-T", "2"] +
                 extra, env=env)
    s = c.standin(n, ["--mesh-id", mid, "--ranks", "0-%d" % (n - 1),
                      "--join-s", "15"] + model)
    r0.wait(25)
    s.wait(r0.elapsed + 10)
    g = check_mesh(c, r0, n, n, None, rc=rc)
    check_standin(c, s, welcomed=n, ended=n)
    c.check(re.search(r"standin: end status %d: %d ranks" % (rc, n), s.text())
            is not None, "every rank, rank 0's slot too, got END with "
            "status %d" % rc)
    cells = matrix(r0, n)
    c.check(cells is not None, "rank 0 printed the %d x %d matrix" % (n, n))
    return g, cells or {}


def case_thresh_mtu(c, n):
    low = 3
    g, cells = thresh_mesh(c, n, ["--expect-mtu", "4096"],
                           ["--mtu", "all:4096:9000", "--mtu",
                            "%d:1024:1500" % low], 4, "mtu")
    mtu = sorted(p for p, v in cells.items() if v == "MTU")
    want = sorted(p for p in cells if low in p)
    c.check(mtu == want, "exactly rank %d's pairs are MTU (got %s)" %
            (low, mtu))
    c.check(all(re.match(r"^[\d.]+$", v) for p, v in cells.items()
                if low not in p), "every other pair shows its median")
    lines = re.findall(r"flagged: .* at MTU \(.*?\): (.*)", c.procs[0].text())
    want_line = ("path MTU 1024 is below --expect-mtu 4096: the active MTU "
                 "of sim%d (rank %d) is 1024 (netdev MTU 1500), of " %
                 (low, low))
    c.check(lines and all(want_line in l and "raise its netdev MTU to at "
                          "least 4200" in l for l in lines),
            "the MTU line names rank %d's side, active 1024, netdev 1500 "
            "(said: %s)" % (low, lines[0] if lines else "nothing"))
    if g:
        c.check(g[5] == n - 1 and g[6] == n - 1 and g[7] == 0 and g[4] == 0,
                "summary: %d flagged (MTU %d, SLOW 0), 0 failed (got %s)" %
                (n - 1, n - 1, g))


def case_thresh_slow(c, n):
    slow = 5
    g, cells = thresh_mesh(c, n, ["--max-rtt", "100"],
                           ["--mtu", "all:4096:9000", "--base-us", "20",
                            "--add", "%d:200" % slow], 4, "slow")
    got = sorted(p for p, v in cells.items() if v == "SLOW")
    want = sorted(p for p in cells if slow in p)
    c.check(got == want, "exactly rank %d's pairs are SLOW (got %s)" %
            (slow, got))
    c.check(re.search(r"flagged: .* at SLOW \(.*?\): median round trip "
                      r"220\.000 usec is above --max-rtt 100 usec",
                      c.procs[0].text()) is not None,
            "the SLOW line names the median 220 usec and the limit")
    if g:
        c.check(g[5] == n - 1 and g[7] == n - 1 and g[4] == 0,
                "summary: %d flagged (SLOW), 0 failed (got %s)" % (n - 1, g))


def case_thresh_met(c, n):
    g, cells = thresh_mesh(c, n, ["--expect-mtu", "4096", "--max-rtt", "100"],
                           ["--mtu", "all:4096:9000"], 0, "met")
    c.check(cells and all(re.match(r"^[\d.]+$", v) for v in cells.values()),
            "every pair shows its median")
    if g:
        c.check(g[3] == n * (n - 1) // 2 and g[5] == 0 and g[4] == 0,
                "summary: every pair passed, 0 flagged, 0 failed (got %s)" %
                g)


def case_thresh_fail(c, n):
    low = 3
    g, cells = thresh_mesh(c, n, ["--expect-mtu", "4096"],
                           ["--mtu", "all:4096:9000", "--mtu",
                            "%d:1024:1500" % low, "--fail-pair", "1-2:RTR"],
                           1, "fail")
    c.check(cells.get((1, 2)) == "RTR" and cells.get((0, low)) == "MTU",
            "the matrix has pair 1-2 RTR and rank %d's pairs MTU" % low)
    if g:
        c.check(g[4] == 1 and g[6] == n - 1,
                "summary: 1 failed, %d MTU (got %s)" % (n - 1, g))


CASES = {
    "all_join": (case_all_join, 1024),
    "slow_rank": (case_slow_rank, 1024),
    "slow_link": (case_slow_link, 40),
    "slow_nic": (case_slow_nic, 40),
    "absent_dead": (case_absent_dead, 1024),
    "stray": (case_stray, 3),
    "slow_facts": (case_slow_facts, 4),
    "foreign": (case_foreign, 1024),
    "emfile": (case_emfile, 200),
    "rails": (case_rails, 8),
    "prom": (case_prom, 8),
    "prom_stopped": (case_prom_stopped, 6),
    "thresh_mtu": (case_thresh_mtu, 8),
    "thresh_slow": (case_thresh_slow, 8),
    "thresh_met": (case_thresh_met, 8),
    "thresh_fail": (case_thresh_fail, 8),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--tool", required=True)
    ap.add_argument("--standin", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--nodev", help="pp_sim_nodev.so (the thresh_* cases)")
    ap.add_argument("--n", type=int, help="the number of ranks (default: the case's)")
    a = ap.parse_args()
    fn, n = CASES[a.case]
    c = Case(a)
    print("mesh_sim %s: N=%d, port %d, outputs in %s" %
          (a.case, a.n or n, a.port, c.dir), flush=True)
    try:
        fn(c, a.n or n)
    finally:
        for p in c.procs:
            if p.rc is None:
                p.kill()
    sys.exit(c.finish())


if __name__ == "__main__":
    main()
