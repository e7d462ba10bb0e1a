#!/usr/bin/env bash
# check_install.sh BUILD_DIR CONSUMER_SRC WORK_DIR
# Installs BUILD_DIR into WORK_DIR/prefix, then builds and runs the consumer with
# find_package(tally) (shared and static targets) and with pkg-config.
set -euo pipefail
build=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null

extra_cflags=""
if [ "${SANITIZE:-0}" = "1" ] || [ "${SANITIZE:-}" = "ON" ]; then
  extra_cflags="-fsanitize=address,undefined"
fi
libdir=$(find "$prefix" -name 'libtally.so' -printf '%h\n' | head -n1)

for kind in shared static; do
  cmake -S "$src" -B "$work/cmake-$kind" -DCMAKE_PREFIX_PATH="$prefix" -DTALLY_KIND=$kind \
        -DCMAKE_C_FLAGS="$extra_cflags" -DCMAKE_EXE_LINKER_FLAGS="$extra_cflags" >/dev/null
  cmake --build "$work/cmake-$kind" >/dev/null
  LD_LIBRARY_PATH=$libdir "$work/cmake-$kind/consumer" | grep -q "^sum = 5050$" \
    || { echo "find_package ($kind): wrong output"; exit 1; }
  echo "find_package(tally) $kind: ok"
done

if ! command -v pkg-config >/dev/null 2>&1; then
  echo "pkg-config is not installed: the pkg-config half cannot run" >&2
  exit 77
fi
export PKG_CONFIG_PATH=$libdir/pkgconfig
# shellcheck disable=SC2046
${CC:-cc} $extra_cflags -o "$work/consumer-pc" "$src/consumer.c" $(pkg-config --cflags --libs tally)
LD_LIBRARY_PATH=$libdir "$work/consumer-pc" | grep -q "^sum = 5050$" \
  || { echo "pkg-config: wrong output"; exit 1; }
echo "pkg-config: ok"
