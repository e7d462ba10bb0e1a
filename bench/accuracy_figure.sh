#!/bin/sh
# The accuracy figure: the relative error of an f32 SUM of 2^27 values uniform in
# [0.5, 1.5), against the exact sum, for
#   tally (best variant, DEFAULT and FAST accuracy; goal <= 1e-7),
#   numpy's float32 np.sum (from bench/peers/numpy_peer.py --errors),
#   the OpenMP loop with a float accumulator (bench/omp_peer.c), and
#   tally's naive variant (one float accumulator, in order).
# Each contender generates its own data of that distribution (numpy with its own
# generator); the exact sums come from tests/support/exactsum.c and, for numpy, from
# exact integer sums in the script.
#
# usage: bench/accuracy_figure.sh [TALLY_BINARY] [SIZE]   (SIZE default 2^27)
# TALLY_BINARY defaults to $TALLY, else tally on PATH, else build/tools/tally/tally.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
tally=${1:-${TALLY:-}}
if [ -z "$tally" ]; then
  if command -v tally >/dev/null 2>&1; then tally=tally
  else tally="$here/../build/tools/tally/tally"; fi
fi
size=${2:-2^27}

# Any python 3 reads the JSON lines; numpy is needed only by the peer (found by tally).
py=
for p in "${TALLY_PYTHON:-}" python3 /usr/bin/python3; do
  if [ -n "$p" ] && command -v "$p" >/dev/null 2>&1; then py=$p; break; fi
done
[ -n "$py" ] || { echo "accuracy_figure.sh: no python3 to read tally's JSON" >&2; exit 1; }

# Short timings: only the errors matter here.
"$tally" bench --sizes "$size" --ops sum --dtypes f32 --variants best,naive \
  --accuracy both --min-time 0.05 --rounds 1 --json |
"$py" -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
if not rows:
    sys.exit("accuracy_figure.sh: tally bench printed nothing")
r0 = rows[0]
print("f32 SUM of %d values uniform in [0.5, 1.5): relative error vs the exact sum" % r0["n"])
print("(%s, %s, %s)" % (r0["device"], r0["isa"], r0["date"]))
def line(name, err, note=""):
    e = "absent" if err is None else "%.3g" % err
    print(("  %-40s %10s  %s" % (name, e, note)).rstrip())
for r in rows:
    if r["variant"] == "best":
        line("tally best, %s accuracy" % r["accuracy"], r["max_rel_err"],
             "goal <= 1e-7" if r["accuracy"] == "default" else "")
line("numpy float32 np.sum", r0["numpy_rel_err"])
line("OpenMP loop, float accumulator", r0["omp_rel_err"])
for r in rows:
    if r["variant"] == "naive" and r["accuracy"] == "default":
        line("tally naive (one float, in order)", r["max_rel_err"])
'
