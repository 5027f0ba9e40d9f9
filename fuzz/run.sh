#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs every fuzz_* target that
# was built, one after another, sharing a total time budget (first argument,
# seconds; default 60) equally. Each target's corpus is seeded from the
# files in tests/data it reads (glTF/GLB/.oakm, .oakm, OBJ/MTL, scene JSON,
# images). A unit that runs past 25 s fails the run as a hang would.
# Usage: fuzz/run.sh [total-seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
total=${1:-60}
CC=${CC:-clang} CXX=${CXX:-clang++} cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOAK_FUZZ=ON \
  -DOAK_TESTS=OFF -DOAK_VULKAN=OFF -DOAK_GL=OFF >/dev/null
names=$(ls fuzz/fuzz_*.c | xargs -n1 basename | sed 's/\.c$//')
# shellcheck disable=SC2086
cmake --build build/fuzz -j "$(nproc)" --target $names
targets=()
for n in $names; do [ -x "build/fuzz/fuzz/$n" ] && targets+=("$n"); done
per=$(( total / ${#targets[@]} ))
[ "$per" -lt 5 ] && per=5
# Seeds: what each loader reads, under 1 MB a file.
seed() { # target, then find patterns
  local corpus=build/fuzz/corpus/$1; shift
  mkdir -p "$corpus"
  find tests/data \( "$@" \) -type f -size -1000k -exec cp {} "$corpus"/ \;
}
# fuzz_assimp reads its first byte as the format (0 FBX, 1 Collada, 2 OBJ)
seed_assimp() {
  local corpus=build/fuzz/corpus/$1 f
  mkdir -p "$corpus"
  for f in tests/data/models/assimp/*.fbx; do printf '\000' | cat - "$f" > "$corpus/$(basename "$f")"; done
  for f in tests/data/models/assimp/*.dae; do printf '\001' | cat - "$f" > "$corpus/$(basename "$f")"; done
  for f in tests/data/obj/*.obj; do [ -f "$f" ] && printf '\002' | cat - "$f" > "$corpus/$(basename "$f")"; done
  return 0
}
for t in "${targets[@]}"; do
  case $t in
    fuzz_gltf) seed "$t" -name '*.gltf' -o -name '*.glb' -o -name '*.oakm' ;;
    fuzz_oakm) seed "$t" -name '*.oakm' ;;
    fuzz_obj) seed "$t" -name '*.obj' -o -name '*.mtl' ;;
    fuzz_scene) seed "$t" -name '*.json' ;;
    fuzz_image) seed "$t" -name '*.png' -o -name '*.jpg' -o -name '*.jpeg' -o -name '*.hdr' -o -name '*.webp' ;;
    fuzz_assimp) seed_assimp "$t" ;;
    *) seed "$t" -name '*' ;;
  esac
  echo "fuzz: $t for ${per} s over $(ls build/fuzz/corpus/$t | wc -l) seeds"
  LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0 \
  "build/fuzz/fuzz/$t" "build/fuzz/corpus/$t" -max_total_time="$per" -rss_limit_mb=2048 -timeout=25 \
    -max_len=1048576 -print_final_stats=1
done
