#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""
Reference values for the tests of pbench_stats_welch/paired with PBENCH_STATS_LOG and of
pbench_stats_tost (tests/unit/test_stats.c), written to tests/data/reference_compare.json.

Run it only to regenerate the file (the C test reads the JSON and needs no Python):
    apt-get install -y python3-scipy python3-mpmath
    /usr/bin/python3 tests/data/gen_compare_reference.py > tests/data/reference_compare.json

Where each number comes from:
  log_welch[]   scipy.stats.ttest_ind(log a, log b, equal_var=False): t and p; df by
                Welch-Satterthwaite; diff_lo/hi = diff -+ t.ppf((1 + level) / 2, df) * se;
                ratio = exp(diff) and its interval exp(diff_lo), exp(diff_hi).
  paired[]      scipy.stats.ttest_rel(a, b) on the values (log: false) or on their logs
                (log: true): t and p; df = n - 1; the interval likewise.
  tost[]        on the log Welch test of a case: p_lo = t.sf((diff - lo) / se, df), p_hi =
                t.cdf((diff - hi) / se, df) for lo, hi = -+log(1 + pct / 100): Schuirmann's
                two one-sided tests, as statsmodels.stats.weightstats.ttost_ind(usevar=
                'unequal') computes them.
Every t, df and p is checked against mpmath at 50 digits on the exact values of the doubles
(the t CDF through the regularized incomplete beta); the script stops rather than write a
value mpmath does not confirm.
"""
import json
import math
import sys

import mpmath
import numpy as np
import scipy
from scipy import stats

mpmath.mp.dps = 50
LEVEL = 0.999


def fail(msg):
    print("gen_compare_reference.py: " + msg, file=sys.stderr)
    sys.exit(1)


def rel(a, b):
    return abs(a - b) / abs(b) if b != 0 else abs(a)


def mp_tcdf(t, df):
    """P(T <= t) for Student's t with df degrees of freedom, in mpmath."""
    t, df = mpmath.mpf(t), mpmath.mpf(df)
    x = df / (df + t * t)
    tail = mpmath.betainc(df / 2, mpmath.mpf(1) / 2, 0, x, regularized=True) / 2
    return tail if t < 0 else 1 - tail


def mp_mean_var(x):
    xs = [mpmath.mpf(v) for v in x]
    m = mpmath.fsum(xs) / len(xs)
    v = mpmath.fsum((v - m) ** 2 for v in xs) / (len(xs) - 1)
    return m, v


def check(name, what, got, want, tol):
    if rel(got, float(want)) > tol:
        fail("%s: %s %.17g, mpmath %s" % (name, what, got, mpmath.nstr(want, 20)))


def interval(diff, se, df, level):
    q = stats.t.ppf((1 + level) / 2, df)
    return diff - q * se, diff + q * se


def log_welch(name, a, b):
    la, lb = np.log(a), np.log(b)
    r = stats.ttest_ind(la, lb, equal_var=False)
    va, vb = np.var(la, ddof=1) / len(la), np.var(lb, ddof=1) / len(lb)
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (len(la) - 1) + vb ** 2 / (len(lb) - 1))
    diff = float(np.mean(la) - np.mean(lb))
    ma, vva = mp_mean_var([mpmath.log(mpmath.mpf(v)) for v in a])
    mb, vvb = mp_mean_var([mpmath.log(mpmath.mpf(v)) for v in b])
    sa, sb = vva / len(a), vvb / len(b)
    mt = (ma - mb) / mpmath.sqrt(sa + sb)
    mdf = (sa + sb) ** 2 / (sa ** 2 / (len(a) - 1) + sb ** 2 / (len(b) - 1))
    check(name, "t", float(r.statistic), mt, 1e-9)
    check(name, "df", df, mdf, 1e-9)
    check(name, "p", float(r.pvalue), 2 * mp_tcdf(-abs(mt), mdf), 1e-7)
    lo, hi = interval(diff, se, df, LEVEL)
    return {"name": name, "a": list(a), "b": list(b), "level": LEVEL, "t": float(r.statistic),
            "df": df, "p": float(r.pvalue), "diff": diff, "se": se, "diff_lo": lo,
            "diff_hi": hi, "ratio": math.exp(diff), "ratio_lo": math.exp(lo),
            "ratio_hi": math.exp(hi)}


def paired(name, a, b, log):
    xa, xb = (np.log(a), np.log(b)) if log else (np.asarray(a), np.asarray(b))
    r = stats.ttest_rel(xa, xb)
    d = xa - xb
    n = len(d)
    se = float(np.std(d, ddof=1)) / math.sqrt(n)
    diff = float(np.mean(d))
    conv = (lambda v: mpmath.log(mpmath.mpf(v))) if log else mpmath.mpf
    md, mv = mp_mean_var([conv(u) - conv(v) for u, v in zip(a, b)])
    mt = md / mpmath.sqrt(mv / n)
    check(name, "paired t", float(r.statistic), mt, 1e-9)
    check(name, "paired p", float(r.pvalue), 2 * mp_tcdf(-abs(mt), n - 1), 1e-7)
    lo, hi = interval(diff, se, n - 1, LEVEL)
    out = {"name": name, "log": log, "a": list(a), "b": list(b), "level": LEVEL,
           "t": float(r.statistic), "df": n - 1, "p": float(r.pvalue), "diff": diff, "se": se,
           "diff_lo": lo, "diff_hi": hi}
    if log:
        out.update(ratio=math.exp(diff), ratio_lo=math.exp(lo), ratio_hi=math.exp(hi))
    return out


def tost(case, pct):
    lo, hi = -math.log1p(pct / 100), math.log1p(pct / 100)
    diff, se, df = case["diff"], case["se"], case["df"]
    t_lo, t_hi = (diff - lo) / se, (diff - hi) / se
    p_lo, p_hi = float(stats.t.sf(t_lo, df)), float(stats.t.cdf(t_hi, df))
    check(case["name"], "tost p_lo", p_lo, 1 - mp_tcdf(t_lo, df), 1e-7)
    check(case["name"], "tost p_hi", p_hi, mp_tcdf(t_hi, df), 1e-7)
    return {"case": case["name"], "pct": pct, "lo": lo, "hi": hi, "t_lo": t_lo, "t_hi": t_hi,
            "p_lo": p_lo, "p_hi": p_hi, "p": max(p_lo, p_hi)}


def main():
    rng = np.random.default_rng(12)
    same = rng.lognormal(math.log(27e6), 0.01, 40)
    one_pct = rng.lognormal(math.log(27.27e6), 0.01, 40)
    cases = [
        ("hand", [1.0, 2.0, 4.0], [2.0, 4.0, 8.0, 4.0]),
        ("1% slower, 40 runs", list(one_pct), list(same)),
        ("same work", list(rng.lognormal(math.log(27e6), 0.01, 40)), list(same)),
        ("skewed, unequal n", list(rng.lognormal(math.log(5e5), 0.3, 25)),
         list(rng.lognormal(math.log(6e5), 0.05, 60))),
        ("tiny p", list(rng.lognormal(0, 0.001, 200)), list(rng.lognormal(0.01, 0.001, 200))),
    ]
    lw = [log_welch(n, a, b) for n, a, b in cases]
    pairs = []
    base = rng.lognormal(math.log(27e6), 0.05, 30)
    drift = rng.normal(0, 0.002, 30)
    pairs.append(paired("duet 1%, shared drift", list(base * 1.01 * np.exp(drift)),
                        list(base), True))
    pairs.append(paired("duet 1%, shared drift (values)", list(base * 1.01 * np.exp(drift)),
                        list(base), False))
    pairs.append(paired("hand", [2.0, 4.0, 9.0], [1.0, 2.0, 3.0], True))
    tosts = [tost(lw[1], 1.0), tost(lw[1], 2.0), tost(lw[2], 1.0), tost(lw[2], 0.1),
             tost(lw[3], 50.0), tost(pairs[0], 2.0)]
    json.dump({"generator": "tests/data/gen_compare_reference.py",
               "versions": {"python": sys.version.split()[0], "scipy": scipy.__version__,
                            "numpy": np.__version__, "mpmath": mpmath.__version__},
               "log_welch": lw, "paired": pairs, "tost": tosts}, sys.stdout, indent=1)
    print()


main()
