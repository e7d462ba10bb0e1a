#!/usr/bin/env bash
# scripts/gpu-pack.sh [DIR] [--driver N] [--no-cache]
#
# Builds, here (no GPU needed: CUDA and NVRTC are loaded at run time, nvcc builds the CUB
# peer), what a device call runs, and packs it into DIR/pack (DIR: default build-pack,
# ignored by git; its build and build.log beside) to be carried there (a relative DIR):
# tally, tally_conformance, cub_peer, libtally.so.0, and a kernel cache for the GPU
# machine's driver (kcache.tgz: every specialisation compiled for sm_90, test_nvrtc_all
# --warm-for-driver). On the GPU machine
#
#   . DIR/pack/env.sh     # LD_LIBRARY_PATH and TALLY_CACHE_DIR (the cache unpacked in /tmp)
#   DIR/pack/tally bench --device cuda --scan ...;  DIR/pack/tally_conformance cuda --quick ...
#
# then needs no build and no NVRTC compile for the plan's kernels (2026-11-29, H200: three
# calls of checks and timings in 126, 212 and 76 s, where the build alone took 140-200 s
# and compiling on demand 70-80 s). The pack is about 45 MB (the cache 33 MB of it), under
# a device call's 64 MiB of carried files. Warming the cache takes about 8 minutes on two
# cores; --no-cache leaves it out.
#
# Needs nvcc (for the CUB peer) and NVRTC (for the cache). env.sh is for bash.
#
# --driver N: the GPU machine's cuDriverGetVersion (default 13000: driver 580, CUDA 13.0,
# the H100/H200 machines of 2026-11). A cache made for another driver or NVRTC version is
# not used there (the key holds both): the kernels are then compiled on demand, as
# without a cache. The binaries must come from the tree the device runs: rebuild the
# pack after every change to src/.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=build-pack DRIVER=13000 CACHE=1
while [ $# -gt 0 ]; do
  case $1 in
    --driver)
      [ $# -ge 2 ] || { echo "gpu-pack.sh: --driver needs a number" >&2; exit 2; }
      DRIVER=$2; shift ;;
    --no-cache) CACHE=0 ;;
    -*) echo "gpu-pack.sh: unknown option $1" >&2; exit 2 ;;
    *) DIR=$1 ;;
  esac
  shift
done
command -v nvcc > /dev/null || [ -x /usr/local/cuda/bin/nvcc ] ||
  { echo "gpu-pack.sh: no nvcc here: the CUB peer cannot be built" >&2; exit 1; }
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd) # absolute: the cache path is given to a program
B=$DIR/build LOG=$DIR/build.log
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release > "$LOG" 2>&1 || { tail -20 "$LOG"; exit 1; }
cmake --build "$B" -j "$(nproc)" --target tally_cli tally_conformance cub_peer test_nvrtc_all >> "$LOG" 2>&1 ||
  { tail -20 "$LOG"; exit 1; }
P=$DIR/pack
rm -rf "$P" && mkdir -p "$P"
cp "$B/tools/tally/tally" "$B/tools/tally/cub_peer" "$B/tests/conformance/tally_conformance" "$P/"
cp -L "$B/src/libtally.so.0" "$P/libtally.so.0" # a plain file: links may not travel
if [ "$CACHE" = 1 ]; then
  rm -rf "$DIR/kc" && mkdir -p "$DIR/kc"
  # Any kernel that fails or warns fails the pack (pipefail): a partial cache would only
  # slow the device call down, but it hides a broken kernel.
  TALLY_CACHE_DIR=$DIR/kc TALLY_TEST_THREADS=$(nproc) "$B/tests/kernels/test_nvrtc_all" sm_90 \
    --warm-for-driver="$DRIVER" | tail -1
  tar czf "$P/kcache.tgz" -C "$DIR/kc" .
fi
cat > "$P/env.sh" <<'EOF'
# Sourced by bash on the GPU machine: the pack's library first; its kernel cache unpacked
# into /tmp/tally-kc the first time.
TALLY_PACK=$(cd "$(dirname "${BASH_SOURCE[0]}")" > /dev/null && pwd)
export LD_LIBRARY_PATH=$TALLY_PACK${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if [ -f "$TALLY_PACK/kcache.tgz" ]; then
  [ -d /tmp/tally-kc ] || { mkdir -p /tmp/tally-kc && tar xzf "$TALLY_PACK/kcache.tgz" -C /tmp/tally-kc; }
  export TALLY_CACHE_DIR=/tmp/tally-kc
fi
EOF
du -sh "$P"
echo "carry ${P#$PWD/} (there: . ${P#$PWD/}/env.sh)"
