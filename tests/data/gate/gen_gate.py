#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The stored samples of the baseline gate's tests (tests/unit/test_stats.c, gate/*).

A command's times at two moments on a shared machine: 200 runs each, log-normal with a 1%
spread (a quiet command), the second session's level 3% above the first's, as an occasion
moves the same command (measured on the development VM: 0.59x to 1.14x between sessions of 10
minutes). Welch's 99.9% interval on the log times then lies wholly above 1.02, so the gate of
pbench before issue 27 (--fail-if-slower 2) failed this same command; the gate must not.
Also 30% more work (a regression no occasion explains) and 20% less.
Deterministic: seed 27. Run: python3 tests/data/gate/gen_gate.py (writes the .txt files here).
"""
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))


def session(rng, level_ns, n=200, cv=0.01):
    return [level_ns * math.exp(rng.gauss(0, cv)) for _ in range(n)]


def write(name, xs):
    with open(os.path.join(HERE, name), "w") as f:
        f.write("# ns, one run a line, in run order (gen_gate.py)\n")
        for x in xs:
            f.write("%.1f\n" % x)


rng = random.Random(27)
write("baseline.txt", session(rng, 22e6))
write("same-3pct.txt", session(rng, 22e6 * 1.03))
write("slower-30pct.txt", session(rng, 22e6 * 1.30))
write("faster-20pct.txt", session(rng, 22e6 * 0.80))
