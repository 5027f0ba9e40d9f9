#!/usr/bin/env bash
# Installs the Debian 12 packages oak's build and tests need, when missing.
# Non-interactive; says what it installs; fails clearly when not root.
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

# Mesa 25's lavapipe (scripts/lavapipe25.sh) is not fetched here while no
# test is listed in tests/CMakeLists.txt's OAK_LAVAPIPE25_TESTS: a test
# listed there needs this script to run it (and the list's reason).
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

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
