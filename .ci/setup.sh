#!/usr/bin/env bash
# Installs what is missing (Debian 12 packages) and builds cuvk into build/.
# Used by both README commands and by .ci/run. Idempotent: a second run only rebuilds.
# The list holds what the build needs and what ctest needs (python3 for the tests' scripts,
# python3-matplotlib for `cuvk report --index`, bsdutils for `script`): the README's test command
# passes on a fresh machine (tests/setup_packages.py checks the list against the suite).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make git pkg-config
          libvulkan-dev libvulkan-volk-dev glslang-tools spirv-tools
          libcli11-dev nlohmann-json3-dev libgtest-dev libzstd-dev libxxhash-dev
          libtomlplusplus-dev libshaderc-dev libfmt-dev spirv-headers
          mesa-vulkan-drivers vulkan-validationlayers
          python3 python3-matplotlib bsdutils)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "cuvk setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# nvcc is not a Debian package here: the CUDA toolkit lives in /usr/local/cuda where installed.
# Without it cuvk builds Vulkan-only (CUVK_REQUIRE_CUDA=ON makes that an error, as CI wants).
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCUVK_REQUIRE_CUDA="${CUVK_REQUIRE_CUDA:-OFF}" >/dev/null
cmake --build build -j "$(nproc)"
