# SPDX-License-Identifier: MIT
"""prom_scrape.py: read a --mesh-prom file as monitoring does.

promtool_check(text) runs "promtool check metrics" on it; scrape(path)
serves the file's directory with a real node_exporter (its textfile
collector alone, on a free loopback port) and returns what /metrics
served; parse_metrics() and find_metric() read the samples back.
Used by mesh_check.py (the bed) and mesh_sim/sim_test.py (the stand-in).
"""

import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request


def tools():
    """(promtool, node_exporter) paths, or None where not installed."""
    return (shutil.which("promtool"),
            shutil.which("prometheus-node-exporter") or shutil.which("node_exporter"))


def promtool_check(promtool, text):
    """(passed, what it said): promtool check metrics, silent on success."""
    chk = subprocess.run([promtool, "check", "metrics"], input=text,
                         capture_output=True, text=True, timeout=30)
    said = (chk.stdout + chk.stderr).strip()
    return chk.returncode == 0 and not said, "exit %d: %s" % (chk.returncode, said[:500])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scrape(exporter, tdir, errpath, wait_s=15):
    """(body or None, why): /metrics of a node_exporter reading TDIR's
    *.prom, its stderr in ERRPATH; it is killed before this returns."""
    port = free_port()
    with open(errpath, "wb") as err:
        ne = subprocess.Popen([exporter, "--collector.disable-defaults",
                               "--collector.textfile",
                               "--collector.textfile.directory=" + tdir,
                               "--web.listen-address=127.0.0.1:%d" % port],
                              stdout=subprocess.DEVNULL, stderr=err,
                              start_new_session=True)
    body, why = None, "no answer"
    try:
        deadline = time.monotonic() + wait_s
        while body is None and time.monotonic() < deadline:
            if ne.poll() is not None:
                why = "it exited with %d" % ne.returncode
                break
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port,
                                            timeout=5) as resp:
                    body = resp.read().decode()
            except (urllib.error.URLError, OSError) as e:
                why = str(e)
                time.sleep(0.2)
    finally:
        try:
            os.killpg(ne.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        ne.wait(timeout=10)
    return body, why


def parse_metrics(text):
    """The samples of an exposition text: {(name, frozenset(labels)):
    value}, label values unescaped."""
    out = {}
    sample = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
    pair = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')
    unesc = {"\\": "\\", '"': '"', "n": "\n"}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = sample.match(line)
        if not m:
            raise ValueError("not a sample line: %r" % line)
        labels = {}
        for k, v in pair.findall(m.group(2) or ""):
            labels[k] = re.sub(r"\\(.)", lambda e: unesc.get(e.group(1), e.group(1)), v)
        out[(m.group(1), frozenset(labels.items()))] = float(m.group(3))
    return out


def find_metric(samples, name, **labels):
    """The values of NAME's samples whose labels include LABELS."""
    want = {(k, str(v)) for k, v in labels.items()}
    return [v for (n, ls), v in samples.items() if n == name and want <= ls]


def samples_of(samples, name):
    """NAME's samples as (labels dict, value)."""
    return [(dict(ls), v) for (n, ls), v in samples.items() if n == name]
