#!/usr/bin/env python3
"""The CUB peer of `tally bench` (bench/peers/cub_peer.cu): test_cub_peer.py CUB_PEER.
Usage errors exit 2 anywhere; then, without a CUDA GPU, it must exit 77 with one line
(the test is then skipped: exit 77). With a GPU: every op and dtype at a few sizes, each
result checked against the bench's data computed here; every scan (op and dtype) the same
way; and the probe and the copy."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_data import data, expected, scan_last  # noqa: E402

PEER = sys.argv[1]
failures = []


def run(*args):
    p = subprocess.run([PEER, *args], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


for bad in (["--op", "nope", "--sizes", "8"], ["--op", "sum", "--dtype", "f16", "--sizes", "8"],
            ["--op", "sum"], ["--sizes", "8"], ["--op", "sum", "--sizes", "2^9..2^3"],
            ["--op", "sum", "--sizes", "8", "--reps", "0"], ["--probe", "--op", "sum", "--sizes", "8"],
            ["--op", "sum", "--dtype", "u8", "--sizes", "8"], ["--what"]):
    rc, out, err = run(*bad)
    check(rc == 2 and out == "" and len(err.strip().splitlines()) == 1, "usage error %s" % bad)
rc, out, err = run("--help")
check(rc == 0 and out.startswith("usage: cub_peer"), "--help")

rc, out, err = run("--op", "sum", "--dtype", "f32", "--sizes", "1000", "--reps", "2", "--json")
if rc == 77:
    check(out == "" and len(err.strip().splitlines()) == 1 and "no CUDA GPU" in err,
          "exit 77 with one line: %r" % err)
    if failures:
        sys.exit(1)
    print("skipped: no CUDA GPU here (%s)" % err.strip())
    sys.exit(77)
check(rc == 0, "a plain run: rc %d, %s" % (rc, err.strip()))

FIELDS = ("peer device op dtype n bytes median_call_us median_kernel_us gbps gbps_kernel "
          "result").split()
for dtype in ("f32", "f64", "i32", "i64"):
    for op in ("sum", "min", "max", "argmin", "argmax"):
        sizes = [1, 1000, 4097]
        rc, out, err = run("--op", op, "--dtype", dtype, "--sizes", ",".join(map(str, sizes)),
                           "--reps", "3", "--seed", "5", "--json")
        rows = [json.loads(l) for l in out.splitlines()]
        check(rc == 0 and [r["n"] for r in rows] == sizes, "%s %s: %s" % (op, dtype, err))
        for r in rows:
            check(all(f in r for f in FIELDS) and r["peer"] == "cub", "fields %s" % r)
            check(r["median_call_us"] > 0 and r["median_kernel_us"] > 0, "times %s" % r)
            v, idx = expected(op, data(dtype, r["n"], seed=5))
            tol = 1e-6 if dtype == "f32" else 1e-13 if dtype == "f64" else 0
            check(abs(r["result"] - v) <= tol * abs(v), "%s %s n=%d: %s, expected %s" %
                  (op, dtype, r["n"], r["result"], v))
            check(idx is None or r.get("index") == idx, "%s %s index %s, expected %s" %
                  (op, dtype, r.get("index"), idx))

# Scans: the last value, into tally's result type. Float sums and products: CUB's order
# and rounding, so a relative tolerance (f32 results: 4097 roundings of 2^-24 at most);
# products of [0.5, 1.5) values fall towards 0 (about e^-0.045 an element), so an
# absolute one below f32's normals too.
for dtype in ("f32", "f64", "f16", "bf16", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"):
    for op in ("sum", "prod", "min", "max", "affine"):
        sizes = [1, 1000, 4097]
        rc, out, err = run("--scan", "--op", op, "--dtype", dtype, "--sizes",
                           ",".join(map(str, sizes)), "--reps", "2", "--seed", "7", "--json")
        rows = [json.loads(l) for l in out.splitlines()] if rc == 0 else []
        check(rc == 0 and [r["n"] for r in rows] == sizes, "scan %s %s: %s" % (op, dtype, err))
        for r in rows:
            n = r["n"]
            v = scan_last(op, dtype, data(dtype, n, seed=7),
                          data(dtype, n, seed=7, stream=1) if op == "affine" else None)
            got = r["result"]
            wide = dtype == "f64"
            tol = 0 if not isinstance(v, float) else 1e-12 if wide else 5e-4
            check(r["peer"] == "cub_scan" and r["op"] == "inclusive_" + op and
                  abs(got - v) <= tol * abs(v) + (1e-300 if wide else 1e-37 if tol else 0),
                  "scan %s %s n=%d: %s, expected %s" % (op, dtype, n, got, v))
rc, out, err = run("--scan", "--op", "argmax", "--dtype", "f32", "--sizes", "8")
check(rc == 2 and len(err.strip().splitlines()) == 1, "--scan --op argmax: a usage error")

for mode in ("--probe", "--h2d"):
    rc, out, err = run(mode, "--dtype", "u8", "--sizes", "1,17,2^20", "--reps", "3", "--json")
    rows = [json.loads(l) for l in out.splitlines()]
    check(rc == 0 and [r["n"] for r in rows] == [1, 17, 1 << 20] and
          all(r["peer"] == mode[2:] and r["gbps"] > 0 for r in rows), "%s: %s" % (mode, err))
rc, out, err = run("--probe", "--sizes", "2^24", "--reps", "5", "--json")
r = json.loads(out) if rc == 0 else {}
check(rc == 0 and r.get("bytes") == 4 << 24 and r["gbps_kernel"] > 100, "probe 2^24 f32: %s" % r)

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("ok")
