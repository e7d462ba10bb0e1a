#!/usr/bin/env python3
"""A stand-in for cub_peer (bench/peers/cub_peer.cu) in the tests of `tally bench` on
machines without a GPU: the same command line and JSON lines, fixed times (call 2 us + 1 ns
per byte, kernel half that), the true results of the bench's data, and the GPU name from
$FAKE_CUB_DEVICE."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_data import data, expected  # noqa: E402

SIZE = {"f32": 4, "f64": 8, "i32": 4, "i64": 8, "u8": 1}


def main():
    a = sys.argv[1:]
    opt = {"--dtype": "f32", "--seed": "1", "--reps": "25"}
    mode = "cub"
    i = 0
    while i < len(a):
        if a[i] in ("--probe", "--h2d"):
            mode = a[i][2:]
        elif a[i] == "--json":
            pass
        else:
            opt[a[i]] = a[i + 1]
            i += 1
        i += 1
    if os.environ.get("FAKE_CUB_FAIL"):
        print("cub_peer: " + os.environ["FAKE_CUB_FAIL"], file=sys.stderr)
        return 1
    t = opt["--dtype"]
    for n in map(int, opt["--sizes"].split(",")):
        nbytes = n * SIZE[t]
        call = 2.0 + nbytes * 1e-3
        row = {"peer": mode, "device": os.environ.get("FAKE_CUB_DEVICE", "fake GPU"),
               "cub_version": "9.9.9", "op": opt.get("--op", "read"), "dtype": t, "n": n,
               "bytes": nbytes, "reps": int(opt["--reps"]), "median_call_us": call,
               "median_kernel_us": call / 2, "gbps": nbytes / call * 1e-3,
               "gbps_kernel": nbytes / call * 2e-3, "result": 0}
        if mode == "cub":
            v, idx = expected(opt["--op"], data(t, n, int(opt["--seed"])))
            row["result"] = v
            if idx is not None:
                row["index"] = idx
        print(json.dumps(row))
    return 0


sys.exit(main())
