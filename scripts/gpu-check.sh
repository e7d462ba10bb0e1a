#!/usr/bin/env bash
# scripts/gpu-check.sh [--quick] [--no-bench] [--no-suites] [--no-large] [--suites-only] [--budget S]
#
# The whole GPU check, run once on the GPU machine (NVIDIA H100/H200, cmake, nvcc,
# compute-sanitizer; no internet) from the root of a copy of this repository.
#
# Phase 1, one step at a time (these need the GPU, or its memory, to themselves):
#   info, configure + build (Release, every core), tally info, the GPU tests
#   (ctest -L gpu -LE large: gpu.enomem measures free device memory; all but
#   gpu.device_arrays), the benchmark (timings), the large inputs (ctest -L large;
#   tally_large cuda).
# Phase 2, all side by side (16 cores; the kernel cache is warm by then): the device-array
#   test (gpu.device_arrays, about 125 s), the conformance suite on `cuda` (and its scans
#   with each tree of carries, TALLY_SCAN_CARRIES), the ladder's conformance per variant (CUDA, and NVIDIA's OpenCL), the
#   suite (--quick) and the cl_mem test on NVIDIA's OpenCL ($OCL_NVIDIA, default libnvidia-opencl.so.1: the
#   machine has no OpenCL vendors file), compute-sanitizer memcheck and
#   racecheck (--error-exitcode 1) on the device-array test (--quick) and on the suite
#   (--quick; racecheck one case in 3).
#
# Measured on an H100 (2026-11-23, CUDA 13.0, driver 580): build 76 s, warming the kernel
# cache 67 s (0 s with a carried cache, below), GPU tests 19-26 s, bench 162 s, large 27 s;
# side by side: the suite on `cuda` 241 s (52,866 cases), memcheck on the suite --quick
# 157 s, racecheck 363 s, on the device-array test 13 s and 36 s. One device call (at most
# 600 s) does not hold all of it. Since the suites pass host_input DEVICE (2026-11-26)
# phase 2 alone takes most of a call: run it as two calls on one warm machine,
# `--no-suites` (phase 1) then `--suites-only` (build, cache, phase 2), each with
# `--budget 560`. On an H200 (2026-11-26) phase 1 ran past its budget in the bench (build
# 68 s, warm 81 s, GPU tests 142 s of which gpu.device_arrays 125 s): that test now runs
# in phase 2, and the bench's rungs take fewer repeats. bench.log times each bench line.
#
# A warm cache from here (no GPU needed): `TALLY_CACHE_DIR=DIR build/tests/kernels/
# test_nvrtc_all sm_90 --warm-for-driver=13000` (the GPU machine's cuDriverGetVersion),
# carried as a tarball and given as TALLY_CACHE_DIR: this script then keeps it. For short
# calls (a few suites or timings) scripts/gpu-pack.sh builds the binaries here as well and
# packs them with such a cache: no build on the GPU machine at all.
#
# Every step is timed and has its own time limit; a failing step is recorded and the next
# one runs. All steps share one time budget (default 480 s): no step runs past it, and a
# step that finds it spent is recorded as skipped. The summary table (step, status,
# seconds) is printed last and saved. Without a GPU the GPU steps skip cleanly.
#
#   --quick          no large inputs, no sanitizers; the conformance suite with --quick
#   --no-bench       leave out the benchmark
#   --no-suites      leave out phase 2 (the suites and sanitizers)
#   --no-large       leave out the large inputs
#   --suites-only    build and warm the cache, then phase 2 only (no GPU tests, bench or
#                    large inputs)
#   --budget S       the whole run's time budget in seconds (default 480)
#
# Output under $OUT (default ./gpu-out): summary.txt, build.log, tests.log,
# sanitizer.log, bench.jsonl (tally bench --json), bench.log.
# Environment: BUILD (default build-gpu), JOBS (default nproc), BENCH_ARGS (the bench
# flags), the T_* step limits below, TALLY_CACHE_DIR (default a fresh $BUILD/kernel-cache).
set -u
export PYTHONUNBUFFERED=1
export LC_ALL=C

cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
OUT=${OUT:-$ROOT/gpu-out}
BUILD=${BUILD:-build-gpu}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 4)}
QUICK=0
NO_BENCH=0
NO_SUITES=0
NO_LARGE=0
SUITES_ONLY=0
BUDGET=480
RESERVE=8 # seconds kept for the summary

while [ $# -gt 0 ]; do
  case $1 in
    --quick) QUICK=1 ;;
    --no-bench) NO_BENCH=1 ;;
    --no-suites) NO_SUITES=1 ;;
    --no-large) NO_LARGE=1 ;;
    --suites-only) SUITES_ONLY=1; NO_BENCH=1; NO_LARGE=1 ;;
    --budget) BUDGET=${2:?--budget needs seconds}; shift ;;
    --budget=*) BUDGET=${1#--budget=} ;;
    -h|--help) sed -n '2,47p' "$0"; exit 0 ;;
    *) echo "gpu-check.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

# Per-step limits in seconds (each is also cut to what is left of the budget).
T_INFO=${T_INFO:-30}
T_CONFIGURE=${T_CONFIGURE:-90}
T_BUILD=${T_BUILD:-240}
T_TALLY_INFO=${T_TALLY_INFO:-30}
T_GPU_TESTS=${T_GPU_TESTS:-150}
T_BENCH=${T_BENCH:-330}
T_LARGE=${T_LARGE:-120}
T_LARGE_BYTES=${T_LARGE_BYTES:-90}
T_CONFORMANCE=${T_CONFORMANCE:-400}
T_SAN_SHORT=${T_SAN_SHORT:-150}
T_SAN_CONF=${T_SAN_CONF:-400}

# ---------------------------------------------------------------- the benchmark
# EDIT HERE: the flags of `tally bench` for the GPU run (the bench helper settles them:
# CUB peer, variants, more ops and dtypes). Its stdout (one JSON object per line) goes
# to bench.jsonl, everything it prints to bench.log.
BENCH_ARGS=${BENCH_ARGS:-"--device cuda"}
run_bench() {
  # Issue 5's scan and histogram figures (CUB's DeviceScan and a device copy, CUB's
  # HistogramEven, in the same run), then
  # issue 3's, each line one tally bench (CUB and the probe in the same run).
  # The rungs (ladders, OpenCL sweeps) take --repeat 5-20: they are there to be ranked,
  # and with the default 50 the whole bench ran past its 251 s on 2026-11-26; on
  # 2026-11-27 (H100) the lines took 2-37 s each but the 2^28 ops (78 s, now --repeat 20)
  # and the OpenCL ladder (over 95 s: its serial rungs take 0.2 s a run; now --repeat 5,
  # one round). On an H200 (2026-11-27) the lines before the OpenCL ladder took 227 s and
  # the ladder ran into the bench's 330 s: it now takes i32 only (LADDER.md's OpenCL
  # column), half its rungs' compilations and runs. The OpenCL local-size sweep stops at
  # 512: NVIDIA's OpenCL refuses 1024 for the f32 sum (72 bytes of local memory a
  # work-item, 48 KiB a group; TALLY_EUNSUPPORTED, the bench's exit 1, 2026-11-27 H100).
  bench_line --scan --dtypes f32 --sizes 2^16..2^30:2 &&
    bench_line --scan --dtypes f64,i32 --sizes 2^24,2^28 &&
    bench_line --hist --bins 256 --dtypes f32,u8 --sizes 2^24,2^28 &&
    # The scan and histogram ladders' rungs beside best and CUB.
    bench_line --scan --variants ladder --dtypes f32 --sizes 2^20,2^24 --repeat 10 &&
    bench_line --hist --variants ladder --bins 256 --dtypes f32,u8 --sizes 2^24 --repeat 10 &&
    bench_line --ops sum --dtypes f32 --sizes 2^10..2^30 &&
    bench_line --ops sum,max,argmax,dot --dtypes f32,f64,i32 --sizes 2^28 --repeat 20 &&
    bench_line --host --ops sum --dtypes f32 --sizes 2^20..2^30:2 &&
    bench_line --host-pinned --ops sum --dtypes f32 --sizes 2^20..2^30:2 &&
    bench_line --variants ladder --ops sum --dtypes i32,f32 --sizes 2^22 --repeat 20 &&
    # The OpenCL tutorial's question: interleaved (reduce_add_4) against sequential
    # addressing (reduce_add_seq) at 10M elements.
    bench_line --variants reduce_add_3,reduce_add_4,reduce_add_seq,best --ops sum \
      --dtypes i32,f32 --sizes 10000000 &&
    { # Issue 4: the same GPU through NVIDIA's OpenCL, where the machine has it.
      if OCL_ICD_FILENAMES=$OCL_NVIDIA "$TALLY" info 2>/dev/null | grep -q '^  opencl:.*usable'; then
        export OCL_ICD_FILENAMES=$OCL_NVIDIA
        BENCH_DEVICE="--device opencl"
        bench_line --ops sum --dtypes f32 --sizes 2^20..2^28:2 &&
          bench_line --variants ladder --ops sum --dtypes i32 --sizes 2^22 --repeat 5 --rounds 1 &&
          bench_line --variants reduce_add_3,reduce_add_4,reduce_add_seq,best \
            --ops sum --dtypes i32,f32 --sizes 10000000 --repeat 20 &&
          bench_line --local-sizes 32,64,128,256,512 --ops sum --dtypes f32 \
            --sizes 100000,1000000,10000000 --repeat 20
      else
        echo "no usable OpenCL device through $OCL_NVIDIA" >&2
      fi; }
}
# bench_line FLAGS...: one tally bench (JSON lines on stdout), timed on stderr, so that
# bench.log shows where the bench's time goes.
bench_line() {
  local t0 rc
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086  # BENCH_ARGS and BENCH_DEVICE are lists of flags
  "$TALLY" bench ${BENCH_DEVICE:-$BENCH_ARGS} "$@" --json
  rc=$?
  awk -v a="$t0" -v b="$(date +%s.%N)" -v c="$*" -v r=$rc \
    'BEGIN { printf "# bench line (%.1f s, exit %d): %s\n", b - a, r, c }' >&2
  return $rc
}
# NVIDIA's OpenCL driver; the GPU machine has no vendors file (/etc/OpenCL/vendors).
OCL_NVIDIA=${OCL_NVIDIA:-libnvidia-opencl.so.1}
export OCL_NVIDIA

# ---------------------------------------------------------------- set-up
mkdir -p "$OUT" || exit 2
OUT=$(cd "$OUT" && pwd)
for f in summary.txt build.log tests.log sanitizer.log bench.jsonl bench.log; do : >"$OUT/$f"; done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")
START=$(date +%s)
TALLY=$ROOT/$BUILD/tools/tally/tally
CONF=$ROOT/$BUILD/tests/conformance/tally_conformance
LARGE_BYTES=$ROOT/$BUILD/tests/conformance/tally_large
DEVARR=$ROOT/$BUILD/tests/gpu/test_gpu_device_arrays
CACHE_GIVEN=${TALLY_CACHE_DIR:+1}
export TALLY TALLY_CACHE_DIR=${TALLY_CACHE_DIR:-$ROOT/$BUILD/kernel-cache}
export -f run_bench bench_line
export BENCH_ARGS

SANITIZER=$(command -v compute-sanitizer 2>/dev/null ||
  for p in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
    if [ -x "$p" ]; then echo "$p"; break; fi
  done)
HAVE_GPU=0
GPU_LIST=$(nvidia-smi -L 2>/dev/null) && echo "$GPU_LIST" | grep -q '^GPU' && HAVE_GPU=1
DRIVER=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ "$COMMIT" != unknown ] && [ -n "$(git -C "$ROOT" status --porcelain 2>/dev/null | head -1)" ] &&
  COMMIT="$COMMIT + uncommitted changes"
# A fresh kernel cache for this run, shared by its steps (a cache the caller gives is kept).
case $TALLY_CACHE_DIR in
  off) ;;
  *) [ -n "$CACHE_GIVEN" ] || rm -rf "$TALLY_CACHE_DIR"; mkdir -p "$TALLY_CACHE_DIR" ;;
esac

say() { printf '%s\n' "$*" | tee -a "$OUT/summary.txt"; }
say "gpu-check.sh  $(date -u '+%Y-%m-%d %H:%M:%S UTC')  host $(hostname)  git $COMMIT"
say "GPUs:         ${GPU_LIST:-none (nvidia-smi -L failed or listed none)}"
say "driver:       ${DRIVER:-none}"
say "options:      quick=$QUICK suites_only=$SUITES_ONLY no_bench=$NO_BENCH no_suites=$NO_SUITES budget=${BUDGET}s jobs=$JOBS build=$BUILD out=$OUT"
say "sanitizer:    ${SANITIZER:-not found}"
say ""
FMT='%-24s %-44s %7s\n'
# shellcheck disable=SC2059  # FMT is ours
printf "$FMT" step status seconds | tee -a "$OUT/summary.txt"

ROWS=0
FAILED=0
row() { # name status seconds
  # shellcheck disable=SC2059
  printf "$FMT" "$1" "$2" "$3" | tee -a "$OUT/summary.txt"
  ROWS=$((ROWS + 1))
  case $2 in FAIL*|TIMEOUT*) FAILED=$((FAILED + 1)) ;; esac
}
skip_step() { row "$1" "skip: $2" 0; } # NAME WHY
BUILD_OK=1 # a failed build leaves old binaries behind: they must not be tested
need() { # FILE NAME
  if [ "$BUILD_OK" != 1 ]; then skip_step "$2" "no fresh build"; return 1; fi
  [ -x "$1" ] || { skip_step "$2" "not built"; return 1; }
}

# The limit a step may have now (0: the budget is spent).
limit_now() {
  local left=$((BUDGET - RESERVE - ($(date +%s) - START)))
  if [ "$left" -lt 10 ]; then echo 0; elif [ "$1" -gt "$left" ]; then echo "$left"; else echo "$1"; fi
}

# status RC LIMIT OUTFILE [CUT]: ok / skip / FAIL / TIMEOUT, from the exit status and
# output; CUT=1: the limit was cut to the end of the budget.
status_of() {
  local rc=$1 limit=$2 out=$3 cut=${4:-0} nskip ntests why
  nskip=$(grep -c '\*\*\*Skipped' "$out")
  ntests=$(sed -n 's/.*tests passed, [0-9]* tests failed out of \([0-9]*\).*/\1/p' "$out" | tail -1)
  case $rc in
    0) # ctest exits 0 when tests were skipped: say so.
       if [ "$nskip" -gt 0 ] && [ "$nskip" = "${ntests:-x}" ]; then echo "skip: all $nskip tests skipped"
       elif [ "$nskip" -gt 0 ]; then echo "ok ($nskip skipped)"
       else echo ok; fi ;;
    77) why=$(grep -m1 'SKIP' "$out" | grep -o 'TALLY_E[A-Z]*' | head -1)
        [ -n "$why" ] || why=$(grep -m1 -o 'SKIP.*' "$out" | sed 's/^SKIP:* *//' | cut -c1-38)
        echo "skip${why:+: $why}" ;;
    124|137) if [ "$cut" = 1 ]; then echo "TIMEOUT (${limit}s: the budget's end)"
             else echo "TIMEOUT (${limit}s)"; fi ;;
    *) echo "FAIL (exit $rc)" ;;
  esac
}

# launch NAME LIMIT COMMAND: run COMMAND (a bash command line) in the background under
# `timeout` (which kills the command's whole process group at the limit); its output goes
# to $WORK/NAME.out, then NAME.secs and NAME.rc (last: the step is done). LAST_PID: the
# background job.
launch() {
  local name=$1 limit=$2 cmd=$3
  : >"$WORK/$name.out"
  (
    t0=$(date +%s.%N)
    timeout -k 10 "$limit" bash -o pipefail -c "$cmd" </dev/null >>"$WORK/$name.out" 2>&1 &
    echo $! >"$WORK/$name.pid"
    wait $!
    rc=$?
    { awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }' >"$WORK/$name.secs"
      echo "$rc" >"$WORK/$name.rc"; } 2>/dev/null # (gone when the run was interrupted)
  ) &
  LAST_PID=$!
}

# collect NAME LOG LIMIT [SHOW]: append the step's output to $OUT/LOG (and show it when
# SHOW is 1), then its row.
declare -A CUT
collect() {
  local name=$1 log=$2 limit=$3 show=${4:-0} rc secs status
  rm -f "$WORK/$name.pid"
  rc=$(cat "$WORK/$name.rc" 2>/dev/null || echo 1)
  secs=$(cat "$WORK/$name.secs" 2>/dev/null || echo 0)
  status=$(status_of "$rc" "$limit" "$WORK/$name.out" "${CUT[$name]:-0}")
  if [ "$show" = 1 ]; then tee -a "$OUT/$log" <"$WORK/$name.out"; else cat "$WORK/$name.out" >>"$OUT/$log"; fi
  echo "-------- $name: $status, ${secs}s" | tee -a "$OUT/$log"
  row "$name" "$status" "$secs"
  LAST_STATUS=$status
}

header() { # NAME LOG LIMIT COMMAND WHEN
  printf '\n======== %s  (%s, limit %ss)\n$ %s\n' "$1" "$5" "$3" "$4" | tee -a "$OUT/$2"
}

# step NAME LOG LIMIT COMMAND: one step in the foreground, its output shown as it comes.
step() {
  local name=$1 log=$2 limit cmd=$4 sub
  limit=$(limit_now "$3")
  if [ "$limit" = 0 ]; then skip_step "$name" "budget spent"; return 0; fi
  [ "$limit" -lt "$3" ] && CUT[$name]=1
  header "$name" "$log" "$limit" "$cmd" "$(date -u +%H:%M:%S)"
  launch "$name" "$limit" "$cmd"
  sub=$LAST_PID
  tail -s 0.2 -n +1 -f --pid="$sub" "$WORK/$name.out" &
  wait $! # tail ends with the step
  wait "$sub"
  collect "$name" "$log" "$limit" 0
}

# pstep NAME LOG LIMIT COMMAND: a step started in the background; pwait collects them all.
PNAMES=()
declare -A PLOG PLIMIT PCMD PWHEN
pstep() {
  local name=$1 limit
  limit=$(limit_now "$3")
  if [ "$limit" = 0 ]; then skip_step "$name" "budget spent"; return 0; fi
  [ "$limit" -lt "$3" ] && CUT[$name]=1
  echo "started $name in the background (limit ${limit}s)"
  PNAMES+=("$name")
  PLOG[$name]=$2
  PLIMIT[$name]=$limit
  PCMD[$name]=$4
  PWHEN[$name]="started $(date -u +%H:%M:%S), side by side"
  launch "$name" "$limit" "$4"
}
pwait() {
  wait
  local name
  for name in ${PNAMES[@]+"${PNAMES[@]}"}; do
    header "$name" "${PLOG[$name]}" "${PLIMIT[$name]}" "${PCMD[$name]}" "${PWHEN[$name]}"
    collect "$name" "${PLOG[$name]}" "${PLIMIT[$name]}" 1
  done
  PNAMES=()
}

# Interrupted: stop the steps still running (each `timeout` takes its group with it).
on_signal() {
  echo "gpu-check.sh: interrupted"
  local f
  for f in "$WORK"/*.pid; do
    [ -e "$f" ] || continue
    kill -TERM "$(cat "$f")" 2>/dev/null
    row "$(basename "$f" .pid)" "FAIL: interrupted" "$(($(date +%s) - START))"
  done
  exit 130
}

finish() {
  trap - EXIT INT TERM
  {
    # shellcheck disable=SC2059
    printf "$FMT" total "$FAILED failed of $ROWS steps" "$(($(date +%s) - START))"
    echo
    echo "logs: $OUT/{summary.txt,build.log,tests.log,sanitizer.log,bench.jsonl,bench.log}"
  } >>"$OUT/summary.txt"
  rm -rf "$WORK"
  echo
  echo "================================ summary"
  cat "$OUT/summary.txt"
}
trap finish EXIT
trap on_signal INT TERM

# ---------------------------------------------------------------- phase 1
show_info() {
  nvidia-smi -L
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  nvidia-smi | head -15
  if command -v nvcc >/dev/null; then nvcc --version | tail -2; else echo "nvcc: not found"; fi
  if [ -n "$SANITIZER" ]; then "$SANITIZER" --version | head -2; fi
  cmake --version | head -1
  cc --version | head -1
  echo "cores: $(nproc)"
  free -g | head -2
  df -h . | tail -1
  [ "$HAVE_GPU" = 1 ] || { echo "SKIP: no GPU (nvidia-smi lists none)"; exit 77; }
}
export -f show_info
export SANITIZER HAVE_GPU
step info build.log "$T_INFO" show_info

step configure build.log "$T_CONFIGURE" "cmake -S . -B '$BUILD' -DCMAKE_BUILD_TYPE=Release"
LAST_STATUS=none
if [ -f "$BUILD/CMakeCache.txt" ]; then
  step build build.log "$T_BUILD" "cmake --build '$BUILD' -j $JOBS"
else
  skip_step build "not configured"
fi
case $LAST_STATUS in ok*) ;; *) BUILD_OK=0 ;; esac

# shellcheck disable=SC2016  # $TALLY expands in the step's shell (exported)
need "$TALLY" tally-info && step tally-info tests.log "$T_TALLY_INFO" '"$TALLY" info'

# Compile every kernel once, on every core, into the disk cache the later steps share
# (cold, each test process would compile the kernels it needs one at a time).
NVRTC_ALL=$ROOT/$BUILD/tests/kernels/test_nvrtc_all
ARCH=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. ')
if [ "$HAVE_GPU" != 1 ]; then
  skip_step warm-kernel-cache "no GPU"
elif need "$NVRTC_ALL" warm-kernel-cache; then
  step warm-kernel-cache tests.log "${T_WARM:-120}" "TALLY_TEST_THREADS=$JOBS '$NVRTC_ALL' '$ARCH' --warm"
fi

# The GPU tests run on any machine: without a GPU they exit 77 (skipped).
if [ "$SUITES_ONLY" = 1 ]; then
  skip_step gpu-tests "--suites-only"
elif [ "$BUILD_OK" != 1 ]; then
  skip_step gpu-tests "no fresh build"
elif [ -f "$BUILD/CTestTestfile.cmake" ]; then
  # gpu.device_arrays (about 125 s, correctness only) runs side by side in phase 2.
  step gpu-tests tests.log "$T_GPU_TESTS" "cd '$BUILD' && ctest -L gpu -LE large -E '^gpu[.]device_arrays\$' -V --timeout $T_GPU_TESTS"
else
  skip_step gpu-tests "not configured"
fi

if [ "$NO_BENCH" = 1 ]; then
  skip_step bench "$([ "$SUITES_ONLY" = 1 ] && echo --suites-only || echo --no-bench)"
elif [ "$HAVE_GPU" != 1 ]; then
  skip_step bench "no GPU"
elif need "$TALLY" bench; then
  step bench bench.log "$T_BENCH" "run_bench | tee -a '$OUT/bench.jsonl'"
fi

if [ "$QUICK" = 1 ] || [ "$NO_LARGE" = 1 ]; then
  why=--no-large
  [ "$SUITES_ONLY" = 1 ] && why=--suites-only
  [ "$QUICK" = 1 ] && why=--quick
  skip_step large "$why"
  skip_step large-cuda-bytes "$why"
elif [ "$HAVE_GPU" != 1 ]; then
  skip_step large "no GPU"
  skip_step large-cuda-bytes "no GPU"
else
  need "$LARGE_BYTES" large &&
    step large tests.log "$T_LARGE" "cd '$BUILD' && ctest -L large -V --timeout $T_LARGE"
  need "$LARGE_BYTES" large-cuda-bytes &&
    step large-cuda-bytes tests.log "$T_LARGE_BYTES" "'$LARGE_BYTES' cuda"
fi

# ---------------------------------------------------------------- phase 2
# Everything side by side: the suites are host-bound (references, data) as much as
# GPU-bound, and the machine has 16 cores.
CONF_ARGS=cuda
[ "$QUICK" = 1 ] && CONF_ARGS="cuda --quick"
SAN_STEPS="memcheck-device-arrays racecheck-device-arrays memcheck-conformance racecheck-conformance"
if [ "$NO_SUITES" = 1 ]; then
  for s in gpu-device-arrays conformance-cuda conformance-cuda-carries conformance-ladder conformance-opencl conformance-opencl-ladder $SAN_STEPS; do
    skip_step "$s" "--no-suites"
  done
else
  # The device-array test, every mode (phase 1 leaves it out: it takes about 125 s).
  need "$DEVARR" gpu-device-arrays && pstep gpu-device-arrays tests.log "$T_CONFORMANCE" "'$DEVARR'"
  # The suite runs on any machine (without a GPU it exits 77).
  need "$CONF" conformance-cuda && pstep conformance-cuda tests.log "$T_CONFORMANCE" "'$CONF' $CONF_ARGS"
  # The scans with each tree of carries at every length (by default the radix-32 tree up
  # to 2,048-65,536 tiles, the binary indexed tree above: src/cuda/scan.c), and the radix
  # tree's level 3 (32,768 tiles and up) on 32-element tiles (as the ctests of those names).
  need "$CONF" conformance-cuda-carries && pstep conformance-cuda-carries tests.log "$T_CONFORMANCE" \
    "TALLY_SCAN_CARRIES=binary '$CONF' cuda --quick --groups scan; b=\$?; TALLY_SCAN_CARRIES=radix '$CONF' cuda --quick --groups scan; r=\$?; TALLY_SCAN_CARRIES=radix TALLY_SCAN_TILE=32x1x16 '$CONF' cuda --quick --groups scan --ops sum,prod,affine --dtypes f64,f16 && exit \$((b | r))"
  # The ladder variants (a sample of the quick suite each), eight at a time.
  if [ -f "$BUILD/CTestTestfile.cmake" ]; then
    pstep conformance-ladder tests.log "$T_CONFORMANCE" "cd '$BUILD' && ctest -L '^ladder\$' -j 8 --timeout $T_CONFORMANCE"
  fi
  # The OpenCL backend on NVIDIA's OpenCL (skipped, exit 77, where it cannot be opened).
  need "$CONF" conformance-opencl && pstep conformance-opencl tests.log "$T_CONFORMANCE" \
    "OCL_ICD_FILENAMES=$OCL_NVIDIA '$CONF' opencl --quick && OCL_ICD_FILENAMES=$OCL_NVIDIA '$ROOT/$BUILD/tests/gpu/test_opencl_buffers'"
  # The ladder's OpenCL rungs there too (as CI runs them on PoCL).
  if [ -f "$BUILD/CTestTestfile.cmake" ]; then
    pstep conformance-opencl-ladder tests.log "$T_CONFORMANCE" \
      "cd '$BUILD' && OCL_ICD_FILENAMES=$OCL_NVIDIA ctest -L opencl_ladder -j 4 --timeout $T_CONFORMANCE"
  fi
  SAN_WHY=
  if [ "$QUICK" = 1 ]; then SAN_WHY="--quick"
  elif [ "$HAVE_GPU" != 1 ]; then SAN_WHY="no GPU"
  elif [ -z "$SANITIZER" ]; then SAN_WHY="no compute-sanitizer"
  fi
  if [ -n "$SAN_WHY" ]; then
    for s in $SAN_STEPS; do skip_step "$s" "$SAN_WHY"; done
  else
    MEMCHECK="'$SANITIZER' --tool memcheck --leak-check full --error-exitcode 1"
    RACECHECK="'$SANITIZER' --tool racecheck --error-exitcode 1"
    # racecheck runs the quick suite 1 case in 3: whole, it took more than 400 s (H100,
    # 2026-11-27; its layouts group alone 270 s, against 80 s under memcheck).
    need "$DEVARR" memcheck-device-arrays &&
      pstep memcheck-device-arrays sanitizer.log "$T_SAN_SHORT" "$MEMCHECK '$DEVARR' --quick"
    need "$DEVARR" racecheck-device-arrays &&
      pstep racecheck-device-arrays sanitizer.log "$T_SAN_SHORT" "$RACECHECK '$DEVARR' --quick"
    need "$CONF" memcheck-conformance &&
      pstep memcheck-conformance sanitizer.log "$T_SAN_CONF" "$MEMCHECK '$CONF' cuda --quick"
    need "$CONF" racecheck-conformance &&
      pstep racecheck-conformance sanitizer.log "$T_SAN_CONF" "$RACECHECK '$CONF' cuda --quick --sample 3"
  fi
  pwait
fi

[ "$FAILED" -eq 0 ]
