# SPDX-License-Identifier: MIT
"""The intervals of a run of --interval 1 (tests/e2e/interval.sh), checked
against their grid: boundaries every second from the first measured round
trip (docs/measurement.md, "Figures per interval")."""


def count(iv):
    """IV: (start_s, end_s, max_usec) of each interval, in order.  Asserts
    that they follow one another and the grid: each but the last ends past
    at least one boundary; one past two or more stands for the intervals
    that a stall skipped, and its max round trip shows the stall (0.9 s or
    more: the round trips are back to back, so the one that ended past the
    skipped boundary began before the boundary before it).  Returns the
    intervals there would be without stalls."""
    assert iv, "no interval"
    assert all(0 <= s < e for s, e, _ in iv), iv
    assert all(a[1] <= b[0] + 1e-9 for a, b in zip(iv, iv[1:])), iv
    n = len(iv)
    for s, e, mx in iv[:-1]:
        crossed = int(e + 1e-9) - int(s + 1e-9)
        assert crossed >= 1, ("ends before its boundary", s, e)
        if crossed > 1:
            assert mx >= 0.9e6, ("skips %d boundaries without a stall" %
                                 (crossed - 1), s, e, mx)
            n += crossed - 1
    return n
