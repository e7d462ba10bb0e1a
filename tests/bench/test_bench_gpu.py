#!/usr/bin/env python3
"""`tally bench` on GPU devices: test_bench_gpu.py TALLY_BINARY. Standard library only.

Without a GPU (CI): `--device cuda` fails with one clear line; the GPU method itself
(device arrays, L2 flush, one tally_reduce per run, the CUB peer's figures and the ratios
made of them) runs on the CPU backend with --gpu-method, against fake_cub_peer.py. With a
GPU: a short run against the real CUB peer too."""
import json
import os
import subprocess
import sys

TALLY = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
FAKE = os.path.join(HERE, "fake_cub_peer.py")
QUICK = ["--repeat", "3", "--rounds", "1", "--flush", "1"]
failures = []


def run(*args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run([TALLY, "bench", *args], capture_output=True, text=True, timeout=600,
                       env=e)
    return p.returncode, p.stdout, p.stderr


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def rows_of(out):
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


# 1. --device cuda: a GPU run, or one clear line and a non-zero exit
rc, out, err = run("--device", "cuda", "--sizes", "2^10,2^20", "--ops", "sum,argmax,dot",
                   "--json", "--repeat", "5")
have_gpu = rc == 0
if not have_gpu:
    check(rc != 0 and out == "" and len(err.strip().splitlines()) == 1 and
          err.startswith("tally: ") and "cuda" in err,
          "--device cuda without a GPU: rc %d, one line expected: %r" % (rc, err))
else:
    rows = rows_of(out)
    check(len(rows) == 6 and all(r["backend"] == "cuda" for r in rows), "cuda rows")
    for r in rows:
        check(r["median_us"] > 0 and r["probe_gbps"] and r["probe_gbps"] > 0,
              "cuda timings %s" % r)
        check(r["max_rel_err"] is not None and r["max_rel_err"] <= 1e-6, "cuda error %s" % r)
        if r["op"] == "dot":
            check(r["peer"] is None and "dot" in r["peer_note"], "no CUB dot %s" % r)
        else:
            check(r["peer"] == "cub" and r["ratio_peer"] > 0 and r["peer_kernel_us"] > 0 and
                  r["peer_rel_err"] is not None and r["peer_rel_err"] <= 1e-6,
                  "CUB figures %s" % r)
    rc, out, err = run("--device", "cuda", "--sizes", "2^20", "--host", "--json", "--repeat", "5")
    rows = rows_of(out)
    check(rc == 0 and len(rows) == 1 and rows[0]["mem"] == "host" and
          rows[0]["probe"] == "h2d" and rows[0]["probe_gbps"] > 0, "--host on cuda: %s" % err)
    rc, out, err = run("--device", "cuda", "--sizes", "2^20", "--variants", "ladder",
                       *QUICK)
    body = [l for l in out.splitlines() if l.startswith("sum ")]
    check(rc == 0 and body and (len(body) == 1 or "x_first" in out),
          "ladder on cuda (x_first where several variants): %s" % err)
    # --scan --order on cuda: ramps (MIN and MAX's worst case); rows say so, CUB beside
    rc, out, err = run("--device", "cuda", "--scan", "--ops", "max", "--dtypes", "i32,u8",
                       "--sizes", "2^20", "--order", "ascending", "--json", *QUICK)
    rows = rows_of(out)
    check(rc == 0 and len(rows) == 2 and all(r.get("order") == "ascending" and r["median_us"] > 0
                                             for r in rows), "--scan --order on cuda: %s %s" % (err, rows))
    check(all(r.get("cub_input") == "random" for r in rows if r.get("speedup_cub")),
          "--order rows say CUB's input is random: %s" % rows)

# 2. --host needs a GPU device
rc, out, err = run("--device", "cpu", "--host", "--sizes", "2^10")
check(rc == 2 and out == "" and len(err.strip().splitlines()) == 1, "--host on the cpu")

# 3. the GPU method on the CPU backend, against the fake peer
rc, out, err = run("--device", "cpu", "--gpu-method", "--sizes", "2^10", "--json", *QUICK,
                   env={"TALLY_CUB_PEER": "/nonexistent/cub_peer"})
rows = rows_of(out)
check(rc == 0 and len(rows) == 1, "gpu method without a peer: %s" % err)
device = rows[0]["device"] if rows else "?"
for r in rows:
    check(r["peer"] is None and r["probe_gbps"] is None and r["ratio_probe"] is None and
          "TALLY_CUB_PEER" in r["peer_note"], "absent peer, no number: %s" % r)
    check(r["runs"] == 3 and r["median_us"] > 0 and r["max_rel_err"] <= 1e-6, "tally row %s" % r)

fake = {"TALLY_CUB_PEER": FAKE, "FAKE_CUB_DEVICE": device}
ops, sizes = ["sum", "max", "argmax", "dot", "mean"], [1000, 4096]
rc, out, err = run("--device", "cpu", "--gpu-method", "--sizes", "1000,2^12", "--ops",
                   ",".join(ops), "--dtypes", "f32,i32", "--json", *QUICK, env=fake)
rows = rows_of(out)
check(rc == 0 and len(rows) == len(ops) * 2 * len(sizes), "fake peer run: %s" % err)
for r in rows:
    k = 2 if r["op"] == "dot" else 1
    size = 4
    nbytes = r["n"] * size * k
    check(r["bytes"] == nbytes, "bytes %s" % r)
    probe_us = 2.0 + nbytes * 1e-3  # the fake's call time for the same bytes
    check(abs(r["probe_us"] - probe_us) < 1e-3 and r["probe"] == "probe" and
          abs(r["ratio_probe"] - r["gbps"] / r["probe_gbps"]) < 1e-3 * r["ratio_probe"] and
          abs(r["probe_kernel_us"] - probe_us / 2) < 1e-3, "probe figures %s" % r)
    if r["op"] in ("sum", "max", "argmax"):
        cub_us = 2.0 + r["n"] * size * 1e-3
        check(r["peer"] == "cub" and abs(r["peer_us"] - cub_us) < 1e-3 and
              abs(r["ratio_peer"] - cub_us / r["median_us"]) < 1e-3 * r["ratio_peer"] and
              r["peer_note"] is None, "peer figures %s" % r)
        check(r["peer_rel_err"] is not None and r["peer_rel_err"] <= 1e-6,
              "the fake's true result checks out: %s" % r)
    else:
        check(r["peer"] is None and r["ratio_peer"] is None and
              "no direct equivalent" in r["peer_note"], "no CUB %s: %s" % (r["op"], r))

# a peer that sees another GPU, or fails, is absent, never a number
for env, why in (({"FAKE_CUB_DEVICE": "another GPU"}, "another GPU"),
                 ({"FAKE_CUB_FAIL": "broken on purpose"}, "broken on purpose")):
    e = dict(fake)
    e.update(env)
    rc, out, err = run("--device", "cpu", "--gpu-method", "--sizes", "2^10", "--json", *QUICK,
                       env=e)
    rows = rows_of(out)
    check(rc == 0 and len(rows) == 1 and rows[0]["peer"] is None and
          rows[0]["probe_us"] is None and why in rows[0]["peer_note"], "%s: %s" % (why, rows))

# --host: the probe is the pinned copy; no CUB peer
rc, out, err = run("--device", "cpu", "--gpu-method", "--host", "--sizes", "2^12", "--json",
                   *QUICK, env=fake)
rows = rows_of(out)
check(rc == 0 and len(rows) == 1 and rows[0]["mem"] == "host" and rows[0]["probe"] == "h2d" and
      rows[0]["probe_us"] > 0 and rows[0]["peer"] is None, "--host with the method: %s" % err)

# the ladder: every variant in the backend's order, with the speed-up over the first
rc, out, err = run("--device", "cpu", "--gpu-method", "--sizes", "2^12", "--variants",
                   "ladder", *QUICK, env=fake)
lines = out.splitlines()
header = [l for l in lines if l.startswith("op ")]
body = [l.split() for l in lines if l.startswith("sum ")]
check(rc == 0 and header and header[0].split()[-1] == "x_first", "ladder header: %s" % err)
check([b[3] for b in body] == ["sequential", "naive", "best"] and body and body[0][-1] == "1.00",
      "ladder rows in order, the first at 1.00: %s" % body)

# --local-sizes: OpenCL only; each size in turn, then the best per point
rc, out, err = run("--device", "cpu", "--local-sizes", "32,64", "--sizes", "2^10", *QUICK)
check(rc == 2 and "--local-sizes" in err and "OpenCL" in err, "--local-sizes on cpu: %r" % err)
rc, out, err = run("--device", "opencl", "--local-sizes", "48", "--sizes", "2^10", *QUICK)
check(rc == 2 and "powers of two" in err, "--local-sizes 48: %r" % err)
rc, out, err = run("--device", "opencl", "--local-sizes", "32,64", "--sizes", "2^10,5000",
                   "--json", *QUICK)
if rc == 0:
    rows = rows_of(out)
    best = [r for r in rows if r.get("kind") == "local_size_best"]
    runs = [r for r in rows if "kind" not in r]
    check(len(runs) == 4 and all(r["backend"] == "opencl" and r["max_rel_err"] <= 1e-6 for r in runs),
          "--local-sizes runs: %s" % runs)
    check(len(best) == 2 and all(b["local"] in (32, 64) and b["median_us"] ==
                                 min(r["median_us"] for r in runs if r["n"] == b["n"])
                                 for b in best), "--local-sizes best: %s" % best)
else:  # no OpenCL device here: one clear line
    check(len(err.strip().splitlines()) == 1 and "opencl" in err, "--local-sizes without OpenCL: %r" % err)

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("ok (%s)" % ("with a GPU" if have_gpu else "no GPU: the method on the CPU"))
