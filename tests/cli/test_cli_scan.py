#!/usr/bin/env python3
"""Tests of `tally scan` and `tally hist` (Python 3 standard library only).

usage: test_cli_scan.py TALLY_BINARY GROUP     (groups: scan, hist, bench)

Inputs are written by hand (.npy with struct, text); expected values are computed here:
exact prefix sums with math.fsum, Python ints for integer scans, the bin rule of
docs/SEMANTICS.md for histograms. Exit status: 0 all passed, 1 a failure, 77 skipped.
"""
import json
import math
import os
import random
import struct
import sys
import tempfile
import zlib
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_cli import SKIP, Tester, f32, npy, pack, wrap_i64  # noqa: E402


def read_npy(path):
    """(descr, shape, values) of a .npy file written by tally (version 1.0, C order)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x93NUMPY\x01\x00":
        raise ValueError("bad magic or version: %r" % data[:8])
    hlen = struct.unpack("<H", data[8:10])[0]
    if (10 + hlen) % 64:
        raise ValueError("header not padded to 64 bytes")
    header = eval(data[10:10 + hlen].decode("latin1"))  # a Python dict literal
    descr, shape = header["descr"], header["shape"]
    count = 1
    for d in shape:
        count *= d
    fmt = {"<f4": "f", "<f8": "d", "<i8": "q", "<u8": "Q", "<i4": "i", "|i1": "b", "|u1": "B",
           "<f2": "e", "<i2": "h", "<u2": "H", "<u4": "I", "|b1": "?"}[descr]
    return descr, shape, list(struct.unpack("<%d%s" % (count, fmt), data[10 + hlen:]))


def ulp_close(got, want, bits):
    """Within one unit in the last place of a `bits`-bit significand of want."""
    if want == 0:
        return got == 0
    return abs(got - want) <= 2.0 ** (math.frexp(abs(want))[1] - bits)


def group_scan(t):
    rng = random.Random(20261123)
    # f32 sums: each prefix within one f32 ulp of the exact prefix (Fraction arithmetic).
    xs = [f32(rng.uniform(-1, 1)) for _ in range(50000)]
    p = t.write("x.npy", npy("<f4", (len(xs),), pack("f", xs)))
    out = t.path("s.npy")
    t.ok(["scan", "sum", p, "-o", out])
    try:
        descr, shape, got = read_npy(out)
        want = []
        s = Fraction(0)
        for v in xs:
            s += Fraction(v)
            want.append(float(s))
        bad = [i for i in range(len(xs)) if not ulp_close(got[i], want[i], 24)]
        if descr != "<f4" or shape != (len(xs),) or bad:
            t.fail(["scan", "sum", p], "descr %s shape %s, %d values off by more than one ulp (first %s)"
                   % (descr, shape, len(bad), bad[:1]))
    except Exception as e:  # a malformed file is a failure
        t.fail(["scan", "sum", p, "-o", out], "reading the output: %r" % e)

    # Integer sums wrap modulo 2^64 in i64; exclusive with an init value.
    big = [2 ** 63 - 1, 1, 5, -(2 ** 63), -7]
    p = t.write("i.npy", npy("<i8", (5,), pack("q", big)))
    acc, want = 0, []
    for v in big:
        acc = wrap_i64(acc + v)
        want.append(acc)
    t.ok(["scan", "sum", p], lambda o: None if [int(v) for v in o.split()] == want else "got %s, want %s" % (o.split(), want))
    acc, want = 100, []
    for v in big:
        want.append(acc)
        acc = wrap_i64(acc + v)
    t.json(["scan", "sum", p, "--exclusive", "--init", "100"],
           lambda j: None if j["result"] == want and j["result_dtype"] == "i64" and j["exclusive"] else "got %s, want %s" % (j, want))

    # MIN/MAX keep the input dtype; NaN propagates, or is skipped with --nan ignore.
    p = t.write("m.txt", "3\n1\nnan\n0.5\n2\n")
    t.json(["scan", "min", p], lambda j: None if j["result"] == [3, 1, "nan", "nan", "nan"] else "got %s" % j["result"])
    t.json(["scan", "min", p, "--nan", "ignore"], lambda j: None if j["result"] == [3, 1, 1, 0.5, 0.5] else "got %s" % j["result"])
    t.json(["scan", "sum", p, "--nan", "ignore"], lambda j: None if j["result"] == [3, 4, 4, 4.5, 6.5] else "got %s" % j["result"])
    p8 = t.write("u8.npy", npy("|u1", (4,), bytes([5, 9, 2, 200])))
    out8 = t.path("m8.npy")
    t.ok(["scan", "max", p8, "-o", out8])
    try:
        d, s, v = read_npy(out8)
        if d != "|u1" or v != [5, 9, 9, 200]:
            t.fail(["scan", "max", p8], "got %s %s" % (d, v))
    except Exception as e:
        t.fail(["scan", "max", p8], "reading the output: %r" % e)

    # AFFINE keeps order: x[k+1] = a[k] x[k] + b[k]; two files, or two columns.
    pa = t.write("a.npy", npy("<i8", (3,), pack("q", [2, 3, 5])))
    pb = t.write("b.npy", npy("<i8", (3,), pack("q", [1, 1, 1])))
    t.json(["scan", "affine", pa, pb], lambda j: None if j["result"] == [[2, 1], [6, 4], [30, 21]] else "got %s" % j["result"])
    pab = t.write("ab.csv", "a,b\n2,1\n3,1\n5,1\n")
    t.ok(["scan", "affine", pab, "--dtype", "i64"], "30 21")
    outa = t.path("aff.npy")
    t.ok(["scan", "affine", pa, pb, "-o", outa, "--init", "1,10"])
    try:
        d, s, v = read_npy(outa)  # (1,10) first: 2*10+1 = 21, then 3*21+1 = 64, 5*64+1 = 321
        if s != (3, 2) or v != [2, 21, 6, 64, 30, 321]:
            t.fail(["scan", "affine", "--init", "1,10"], "got shape %s values %s" % (s, v))
    except Exception as e:
        t.fail(["scan", "affine", "-o", outa], "reading the output: %r" % e)

    # Segments by flags and by offsets restart from the init value.
    p = t.write("seg.txt", "1\n2\n3\n4\n5\n6\n")
    pf = t.write("flags.txt", "0\n0\n1\n0\n0\n1\n")
    po = t.write("off.txt", "0\n2\n5\n6\n")
    t.json(["scan", "sum", p, "--flags", pf], lambda j: None if j["result"] == [1, 3, 3, 7, 12, 6] else "got %s" % j["result"])
    t.json(["scan", "sum", p, "--offsets", po, "--exclusive"], lambda j: None if j["result"] == [0, 1, 0, 3, 7, 0] else "got %s" % j["result"])

    # The scan ladder (--variant): GPU devices only; the library names a bad one.
    t.bad(["scan", "sum", p, "--variant", "blelloch", "--device", "cpu"], 1, "opt->variant",
          "blelloch", "cpu")
    t.bad(["scan", "sum", p, "--variant", "kogge", "--device", "cpu"], 1, "opt->variant", "kogge")
    rc, _, _ = t.run(["scan", "sum", p, "--device", "opencl"])
    if rc == 0:  # an OpenCL device is here (PoCL in CI): every rung gives the sums
        for v in ("hillis_steele", "blelloch", "four_kernel"):
            t.json(["scan", "sum", p, "--device", "opencl", "--variant", v],
                   lambda j: None if j["result"] == [1, 3, 6, 10, 15, 21] else "got %s" % j["result"])
        t.bad(["scan", "sum", p, "--device", "opencl", "--variant", "blelloch", "--flags", pf], 1,
              "opt->variant", "segments")
    else:
        print("note: no OpenCL device here; the --variant runs on a GPU backend were not made")

    # Errors: one line naming the cause.
    t.bad(["scan", "argmax", p], 2, "argmax", "has no scan")
    t.bad(["scan", "sum"], 2, "missing FILE")
    t.bad(["scan", "sum", t.path("none.npy")], 1, "none.npy")
    t.bad(["scan", "sum", p, "--init", "abc"], 2, "--init abc", "f64")
    t.bad(["scan", "affine", pa, pb, "--init", "1"], 2, "--init 1", "A,B")
    t.bad(["scan", "sum", p, "--flags", pf, "--offsets", po], 2, "--flags and --offsets")
    pbad = t.write("off_bad.txt", "0\n2\n5\n")
    t.bad(["scan", "sum", p, "--offsets", pbad], 1, "opt->offsets[2]", "5", "6 elements")
    p3 = t.write("three.csv", "1,2,3\n4,5,6\n")
    t.bad(["scan", "sum", p3], 1, "three.csv", "1-D")
    t.bad(["scan", "sum", p, "-o", t.path("no/such/dir/o.npy")], 1, "o.npy", "cannot create")
    t.bad(["scan", "affine", pa, t.write("b2.npy", npy("<i8", (2,), pack("q", [1, 1])))], 1, "b2.npy", "same")
    t.bad(["scan", "sum", p, "--nan", "sometimes"], 2, "--nan sometimes")

    # --init must fit the result dtype exactly: never truncated or wrapped.
    t.bad(["scan", "max", p8, "--init", "300"], 2, "--init 300", "u8", "range", "0..255")
    t.bad(["scan", "max", p8, "--init", "-1"], 2, "--init -1", "u8", "range")
    t.bad(["scan", "max", p8, "--init", "2.5"], 2, "--init 2.5", "u8", "integer")
    pi8 = t.write("i8.npy", npy("|i1", (3,), bytes([1, 2, 3])))
    t.bad(["scan", "max", pi8, "--init", "1e3"], 2, "--init 1e3", "integer")
    t.bad(["scan", "max", pi8, "--init", "128"], 2, "--init 128", "i8", "-128..127")
    pq = t.write("q.npy", npy("<i8", (2,), pack("q", [1, 2])))
    t.bad(["scan", "sum", pq, "--init", "9223372036854775808"], 2, "--init 9223372036854775808", "i64", "range")
    pf4 = t.write("f4.npy", npy("<f4", (3,), pack("f", [1.5, -2.0, 3.25])))
    t.bad(["scan", "min", pf4, "--init", "1e40"], 2, "--init 1e40", "f32", "range")
    t.bad(["scan", "sum", p, "--init", "1e400"], 2, "--init 1e400", "f64", "range")
    t.bad(["scan", "affine", pa, pb, "--init", "1,1e30"], 2, "--init 1,1e30", "1e30", "integer")
    # in range, and at its ends: accepted exactly
    t.json(["scan", "max", p8, "--init", "255"], lambda j: None if j["result"] == [255] * 4 else "got %s" % j["result"])
    t.json(["scan", "min", pi8, "--init", "-128"], lambda j: None if j["result"] == [-128] * 3 else "got %s" % j["result"])
    t.json(["scan", "min", pf4, "--init", "-3e38"], lambda j: None if f32(j["result"][0]) == f32(-3e38) else "got %s" % j["result"])
    return 0


def bins_of(xs, nb, lo, hi, edges=None, clamp=False):
    """counts, below, above, nan by the rule of SEMANTICS.md (even edges as numpy's linspace)."""
    e = edges or [k * ((hi - lo) / nb) + lo for k in range(nb)] + [hi]
    counts, below, above, nan = [0] * nb, 0, 0, 0
    for v in xs:
        if v != v:
            nan += 1
            continue
        if v < e[0] or v > e[-1]:
            if v < e[0]:
                below += 1
            else:
                above += 1
            if clamp:
                counts[0 if v < e[0] else nb - 1] += 1
            continue
        k = max(i for i in range(nb) if e[i] <= v)
        counts[k] += 1
    return counts, below, above, nan


def group_hist(t):
    vals = [0, 1, 1.5, 2, 3, 4, 5, -1, float("nan")]
    p = t.write("h.npy", npy("<f4", (len(vals),), pack("f", vals)))

    def want(j, counts, below, above, nan, rng=None):
        got = (j["counts"], j["below"], j["above"], j["nan"])
        if got != (counts, below, above, nan) or (rng and j["range"] != rng):
            return "got %s range %s, want %s range %s" % (got, j["range"], (counts, below, above, nan), rng)
        return None

    # Values on edges land in the bin they open; the last bin is closed at hi.
    t.json(["hist", p, "--bins", "4", "--range", "0,4"], lambda j: want(j, [1, 2, 1, 2], 1, 1, 1, [0, 4]))
    t.json(["hist", p, "--bins", "4", "--range", "0,4", "--clamp"], lambda j: want(j, [2, 2, 1, 3], 1, 1, 1))
    # Automatic range: the data's min and max (NaN skipped).
    t.json(["hist", p, "--bins", "3"], lambda j: want(j, *bins_of(vals, 3, -1, 5), rng=[-1, 5]))
    # The histogram ladder's rung (--variant hist_simple): GPU devices only.
    t.bad(["hist", p, "--bins", "4", "--range", "0,4", "--variant", "hist_simple", "--device", "cpu"],
          1, "spec->variant", "hist_simple", "cpu")
    t.bad(["hist", p, "--bins", "4", "--range", "0,4", "--variant", "atomic"], 1, "spec->variant", "atomic")
    rc, _, _ = t.run(["hist", p, "--bins", "4", "--range", "0,4", "--device", "opencl"])
    if rc == 0:  # an OpenCL device is here (PoCL in CI): the rung counts as best does
        t.json(["hist", p, "--bins", "4", "--range", "0,4", "--clamp", "--device", "opencl",
                "--variant", "hist_simple"], lambda j: want(j, [2, 2, 1, 3], 1, 1, 1))
    else:
        print("note: no OpenCL device here; the hist --variant run on a GPU backend was not made")
    # Explicit edges of varying widths.
    pe = t.write("edges.txt", "-1\n0.5\n2\n10\n")
    t.json(["hist", p, "--edges", pe], lambda j: want(j, [2, 2, 4], 0, 0, 1) or
           (None if j["edges"] == [-1, 0.5, 2, 10] else "edges %s" % j["edges"]))
    # Negative integers with float bounds.
    ints = list(range(-5, 6))
    pi = t.write("i8.npy", npy("|i1", (len(ints),), struct.pack("<%db" % len(ints), *ints)))
    t.json(["hist", pi, "--bins", "4", "--range", "-4.5,3.5"], lambda j: want(j, *bins_of(ints, 4, -4.5, 3.5)))
    # Weights: the exact sum per bin.
    rng = random.Random(7)
    xs = [rng.uniform(0, 10) for _ in range(5000)]
    ws = [rng.lognormvariate(0, 1) for _ in range(5000)]
    px = t.write("x.npy", npy("<f8", (5000,), pack("d", xs)))
    pw = t.write("w.npy", npy("<f8", (5000,), pack("d", ws)))

    def weights(j):
        per = [[] for _ in range(5)]
        for x, w in zip(xs, ws):
            per[min(int(x // 2), 4)].append(w)
        exact = [math.fsum(v) for v in per]
        if any(abs(a - b) > 2 ** -52 * abs(b) for a, b in zip(j["weight_sums"], exact)):
            return "weight sums %s, exact %s" % (j["weight_sums"], exact)
        return want(j, *bins_of(xs, 5, 0, 10))
    t.json(["hist", px, "--bins", "5", "--range", "0,10", "--weights", pw], weights)
    # The text chart: one line per bin, bars scaled to the largest count.
    def chart(out):
        lines = out.splitlines()
        if len(lines) != 6 or "nan: 1, below the range: 1, above: 1" not in lines[-1]:
            return "expected a title, 4 bins and a summary line"
        bars = [ln.count("#") for ln in lines[1:5]]
        return None if bars == [5, 10, 5, 10] else "bars %s, want [5, 10, 5, 10]" % bars
    t.ok(["hist", p, "--bins", "4", "--range", "0,4", "--width", "10"], chart)
    # --plot: a PNG whose image data is valid zlib holding 400 rows of 800 RGB pixels.
    png = t.path("h.png")
    t.ok(["hist", p, "--bins", "4", "--range", "0,4", "--plot", png])
    try:
        data = open(png, "rb").read()
        if data[:8] != b"\x89PNG\r\n\x1a\n":
            raise ValueError("no PNG signature")
        at, idat, size = 8, b"", None
        while at < len(data):
            n = struct.unpack(">I", data[at:at + 4])[0]
            kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + n]
            if zlib.crc32(kind + body) != struct.unpack(">I", data[at + 8 + n:at + 12 + n])[0]:
                raise ValueError("bad CRC in %r" % kind)
            if kind == b"IHDR":
                size = struct.unpack(">II", body[:8])
            if kind == b"IDAT":
                idat += body
            at += 12 + n
        raw = zlib.decompress(idat)
        if size != (800, 400) or len(raw) != 400 * (1 + 800 * 3):
            raise ValueError("size %s, %d bytes of pixels" % (size, len(raw)))
        blue = sum(1 for i in range(0, len(raw), 3) if raw[i:i + 3] == b"\x28\x5a\xc8")
        if blue < 1000:
            raise ValueError("no bars drawn")
    except Exception as e:
        t.fail(["hist", "--plot", png], "bad PNG: %r" % e)

    # Errors: usage errors exit 2, library refusals exit 1 naming the argument and value.
    t.bad(["hist", p, "--bins", "0"], 2, "--bins 0")
    t.bad(["hist", p, "--bins", "4", "--range", "3,1"], 1, "spec->lo: 3", "spec->hi: 1")
    t.bad(["hist", p, "--bins", "4", "--range", "0,inf"], 1, "spec->hi: inf", "not finite")
    t.bad(["hist", p, "--bins", "4", "--range", "nan,1"], 1, "spec->lo: nan")
    t.bad(["hist", p, "--bins", "4", "--range", "0"], 2, "--range 0")
    pu = t.write("unsorted.txt", "0\n2\n1\n3\n")
    t.bad(["hist", p, "--edges", pu], 1, "spec->edges[2]", "1")
    t.bad(["hist", p, "--edges", pe, "--range", "0,1"], 2, "--range and --edges")
    t.bad(["hist", p, "--edges", pe, "--bins", "5"], 2, "--bins 5", "4 edges")
    pw2 = t.write("w2.npy", npy("<f8", (3,), pack("d", [1, 2, 3])))
    t.bad(["hist", p, "--weights", pw2], 1, "w2.npy", "3 weights", "9 elements")
    pinf = t.write("inf.txt", "1\ninf\n2\n")
    t.bad(["hist", pinf, "--bins", "2"], 1, "auto_range", "not finite")
    t.bad(["hist", p, "--bins", "2", "--plot", t.path("no/such/h.png")], 1, "h.png")
    return 0


def group_bench(t):
    """tally bench --scan --hist: tiny sizes, one JSON line per measurement."""
    out = t.ok(["bench", "--scan", "--hist", "--sizes", "2^12", "--dtypes", "f32,u8",
                "--accuracy", "both", "--min-time", "0.001", "--rounds", "1", "--bins", "16",
                "--json"])
    try:
        rows = [json.loads(line) for line in out.splitlines()]
        kinds = sorted((r["kind"], r["dtype"], r.get("accuracy", r.get("data"))) for r in rows)
        want = sorted([("scan", "f32", "default"), ("scan", "f32", "fast"), ("scan", "u8", "default"),
                       ("scan", "u8", "fast"), ("hist", "f32", "uniform"), ("hist", "f32", "skewed"),
                       ("hist", "u8", "uniform"), ("hist", "u8", "skewed")])
        if kinds != want:
            t.fail(["bench", "--scan", "--hist"], "rows %s, want %s" % (kinds, want))
        for r in rows:
            ceiling = r.get("copy_gbps", r.get("probe_gbps"))
            if not (r["median_us"] > 0 and r["gbps"] > 0 and ceiling > 0 and r["n"] == 4096):
                t.fail(["bench", "--scan", "--hist"], "bad row %s" % r)
            if r["kind"] == "hist" and r["bins"] != 16:
                t.fail(["bench", "--hist", "--bins", "16"], "bins %s" % r["bins"])
    except Exception as e:
        t.fail(["bench", "--scan", "--hist", "--json"], "bad output: %r" % e)
    t.ok(["bench", "--scan", "--sizes", "2^10", "--min-time", "0.001", "--rounds", "1"],
         lambda o: None if "copy_GB/s" in o and "ratio" in o else "no table header")
    # --scan times each of --ops (sum, prod, min, max); the rows name their op.
    out = t.ok(["bench", "--scan", "--ops", "min,prod,affine", "--sizes", "2^10", "--dtypes", "i64",
                "--min-time", "0.001", "--rounds", "1", "--json"])
    try:
        ops = sorted(json.loads(line)["op"] for line in out.splitlines())
        if ops != ["affine", "min", "prod"]:
            t.fail(["bench", "--scan", "--ops", "min,prod,affine"], "ops %s" % ops)
    except Exception as e:
        t.fail(["bench", "--scan", "--ops", "min,prod", "--json"], "bad output: %r" % e)
    # --order: the scans' input as ramps (MIN and MAX's worst case); rows say so.
    out = t.ok(["bench", "--device", "cpu", "--scan", "--ops", "max", "--dtypes", "i32,f16",
                "--sizes", "2^10", "--order", "descending", "--min-time", "0.001", "--rounds", "1", "--json"])
    try:
        orders = [json.loads(line).get("order") for line in out.splitlines()]
        if orders != ["descending", "descending"]:
            t.fail(["bench", "--scan", "--order", "descending"], "orders %s" % orders)
    except Exception as e:
        t.fail(["bench", "--scan", "--order", "descending", "--json"], "bad output: %r" % e)
    t.ok(["bench", "--device", "cpu", "--scan", "--sizes", "2^10", "--order", "ascending",
          "--min-time", "0.001", "--rounds", "1"], lambda o: None if "ascending input" in o else "no 'ascending input' in the header")
    t.bad(["bench", "--scan", "--order", "sideways", "--sizes", "2^10"], 2, "--order", "sideways")
    t.bad(["bench", "--order", "ascending", "--sizes", "2^10"], 2, "--order", "only with --scan")
    t.bad(["bench", "--scan", "--ops", "argmax", "--sizes", "2^10"], 2, "--ops", "argmax")
    t.bad(["bench", "--hist", "--bins", "0"], 2, "--bins")
    # Data on the edges: a GPU bench's (CUDA); without --hist, or on a CPU device, refused.
    t.bad(["bench", "--hist-edges", "--sizes", "2^10"], 2, "--hist-edges")
    t.bad(["bench", "--hist", "--hist-edges", "--device", "cpu", "--sizes", "2^10"], 2, "GPU devices only")
    return 0


GROUPS = {"scan": group_scan, "hist": group_hist, "bench": group_bench}


def main(argv):
    if len(argv) < 3 or argv[2] not in GROUPS:
        sys.stderr.write("usage: test_cli_scan.py TALLY_BINARY GROUP\ngroups: %s\n" % " ".join(GROUPS))
        return 2
    binary = os.path.abspath(argv[1])
    if not os.access(binary, os.X_OK):
        print("no tally binary at %s" % binary)
        return SKIP
    with tempfile.TemporaryDirectory(prefix="tally-cli-") as d:
        t = Tester(binary, d)
        GROUPS[argv[2]](t)
    print("%s: %d cases, %d failures" % (argv[2], t.cases, t.failures))
    return 1 if t.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
