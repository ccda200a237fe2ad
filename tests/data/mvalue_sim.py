#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""
How often does the mvalue call samples bimodal (mvalue >= 2.4)? A simulation for the choice of
bins in mvalue() of lib/src/stats/stats.c, which this file mirrors (Sturges's ceil(log2 n) + 1 bins
over [min, max], at most n / PER_BIN of them, whole lattice steps for integer samples).

    /usr/bin/python3 tests/data/mvalue_sim.py [PER_BIN ...]

Rows: sample sizes; columns: the share of 2000 random samples flagged bimodal. "normal",
"lognormal" and "ticks" (normal, sd 3, rounded to integers) have one mode: the share is the
false-positive rate. The "2 modes" columns mix two normal clusters 6 or 4 sd apart, in equal
parts or 80/20: the share is the detection rate. PER_BIN 0 means Sturges alone.
"""
import math
import sys

import numpy as np


def mvalue(x, per_bin):
	x = np.sort(x)
	n, lo, hi = len(x), x[0], x[-1]
	k = math.ceil(math.log2(n)) + 1 if n > 1 else 1
	if per_bin and k > n // per_bin:
		k = max(1, n // per_bin)
	if not hi > lo:
		k = 1
	width = (hi - lo) / k
	if k > 1 and np.all(x == np.floor(x)):
		step = int(np.gcd.reduce((x - lo).astype(np.int64)))
		points = (hi - lo) / step + 1
		width = math.ceil(points / k) * step
		k = math.ceil(points / (width / step))
	b = np.zeros(n, dtype=int) if k == 1 else np.minimum(((x - lo) / width).astype(int), k - 1)
	h = np.concatenate([[0], np.bincount(b, minlength=k), [0]])
	return np.abs(np.diff(h)).sum() / h.max()


def main():
	rs = np.random.RandomState(1)
	gens = [
		("normal", lambda n: rs.normal(0, 1, n)),
		("lognormal", lambda n: rs.lognormal(0, 0.5, n)),
		("ticks", lambda n: np.round(rs.normal(1000, 3, n))),
		("2 modes 6sd", lambda n: np.where(rs.rand(n) < 0.5, 0, 6) + rs.normal(0, 1, n)),
		("2 modes 6sd 80/20", lambda n: np.where(rs.rand(n) < 0.8, 0, 6) + rs.normal(0, 1, n)),
		("2 modes 4sd", lambda n: np.where(rs.rand(n) < 0.5, 0, 4) + rs.normal(0, 1, n)),
	]
	for per_bin in [int(a) for a in sys.argv[1:]] or [0, 10, 15, 20]:
		print("PER_BIN %d" % per_bin)
		print("%6s " % "n" + " ".join("%18s" % g for g, _ in gens))
		for n in [12, 20, 30, 45, 60, 100, 200, 500, 2000]:
			rates = [np.mean([mvalue(gen(n), per_bin) >= 2.4 for _ in range(2000)])
				 for _, gen in gens]
			print("%6d " % n + " ".join("%17.1f%%" % (100 * r) for r in rates))


if __name__ == "__main__":
	main()
