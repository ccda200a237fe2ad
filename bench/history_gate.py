#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The gate of `pbench history check` on synthetic series with known truth (issue 24): its
false-alarm rate on stationary series and its detection of steps, each series imported as
CSV into a store of its own and judged with the defaults (threshold 5%, the newest 10
points). Each series: 60 commits, Gaussian noise of NOISE (1%), a step of +S from commit
60 - AFTER on (AFTER points of the new level when the gate runs).
Usage: bench/history_gate.py BUILD_DIR [SEEDS (200)] [AFTER (6)] [NOISE (0.01)]"""
import os
import random
import subprocess
import sys
import tempfile

pb = os.path.join(sys.argv[1] if len(sys.argv) > 1 else "build", "pbench")
seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 200
after = int(sys.argv[3]) if len(sys.argv) > 3 else 6
noise = float(sys.argv[4]) if len(sys.argv) > 4 else 0.01


def gate(step, seed, d):
    rnd = random.Random(seed)
    csv = os.path.join(d, "s.csv")
    db = os.path.join(d, "h%d-%g.db" % (seed, step))
    with open(csv, "w") as f:
        for i in range(60):
            level = 1 + step if i >= 60 - after else 1
            f.write("c%03d,%d,%.6f\n" % (i, 1780000000 + 3600 * i, level * (1 + rnd.gauss(0, noise))))
    subprocess.run([pb, "history", "--history", db, "add", "s", csv], check=True,
                   stdout=subprocess.DEVNULL)
    rc = subprocess.run([pb, "history", "--history", db, "check", "s"],
                        stdout=subprocess.DEVNULL).returncode
    for sfx in ("", "-wal", "-shm"):
        if os.path.exists(db + sfx):
            os.unlink(db + sfx)
    return rc


with tempfile.TemporaryDirectory() as d:
    print("series of 60 points, noise %g%%, the step %d points before the end, %d seeds"
          % (100 * noise, after, seeds))
    for step in (0.0, 0.01, 0.05, 0.06, 0.10, 0.20):
        fails = sum(gate(step, s, d) == 1 for s in range(seeds))
        what = "false alarms" if step == 0 else "detected"
        print("step %+5.0f%%: gate failed %4d of %d (%s %.1f%%)"
              % (100 * step, fails, seeds, what, 100.0 * fails / seeds))
