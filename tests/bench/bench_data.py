"""The data of `tally bench` (bench/bench_util.c's bench_fill) in Python, for the tests
of the CUB peer: element i of a stream is splitmix64's (i + 1)-th output."""
M = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15


def data(dtype, n, seed=1, stream=0):
    s = (seed * 0x2545F4914F6CDD1D + stream * GAMMA + 1) & M
    out = []
    for _ in range(n):
        s = (s + GAMMA) & M
        z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & M
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
        r = z ^ (z >> 31)
        if dtype == "f32":
            out.append(0.5 + (r >> 41) * 2.0 ** -23)
        elif dtype == "f64":
            out.append(0.5 + (r >> 12) * 2.0 ** -52)
        elif dtype in ("i32", "i64"):
            v = (r & 63) + 1
            out.append(-v if r & 64 else v)
        else:  # u8
            out.append((r & 63) + 1)
    return out


def expected(op, x):
    """(value, index) of op over x: exact sums, first extreme index."""
    import math
    if op == "sum":
        return (math.fsum(x) if isinstance(x[0], float) else sum(x)), None
    if op in ("min", "argmin"):
        v = min(x)
        return v, (x.index(v) if op == "argmin" else None)
    v = max(x)
    return v, (x.index(v) if op == "argmax" else None)
