#!/usr/bin/env python3
"""numpy peer of `tally bench`: time numpy's reduction of one op and dtype at each size.

    numpy_peer.py --op sum --dtype f32 --sizes 1024,2^20 [--seed N] [--min-time S]
                  [--repeat N] [--nan propagate|ignore] [--errors] [--accuracy-only]

Prints one JSON object per line and size:
    {"op": "sum", "dtype": "f32", "n": 1024, "median_us": 1.23, "runs": 812, "batch": 64,
     "rel_err": 3.1e-08, "numpy": "1.24.2"}
median_us is null (with "why") where numpy has no function for the op or dtype.

The data has the distribution of `tally bench` (bench/bench_util.c), generated here with
numpy's own generator: floats 0.5 + k*2^-m, k uniform in [0, 2^m), m the mantissa bits
(uniform in [0.5, 1.5), every value exact); signed ints +-[1, 64]; unsigned [1, 64];
bool all true. DOT gets two independent inputs.

Timing is the method of bench/bench_timer.h: one untimed call, then batches of 1, 2,
4, ... calls until one lasts 50 us (warm-up), then samples of that batch size until
they add up to --min-time seconds and number at least 5 (3 when one call takes over
min-time/4), or exactly --repeat; the median per call is reported. Clock:
time.perf_counter.

--errors adds rel_err, numpy's own relative error against the exact result, for float
SUM, MEAN, VAR, STD, SUMSQ, NORM2 and DOT (exact sums of the float64 terms by exponent,
in Python integers; products split exactly with Dekker's algorithm; null where numpy's
result is not finite, e.g. an f16 sum that overflowed). --accuracy-only
skips the timing and prints the result and the exact value too.
"""
import argparse
import json
import math
import sys
import time
from fractions import Fraction

import numpy as np

FLOAT_BITS = {"f16": 10, "f32": 23, "f64": 52}
NP_TYPES = {
    "bool": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
}
SIGNED = {"i8", "i16", "i32", "i64"}
BITWISE = {"bitand": np.bitwise_and, "bitor": np.bitwise_or, "bitxor": np.bitwise_xor}
ERROR_OPS = {"sum", "mean", "var", "std", "sumsq", "norm2", "dot"}
BATCH_MIN_S = 50e-6
BATCH_MAX = 1 << 24


def parse_size(s):
    s = s.strip()
    if s.startswith("2^"):
        return 1 << int(s[2:])
    return int(s)


def make_data(dtype, n, rng):
    """The benchmark's distribution (see the module's docstring)."""
    if dtype in FLOAT_BITS:
        m = FLOAT_BITS[dtype]
        if dtype == "f64":
            k = rng.integers(0, 1 << m, size=n, dtype=np.uint64)
            x = k.astype(np.float64)
            del k
            x *= 2.0 ** -m  # in place: 2^28 doubles are 2 GiB
            x += 0.5
            return x
        k = rng.integers(0, 1 << m, size=n, dtype=np.uint32)
        x = k.astype(np.float32)
        del k
        x *= np.float32(2.0 ** -m)
        x += np.float32(0.5)
        return x.astype(NP_TYPES[dtype], copy=False)
    if dtype == "bool":
        return np.ones(n, dtype=np.bool_)
    r = rng.integers(0, 128, size=n, dtype=np.uint8)
    mag = (r & 63) + 1
    if dtype in SIGNED:
        v = np.where(r & 64, -mag.astype(np.int16), mag.astype(np.int16))
        return v.astype(NP_TYPES[dtype])
    return mag.astype(NP_TYPES[dtype])


def numpy_function(op, dtype, nan_ignore):
    """(function, takes two inputs) for op on dtype, or (None, reason)."""
    is_float = dtype in FLOAT_BITS
    nan = nan_ignore and is_float
    pick = {
        "sum": np.nansum if nan else np.sum,
        "prod": np.nanprod if nan else np.prod,
        "min": np.nanmin if nan else np.min,
        "max": np.nanmax if nan else np.max,
        "argmin": np.nanargmin if nan else np.argmin,
        "argmax": np.nanargmax if nan else np.argmax,
        "mean": np.nanmean if nan else np.mean,
        "var": np.nanvar if nan else np.var,
        "std": np.nanstd if nan else np.std,
        "any": np.any,
        "all": np.all,
        "count_nonzero": np.count_nonzero,
    }
    if op in pick:
        return pick[op], False
    if op == "minmax":
        mn, mx = pick["min"], pick["max"]
        return (lambda x: (mn(x), mx(x))), False
    if op in ("sumsq", "norm2", "dot") and dtype == "bool":
        return None, "numpy's dot of bools is a logical or"
    if op == "sumsq":
        return (lambda x: np.dot(x, x)), False
    if op == "norm2":
        return np.linalg.norm, False
    if op == "dot":
        return np.dot, True
    if op in BITWISE:
        if is_float:
            return None, "bitwise op on floats"
        return BITWISE[op].reduce, False
    return None, "numpy has no %s" % op


def time_calls(fn, args, min_time, repeat):
    """Median seconds per call, samples, batch: the method of bench/bench_timer.h."""
    clock = time.perf_counter

    def batch_time(b):
        t0 = clock()
        for _ in range(b):
            fn(*args)
        return clock() - t0

    fn(*args)  # the first call (imports, caches) is never timed
    batch = 1
    while True:
        t = batch_time(batch)
        if t >= BATCH_MIN_S or batch >= BATCH_MAX:
            break
        batch *= 2
    min_runs = 3 if t / batch > min_time / 4 else 5
    max_runs = repeat if repeat > 0 else 100000
    samples, total = [], 0.0
    while len(samples) < max_runs:
        t = batch_time(batch)
        samples.append(t / batch)
        total += t
        if repeat <= 0 and len(samples) >= min_runs and (total >= min_time or min_runs == 3):
            break
    samples.sort()
    k = len(samples)
    med = samples[k // 2] if k % 2 else 0.5 * (samples[k // 2 - 1] + samples[k // 2])
    return med, k, batch


# ------------------------------------------------------------------ exact references

CHUNK = 1 << 20


def add_exact(acc, v):
    """acc[e] += exact sum of the float64 array v's values with exponent e (Python ints)."""
    m, e = np.frexp(v)
    mi = (m * 2.0 ** 53).astype(np.int64)  # exact: 53 mantissa bits
    e = e.astype(np.int64) - 53
    hi, lo = mi >> 26, mi & ((1 << 26) - 1)  # halves whose chunk sums fit in int64
    emin = int(e.min())
    for k in np.nonzero(np.bincount(e - emin))[0]:
        sel = e == emin + k
        key = emin + int(k)
        acc[key] = acc.get(key, 0) + (int(hi[sel].sum()) << 26) + int(lo[sel].sum())


def as_fraction(acc):
    total = Fraction(0)
    for e, v in acc.items():
        total += Fraction(v) * (Fraction(2) ** e)
    return total


def split(a):
    c = 134217729.0 * a  # Veltkamp: 2^27 + 1
    hi = c - (c - a)
    return hi, a - hi


def exact_dot(x, y):
    """Exact sum of x*y (y None: of x) as a Fraction."""
    acc = {}
    for i in range(0, len(x), CHUNK):
        a = x[i:i + CHUNK].astype(np.float64)
        if y is None:
            add_exact(acc, a)
            continue
        b = y[i:i + CHUNK].astype(np.float64)
        p = a * b
        add_exact(acc, p)
        if x.dtype == np.float64:  # f32 and f16 products are exact in float64
            ah, al = split(a)
            bh, bl = split(b)
            add_exact(acc, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
    return as_fraction(acc)


def exact_result(op, x, y):
    """The exact result (a Fraction, or a float for square roots)."""
    n = len(x)
    if op == "sum":
        return exact_dot(x, None)
    if op == "mean":
        return exact_dot(x, None) / n
    if op == "sumsq":
        return exact_dot(x, x)
    if op == "dot":
        return exact_dot(x, y)
    if op == "norm2":
        return math.sqrt(exact_dot(x, x))
    s, q = exact_dot(x, None), exact_dot(x, x)
    var = (q - s * s / n) / n
    return var if op == "var" else math.sqrt(var)


def rel_error(result, exact):
    """None where the result is not finite (an f16 sum that overflowed)."""
    r = float(result)
    if not math.isfinite(r):
        return None
    if isinstance(exact, Fraction):
        if exact == 0:
            return abs(r)
        return float(abs(Fraction(r) - exact) / abs(exact))
    return abs(r - exact) / abs(exact)


# ------------------------------------------------------------------ main

def main():
    ap = argparse.ArgumentParser(description="numpy peer of tally bench")
    ap.add_argument("--op", required=True)
    ap.add_argument("--dtype", required=True)
    ap.add_argument("--sizes", required=True, help="comma list: 1024,2^20,...")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--min-time", type=float, default=0.2)
    ap.add_argument("--repeat", type=int, default=0)
    ap.add_argument("--nan", choices=["propagate", "ignore"], default="propagate")
    ap.add_argument("--errors", action="store_true", help="add numpy's relative error")
    ap.add_argument("--accuracy-only", action="store_true", help="no timing")
    a = ap.parse_args()
    np.seterr(all="ignore")  # overflowing f16 sums are measured, not warned about
    sizes = [parse_size(s) for s in a.sizes.split(",") if s.strip()]
    base = {"op": a.op, "dtype": a.dtype}

    if a.dtype not in NP_TYPES:
        why = "numpy has no %s" % a.dtype
        fn, two = None, why
    else:
        fn, two = numpy_function(a.op, a.dtype, a.nan == "ignore")
    rng = np.random.default_rng(a.seed)
    for n in sizes:
        row = dict(base, n=n)
        if fn is None:
            row.update(median_us=None, why=two)
            print(json.dumps(row), flush=True)
            continue
        x = make_data(a.dtype, n, rng)
        y = make_data(a.dtype, n, rng) if two else None
        args = (x, y) if two else (x,)
        if not a.accuracy_only:
            med, runs, batch = time_calls(fn, args, a.min_time, a.repeat)
            row.update(median_us=med * 1e6, runs=runs, batch=batch)
        want_err = (a.errors or a.accuracy_only) and a.op in ERROR_OPS and a.dtype in FLOAT_BITS
        if want_err and n > 0:
            result = fn(*args)
            exact = exact_result(a.op, x, y)
            row["rel_err"] = rel_error(result, exact)
            if a.accuracy_only:
                row.update(result=float(result), exact=float(exact))
        row["numpy"] = np.__version__
        print(json.dumps(row), flush=True)
        del x, y, args
    return 0


if __name__ == "__main__":
    sys.exit(main())
