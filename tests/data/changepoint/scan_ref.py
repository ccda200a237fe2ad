#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
An independent implementation of pbench's change-point method (issue 37), written for the unit
test (tests/unit/test_changepoint.c) so that lib/src/stats/changepoint.c is checked against code
that shares nothing with it: pure Python, the step's Hodges-Lehmann estimate and interval from
every pairwise difference sorted (not a bisection on counts), the normal quantile from
statistics.NormalDist (not a bisection on erfc), a point's value from its samples by exact
fractions.

The method (changepoint.c's head comment has why):
  binary segmentation of each segment: a stretch [lo, hi) of n points gets Huber scores,
    clip((x - median) / (1.4826 MAD), -3, 3) (MAD 0: 1.2533 times the mean absolute deviation),
    centred; the split k in [m, n - m] of the largest |C_k| sqrt(n / (k (n - k))), C_k the sum
    of the first k scores (the first of equal ones); refined within 10 points (leaving m a
    side) to the least sum of |x - median| with each side's median at the scan's split;
  its p: Serfling's bound summed over the splits when it is <= p, else permutations of the
    scores: splitmix64 seeded by 0x37c0ffee ^ (lo << 32) ^ hi, then st = (st ^ bits(x_i)) *
    0x100000001b3 for each value, a draw below r as (next64 * r) >> 64; Fisher-Yates from the
    front on the array as the previous permutation left it, stopping at the first split whose
    |C_k| w_k reaches t (1 - 1e-12); R = min(ceil(2 / p) - 1, 19999) permutations, stopping
    once (1 + b) > p (1 + R); p = (1 + b) / (1 + the permutations made);
  significant (p <= opts p): split, search both sides; then, with min_rel, the change of
    smallest |rel| below it removed while one is (rel between its neighbours).
  the step between its neighbours: the Hodges-Lehmann shift of the logs (all values > 0),
    the Mann-Whitney interval at 1 - p: the kl-th and (N - kl + 1)-th differences,
    kl = floor(N / 2 - z sd), sd^2 = N / 12 (n + 1 - sum(t^3 - t) / (n (n - 1))).

Usage: scan_ref.py FILE.txt...   writes FILE.expected beside each (the series files were written
                                 by the generator of the method before, kept as they are)
An expected file has a line per change point: 'index p p rel rel_lo rel_hi'.
"""
import math
import statistics
import struct
import sys
from fractions import Fraction

M64 = (1 << 64) - 1
HUBER_C = 3.0
PERM_MAX = 19999
REFINE = 10


def round_bits(fr, bits):
    """fr rounded to a float of `bits` mantissa bits (nearest, ties to even), as a Fraction."""
    if fr == 0:
        return fr
    sign = -1 if fr < 0 else 1
    fr = abs(fr)
    e = fr.numerator.bit_length() - fr.denominator.bit_length()
    if Fraction(2) ** e > fr:
        e -= 1
    scale = Fraction(2) ** (bits - 1 - e)
    q = fr * scale
    n = q.numerator // q.denominator
    rem = q - n
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2):
        n += 1
    return sign * Fraction(n) / scale


def mean_of_samples(xs):
    """changepoint.c's (double)(long double sum / n): the sum exact here (10 values), the
    quotient rounded to 64 bits, then to 53."""
    s = sum(Fraction(x) for x in xs)
    return float(round_bits(round_bits(s / len(xs), 64), 53))


class Rng:
    def __init__(self, st):
        self.st = st & M64

    def next64(self):
        self.st = (self.st + 0x9e3779b97f4a7c15) & M64
        z = self.st
        z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M64
        z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
        return z ^ (z >> 31)

    def below(self, r):
        return (self.next64() * r) >> 64


def median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def scores(x):
    n = len(x)
    med = median(x)
    dev = [abs(v - med) for v in x]
    mad = 1.4826 * median(dev)
    if not mad > 0:
        tot = 0.0
        for d in dev:
            tot += d
        mad = 1.2533 * tot / n
    if not (mad > 0) or math.isinf(mad):
        return None
    e = [max(-HUBER_C, min(HUBER_C, (v - med) / mad)) for v in x]
    tot = 0.0
    for v in e:
        tot += v
    e = [v - tot / n for v in e]
    return e


def scan(x, lo, hi, m, p):
    """(tau or None, p) of the stretch [lo, hi) of the series x."""
    n = hi - lo
    if n < 2 * m:
        return None, 1.0
    v = x[lo:hi]
    e = scores(v)
    if e is None or max(e) - min(e) <= 0:
        return None, 1.0
    r = max(e) - min(e)
    w = [0.0] + [math.sqrt(n / (k * (n - k))) for k in range(1, n)]
    c, best, at = 0.0, -1.0, 0
    for k in range(1, n - m + 1):
        c += e[k - 1]
        if k >= m and abs(c) * w[k] > best:
            best, at = abs(c) * w[k], k
    t = best
    tau = lo + refine(v, at, m)
    total = 0.0
    for k in range(m, n - m + 1):
        j = min(k, n - k)
        u = t / w[k]
        total += 2 * math.exp(-2 * u * u / (j * (1 - (j - 1) / n) * r * r))
        if total >= 1:
            total = 1.0
            break
    if total <= p:
        return tau, total
    perms = int(min(math.ceil(2 / p) - 1, PERM_MAX))
    st = 0x37c0ffee ^ (lo << 32) ^ hi
    for val in v:
        bits = struct.unpack('<Q', struct.pack('<d', val))[0]
        st = ((st ^ bits) * 0x100000001b3) & M64
    rng = Rng(st)
    b = 0
    made = perms
    thr = t * (1 - 1e-12)
    for jj in range(1, perms + 1):
        c = 0.0
        for k in range(1, n - m + 1):
            j = k - 1 + rng.below(n - k + 1)
            e[j], e[k - 1] = e[k - 1], e[j]
            c += e[k - 1]
            if k >= m and abs(c) * w[k] >= thr:
                b += 1
                break
        if 1 + b > p * (1 + perms):
            made = jj
            break
    return tau, min(1.0, (1 + b) / (1 + made))


def refine(v, at, m):
    n = len(v)
    a = at - REFINE if at > m + REFINE else m
    b = at + REFINE if at + REFINE + m <= n else n - m
    ml, mr = median(v[:at]), median(v[at:])
    best, bc, c = at, 0.0, 0.0
    for k in range(at, a, -1):
        x = v[k - 1]
        c += abs(x - mr) - abs(x - ml)
        if c < bc:
            bc, best = c, k - 1
    c = 0.0
    for k in range(at, b):
        x = v[k]
        c += abs(x - ml) - abs(x - mr)
        if c < bc:
            bc, best = c, k + 1
    return best


def step(x, a, tau, b, p):
    xs, ys = x[a:tau], x[tau:b]
    if not all(v > 0 for v in xs + ys):
        raise SystemExit("scan_ref.py: the committed series are positive")
    lx, ly = [math.log(v) for v in xs], [math.log(v) for v in ys]
    d = sorted(yv - xv for xv in lx for yv in ly)
    nn = len(d)
    rel = 0.5 * (d[(nn + 1) // 2 - 1] + d[-((-(nn + 1)) // 2) - 1])
    allv = sorted(lx + ly)
    n = len(allv)
    ties, i = 0.0, 0
    while i < n:
        j = i
        while j < n and allv[j] == allv[i]:
            j += 1
        tt = j - i
        ties += tt ** 3 - tt
        i = j
    z = statistics.NormalDist().inv_cdf(1 - p / 2)
    sd = math.sqrt(nn / 12 * (n + 1 - ties / (n * (n - 1))))
    kl = math.floor(nn / 2 - z * sd)
    lo = hi = float('nan')
    if kl >= 1:
        lo, hi = d[kl - 1], d[nn - kl]
    return math.expm1(rel), math.expm1(lo), math.expm1(hi)


def analyze(path):
    opts, samples, x, starts = {}, False, [], [0]
    for line in open(path):
        if line.startswith('#') or line == '\n':
            continue
        if line.startswith('opts '):
            opts = {k: float(v) for k, v in (f.split('=') for f in line.split()[1:])}
            continue
        if line.startswith('mode '):
            samples = line.strip() == 'mode samples'
            continue
        if line.strip() == 'segment':
            starts.append(len(x))
            continue
        vals = [float(f) for f in line.split()]
        x.append(mean_of_samples(vals) if samples else vals[0])
    p, m, min_rel = opts['p'], int(opts['min_segment']), opts['min_rel']
    out = []
    bounds = starts + [len(x)]
    for s in range(len(starts)):
        g0, g1 = bounds[s], bounds[s + 1]
        cps = []

        def seg(lo, hi):
            tau, pv = scan(x, lo, hi, m, p)
            if tau is None or not pv <= p:
                return
            cps.append((tau, pv))
            seg(lo, tau)
            seg(tau, hi)
        seg(g0, g1)
        cps.sort()
        while min_rel > 0 and cps:
            worst, wr = None, float('inf')
            for i, (tau, _) in enumerate(cps):
                a = cps[i - 1][0] if i else g0
                b = cps[i + 1][0] if i + 1 < len(cps) else g1
                rel = step(x, a, tau, b, p)[0]
                if not abs(rel) >= min_rel and not abs(rel) >= wr:
                    worst, wr = i, abs(rel)
            if worst is None:
                break
            del cps[worst]
        for i, (tau, pv) in enumerate(cps):
            a = cps[i - 1][0] if i else g0
            b = cps[i + 1][0] if i + 1 < len(cps) else g1
            out.append((tau, pv) + step(x, a, tau, b, p))
    return out


def main():
    for path in sys.argv[1:]:
        res = analyze(path)
        exp = path[:-4] + '.expected'
        with open(exp, 'w') as f:
            f.write('# index p p_points rel rel_lo rel_hi, by scan_ref.py from %s\n'
                    % path.split('/')[-1])
            for tau, pv, rel, lo, hi in res:
                f.write('%d %r %r %r %r %r\n' % (tau, pv, pv, rel, lo, hi))
        print(exp, ' '.join(str(r[0]) for r in res))


if __name__ == '__main__':
    main()
