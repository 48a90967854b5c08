#!/usr/bin/env bash
# First contact with the GPU machine: is CUDA there, does the loader find the NVIDIA Vulkan ICD,
# do the two APIs pair by UUID, do all kernels verify. Run from the repository root on the device
# machine with build/ carried; writes under $OUT.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem --format=csv
ls /usr/share/vulkan/icd.d /etc/vulkan/icd.d /usr/local/nvidia/share/vulkan/icd.d 2>&1 | head
./build/cuvk devices 2>&1 | tee "$OUT/devices.txt"
./build/tests/cuda_tests 2>&1 | tail -5
time ./build/cuvk run --format json --output "$OUT/smoke.json" 2>&1 | tee "$OUT/smoke.txt"
