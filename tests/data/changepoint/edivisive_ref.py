#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
An independent implementation of pbench's change-point method, written for the unit test
(tests/unit/test_changepoint.c) so that lib/src/stats/changepoint.c is checked against code
that shares nothing with it: pure Python (no numpy, no scipy), the energy statistic from its
definition (sums of |z_i - z_j| over the two sides, not 2-D prefix sums), Welch's test from the
values themselves (two-pass means and variances, not prefix sums of a shifted series), the
Student t tail from the regularized incomplete beta by its continued fraction (not pbench's
code).

The method (Matteson and James 2014, E-Divisive means, as Hunter / Apache Otava adapted it, with
pbench's rules as lib/src/stats/changepoint.c's head comment says; every test is Welch's t with
Hsu's degrees of freedom, min(nx, ny) - 1):
  split: windows of `window` points every window // 2 points from each segment's start; in a
    window, the best (tau, kappa) of each interval by Q, the interval of the largest Q tested
    by Welch over its two sides at p_weak = min(10 p, 0.5); significant: split there, repeat;
  merge: sorted unique candidates of all windows; each scored between its neighbours by
    Welch's p of its two sides (1 when a side has fewer than min_segment points);
  with samples, every test is the larger p of Welch over the samples and over the points'
    values (the samples' means); remove the largest score while >= p, then the smallest
    |relative change| while < min_rel, rescoring the neighbours after each removal.

Usage:
  edivisive_ref.py gen DIR     write the committed series (NAME.txt) and what this finds in
                               them (NAME.expected) into DIR; deterministic (seeded)
  edivisive_ref.py FILE.txt    print the change points of one series file

A series file: '#' comments; 'opts window=W p=P min_rel=R min_segment=M'; 'mode values' or
'mode samples'; then a line per point (one value, or the point's samples); a line 'segment'
means the next point starts a new segment. An expected file has a line per change point:
'index p p_points rel rel_lo rel_hi' (p over the samples or values, p over the points' values,
rel = mean after / mean before - 1, its Welch interval at confidence 1 - p_threshold).
"""
import math
import os
import random
import sys

# ---- Student's t, from the regularized incomplete beta ---------------------------------------


def _betacf(a, b, x):
    """Continued fraction of I_x(a, b) (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100000):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-16:
            return h
    raise RuntimeError("incomplete beta did not converge")


def betai(a, b, x):
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1 - x) / b


def t_two_sided_p(t, df):
    """P(|T| >= |t|)."""
    return min(1.0, betai(df / 2.0, 0.5, df / (df + t * t)))


def t_quantile(level, df):
    """The t with P(|T| <= t) = level, by bisection."""
    lo, hi = 0.0, 1.0
    while t_two_sided_p(hi, df) > 1 - level:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_two_sided_p(mid, df) > 1 - level:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2

# ---- Welch ------------------------------------------------------------------------------------


def mean_var(x):
    m = sum(x) / len(x)
    return m, sum((v - m) ** 2 for v in x) / (len(x) - 1)


def welch(before, after, level=None):
    """p of after against before (1 when a side has < 2 values): Welch's t with Hsu's degrees
    of freedom, min(n_before, n_after) - 1; with level, also the relative change after /
    before - 1 and its interval (Welch-Satterthwaite's df)."""
    if len(before) < 2 or len(after) < 2:
        return 1.0, None
    mb, vb = mean_var(before)
    ma, va = mean_var(after)
    sb, sa = vb / len(before), va / len(after)
    se2, diff = sa + sb, ma - mb
    if se2 <= 0:
        return (0.0 if diff != 0 else 1.0), None
    df = se2 * se2 / (sa * sa / (len(after) - 1) + sb * sb / (len(before) - 1))
    p = t_two_sided_p(diff / math.sqrt(se2), min(len(before), len(after)) - 1)
    if level is None:
        return p, None
    tq = t_quantile(level, df)
    lo, hi = diff - tq * math.sqrt(se2), diff + tq * math.sqrt(se2)
    return p, (ma / mb - 1, lo / mb, hi / mb)

# ---- the method -------------------------------------------------------------------------------


class Series:
    def __init__(self, opts, points, starts, samples):
        self.o = opts
        self.samples = samples
        self.points = points            # list of lists: the tested values of each point
        self.value = [sum(p) / len(p) for p in points]
        self.starts = starts            # segment starts, first 0

    def units(self, a, b):
        out = []
        for i in range(a, b):
            out.extend(self.points[i])
        return out

    def values(self, a, b):
        return self.value[a:b]

    def test(self, lo, tau, hi):
        """Welch over the tested values; with samples, the larger p of that and of Welch over
        the points' values."""
        p, _ = welch(self.units(lo, tau), self.units(tau, hi))
        if self.samples:
            p = max(p, welch(self.values(lo, tau), self.values(tau, hi))[0])
        return p

    def q(self, lo, tau, kappa):
        z = self.value
        x, y = z[lo:tau], z[tau:kappa]
        nx, ny = len(x), len(y)
        between = sum(abs(a - b) for a in x for b in y)
        wx = sum(abs(x[i] - x[j]) for i in range(nx) for j in range(i + 1, nx))
        wy = sum(abs(y[i] - y[j]) for i in range(ny) for j in range(i + 1, ny))
        e = 2 * between / (nx * ny) - wx / (nx * (nx - 1) / 2) - wy / (ny * (ny - 1) / 2)
        return nx * ny / (nx + ny) * e

    def best(self, lo, hi):
        m, best, bq = self.o["min_segment"], None, -math.inf
        for tau in range(lo + m, hi - m + 1):
            for kappa in range(tau + m, hi + 1):
                qq = self.q(lo, tau, kappa)
                if qq > bq:
                    best, bq = tau, qq
        return best, bq

    def window(self, a, b):
        if b - a < 2 * self.o["min_segment"]:
            return []
        p_weak = min(10 * self.o["p"], 0.5)
        bounds, found = [a, b], []
        cache = {}
        while True:
            cand = []
            for lo, hi in zip(bounds, bounds[1:]):
                if (lo, hi) not in cache:
                    cache[(lo, hi)] = self.best(lo, hi)
                cand.append((cache[(lo, hi)], lo, hi))
            (tau, bq), lo, hi = max(cand, key=lambda c: c[0][1])   # first of equal Q
            if tau is None:
                break
            if not self.test(lo, tau, hi) < p_weak:
                break
            found.append(tau)
            bounds = sorted(bounds + [tau])
        return found

    def score(self, lo, tau, hi):
        if tau - lo < self.o["min_segment"] or hi - tau < self.o["min_segment"]:
            return 1.0, math.nan
        x, y = self.units(lo, tau), self.units(tau, hi)
        mx, my = sum(x) / len(x), sum(y) / len(y)
        return self.test(lo, tau, hi), (my / mx - 1 if mx != 0 else math.nan)

    def segment(self, start, end):
        w = self.o["window"]
        step = w // 2
        cands = set()
        a = start
        while a < end:
            cands.update(self.window(a, min(a + w, end)))
            a += step
        c = sorted(cands)

        def rescore(k):
            lo = c[k - 1] if k else start
            hi = c[k + 1] if k + 1 < len(c) else end
            sc[k] = self.score(lo, c[k], hi)

        sc = [None] * len(c)
        for k in range(len(c)):
            rescore(k)
        while c:
            k = max(range(len(c)), key=lambda i: (sc[i][0], -i))
            if not sc[k][0] < self.o["p"]:
                pass
            elif self.o["min_rel"] > 0:
                small = [i for i in range(len(c)) if abs(sc[i][1]) < self.o["min_rel"]]
                if not small:
                    break
                k = min(small, key=lambda i: (abs(sc[i][1]), i))
            else:
                break
            del c[k], sc[k]
            if k:
                rescore(k - 1)
            if k < len(c):
                rescore(k)
        return c

    def change_points(self):
        out = []
        ends = self.starts[1:] + [len(self.points)]
        for start, end in zip(self.starts, ends):
            c = self.segment(start, end)
            for k, tau in enumerate(c):
                lo = c[k - 1] if k else start
                hi = c[k + 1] if k + 1 < len(c) else end
                p, r = welch(self.units(lo, tau), self.units(tau, hi), 1 - self.o["p"])
                pp = welch(self.values(lo, tau), self.values(tau, hi))[0]
                out.append((tau, p, pp) + (r if r else (math.nan, math.nan, math.nan)))
        return out

# ---- files ------------------------------------------------------------------------------------


def read_series(path):
    opts = {"window": 50, "p": 0.001, "min_rel": 0.0, "min_segment": 3}
    points, starts, mode, seg = [], [], "values", True
    for line in open(path):
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        if f[0] == "opts":
            for kv in f[1:]:
                k, v = kv.split("=")
                opts[k] = int(v) if k in ("window", "min_segment") else float(v)
        elif f[0] == "mode":
            mode = f[1]
        elif f[0] == "segment":
            seg = True
        else:
            if seg:
                starts.append(len(points))
                seg = False
            points.append([float(v) for v in (f if mode == "samples" else f[:1])])
    return Series(opts, points, starts, mode == "samples")


def write_series(path, comment, opts, points, starts, samples):
    with open(path, "w") as f:
        f.write("# %s\n# written by edivisive_ref.py gen (seeded)\n" % comment)
        f.write("opts " + " ".join("%s=%s" % (k, opts[k]) for k in sorted(opts)) + "\n")
        f.write("mode %s\n" % ("samples" if samples else "values"))
        for i, p in enumerate(points):
            if i in starts and i:
                f.write("segment\n")
            f.write(" ".join(repr(v) for v in p) + "\n")


def level_at(steps, i, base=1000.0):
    x = base
    for at, rel in steps:
        if i >= at:
            x *= 1 + rel
    return x


def make(rng, n, steps, noise=0.01, samples=0, outliers=(), drift=0.0):
    """n points at 1000 with relative steps [(index, rel)], Gaussian noise of `noise` of the
    level on each value (each sample when samples > 0), outliers {index: rel}, a drift of
    `drift` over the series."""
    out = []
    for i in range(n):
        lv = level_at(steps, i) * (1 + drift * i / n) * (1 + dict(outliers).get(i, 0.0))
        k = samples if samples else 1
        out.append([lv * (1 + rng.gauss(0, noise)) for _ in range(k)])
    return out


def cases():
    d = {"window": 50, "p": 0.001, "min_rel": 0.0, "min_segment": 3}
    yield ("step20", "one +20% step at 100 under 1% noise", d, 200, dict(steps=[(100, 0.20)]), [0])
    yield ("steps", "steps +5% at 60, -20% at 150, +5% at 230 under 1% noise", d, 300,
           dict(steps=[(60, 0.05), (150, -0.20), (230, 0.05)]), [0])
    yield ("outliers", "stationary with one-point excursions of +15% (x3) and -10%", d, 200,
           dict(steps=[], outliers=[(40, 0.15), (41 + 60, -0.10), (150, 0.15), (170, 0.15)]), [0])
    yield ("samples", "10 samples a point: +1% at 90, a +10% outlier at 40", d, 160,
           dict(steps=[(90, 0.01)], samples=10, outliers=[(40, 0.10)]), [0])
    yield ("outliers_samples", "10 samples a point, one-point excursions of +20% (x3) and -20%, "
           "-5% at 120", d, 200, dict(steps=[(120, -0.05)], samples=10,
                                      outliers=[(30, 0.2), (75, -0.2), (150, 0.2), (151 + 20, 0.2)]),
           [0])
    yield ("segments", "two segments (a machine change at 120, +30%); +5% at 200", d, 260,
           dict(steps=[(120, 0.30), (200, 0.05)]), [0, 120])
    yield ("drift", "a drift of +10% over 250 points", d, 250, dict(steps=[], drift=0.10), [0])
    w30 = dict(d, window=30, min_rel=0.03)
    yield ("window30", "window 30, min_rel 3%: +2% at 70, +8% at 140", w30, 200,
           dict(steps=[(70, 0.02), (140, 0.08)]), [0])


def gen(outdir):
    for seed, (name, comment, opts, n, kw, starts) in enumerate(cases()):
        rng = random.Random(1000 + seed)
        pts = make(rng, n, **kw)
        path = os.path.join(outdir, name + ".txt")
        write_series(path, comment, opts, pts, starts, kw.get("samples", 0))
        s = read_series(path)
        with open(os.path.join(outdir, name + ".expected"), "w") as f:
            f.write("# index p p_points rel rel_lo rel_hi, by edivisive_ref.py from %s.txt\n"
                    % name)
            for cp in s.change_points():
                f.write("%d %.17g %.17g %.17g %.17g %.17g\n" % cp)
        print(name, [cp[0] for cp in s.change_points()], file=sys.stderr)


def main(argv):
    if len(argv) == 3 and argv[1] == "gen":
        gen(argv[2])
    elif len(argv) == 2:
        for cp in read_series(argv[1]).change_points():
            print("%d %.17g %.17g %.17g %.17g %.17g" % cp)
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
