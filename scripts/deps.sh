#!/usr/bin/env bash
# Installs the Debian 12 packages oak's build and tests need, when missing.
# Non-interactive; says what it installs; fails clearly when not root.
# With argument "test" (make test, make sanitize) it then puts Mesa 25's
# lavapipe beside the system's Mesa (scripts/lavapipe25.sh, about 20 s and
# 64 MiB the first time) for the tests of tests/lavapipe25.cmake; should that
# fail it says so and goes on: those tests then fail, saying why.
set -euo pipefail

pkgs=(
  build-essential cmake pkg-config git
  libcglm-dev libstb-dev libcjson-dev libmeshoptimizer-dev libwebp-dev libdraco-dev libassimp-dev
  libvulkan-dev libvulkan-volk-dev glslc spirv-tools
  vulkan-validationlayers mesa-vulkan-drivers
  libepoxy-dev libegl-dev libgl-dev libegl-mesa0 libgl1-mesa-dri libglfw3-dev xvfb xauth
  clang libclang-rt-14-dev
)

missing=()
for p in "${pkgs[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if [[ ${#missing[@]} -gt 0 ]]; then
  if [[ $(id -u) -ne 0 ]]; then
    echo "deps: missing packages: ${missing[*]}" >&2
    echo "deps: run as root (or: sudo apt-get install -y ${missing[*]})" >&2
    exit 1
  fi
  echo "deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "deps: done"
fi

if [[ "${1:-}" == test ]]; then
  bash "$(dirname "$0")/lavapipe25.sh" ||
    echo "deps: no Mesa 25 lavapipe: the NAME_lavapipe25 tests will fail" >&2
fi
