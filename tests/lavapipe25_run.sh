#!/bin/sh
# Runs one test binary on Mesa 25's lavapipe (tests/CMakeLists.txt's
# NAME_lavapipe25 tests): the Vulkan loader pointed at that ICD only
# (VK_DRIVER_FILES) and its libraries first (LD_LIBRARY_PATH).
# usage: lavapipe25_run.sh DRIVER_DIR BINARY ARGS...
# A missing driver or binary is a failure with its reason, never a pass or
# a skip: CI must not go green without having run these tests.
dir=$1
bin=$2
shift 2
if [ ! -f "$dir/lvp_icd.json" ] || [ ! -f "$dir/library_path" ]; then
    echo "lavapipe25: $dir/lvp_icd.json is missing: run scripts/lavapipe25.sh as root" \
        "(make test does it through scripts/deps.sh test)" >&2
    exit 1
fi
if [ ! -x "$bin" ]; then
    echo "lavapipe25: $bin is not built (make test builds it)" >&2
    exit 1
fi
lib=$(cat "$dir/library_path")
VK_DRIVER_FILES=$dir/lvp_icd.json
LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VK_DRIVER_FILES LD_LIBRARY_PATH
exec "$bin" "$@"
