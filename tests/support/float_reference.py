#!/usr/bin/env python3
"""The independent references of the float tests, by Python and numpy alone.

  edges linear LO HI N          the fp32 edges of N bins over [LO, HI)
  edges stops LO HI STEP        the fp32 edges of stops over [LO, HI) EV
      one edge a line, as the hex bits of the float: edge k is the smallest float whose value is
      >= the exact edge (LO + k (HI - LO) / N, or 2^(LO + k STEP)), found with Python's
      fractions and integers (f >= 2^(p/q) <=> f^q >= 2^p), nothing rounded.
"""
import sys
from fractions import Fraction

import numpy as np

INF = np.float32(np.inf)


def next_up(f):
    return np.nextafter(np.float32(f), INF)


def next_down(f):
    return np.nextafter(np.float32(f), -INF)


def smallest_at_least(at_least, approx):
    """The smallest finite float f with at_least(f), starting the search at approx."""
    with np.errstate(over="ignore"):
        f = np.float32(approx)
    if np.isinf(f):
        f = np.float32(np.finfo(np.float32).max) * (1 if f > 0 else -1)
    while not at_least(f):
        f = next_up(f)
        if np.isinf(f):
            return f
    while True:
        b = next_down(f)
        if np.isinf(b) or not at_least(b):
            break
        f = b
    return np.float32(0.0) if f == 0 else f


def linear_edges(lo, hi, n):
    lo, hi = Fraction(lo), Fraction(hi)
    out = []
    for k in range(n + 1):
        r = lo + k * (hi - lo) / n
        out.append(smallest_at_least(lambda f, r=r: Fraction(float(f)) >= r, float(r)))
    return np.array(out, dtype=np.float32)


def stops_edges(lo, hi, step):
    lo, hi, step = Fraction(lo), Fraction(hi), Fraction(step)
    n = (hi - lo) / step
    assert n.denominator == 1, "the step does not divide the range"
    out = []
    for k in range(int(n) + 1):
        x = lo + k * step
        p, q = x.numerator, x.denominator
        power = Fraction(2) ** p  # 2^p, exact (a fraction for p < 0)

        def at_least(f, p=p, q=q, power=power):
            return f > 0 and Fraction(float(f)) ** q >= power

        out.append(smallest_at_least(at_least, 2.0 ** float(x)))
    return np.array(out, dtype=np.float32)


def edges_of(kind, a, b, c):
    if kind == "linear":
        return linear_edges(a, b, int(c))
    return stops_edges(a, b, c)


def main(argv):
    if argv[0] == "edges":
        for f in edges_of(argv[1], argv[2], argv[3], argv[4]):
            print("%08x" % np.float32(f).view(np.uint32))
    else:
        sys.exit("unknown command " + argv[0])


if __name__ == "__main__":
    main(sys.argv[1:])
