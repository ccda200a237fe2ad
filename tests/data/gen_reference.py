#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""
Reference values for tests/unit/test_stats.c, written to tests/data/reference.json.

Run it only to regenerate the file (the C test reads the JSON and needs no Python):
    apt-get install -y python3-scipy python3-mpmath
    /usr/bin/python3 tests/data/gen_reference.py > tests/data/reference.json

Where each number comes from:
  two_sample[].welch  scipy.stats.ttest_ind(a, b, equal_var=False) for t and p; df by the
                      Welch-Satterthwaite formula (scipy 1.10 does not return it) and checked,
                      like t and p, against mpmath at 50 digits on the exact values of the
                      doubles; diff_lo/diff_hi = diff -+ t_ppf * se with the quantile below.
  two_sample[].mwu    scipy.stats.mannwhitneyu(a, b, method="asymptotic", use_continuity=True,
                      alternative="two-sided"): U of a and p. z is R's signed z with the same
                      correction (wilcox.test(exact=FALSE, correct=TRUE)); p = erfc(|z|/sqrt 2).
  t_quantile[]        scipy.stats.t.ppf((1 + level) / 2, df). scipy gets it from cdflib's
                      cdft, whose root finder stops at a relative 1e-8 or so (its tail
                      probability is off by up to 3e-8 of itself at df = 100), so "t" is that
                      value polished by Newton steps on scipy's own t.sf / t.pdf (cephes, good
                      to ~1e-15) and checked against mpmath; "scipy_ppf" keeps the raw value.
  t_cdf[]             scipy.stats.t.cdf and t.sf, checked against mpmath.
  nist[]              The certified values, read from tests/data/nist/*.dat, checked here
                      against the exact statistics of the data in the file (Fractions: mean,
                      sd and lag-1 autocorrelation to 5e-15), and the
                      exact mean and standard deviation of the data as IEEE doubles: the most any
                      double-precision algorithm can reach (NumAcc4's sd: 8.25 digits).
"""
import json
import math
import os
import sys
import warnings
from decimal import Decimal, getcontext
from fractions import Fraction

import mpmath
import numpy as np
import scipy
from scipy import special, stats

HERE = os.path.dirname(os.path.abspath(__file__))
# ttest_ind warns about "catastrophic cancellation" for the case with a constant sample; its
# variance is exactly 0 and every value is checked against mpmath below anyway.
warnings.filterwarnings("ignore", message="Precision loss occurred in moment calculation")
mpmath.mp.dps = 50
getcontext().prec = 50
LEVELS = [0.9, 0.95, 0.99, 0.999]
DFS = [1, 2, 3.5, 10, 30, 100, 1e4, 1e7]
CDF_TS = [-40, -12, -5, -2, -0.5, 0, 0.1, 1, 2.5, 6, 12, 40]
CI_LEVEL = 0.95


def fail(msg):
	print("gen_reference.py: " + msg, file=sys.stderr)
	sys.exit(1)


def rel(a, b):
	a, b = float(a), float(b)
	return 0.0 if a == b else abs(a - b) / max(abs(a), abs(b))


# ---- Student's t --------------------------------------------------------------------------------

def mp_sf(t, df):
	"""P(T > t) at 50 digits: I_x(df/2, 1/2) / 2 with x = df / (df + t^2)."""
	t, df = mpmath.mpf(t), mpmath.mpf(df)
	tail = mpmath.betainc(df / 2, mpmath.mpf(1) / 2, 0, df / (df + t * t), regularized=True) / 2
	return tail if t >= 0 else 1 - tail


def polished_ppf(level, df):
	q = (1 + level) / 2
	alpha = (1 - level) / 2
	raw = float(stats.t.ppf(q, df))
	t = raw
	for _ in range(20):
		step = (float(stats.t.sf(t, df)) - alpha) / float(stats.t.pdf(t, df))
		t += step
		if abs(step) <= 1e-16 * t:
			break
	exact = mpmath.findroot(lambda u: mp_sf(u, df) - mpmath.mpf(alpha), mpmath.mpf(t))
	if rel(t, exact) > 1e-13:
		fail("t quantile level %g df %g: polished %r, mpmath %s" % (level, df, t, exact))
	return t, raw


def t_tables():
	quantiles, cdfs = [], []
	for df in DFS:
		for level in LEVELS:
			t, raw = polished_ppf(level, df)
			quantiles.append({"level": level, "df": df, "t": t, "scipy_ppf": raw})
		for t in CDF_TS:
			cdf, sf = float(stats.t.cdf(t, df)), float(stats.t.sf(t, df))
			exact = mp_sf(t, df)
			if rel(sf, exact) > 1e-12 or rel(cdf, mp_sf(-t, df)) > 1e-12:
				fail("t cdf t %g df %g: scipy sf %r, mpmath %s" % (t, df, sf, exact))
			cdfs.append({"t": t, "df": df, "cdf": cdf, "sf": sf})
	return quantiles, cdfs


# ---- two samples --------------------------------------------------------------------------------

def exact_mean_var(x):
	fx = [Fraction(v) for v in x]
	m = sum(fx) / len(fx)
	return m, sum((v - m) ** 2 for v in fx) / (len(fx) - 1)


def mp(fr):
	return mpmath.mpf(fr.numerator) / fr.denominator


def welch(a, b):
	res = stats.ttest_ind(a, b, equal_var=False)
	va, vb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
	df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
	diff = float(np.mean(a) - np.mean(b))
	se = math.sqrt(va + vb)
	tq, _ = polished_ppf(CI_LEVEL, df)
	# mpmath on the exact values of the doubles
	ma, xa = exact_mean_var(a)
	mb, xb = exact_mean_var(b)
	ea, eb = mp(xa) / len(a), mp(xb) / len(b)
	t_mp = mp(ma - mb) / mpmath.sqrt(ea + eb)
	df_mp = (ea + eb) ** 2 / (ea ** 2 / (len(a) - 1) + eb ** 2 / (len(b) - 1))
	p_mp = 2 * mp_sf(abs(t_mp), df_mp)
	if rel(res.statistic, t_mp) > 1e-12 or rel(df, df_mp) > 1e-12 or \
	   abs(res.pvalue - p_mp) > 1e-14 or rel(res.pvalue, p_mp) > 1e-9:
		fail("welch: scipy t %r df %r p %r, mpmath %s %s %s" %
		     (res.statistic, df, res.pvalue, t_mp, df_mp, p_mp))
	return {"t": float(res.statistic), "df": float(df), "p": float(res.pvalue),
		"level": CI_LEVEL, "diff": diff, "diff_lo": diff - tq * se, "diff_hi": diff + tq * se}


def mann_whitney(a, b):
	res = stats.mannwhitneyu(a, b, method="asymptotic", use_continuity=True,
				 alternative="two-sided")
	na, nb = len(a), len(b)
	ranks = stats.rankdata(np.concatenate([a, b]))
	_, counts = np.unique(np.concatenate([a, b]), return_counts=True)
	n = na + nb
	ties = float(np.sum(counts.astype(float) ** 3 - counts))
	u = float(ranks[:na].sum() - na * (na + 1) / 2)
	if u != res.statistic:
		fail("mwu: U %r, scipy %r" % (u, res.statistic))
	dev = u - na * nb / 2
	dev = max(0.0, dev - 0.5) if dev > 0 else min(0.0, dev + 0.5)
	var = na * nb / 12 * ((n + 1) - ties / (n * (n - 1)))
	z = dev / math.sqrt(var)
	p_mp = min(1, mpmath.erfc(abs(mpmath.mpf(dev)) / mpmath.sqrt(2 * mpmath.mpf(var))))
	if abs(res.pvalue - p_mp) > 1e-14 or rel(res.pvalue, p_mp) > 1e-9:
		fail("mwu: scipy p %r, mpmath %s" % (res.pvalue, p_mp))
	return {"u": float(res.statistic), "z": z, "p": float(res.pvalue)}


def cases():
	def normal(seed, mean, sd, n):
		return np.random.RandomState(seed).normal(mean, sd, n)

	out = []

	def add(name, what, a, b):
		a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
		out.append({"name": name, "what": what, "a": a.tolist(), "b": b.tolist(),
			    "welch": welch(a, b), "mwu": mann_whitney(a, b)})

	add("equal_n", "n 20 and 20, means 10 and 10.8, sd 1",
	    normal(1, 10, 1, 20), normal(2, 10.8, 1, 20))
	add("unequal_n_var", "n 12 sd 1 against n 40 sd 3",
	    normal(3, 5, 1, 12), normal(4, 6, 3, 40))
	add("ties", "integers (many ties), n 25 and 30",
	    np.round(normal(5, 20, 3, 25)), np.round(normal(6, 22, 3, 30)))
	add("large_diff", "means 100 and 120, sd 1, n 30: tiny p",
	    normal(7, 100, 1, 30), normal(8, 120, 1, 30))
	add("no_diff", "the same distribution, n 40 and 40",
	    normal(9, 50, 5, 40), normal(10, 50, 5, 40))
	same = normal(11, 3, 1, 10)
	add("identical", "b is a copy of a: t 0, p 1", same, same)
	add("n2", "two samples each", normal(12, 0, 1, 2), normal(13, 1, 1, 2))
	add("n200", "n 200 and 200, means 1000 and 1010, sd 50",
	    normal(14, 1000, 50, 200), normal(15, 1010, 50, 200))
	add("ns_times", "1e7 ns +- 0.1%, whole ns, n 50 and 60, 0.04% apart",
	    np.round(normal(16, 1e7, 1e4, 50)), np.round(normal(17, 1.0004e7, 1e4, 60)))
	add("ns_times_same", "1e7 ns +- 0.1%, whole ns, n 100 and 100, same mean",
	    np.round(normal(18, 1e7, 1e4, 100)), np.round(normal(19, 1e7, 1e4, 100)))
	add("one_constant", "a has no variance (df = nb - 1), b n 15",
	    [5.0] * 10, normal(20, 5.5, 0.5, 15))
	rs = np.random.RandomState(21)
	slow = np.concatenate([1e6 * np.exp(rs.normal(0, 0.02, 76)), [1.3e6, 1.5e6, 2.1e6, 1.25e6]])
	rs = np.random.RandomState(22)
	fast = np.concatenate([0.99e6 * np.exp(rs.normal(0, 0.02, 78)), [1.4e6, 1.9e6]])
	add("skewed_outliers", "log-normal times with a few slow outliers, n 80 and 80",
	    slow, fast)
	return out


# ---- NIST StRD ----------------------------------------------------------------------------------

def read_nist(path):
	cert, data, lines = {}, [], open(path).read().splitlines()
	for i, line in enumerate(lines):
		if line.startswith("Sample Mean"):
			cert["mean"] = line.rsplit(":", 1)[1].split()[0]
		elif line.startswith("Sample Standard Deviation"):
			cert["sd"] = line.rsplit(":", 1)[1].split()[0]
		elif line.startswith("Sample Autocorrelation"):
			cert["r1"] = line.rsplit(":", 1)[1].split()[0]
		elif line.startswith("Number of Observations"):
			cert["n"] = int(line.rsplit(":", 1)[1])
		elif line.startswith("Data: Y"):
			data = [v.strip() for v in lines[i + 2:] if v.strip()]
			break
	return cert, data


def exact_stats(values):
	n = len(values)
	m = sum(values) / n
	ss = sum((v - m) ** 2 for v in values)
	var = ss / (n - 1)
	r1 = sum((values[i] - m) * (values[i - 1] - m) for i in range(1, n)) / ss
	return m, (Decimal(var.numerator) / Decimal(var.denominator)).sqrt(), r1


def nist():
	out = []
	for name in ["NumAcc1", "NumAcc2", "NumAcc3", "NumAcc4", "Michelso", "Lew", "Lottery",
		     "Mavro", "PiDigits"]:
		cert, data = read_nist(os.path.join(HERE, "nist", name + ".dat"))
		if len(data) != cert["n"]:
			fail("%s: %d values, certified n %d" % (name, len(data), cert["n"]))
		# The file's data must reproduce its certified values, the lag-1 autocorrelation too
		# (which checks the order): a wrong or missing line would not.
		m, sd, r1 = exact_stats([Fraction(v) for v in data])
		if rel(m, Decimal(cert["mean"])) > 5e-15 or rel(sd, Decimal(cert["sd"])) > 5e-15 or \
		   rel(r1, Decimal(cert["r1"])) > 5e-15:
			fail("%s: data give mean %s sd %s r1 %s, certified %s %s %s" % (name, m, sd,
			     float(r1), cert["mean"], cert["sd"], cert["r1"]))
		md, sdd, _ = exact_stats([Fraction(float(v)) for v in data])
		out.append({"name": name, "n": cert["n"], "certified_mean": float(cert["mean"]),
			    "certified_sd": float(cert["sd"]), "mean_of_doubles": float(md),
			    "sd_of_doubles": float(sdd)})
	return out


def main():
	quantiles, cdfs = t_tables()
	ref = {
		"generator": "tests/data/gen_reference.py",
		"versions": {"python": sys.version.split()[0], "scipy": scipy.__version__,
			     "numpy": np.__version__, "mpmath": mpmath.__version__},
		"t_quantile": quantiles,
		"t_cdf": cdfs,
		"two_sample": cases(),
		"nist": nist(),
	}
	json.dump(ref, sys.stdout, indent=1)
	print()


if __name__ == "__main__":
	main()
