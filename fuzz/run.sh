#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs fuzz_gltf for a bounded
# time (first argument, seconds; default 60) over a corpus seeded with the
# glTF test models (tests/data/models). Usage: fuzz/run.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
CC=${CC:-clang} cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOAK_FUZZ=ON \
  -DOAK_TESTS=OFF -DOAK_VULKAN=OFF -DOAK_GL=OFF >/dev/null
cmake --build build/fuzz -j "$(nproc)" --target fuzz_gltf
corpus=build/fuzz/corpus
mkdir -p "$corpus"
for root in tests/data/models tests/data/gltf; do
  [ -d "$root" ] && find "$root" \( -name '*.gltf' -o -name '*.glb' \) -size -1000k \
    -exec cp {} "$corpus"/ \;
done
build/fuzz/fuzz/fuzz_gltf "$corpus" -max_total_time="$secs" -rss_limit_mb=2048 \
  -max_len=1048576 -print_final_stats=1
