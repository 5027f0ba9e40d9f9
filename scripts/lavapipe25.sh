#!/usr/bin/env bash
# Puts Mesa 25's lavapipe from Debian's bookworm-backports beside the system's
# Mesa 22.3, for the tests of what lavapipe 22.3 lacks (mesh shaders,
# descriptor indexing). Nothing of the system's Mesa is replaced: the packages
# are fetched with a private apt state and unpacked under $dest, and the tests
# that want this driver name its ICD file (VK_DRIVER_FILES) and its libraries
# (LD_LIBRARY_PATH). Every other test keeps the system's lavapipe 22.3.
# Idempotent; prints nothing when the driver is already there.
set -euo pipefail

dest=${OAK_LAVAPIPE25_DIR:-/opt/oak/lavapipe-25}
icd="$dest/lvp_icd.json"
[[ -f "$icd" ]] && exit 0

if [[ $(id -u) -ne 0 ]]; then
  echo "lavapipe25: $icd is missing; run as root to fetch Mesa 25's lavapipe" >&2
  exit 1
fi

echo "lavapipe25: fetching Mesa 25's lavapipe from bookworm-backports into $dest"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
echo "deb http://deb.debian.org/debian bookworm-backports main" >"$work/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o "APT::Sandbox::User=root")
apt-get "${apt_opts[@]}" update -qq
# lavapipe 25 needs a newer libdrm than bookworm's 2.4.114; its LLVM is
# bookworm's libllvm15, already installed with the system's Mesa.
(cd "$work/debs" && apt-get "${apt_opts[@]}" download -qq \
  mesa-vulkan-drivers/bookworm-backports libdrm2/bookworm-backports \
  libdrm-amdgpu1/bookworm-backports)
mkdir -p "$dest.tmp"
for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$dest.tmp/root"; done
lib="$dest/root/usr/lib/x86_64-linux-gnu"
[[ -f "$dest.tmp/root/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so" ]] || {
  echo "lavapipe25: libvulkan_lvp.so not found in the packages" >&2
  exit 1
}
sed "s#\"libvulkan_lvp.so\"#\"$lib/libvulkan_lvp.so\"#" \
  "$dest.tmp/root/usr/share/vulkan/icd.d/lvp_icd.json" >"$dest.tmp/lvp_icd.json"
echo "$lib" >"$dest.tmp/library_path"
rm -rf "$dest"
mv "$dest.tmp" "$dest"
echo "lavapipe25: $(ls "$work"/debs | tr '\n' ' ')-> $icd"
