#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""doc_examples.py update keeps an example's shape: its "$" line and its
"..." gaps stay, each part between gaps is refreshed from the capture
(lines the tool now prints inside a part come in, as a new line below
"path MTU" did), and an example whose parts no longer match is rewritten
whole with a line that says so.  Then "check" passes on the result.

Usage: doc_examples_update.py DOC_EXAMPLES_PY
"""
import os
import subprocess
import sys
import tempfile

DOC = """# A document

<!-- example: run.client -->
```
$ rc_pingpong -d rxe0 10.99.0.1
  GID index 1: RoCE v2, IPv4 ::ffff:10.99.0.1 on va
  path MTU 1024 (server active 1024, client active 1024)
  local address:  LID 0x0000, QPN 0x000012, PSN 0x7f330b
...
latency usec: n 1000 min 1.000 median 2.000
rate: 28.50 Mbit/sec, 870 msg/sec
```

<!-- example: gone -->
```
a line the tool no longer prints
...
```
"""

CAPTURE = """$ rc_pingpong -d rxe0 10.99.0.1
  GID index 1: RoCE v2, IPv4 ::ffff:10.99.0.1 on va
  path MTU 1024 (server active 1024, client active 1024)
  clock: CLOCK_MONOTONIC, not the cycle counter: a reason
  local address:  LID 0x0000, QPN 0x000077, PSN 0x123456
  remote address: LID 0x0000, QPN 0x000078, PSN 0x654321
8192000 bytes in 2.30 seconds = 28.50 Mbit/sec
latency usec: n 1000 min 3.000 median 4.000
rate: 30.00 Mbit/sec, 900 msg/sec
"""

WANT = """$ rc_pingpong -d rxe0 10.99.0.1
  GID index 1: RoCE v2, IPv4 ::ffff:10.99.0.1 on va
  path MTU 1024 (server active 1024, client active 1024)
  clock: CLOCK_MONOTONIC, not the cycle counter: a reason
  local address:  LID 0x0000, QPN 0x000077, PSN 0x123456
...
latency usec: n 1000 min 3.000 median 4.000
rate: 30.00 Mbit/sec, 900 msg/sec
"""


def main():
    tool = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        caps = os.path.join(tmp, "captures")
        os.makedirs(caps)
        with open(os.path.join(caps, "run.client"), "w") as f:
            f.write(CAPTURE)
        with open(os.path.join(caps, "gone"), "w") as f:
            f.write("$ true\nsomething else\n")
        doc = os.path.join(tmp, "doc.md")
        with open(doc, "w") as f:
            f.write(DOC)
        up = subprocess.run([sys.executable, tool, "update", caps, doc],
                            capture_output=True, text=True)
        assert up.returncode == 0, up
        text = open(doc).read()
        first = text.index("```\n") + 4
        got = text[first:text.index("```", first)]
        assert got == WANT, "the example became:\n%s" % got
        assert "example gone rewritten whole" in up.stdout, up.stdout
        chk = subprocess.run([sys.executable, tool, "check", caps, doc],
                             capture_output=True, text=True)
        assert chk.returncode == 0, chk.stdout
    print("ok: update kept the example's gaps and took in the new line")


main()
