#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""doc_examples.py check with last=optional: an example whose last line the
tool prints only sometimes (the histogram's overflow bin) matches a capture
with that line and one without it, and still fails when the capture ends
in a line of another shape; without the option, the missing line fails.  "update" from a
capture without that line keeps it.

Usage: doc_examples_optional.py DOC_EXAMPLES_PY
"""
import os
import subprocess
import sys
import tempfile

EXAMPLE = """<!-- example: hist %s-->
```
...
histogram usec: n 2000, 12 bins of 2.000 from 8.000, overflow from 32.000
         8.000 -       10.000       1343 ##########
...
        30.000 -       32.000          4 #
>       32.000 -      950.000          1 #
```
"""

HEAD = """$ rc_pingpong -s 1 -n 2000 --histogram 10.99.0.1
latency usec: n 2000 min 8.100 median 9.000
histogram usec: n 2000, 3 bins of 5.000 from 5.000, overflow from 20.000
         5.000 -       10.000       1500 ##########
        10.000 -       15.000        480 ###
        15.000 -       20.000         19 #
"""

CASES = [
    # (marker options, capture's tail, check passes)
    ("mask=ints last=optional ", ">       20.000 -      700.000          1 #\n", True),
    ("mask=ints last=optional ", "", True),
    ("mask=ints last=optional ", "post_send usec: n 2000 mean 1.000\n", False),
    ("mask=ints ", "", False),
    ("mask=ints ", ">       20.000 -      700.000          1 #\n", True),
]


def main():
    tool = sys.argv[1]
    for opts, tail, want in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "hist"), "w") as f:
                f.write(HEAD + tail)
            doc = os.path.join(tmp, "doc.md")
            with open(doc, "w") as f:
                f.write(EXAMPLE % opts)
            chk = subprocess.run([sys.executable, tool, "check", tmp, doc],
                                 capture_output=True, text=True)
            got = chk.returncode == 0
            assert got == want, "options %r, capture ending %r: check %s\n%s" % (
                opts, tail, "passed" if got else "failed", chk.stdout)
    # update on a capture without the line keeps the example's last line
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "hist"), "w") as f:
            f.write(HEAD)
        doc = os.path.join(tmp, "doc.md")
        with open(doc, "w") as f:
            f.write(EXAMPLE % "mask=ints last=optional ")
        up = subprocess.run([sys.executable, tool, "update", tmp, doc],
                            capture_output=True, text=True)
        text = open(doc).read()
        assert up.returncode == 0 and "rewritten whole" not in up.stdout, up.stdout
        assert text.rstrip("\n").endswith(
            "15.000 -       20.000         19 #\n"
            ">       32.000 -      950.000          1 #\n```"), text
    print("ok: last=optional accepts the line missing, not a line of another shape")


main()
