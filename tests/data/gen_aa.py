#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Stored samples for the A/A verdict (tests/cli/t_compare.sh, tests/golden/run.sh).

Times in ns, one a line, drawn with a fixed seed so the files never change:
  aa-a.txt, aa-b.txt  40 times each from the same log-normal distribution (median 1 ms,
                      sigma 0.02 of the log): an A/A test; no verdict rule may call them
                      different (Welch p = 0.83 here: far from 0.001)
  ab-b.txt            40 times from that distribution times 1.03: 3% slower, which
                      a working rule finds at 99.9% (Welch p = 6.3e-7 here)
  aa-same-a.txt, aa-same-b.txt
                      400 times each from one distribution with sigma 0.005: equal within 1%
                      (the ratio's 99.9% interval is 0.9991 .. 1.0014), so 'same'
Run by hand: python3 tests/data/gen_aa.py (writes the five files in tests/data/).
"""
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))


def draw(rng, n, sigma, scale=1.0):
    return [round(1e6 * scale * math.exp(rng.gauss(0, sigma))) for _ in range(n)]


def write(name, comment, xs):
    with open(os.path.join(HERE, name), "w") as f:
        f.write("# %s (tests/data/gen_aa.py)\n" % comment)
        f.write("".join("%d\n" % x for x in xs))


rng = random.Random(22)
write("aa-a.txt", "A/A, first set: 40 times in ns, median 1 ms, sigma 0.02", draw(rng, 40, 0.02))
write("aa-b.txt", "A/A, second set from the same distribution", draw(rng, 40, 0.02))
write("ab-b.txt", "the same distribution times 1.03 (3% slower)", draw(rng, 40, 0.02, 1.03))
write("aa-same-a.txt", "A/A, 400 times in ns, sigma 0.005", draw(rng, 400, 0.005))
write("aa-same-b.txt", "A/A, 400 more from the same distribution", draw(rng, 400, 0.005))
