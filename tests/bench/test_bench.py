#!/usr/bin/env python3
"""Smoke test of `tally bench`: test_bench.py TALLY_BINARY. Standard library only."""
import json
import subprocess
import sys

TALLY = sys.argv[1]
FAST = ["--min-time", "0.001", "--rounds", "2"]
failures = []


def run(*args):
    p = subprocess.run([TALLY, "bench", *args], capture_output=True, text=True, timeout=240)
    return p.returncode, p.stdout, p.stderr


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


# help and usage errors: exit 0 / exit 2 with one line on stderr
rc, out, err = run("--help")
check(rc == 0 and out.startswith("usage: tally bench"), "--help")
for bad in (["--sizes", "2^9..2^3"], ["--sizes", "x"], ["--ops", "nope"], ["--dtypes", "f7"],
            ["--variants", "turbo"], ["--accuracy", "maybe"], ["--repeat", "0"], ["--what"]):
    rc, out, err = run(*bad)
    check(rc == 2 and len(err.strip().splitlines()) == 1 and out == "", "usage error %s" % bad)

# JSON: one valid object per (op, dtype, n, variant, accuracy), with the fields
ops, dtypes, sizes = ["sum", "dot", "argmax", "minmax", "var"], ["f32", "i32"], [1000, 1024]
rc, out, err = run("--sizes", "1000,2^10", "--ops", ",".join(ops), "--dtypes", ",".join(dtypes),
                   "--variants", "all", "--accuracy", "both", "--json", *FAST)
check(rc == 0, "json run: rc %d, %s" % (rc, err.strip()))
rows = [json.loads(l) for l in out.splitlines()]
fields = ("backend device op dtype n variant accuracy median_us gbps probe_gbps ratio_probe "
          "peer peer_us ratio_peer max_rel_err threads isa date").split()
for r in rows:
    missing = [f for f in fields if f not in r]
    check(not missing, "fields missing %s in %s" % (missing, r))
    check(r["median_us"] > 0 and r["gbps"] > 0 and r["probe_gbps"] > 0, "positive times %s" % r)
    if r["variant"] != "naive":  # naive loses accuracy on purpose
        # f32 results round to f32; integer VAR is an f64 quotient; the rest is exact
        tol = 1e-6 if r["dtype"] == "f32" else 1e-12 if r["op"] == "var" else 0
        check(r["max_rel_err"] is not None and r["max_rel_err"] <= tol,
              "error %s %s %s %s: %s" % (r["op"], r["dtype"], r["variant"], r["accuracy"],
                                         r["max_rel_err"]))
seen = {(r["op"], r["dtype"], r["n"]) for r in rows}
want = {(o, d, n) for o in ops for d in dtypes for n in sizes}
check(seen == want, "points: missing %s" % sorted(want - seen))
check(all(r["variant"] != "naive" or r["op"] in ("sum", "dot", "var") for r in rows),
      "naive rows only where naive exists")
best_sum = [r for r in rows if r["op"] == "sum" and r["variant"] == "best"]
check(len(best_sum) == 8, "sum best: 2 dtypes x 2 sizes x 2 accuracies")

# --repeat: exactly N samples
rc, out, err = run("--sizes", "2^12", "--repeat", "3", "--rounds", "1", "--json", "--no-peers")
rows = [json.loads(l) for l in out.splitlines()]
check(rc == 0 and len(rows) == 1 and rows[0]["runs"] == 3 and rows[0]["peer"] is None,
      "--repeat 3 --no-peers")

# the table: header lines, column names, one row per variant
rc, out, err = run("--sizes", "2^12", "--variants", "best,sequential", "--no-peers", *FAST)
lines = out.splitlines()
check(rc == 0 and any(l.startswith("op ") and "ratio_probe" in l for l in lines), "table header")
check(sum(1 for l in lines if l.startswith("sum ")) == 2, "table rows")

# an op not defined on the only dtype: nothing to measure, exit 1
rc, out, err = run("--ops", "bitand", "--dtypes", "f32", "--sizes", "2^10", *FAST)
check(rc == 1, "bitand on f32 alone fails")

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("ok")
