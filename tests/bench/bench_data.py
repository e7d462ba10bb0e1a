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
        elif dtype == "f16":
            out.append(0.5 + (r >> 54) * 2.0 ** -10)
        elif dtype == "bf16":
            out.append(0.5 + (r >> 57) * 2.0 ** -7)
        elif dtype in ("i8", "i16", "i32", "i64"):
            v = (r & 63) + 1
            out.append(-v if r & 64 else v)
        else:  # u8, u16, u32, u64
            out.append((r & 63) + 1)
    return out


def scan_last(op, dtype, a, b=None):
    """The last value of tally's inclusive scan of op over a (AFFINE: the maps (a, b); the
    value is the last map's B). Integers exactly, wrapping in 64 bits as tally's result
    type does; floats in double (the caller allows for the scan's rounding)."""
    floats = dtype.startswith(("f", "bf"))
    signed = dtype.startswith("i")

    def wrap(v):
        v &= M
        return v - (1 << 64) if signed and v >> 63 else v

    if op == "min":
        return min(a)
    if op == "max":
        return max(a)
    if op == "sum":
        import math
        return math.fsum(a) if floats else wrap(sum(a))
    if op == "prod":
        p = 1.0 if floats else 1
        for v in a:
            p = p * v if floats else (p * v) & M
        return p if floats else wrap(p)
    B = 0.0 if floats else 0  # affine: B <- a·B + b
    for x, y in zip(a, b):
        B = x * B + y if floats else (x * B + y) & M
    return B if floats else wrap(B)


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
