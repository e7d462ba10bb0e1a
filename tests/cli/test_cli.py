#!/usr/bin/env python3
"""Tests of the tally command-line tool (Python 3 standard library only).

usage: test_cli.py TALLY_BINARY GROUP [MAN_PAGE]

Each group writes its inputs into a fresh temporary directory (.npy files are made by hand
with struct), runs the tool, and checks the exit code and the output or the error line.
Expected numbers are computed here, independently: math.fsum for float sums, Python ints
for integer results. Exit status: 0 all passed, 1 a failure, 77 skipped.
"""
import json
import math
import os
import random
import struct
import subprocess
import sys
import tempfile

SKIP = 77


class Tester:
    def __init__(self, binary, workdir):
        self.binary = binary
        self.dir = workdir
        self.failures = 0
        self.cases = 0

    # ------------------------------------------------------------ files

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, data):
        p = self.path(name)
        with open(p, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode("utf-8"))
        return p

    # ------------------------------------------------------------ running

    def run(self, args, env=None):
        full_env = dict(os.environ)
        full_env.pop("TALLY_DEVICE", None)
        if env:
            full_env.update(env)
        p = subprocess.run([self.binary] + list(args), capture_output=True, text=True,
                           env=full_env, cwd=self.dir, timeout=120)
        return p.returncode, p.stdout, p.stderr

    def fail(self, args, why, out="", err=""):
        self.failures += 1
        print("FAIL: tally %s\n  %s" % (" ".join(args), why))
        if out:
            print("  stdout: %r" % out[:2000])
        if err:
            print("  stderr: %r" % err[:2000])

    def ok(self, args, expect=None, env=None):
        """Run, expect exit 0; expect is a substring of stdout or a predicate on it.
        Returns stdout."""
        self.cases += 1
        rc, out, err = self.run(args, env)
        if rc != 0:
            self.fail(args, "exit %d, expected 0" % rc, out, err)
        elif err:
            self.fail(args, "unexpected stderr", out, err)
        elif isinstance(expect, str) and expect not in out:
            self.fail(args, "stdout lacks %r" % expect, out, err)
        elif callable(expect):
            try:
                why = expect(out)
            except Exception as e:  # a malformed output is a failure, not a crash
                why = "checking the output raised %r" % e
            if why:
                self.fail(args, why, out, err)
        return out

    def json(self, args, check, env=None):
        """Run with --json; check(obj) returns None or why it is wrong."""
        def pred(out):
            lines = out.splitlines()
            if len(lines) != 1:
                return "expected one line of JSON, got %d" % len(lines)
            return check(json.loads(lines[0]))
        return self.ok(list(args) + ["--json"], pred, env)

    def bad(self, args, code, *parts, env=None):
        """Run, expect exit `code`, empty stdout and one stderr line 'tally: ...' holding
        every one of parts."""
        self.cases += 1
        rc, out, err = self.run(args, env)
        lines = err.splitlines()
        if rc != code:
            self.fail(args, "exit %d, expected %d" % (rc, code), out, err)
        elif out:
            self.fail(args, "unexpected stdout", out, err)
        elif len(lines) != 1 or not lines[0].startswith("tally: "):
            self.fail(args, "expected one line 'tally: ...' on stderr", out, err)
        else:
            for part in parts:
                if part not in lines[0]:
                    self.fail(args, "error lacks %r" % part, out, err)
                    break
        return err


# ---------------------------------------------------------------- .npy files by hand

def npy(descr, shape, payload, fortran=False, version=1, align=64):
    """A .npy file: magic, version, header length, the header dict padded with spaces
    and a newline to a multiple of `align` bytes, then the payload."""
    if len(shape) == 1:
        shape_text = "(%d,)" % shape[0]
    else:
        shape_text = "(" + ", ".join(str(d) for d in shape) + ")"
    header = "{'descr': %s, 'fortran_order': %s, 'shape': %s, }" % (
        descr if descr.startswith("[") else "'%s'" % descr,
        "True" if fortran else "False", shape_text)
    pre = 10 if version == 1 else 12
    total = pre + len(header) + 1
    header += " " * ((-total) % align) + "\n"
    if version == 1:
        length = struct.pack("<H", len(header))
    else:
        length = struct.pack("<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + length + header.encode("latin1") + payload


def pack(fmt_char, values, big=False):
    return struct.pack("%s%d%s" % (">" if big else "<", len(values), fmt_char), *values)


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f16(x):
    return struct.unpack("<e", struct.pack("<e", x))[0]


def wrap_i64(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v


def close(got, want, ulps, bits):
    """|got - want| within `ulps` units in the last place of a `bits`-bit significand."""
    if isinstance(got, str) or isinstance(want, str):
        return got == want
    if want == 0:
        return abs(got) <= 1e-300
    return abs(got - want) <= ulps * 2.0 ** (math.frexp(abs(want))[1] - bits)


def number(out, name):
    """The value of 'name = VALUE (...)' in text output."""
    line = out.strip()
    prefix = name + " = "
    if not line.startswith(prefix):
        raise ValueError("no %r in %r" % (prefix, line))
    return float(line[len(prefix):].split(" (")[0])


def rows_of(cols_major, rows, cols):
    """Column-major list to row-major list."""
    return [cols_major[j * rows + i] for i in range(rows) for j in range(cols)]


# ================================================================ groups

def group_npy(t):
    rng = random.Random(12345)
    # v1, f64, 1-D: sum (fsum), mean, minmax, argmax, argmin; other accuracy options.
    xs = [rng.uniform(-1000, 1000) for _ in range(1000)]
    p = t.write("v1_f64.npy", npy("<f8", (1000,), pack("d", xs)))
    S = math.fsum(xs)
    t.ok(["reduce", "sum", p], lambda o: None if close(number(o, "sum"), S, 1, 53) else
         "sum %r, expected %r" % (o, S))
    t.ok(["reduce", "sum", p], "(f64, n = 1000)")
    t.json(["reduce", "sum", p, "--accuracy", "fast"],
           lambda j: None if close(j["result"], S, 1e6, 53) else "fast sum far off")
    t.json(["reduce", "mean", p], lambda j: None if close(j["result"], S / 1000, 2, 53)
           else "mean %r" % j["result"])
    imax = max(range(1000), key=lambda i: (xs[i], -i))
    imin = min(range(1000), key=lambda i: (xs[i], i))
    t.json(["reduce", "argmax", p], lambda j: None if (
        j["index"] == imax and j["result"] == xs[imax] and j["op"] == "argmax" and
        j["dtype"] == "f64" and j["n"] == 1000) else "argmax wrong")
    t.ok(["reduce", "argmin", p], lambda o: None if o == "argmin: index = %d, value = %.17g "
         "(f64, n = 1000)\n" % (imin, xs[imin]) else "argmin text")
    t.json(["reduce", "minmax", p], lambda j: None if j["result"] == [min(xs), max(xs)]
           else "minmax wrong")
    t.ok(["reduce", "minmax", p], "minmax: min = %.17g, max = %.17g" % (min(xs), max(xs)))
    # Variance with ddof 1, against an exact computation in fractions.
    from fractions import Fraction
    fx = [Fraction(x) for x in xs]
    mean = sum(fx) / len(fx)
    var1 = float(sum((x - mean) ** 2 for x in fx) / (len(fx) - 1))
    t.json(["reduce", "var", p, "--ddof", "1"],
           lambda j: None if close(j["result"], var1, 64, 53) else "var %r vs %r" % (j["result"], var1))
    t.json(["reduce", "std", p, "--ddof", "1"],
           lambda j: None if close(j["result"], math.sqrt(var1), 64, 53) else "std")
    for variant in ("sequential", "naive", "best"):
        t.json(["reduce", "sum", p, "--variant", variant],
               lambda j: None if close(j["result"], S, 1e4, 53) else "variant sum far off")

    # v2, i32: exact sum (i64), min, max, bitxor.
    ints = [rng.randrange(-2**31, 2**31) for _ in range(777)]
    p = t.write("v2_i32.npy", npy("<i4", (777,), pack("i", ints), version=2))
    t.ok(["reduce", "sum", p], "sum = %d (i32, n = 777)" % sum(ints))
    t.json(["reduce", "max", p], lambda j: None if j["result"] == max(ints) and
           j["result_dtype"] == "i32" else "max")
    x = 0
    for v in ints:
        x ^= v
    t.json(["reduce", "bitxor", p], lambda j: None if j["result"] == x else "bitxor")

    # v3, f32: sum is an f32 (accumulated in f64).
    ys = [f32(rng.uniform(0, 1)) for _ in range(4099)]
    p = t.write("v3_f32.npy", npy("<f4", (4099,), pack("f", ys), version=3))
    Sy = f32(math.fsum(ys))
    t.json(["reduce", "sum", p], lambda j: None if close(j["result"], Sy, 1, 24) and
           j["result_dtype"] == "f32" else "f32 sum %r vs %r" % (j["result"], Sy))

    # 2-D, C order, i64: all, axis 0, axis 1; argmax flat index.
    R, C = 5, 7
    m = [rng.randrange(-10**12, 10**12) for _ in range(R * C)]
    p = t.write("c_i64.npy", npy("<i8", (R, C), pack("q", m)))
    col = [sum(m[i * C + j] for i in range(R)) for j in range(C)]
    row = [sum(m[i * C:(i + 1) * C]) for i in range(R)]
    t.json(["reduce", "sum", p], lambda j: None if j["result"] == sum(m) and
           j["shape"] == [R, C] and j["n"] == R * C else "2-D sum")
    t.json(["reduce", "sum", p, "--axis", "0"],
           lambda j: None if j["result"] == col and j["axis"] == 0 else "axis 0 %r" % j)
    t.json(["reduce", "sum", p, "--axis", "1"],
           lambda j: None if j["result"] == row else "axis 1")
    t.json(["reduce", "sum", p, "--axis", "-1"], lambda j: None if j["result"] == sum(m) else "axis -1")
    t.ok(["reduce", "sum", p, "--axis", "1"],
         lambda o: None if o.splitlines()[0] == "sum over axis 1 (i64, 5 x 7): 5 results" and
         o.splitlines()[1] == "  0: %d" % row[0] else "axis text")
    flat = max(range(R * C), key=lambda i: (m[i], -i))
    t.json(["reduce", "argmax", p], lambda j: None if j["index"] == flat and
           j["result"] == m[flat] else "flat argmax")

    # 2-D, Fortran order, f64: strides {1, rows}; results as for the logical matrix.
    R, C = 4, 3
    logical = [float(rng.randrange(-50, 50)) for _ in range(R * C)]  # row-major values
    colmajor = [logical[i * C + j] for j in range(C) for i in range(R)]
    p = t.write("f_f64.npy", npy("<f8", (R, C), pack("d", colmajor), fortran=True))
    col = [math.fsum(logical[i * C + j] for i in range(R)) for j in range(C)]
    row = [math.fsum(logical[i * C:(i + 1) * C]) for i in range(R)]
    t.json(["reduce", "sum", p, "--axis", "0"], lambda j: None if j["result"] == col else "F axis 0")
    t.json(["reduce", "sum", p, "--axis", "1"], lambda j: None if j["result"] == row else "F axis 1")
    amax_rows = [max(range(C), key=lambda j, i=i: (logical[i * C + j], -j)) for i in range(R)]
    t.json(["reduce", "argmax", p, "--axis", "1"], lambda j: None if (
        j["index"] == amax_rows and
        j["result"] == [logical[i * C + amax_rows[i]] for i in range(R)]) else "F argmax axis 1")
    flat = max(range(R * C), key=lambda i: (logical[i], -i))
    t.json(["reduce", "argmax", p], lambda j: None if j["index"] == flat else "F flat argmax")
    t.json(["reduce", "minmax", p, "--axis", "0"], lambda j: None if j["result"] == [
        [min(logical[i * C + jj] for i in range(R)), max(logical[i * C + jj] for i in range(R))]
        for jj in range(C)] else "F minmax axis 0")

    # Big-endian: converted by byte-swapping.
    bi = [rng.randrange(-2**31, 2**31) for _ in range(100)]
    p = t.write("be_i4.npy", npy(">i4", (100,), pack("i", bi, big=True)))
    t.json(["reduce", "sum", p], lambda j: None if j["result"] == sum(bi) and
           j["dtype"] == "i32" else "big-endian i4")
    bf = [rng.uniform(-1, 1) for _ in range(100)]
    p = t.write("be_f8.npy", npy(">f8", (100,), pack("d", bf, big=True)))
    t.json(["reduce", "sum", p], lambda j: None if close(j["result"], math.fsum(bf), 1, 53)
           else "big-endian f8")
    t.json(["reduce", "max", p], lambda j: None if j["result"] == max(bf) else "big-endian max")
    # Big-endian, 2-D Fortran order.
    p = t.write("be_f_i2.npy", npy(">i2", (2, 3), pack("h", [1, 4, 2, 5, 3, 6], big=True),
                                     fortran=True))
    t.json(["reduce", "sum", p, "--axis", "1"], lambda j: None if j["result"] == [6, 15]
           else "big-endian Fortran rows")

    # bool, f16, the other integer widths, '=' and '|' byte orders.
    bools = [1, 0, 0, 1, 1, 0, 1, 0, 0, 0, 2]
    p = t.write("b1.npy", npy("|b1", (len(bools),), bytes(bools)))
    t.json(["reduce", "count_nonzero", p], lambda j: None if j["result"] == 5 else "count_nonzero")
    t.json(["reduce", "any", p], lambda j: None if j["result"] is True else "any")
    t.json(["reduce", "all", p], lambda j: None if j["result"] is False else "all")
    t.ok(["reduce", "all", p], "all = false (bool, n = 11)")
    t.json(["reduce", "sum", p], lambda j: None if j["result"] == 5 and
           j["result_dtype"] == "i64" else "bool sum")
    hs = [f16(rng.uniform(-4, 4)) for _ in range(300)]
    p = t.write("f2.npy", npy("<f2", (300,), pack("e", hs)))
    t.json(["reduce", "sum", p], lambda j: None if close(j["result"], f32(math.fsum(hs)), 1, 24)
           and j["result_dtype"] == "f32" else "f16 sum")
    t.json(["reduce", "max", p], lambda j: None if f16(j["result"]) == max(hs) and
           j["result_dtype"] == "f16" else "f16 max %r vs %r" % (j["result"], max(hs)))
    u64s = [2**64 - 1, 2**63, 12345]
    p = t.write("u8.npy", npy("<u8", (3,), pack("Q", u64s)))
    t.json(["reduce", "sum", p], lambda j: None if j["result"] == sum(u64s) % 2**64 and
           j["result_dtype"] == "u64" else "u64 sum wraps")
    t.json(["reduce", "max", p], lambda j: None if j["result"] == 2**64 - 1 else "u64 max")
    for descr, ch, vals in (("|i1", "b", [-128, 127, -1, 5]), ("<i2", "h", [-32768, 32767, 9]),
                            ("|u1", "B", [255, 254, 1]), ("=u2", "H", [65535, 2, 7]),
                            ("<u4", "I", [2**32 - 1, 5, 6]), ("=f8", "d", [0.5, 0.25, -2.0])):
        p = t.write("t_%s.npy" % descr[1:], npy(descr, (len(vals),), pack(ch, vals)))
        want = sum(vals)
        t.json(["reduce", "sum", p], lambda j, w=want: None if j["result"] == w else "sum of %s" % descr)
        t.json(["reduce", "min", p], lambda j, w=min(vals): None if j["result"] == w else "min of %s" % descr)

    # A scalar (shape ()), an empty array, and data at an offset that is not aligned.
    p = t.write("scalar.npy", npy("<f8", (), pack("d", [2.5])))
    t.ok(["reduce", "sum", p], "sum = 2.5 (f64, n = 1)")
    p = t.write("empty.npy", npy("<f8", (0,), b""))
    t.ok(["reduce", "sum", p], "sum = 0 (f64, n = 0)")
    t.bad(["reduce", "min", p], 1, "TALLY_EEMPTY")
    p = t.write("odd.npy", npy("<f8", (3,), pack("d", [1.0, 2.0, 4.5]), align=3))
    t.ok(["reduce", "sum", p], "sum = 7.5 (f64, n = 3)")
    # Trailing bytes after the data are ignored, as numpy.fromfile's count would.
    p = t.write("extra.npy", npy("<i2", (2,), pack("h", [3, 4]) + b"\0\0\0"))
    t.ok(["reduce", "sum", p], "sum = 7 (i16, n = 2)")


def group_raw(t):
    vals = [1.5, -2.25, 3.0, 1e10, -1e10, 0.125]
    p = t.write("x.f32", pack("f", vals))
    t.ok(["reduce", "sum", p, "--dtype", "f32"], "sum = 2.375 (f32, n = 6)")
    t.ok(["reduce", "sum", p, "--dtype", "float32"], "sum = 2.375 (f32, n = 6)")
    m = list(range(-6, 6))  # 3 x 4 row-major
    p = t.write("m.i16", pack("h", m))
    t.json(["reduce", "sum", p, "--dtype", "i16", "--shape", "3,4", "--axis", "1"],
           lambda j: None if j["result"] == [sum(m[0:4]), sum(m[4:8]), sum(m[8:12])] and
           j["shape"] == [3, 4] else "raw 2-D rows")
    t.json(["reduce", "sum", p, "--dtype", "i16", "--shape", "3,4", "--axis", "0"],
           lambda j: None if j["result"] == [sum(m[k::4]) for k in range(4)] else "raw 2-D cols")
    t.json(["reduce", "prod", p, "--dtype", "i16"], lambda j: None if j["result"] == 0 else "prod")
    p2 = t.write("m.u8", bytes(range(1, 11)))
    t.json(["reduce", "prod", p2, "--dtype", "u8"],
           lambda j: None if j["result"] == math.factorial(10) else "u8 prod")
    t.json(["reduce", "bitor", p2, "--dtype", "u8"], lambda j: None if j["result"] == 15 else "bitor")
    t.bad(["reduce", "sum", p, "--dtype", "i16", "--shape", "5,4"], 1, "m.i16", "--shape 5,4",
          "12 elements")
    t.bad(["reduce", "sum", p, "--dtype", "i16", "--shape", "3x4"], 2, "--shape 3x4")
    t.bad(["reduce", "sum", p, "--dtype", "f64", "--shape", "2,2"], 1, "m.i16", "--shape 2,2",
          "3 elements of f64")
    odd = t.write("odd.bin", b"\0" * 10)
    t.bad(["reduce", "sum", odd, "--dtype", "f32"], 1, "odd.bin",
          "size 10 bytes is not a multiple of the 4-byte size of f32")
    t.bad(["reduce", "sum", odd], 2, "odd.bin", "needs --dtype")
    t.bad(["reduce", "sum", odd, "--dtype", "i8", "--column", "1"], 2, "--column")


def group_text(t):
    rng = random.Random(777)
    # CSV with a header: --column by name and by index; a multi-column file is 2-D.
    rows = [(rng.uniform(-100, 100), rng.randrange(-1000, 1000), rng.uniform(0, 1))
            for _ in range(200)]
    text = "x,count,weight\n" + "".join("%r,%d,%r\n" % r for r in rows)
    p = t.write("h.csv", text)
    xs = [r[0] for r in rows]
    t.json(["reduce", "sum", p, "--column", "x"],
           lambda j: None if close(j["result"], math.fsum(xs), 1, 53) and j["n"] == 200 else "csv x")
    t.json(["reduce", "sum", p, "--column", "1", "--dtype", "i32"],
           lambda j: None if j["result"] == sum(r[1] for r in rows) and j["dtype"] == "i32"
           else "csv col 1 as i32")
    t.json(["reduce", "max", p, "--column", "weight"],
           lambda j: None if j["result"] == max(r[2] for r in rows) else "csv weight")
    t.json(["reduce", "sum", p, "--axis", "0"], lambda j: None if j["shape"] == [200, 3] and
           close(j["result"][1], float(sum(r[1] for r in rows)), 0, 53) else "csv 2-D axis 0")
    t.json(["reduce", "dot", p, "--column", "x,weight"], lambda j: None if close(
        j["result"], math.fsum(r[0] * r[2] for r in rows), 2, 53) else "dot of two columns")
    t.bad(["reduce", "sum", p, "--column", "nope"], 1, "h.csv", "--column nope",
          "no such column", "x, count, weight")
    t.bad(["reduce", "sum", p, "--column", "3"], 1, "h.csv", "--column 3", "3 columns")

    # TSV, semicolons, blanks; comments, empty lines, CRLF, quotes, a byte order mark.
    p = t.write("t.tsv", "a\tb c\n1\t2\n3\t4\n")
    t.ok(["reduce", "sum", p, "--column", "b c"], "sum = 6 (f64, n = 2)")
    p = t.write("s.csv", "1;2,5\n")  # semicolon-delimited, decimal commas are not numbers
    t.bad(["reduce", "sum", p], 1, "s.csv:1:3: '2,5' is not a number")
    p = t.write("w.txt", "# a comment\n\n  1   2\t3\n\n4 5 6   \n")
    t.json(["reduce", "sum", p, "--axis", "1"], lambda j: None if j["result"] == [6, 15] else "ws")
    p = t.write("q.csv", '\ufeff"p","q"\r\n"1.5","2"\r\n\r\n3,4\r\n')
    t.ok(["reduce", "sum", p, "--column", "p"], "sum = 4.5 (f64, n = 2)")
    p = t.write("one.txt", "nan\n1\ninf\n")
    t.json(["reduce", "sum", p], lambda j: None if j["result"] == "nan" else "nan sum")
    t.json(["reduce", "sum", p, "--nan", "ignore"], lambda j: None if j["result"] == "inf" else "ignore")
    p = t.write("neg.txt", "-inf\n1\n")
    t.json(["reduce", "min", p], lambda j: None if j["result"] == "-inf" else "-inf")
    t.ok(["reduce", "min", p], "min = -inf (f64, n = 2)")

    # Integers are parsed exactly: 2^53 + 1 is not a double.
    big = [2**53 + 1, 2**53 + 3, -(2**62)]
    p = t.write("big.txt", "".join("%d\n" % v for v in big))
    t.json(["reduce", "sum", p, "--dtype", "i64"], lambda j: None if j["result"] == sum(big) else "i64")
    p = t.write("u.txt", "18446744073709551615\n1\n")
    t.json(["reduce", "sum", p, "--dtype", "u64"], lambda j: None if j["result"] == 0 else "u64 wrap")
    t.json(["reduce", "max", p, "--dtype", "u64"],
           lambda j: None if j["result"] == 2**64 - 1 else "u64 max")
    t.bad(["reduce", "sum", p, "--dtype", "i64"], 1, "u.txt:1:1:",
          "'18446744073709551615' is out of range for i64")
    p = t.write("r.txt", "1\n  300\n")
    t.bad(["reduce", "sum", p, "--dtype", "u8"], 1, "r.txt:2:3: '300' is out of range for u8")
    p = t.write("f.txt", "1\n2.5\n")
    t.bad(["reduce", "sum", p, "--dtype", "i32"], 1, "f.txt:2:1: '2.5' is not an integer")
    p = t.write("n.txt", "-1\n")
    t.bad(["reduce", "sum", p, "--dtype", "u16"], 1, "n.txt:1:1: '-1' is out of range for u16")
    p = t.write("bool.txt", "true\n0\n1\nFalse\n")
    t.json(["reduce", "count_nonzero", p, "--dtype", "bool"],
           lambda j: None if j["result"] == 2 else "bool text")
    p = t.write("h.txt", "0.1\n0.2\n")
    t.json(["reduce", "sum", p, "--dtype", "f32"], lambda j: None if f32(j["result"]) == f32(
        f32(0.1) + f32(0.2)) else "f32 text %r" % j["result"])
    t.json(["reduce", "sum", p, "--dtype", "f16"], lambda j: None if close(
        j["result"], f16(0.1) + f16(0.2), 1, 24) else "f16 text")

    # Errors: line and 1-based character column of the bad field.
    p = t.write("e.csv", "a,b\n1,2\n3, abc\n")
    t.bad(["reduce", "sum", p], 1, "e.csv:3:4: 'abc' is not a number")
    p = t.write("e2.csv", "1,2\n\n3,x4\n")
    t.bad(["reduce", "sum", p, "--column", "1"], 1, "e2.csv:3:3: 'x4' is not a number")
    t.bad(["reduce", "sum", p], 1, "e2.csv:3:3: 'x4' is not a number")
    # Columns that are not selected are not parsed: names beside numbers are fine.
    p = t.write("names.csv", "name,price\nfoo,1.25\nbar baz,2\n")
    t.ok(["reduce", "sum", p, "--column", "price"], "sum = 3.25 (f64, n = 2)")
    t.bad(["reduce", "sum", p], 1, "names.csv:2:1: 'foo' is not a number")
    p = t.write("e3.txt", "1 2\n\u00e9\u00e9 7\n")  # the column counts characters, not bytes
    t.bad(["reduce", "sum", p], 1, "e3.txt:2:1: '\u00e9\u00e9' is not a number")
    p = t.write("e4.txt", "\u00e9 x\n1 2\n3 \u00fc\n")
    t.bad(["reduce", "sum", p], 1, "e4.txt:3:3: '\u00fc' is not a number")
    p = t.write("e5.csv", "1,,2\n")
    t.bad(["reduce", "sum", p], 1, "e5.csv:1:3: '' is not a number")
    p = t.write("ragged.csv", "1,2\n3,4\n5\n")
    t.bad(["reduce", "sum", p], 1, "ragged.csv:3: 1 field, but line 1 has 2")
    p = t.write("hdr.csv", "a,b\n")
    t.bad(["reduce", "sum", p], 1, "hdr.csv", "no data")
    p = t.write("nohdr.csv", "1,2\n")
    t.bad(["reduce", "sum", p, "--column", "a"], 1, "nohdr.csv", "no header")
    p = t.write("comments.txt", "# only\n\n")
    t.bad(["reduce", "sum", p], 1, "comments.txt", "no data")
    t.bad(["reduce", "sum", p, "--shape", "1,1"], 2, "--shape")


def group_binary_ops(t):
    rng = random.Random(99)
    a = [rng.uniform(-1, 1) for _ in range(513)]
    b = [rng.uniform(-1, 1) for _ in range(513)]
    pa = t.write("a.npy", npy("<f8", (513,), pack("d", a)))
    pb = t.write("b.npy", npy("<f8", (513,), pack("d", b)))
    D = math.fsum(x * y for x, y in zip(a, b))
    t.json(["reduce", "dot", pa, pb], lambda j: None if close(j["result"], D, 1, 53) and
           j["n"] == 513 else "dot %r vs %r" % (j["result"], D))
    t.ok(["reduce", "dot", pa, pb], "(f64, n = 513)")
    # A 2-column .npy (C order) and Fortran order: dot of its columns.
    inter = [v for pair in zip(a, b) for v in pair]
    p2 = t.write("ab.npy", npy("<f8", (513, 2), pack("d", inter)))
    t.json(["reduce", "dot", p2], lambda j: None if close(j["result"], D, 1, 53) else "dot 2-col")
    pf = t.write("abf.npy", npy("<f8", (513, 2), pack("d", a + b), fortran=True))
    t.json(["reduce", "dot", pf], lambda j: None if close(j["result"], D, 1, 53) else "dot F 2-col")
    # Integer dot: exact, wrapping.
    ia = [rng.randrange(-2**31, 2**31) for _ in range(300)]
    ib = [rng.randrange(-2**31, 2**31) for _ in range(300)]
    pia = t.write("ia.npy", npy("<i4", (300,), pack("i", ia)))
    pib = t.write("ib.npy", npy("<i4", (300,), pack("i", ib)))
    t.json(["reduce", "dot", pia, pib], lambda j: None if j["result"] == wrap_i64(
        sum(x * y for x, y in zip(ia, ib))) else "int dot")

    # AFFINE: compose x -> a_k x + b_k in index order; exact in small integers.
    coef = [(rng.randrange(-3, 4), rng.randrange(-9, 10)) for _ in range(20)]
    A, B = 1, 0
    for ak, bk in coef:
        A, B = ak * A, ak * B + bk
    A, B = wrap_i64(A), wrap_i64(B)
    p = t.write("aff.txt", "".join("%d %d\n" % c for c in coef))
    t.json(["reduce", "affine", p, "--dtype", "i64"],
           lambda j: None if j["result"] == [A, B] else "affine %r vs %r" % (j["result"], [A, B]))
    t.ok(["reduce", "affine", p, "--dtype", "i64"], "affine: a = %d, b = %d (i64, n = 20)" % (A, B))
    pa2 = t.write("affa.npy", npy("<i8", (20,), pack("q", [c[0] for c in coef])))
    pb2 = t.write("affb.npy", npy("<i8", (20,), pack("q", [c[1] for c in coef])))
    t.json(["reduce", "affine", pa2, pb2], lambda j: None if j["result"] == [A, B] else "affine 2 files")
    # Order matters: reversing the maps changes the answer (and the CLI keeps it).
    fa = [(2.0, 1.0), (3.0, 0.0), (0.5, 4.0)]
    pf = t.write("aff.csv", "a,b\n" + "".join("%r,%r\n" % c for c in fa))
    t.json(["reduce", "affine", pf], lambda j: None if j["result"] == [3.0, 5.5] else "affine f64")

    # Mismatches.
    short = t.write("short.npy", npy("<f8", (512,), pack("d", a[:512])))
    t.bad(["reduce", "dot", pa, short], 1, "short.npy: 512 elements, but", "a.npy has 513",
          "same shape")
    f4 = t.write("a4.npy", npy("<f4", (513,), pack("f", a)))
    t.bad(["reduce", "dot", pa, f4], 1, "a4.npy: dtype f32, but", "a.npy has f64")
    t.bad(["reduce", "dot", pa], 1, "a.npy", "op dot needs two files, or one file with two columns")
    t.bad(["reduce", "affine", "--dtype", "i64", p, p, p], 2, "at most two files")
    t.bad(["reduce", "sum", pa, pb], 2, "b.npy", "op sum takes one file")


def group_errors(t):
    good = t.write("g.npy", npy("<f4", (4,), pack("f", [1, 2, 3, 4])))
    # Corrupt and unsupported .npy files.
    full = npy("<f8", (100,), pack("d", [1.0] * 100))
    p = t.write("trunc.npy", full[:-8])
    t.bad(["reduce", "sum", p], 1, "trunc.npy", "truncated", "needs 800 bytes", "has 792")
    p = t.write("trunc_hdr.npy", full[:40])
    t.bad(["reduce", "sum", p], 1, "trunc_hdr.npy", "truncated")
    p = t.write("magic.npy", b"\x93NUMPX" + full[6:])
    t.bad(["reduce", "sum", p], 1, "magic.npy", "not a .npy file")
    p = t.write("tiny.npy", b"\x93NU")
    t.bad(["reduce", "sum", p], 1, "tiny.npy", "not a .npy file")
    p = t.write("ver.npy", full[:6] + b"\x04\x00" + full[8:])
    t.bad(["reduce", "sum", p], 1, "ver.npy", "version 4.0")
    p = t.write("hdr.npy", npy("<f8", (3,), pack("d", [1, 2, 3])).replace(b"'shape'", b"'shapf'"))
    t.bad(["reduce", "sum", p], 1, "hdr.npy", "bad .npy header", "no 'shape' key")
    p = t.write("hdr2.npy", npy("<f8", (3,), pack("d", [1, 2, 3])).replace(b"False", b"Flase"))
    t.bad(["reduce", "sum", p], 1, "hdr2.npy", "bad .npy header", "True or False")
    p = t.write("hdr3.npy", npy("<f8", (3,), pack("d", [1, 2, 3])).replace(b"(3,)", b"(3,x)"))
    t.bad(["reduce", "sum", p], 1, "hdr3.npy", "bad .npy header")
    p = t.write("c8.npy", npy("<c8", (2,), b"\0" * 16))
    t.bad(["reduce", "sum", p], 1, "c8.npy", "dtype '<c8' (complex) is not supported")
    p = t.write("c16.npy", npy("<c16", (2,), b"\0" * 32))
    t.bad(["reduce", "sum", p], 1, "c16.npy", "'<c16' (complex)")
    p = t.write("obj.npy", npy("|O", (2,), b"\0" * 16))
    t.bad(["reduce", "sum", p], 1, "obj.npy", "dtype '|O' (Python objects) is not supported")
    p = t.write("str.npy", npy("<U3", (2,), b"\0" * 24))
    t.bad(["reduce", "sum", p], 1, "str.npy", "'<U3' (unicode strings)")
    p = t.write("dt.npy", npy("<M8[ns]", (2,), b"\0" * 16))
    t.bad(["reduce", "sum", p], 1, "dt.npy", "'<M8[ns]' (datetime)")
    p = t.write("rec.npy", npy("[('a', '<f4'), ('b', '<i4')]", (2,), b"\0" * 16))
    t.bad(["reduce", "sum", p], 1, "rec.npy", "structured")
    p = t.write("f16b.npy", npy("<f16", (1,), b"\0" * 16))
    t.bad(["reduce", "sum", p], 1, "f16b.npy", "'<f16'")
    p = t.write("3d.npy", npy("<f8", (2, 2, 2), pack("d", [1.0] * 8)))
    t.bad(["reduce", "sum", p], 1, "3d.npy", "3-D", "(2, 2, 2)")

    # Files that are not there, or not files, or empty.
    t.bad(["reduce", "sum", "missing.npy"], 1, "missing.npy: No such file or directory")
    t.bad(["reduce", "sum", "missing.bin", "--dtype", "f32"], 1, "missing.bin: No such file")
    os.mkdir(t.path("dir.npy"))
    t.bad(["reduce", "sum", "dir.npy"], 1, "dir.npy: is a directory")
    os.mkdir(t.path("plaindir"))
    t.bad(["reduce", "sum", "plaindir"], 1, "plaindir: is a directory")
    for name in ("empty.npy", "empty.csv", "empty.bin"):
        t.write(name, b"")
        t.bad(["reduce", "sum", name, "--dtype", "f64"] if name.endswith(".bin") else
              ["reduce", "sum", name], 1, name + ": the file is empty")

    # The command line.
    t.bad(["reduce", "frobnicate", good], 2, "op 'frobnicate' is unknown")
    t.bad(["reduce", "sum", good, "--dtype", "f128"], 2, "--dtype f128", "unknown dtype")
    t.bad(["reduce", "sum", good, "--dtype", "f64"], 2, "g.npy", "--dtype f64", "holds f32")
    t.bad(["reduce", "sum", good, "--shape", "2,2"], 2, "g.npy", "--shape")
    t.bad(["reduce", "sum", good, "--column", "0"], 2, "g.npy", "--column")
    t.bad(["reduce", "bitand", good], 1, "bitand", "f32", "TALLY_EUNSUPPORTED")
    t.bad(["reduce", "affine", t.write("b2.npy", npy("|b1", (2, 2), bytes(4)))], 1,
          "affine", "bool", "TALLY_EUNSUPPORTED")
    t.bad(["reduce", "sum", good, "--axis", "2"], 2, "--axis 2")
    t.bad(["reduce", "sum", good, "--axis", "x"], 2, "--axis x")
    t.bad(["reduce", "sum", good, "--axis", "1"], 1, "--axis 1", "g.npy is 1-D")
    t.ok(["reduce", "sum", good, "--axis", "0"], "sum = 10 (f32, n = 4)")
    t.bad(["reduce", "sum", good, "--axis"], 2, "--axis", "missing value")
    t.bad(["reduce", "sum", good, "--bogus"], 2, "--bogus", "unknown option")
    t.bad(["reduce", "sum", good, "--nan", "maybe"], 2, "--nan maybe")
    t.bad(["reduce", "sum", good, "--accuracy", "exact"], 2, "--accuracy exact")
    t.bad(["reduce", "sum", good, "--host-input", "gpu"], 2, "--host-input gpu", "auto or device")
    t.ok(["reduce", "sum", good, "--host-input", "device"], "sum = 10 (f32, n = 4)")
    t.bad(["reduce", "var", good, "--ddof", "-1"], 2, "--ddof -1")
    t.bad(["reduce", "var", good, "--ddof", "4"], 1, "TALLY_EINVAL")
    t.bad(["reduce"], 2, "missing OP")
    t.bad(["reduce", "sum"], 2, "missing FILE")
    t.bad(["reduce", "sum", good, "--device", "nonesuch"], 1, "device 'nonesuch'", "TALLY_EINVAL")
    t.bad(["reduce", "sum", good], 1, "$TALLY_DEVICE", env={"TALLY_DEVICE": "nonesuch"})
    t.bad(["reduce", "sum", good, "--variant", "nonesuch"], 1, "nonesuch")
    t.bad(["frobnicate"], 2, "frobnicate: unknown command")
    t.bad(["--frobnicate"], 2, "--frobnicate: unknown option")
    rc, out, err = t.run([])
    t.cases += 1
    if rc != 2 or "usage: tally" not in err:
        t.fail([], "no arguments: expected exit 2 and the usage on stderr", out, err)
    t.ok(["reduce", "sum", good, "--device", "cpu:threads=1"], "sum = 10 (f32, n = 4)")
    t.ok(["reduce", "sum", good], "sum = 10 (f32, n = 4)", env={"TALLY_DEVICE": "cpu"})


def group_help(t):
    t.ok(["--help"], "usage: tally")
    t.ok(["-h"], "usage: tally")
    t.ok(["--version"], lambda o: None if o.startswith("tally ") and o.count(".") == 2 else "version")
    for cmd in ("info", "reduce", "bench"):
        t.ok([cmd, "--help"], lambda o, c=cmd: None if "usage" in o.lower() and c in o else "help")
        t.ok(["help", cmd], lambda o, c=cmd: None if "usage" in o.lower() and c in o else "help")
    t.ok(["reduce", "--help"], "--axis")
    t.ok(["reduce", "sum", "--help"], "--column")  # --help wins over the rest
    t.bad(["help", "nonesuch"], 2, "nonesuch: unknown command")


def group_info(t):
    t.ok(["info"], lambda o: None if "tally " in o and "cpu" in o and "variants" in o and
         "best" in o else "info text")
    def check(j):
        names = [d["name"] for d in j["devices"]]
        if "cpu" not in names:
            return "no cpu device"
        cpu = j["devices"][names.index("cpu")]
        if cpu["usable"] is not True:
            return "cpu not usable"
        for d in j["devices"]:
            if d["usable"] is False and not d.get("why"):
                return "an unusable device without why"
        c = j["context"]
        if c["backend"] != "cpu" or c["variants"][-1] != "best" or c["threads"] < 1:
            return "context %r" % c
        if not isinstance(c["parallel_threshold_bytes"], int):
            return "no parallel threshold"
        return None
    t.json(["info"], check)
    t.json(["info", "--device", "cpu:threads=1"],
           lambda j: None if j["context"]["threads"] == 1 else "threads=1")
    # A device that does not open: the rest is still shown, then one error line.
    t.cases += 1
    rc, out, err = t.run(["info", "--device", "nonesuch"])
    if rc != 1 or "cpu" not in out or len(err.splitlines()) != 1 or "nonesuch" not in err:
        t.fail(["info", "--device", "nonesuch"], "expected devices on stdout, one error, exit 1",
               out, err)
    t.bad(["info", "extra"], 2, "extra: unexpected argument")
    t.bad(["info", "--nope"], 2, "--nope: unknown option")


def group_progress(t):
    """A text file of 16 MiB draws a bar on a terminal's stderr, then erases it."""
    try:
        import pty
    except ImportError:
        return SKIP
    p = t.write("big.txt", b"1\n" * (8 << 20))
    try:
        master, slave = pty.openpty()
    except OSError:
        return SKIP
    t.cases += 1
    proc = subprocess.Popen([t.binary, "reduce", "sum", p], stdout=subprocess.PIPE,
                            stderr=slave, cwd=t.dir)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO once the child has closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    out = proc.stdout.read().decode()
    rc = proc.wait()
    os.close(master)
    err = b"".join(chunks).decode("utf-8", "replace")
    if rc != 0 or out.strip() != "sum = 8388608 (f64, n = 8388608)":
        t.fail(["reduce", "sum", "big.txt"], "on a terminal: exit %d" % rc, out, err)
    elif "parsing [" not in err or not err.endswith("\r\x1b[K"):
        t.fail(["reduce", "sum", "big.txt"], "no progress bar, or not erased", out, err)
    # Not a terminal: nothing on stderr.
    t.ok(["reduce", "sum", p], "sum = 8388608")
    return 0


def group_man(t, man_page):
    """The man page renders without warnings."""
    if not man_page or not os.path.exists(man_page):
        print("no man page at %r" % man_page)
        return SKIP
    import shutil
    if not shutil.which("man"):
        return SKIP
    t.cases += 1
    p = subprocess.run(["man", "-l", man_page], capture_output=True, text=True,
                       env=dict(os.environ, MANPAGER="cat", PAGER="cat", MANWIDTH="80"))
    text = p.stdout
    for must in ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "ENVIRONMENT",
                 "EXIT STATUS", "EXAMPLES", "TALLY_DEVICE", "TALLY_CPU_ISA", "--no-peers"):
        if must not in text:
            t.fail(["man", "-l", man_page], "rendered page lacks %r" % must, text[:500], p.stderr)
            break
    if p.returncode != 0 or p.stderr.strip():
        t.fail(["man", "-l", man_page], "man failed or warned", "", p.stderr)
    return 0


GROUPS = {
    "npy": group_npy,
    "raw": group_raw,
    "text": group_text,
    "binary_ops": group_binary_ops,
    "errors": group_errors,
    "help": group_help,
    "info": group_info,
    "progress": group_progress,
}


def main(argv):
    if len(argv) < 3 or (argv[2] not in GROUPS and argv[2] != "man"):
        sys.stderr.write("usage: test_cli.py TALLY_BINARY GROUP [MAN_PAGE]\ngroups: %s man\n" %
                         " ".join(GROUPS))
        return 2
    binary = os.path.abspath(argv[1])
    if not os.access(binary, os.X_OK):
        print("no tally binary at %s" % binary)
        return SKIP
    with tempfile.TemporaryDirectory(prefix="tally-cli-") as d:
        t = Tester(binary, d)
        if argv[2] == "man":
            status = group_man(t, argv[3] if len(argv) > 3 else None)
        else:
            status = GROUPS[argv[2]](t)
        if status == SKIP:
            print("skipped")
            return SKIP
    print("%s: %d cases, %d failures" % (argv[2], t.cases, t.failures))
    return 1 if t.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
