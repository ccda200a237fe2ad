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

# Sessions with the CPU's speed read around each run (pbench_stats_gate_speed(), issue 27):
# each run's factor (the clock reading on one scale over both occasions, 1 = full speed) is
# the host's level with a 1% spread, at most 1, and its time is the work over that factor
# with the command's own 1% spread. NAME.txt the times, NAME.speed.txt the factors.


def speed_session(rng, work_ns, level, n=200, cv=0.01):
    f = [min(1.0, level * math.exp(rng.gauss(0, cv))) for _ in range(n)]
    return [work_ns / x * math.exp(rng.gauss(0, cv)) for x in f], f


def write_speed(name, pair):
    write(name + ".txt", pair[0])
    with open(os.path.join(HERE, name + ".speed.txt"), "w") as out:
        out.write("# the clock factor of each run of %s.txt, in run order (gen_gate.py)\n" % name)
        for x in pair[1]:
            out.write("%.4f\n" % x)


rng = random.Random(2027)
write_speed("speed-base", speed_session(rng, 22e6, 1.0))            # the baseline, full speed
write_speed("speed-same-at-0.6", speed_session(rng, 22e6, 0.6))     # the same, host at 0.6x
write_speed("speed-more-5pct", speed_session(rng, 22e6 * 1.05, 1.0))  # 5% more, same speed
write_speed("speed-base-at-0.6", speed_session(rng, 22e6, 0.6))     # a baseline at 0.6x
