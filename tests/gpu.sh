#!/usr/bin/env bash
# tests/gpu.sh: the whole test suite (every ctest test, CUDA labels included) on a GPU machine,
# from a build made elsewhere. CI has no GPU: the CUDA kernels, CUDA timing and the NVIDIA
# Vulkan driver are tested only here. Run it after any change to a kernel (cuda/*.cu), a shader
# (glsl/*.comp), timing (host/contract/timestamps.h, vulkan/vk_timing.cpp, cuda/cuda_backend.cu)
# or statistics (host/core/model/stats.*, verdicts, parity); docs/TESTING.md says more.
#
#   1. here:       tests/gpu.sh pack [BUILD_DIR] [BUNDLE_DIR]      (default: build .dev/tests)
#        bundles the build tree (binaries, ctest files), the checksums of the source files the
#        build was made from, the Khronos validation layer (.deb) and the revision: about 37 MB.
#        The sources themselves travel as the device tool's copy of the checkout (pack from the
#        build of the checkout you run from); CUVK_PACK_SRC=1 bundles them too (15 MB more).
#   2. GPU machine (the device tool: carry .gl and the bundle; $OUT set):
#        for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#        export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json;
#        bash tests/gpu.sh run .dev/tests
#      puts both trees back at the paths the build recorded (the binaries name them), runs every
#      test (ctest, or tests/ctest_lite.py where CMake is not installed), fails on any skip not
#      listed for `gpu` in tests/allowed_skips.txt, and writes $OUT/tests_gpu.tar.gz holding
#      gpu_tests.log (revision, GPU, driver, one line per test, the tally) and gpu_tests.xml.
#   3. here: copy gpu_tests.log to results/<gpu>/gpu_tests.log and commit it.
set -euo pipefail
mode=${1:-}

pack() {
  local build bundle src rev
  build=$(cd "${1:-build}" && pwd)
  bundle=${2:-.dev/tests}
  [ -f "$build/CTestTestfile.cmake" ] || { echo "gpu.sh: $build is not a build tree with tests"; exit 2; }
  src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
  rev=$(git -C "$src" rev-parse HEAD)
  if [ -n "$(git -C "$src" status --porcelain --untracked-files=no)" ]; then rev="$rev (modified)"; fi
  mkdir -p "$bundle"
  rm -f "$bundle/src.tar.xz"
  # The source as built: every tracked file's checksum (the run finds them in the checkout it is
  # given), and with CUVK_PACK_SRC=1 the files themselves.
  (cd "$src" && git ls-files -z | xargs -0 sha256sum) >"$bundle/src.sha256"
  git -C "$src" ls-files -s | awk '$1 == "100755" { print $4 }' >"$bundle/src.executable"
  if [ "${CUVK_PACK_SRC:-0}" = 1 ]; then
    git -C "$src" ls-files -z | tar -C "$src" --null -T - -cf - | xz -T2 -6 >"$bundle/src.tar.xz"
  fi
  # The build tree without objects and generated sources: binaries, ctest files, test data.
  # xz -9 in one thread: its 64 MiB window spans the test programs, which are mostly the same
  # code (34 MB at -6 with two threads, 12 MB so; the device tool's limit is 64 MiB with the tree).
  tar -C "$build" --exclude='*.o' --exclude='*.a' --exclude=CMakeFiles --exclude=Testing \
    --exclude='*.h' --exclude='*.spv' -cf - . | xz -T1 -9 >"$bundle/build.tar.xz"
  local layer
  layer=$(ls /var/cache/apt/archives/vulkan-validationlayers_*.deb 2>/dev/null | head -n 1 || true)
  if [ -z "$layer" ]; then
    (cd "$bundle" && apt-get download vulkan-validationlayers >/dev/null)
  else
    cp "$layer" "$bundle/"
  fi
  printf 'src=%s\nbuild=%s\nrevision=%s\npacked=%s\n' "$src" "$build" "$rev" \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$bundle/manifest"
  echo "gpu.sh: packed $rev into $bundle ($(du -sh "$bundle" | cut -f1))"
}

run() {
  local bundle=${1:-.dev/tests} out=${OUT:-$PWD/gpu_out} src build rev jobs=${GPU_TEST_JOBS:-4}
  [ -f "$bundle/manifest" ] || { echo "gpu.sh: no $bundle/manifest: run 'tests/gpu.sh pack' first"; exit 2; }
  bundle=$(cd "$bundle" && pwd)
  src=$(sed -n 's/^src=//p' "$bundle/manifest")
  build=$(sed -n 's/^build=//p' "$bundle/manifest")
  rev=$(sed -n 's/^revision=//p' "$bundle/manifest")
  mkdir -p "$out"
  # The sources at the path the build recorded: there already, else this checkout (the device
  # tool's copy) when every file is the one built from, else the bundled copy.
  local here
  here=$(cd "$(dirname "$0")/.." && pwd)
  if [ ! -f "$src/CMakeLists.txt" ]; then
    if [ -f "$bundle/src.tar.xz" ]; then
      mkdir -p "$src" && xz -dc "$bundle/src.tar.xz" | tar -C "$src" -xf -
    elif (cd "$here" && sha256sum --quiet --strict -c "$bundle/src.sha256"); then
      mkdir -p "$(dirname "$src")" && rmdir "$src" 2>/dev/null || true
      ln -s "$here" "$src"
      (cd "$here" && xargs -r chmod +x <"$bundle/src.executable")  # a copy may drop the bits
    else
      echo "gpu.sh: $here is not the source $rev was built from (above: the files that differ);"
      echo "        run from that checkout, or pack with CUVK_PACK_SRC=1"; exit 2
    fi
  fi
  mkdir -p "$build"
  xz -dc "$bundle/build.tar.xz" | tar -C "$build" -xf -
  for deb in "$bundle"/*.deb; do if [ -e "$deb" ]; then dpkg -x "$deb" /; fi; done
  ldconfig 2>/dev/null || true  # the validation layer is dlopen'ed by name
  # The interpreter the build recorded (house.rules) where this machine has it elsewhere.
  local py
  py=$(sed -n 's/^_*Python3_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null | head -n 1)
  if [ -n "$py" ] && [ ! -x "$py" ] && command -v python3 >/dev/null; then
    mkdir -p "$(dirname "$py")" && ln -sf "$(command -v python3)" "$py"
  fi
  export CUVK_ON_GPU=1  # signal_liveness.sh: rows on a GPU are too short to interrupt
  # ctest clears VK_DRIVER_FILES for every test (tests/CMakeLists.txt, issue 23: the system's
  # drivers load): the driver it names is installed where the loader looks by itself.
  if [ -n "${VK_DRIVER_FILES:-}" ]; then
    mkdir -p /etc/vulkan/icd.d
    for icd in ${VK_DRIVER_FILES//:/ }; do cp "$icd" /etc/vulkan/icd.d/; done
  fi
  local log=$out/gpu_tests.log xml=$out/gpu_tests.xml status=0
  {
    echo "tests/gpu.sh: revision $rev (packed $(sed -n 's/^packed=//p' "$bundle/manifest"))"
    echo "run $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
    nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader 2>&1 || true
    echo "VK_DRIVER_FILES=${VK_DRIVER_FILES:-} CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-}"
  } | tee "$log"
  # The run must end inside the device call (600 s at most): a hang loses the tests, not the log.
  # 240 s stopped the suite at 625 of 671 tests once the sweeps grew (2 min each at -j 4).
  if command -v ctest >/dev/null; then
    echo "runner: ctest -j $jobs" | tee -a "$log"
    # GPU_TEST_EXCLUDE (a ctest -E regex): tests whose binaries a bundle left out to fit the device
    # tool's 64 MiB (said in the log).
    [ -z "${GPU_TEST_EXCLUDE:-}" ] || echo "excluded: $GPU_TEST_EXCLUDE" | tee -a "$log"
    timeout "${GPU_TEST_TIMEOUT:-500}" ctest --test-dir "$build" -j "$jobs" --output-on-failure --output-junit "$xml" \
      ${GPU_TEST_EXCLUDE:+-E "$GPU_TEST_EXCLUDE"} 2>&1 | tee -a "$log" || status=1
  else
    echo "runner: tests/ctest_lite.py -j $jobs (no ctest here)" | tee -a "$log"
    timeout "${GPU_TEST_TIMEOUT:-500}" python3 "$src/tests/ctest_lite.py" "$build" "$xml" -j "$jobs" 2>&1 | tee -a "$log" ||
      status=1
  fi
  if [ -f "$xml" ]; then
    python3 "$src/tests/check_skips.py" "$xml" gpu 2>&1 | tee -a "$log" || status=1
  else
    echo "gpu.sh: no JUnit file: the run did not finish" | tee -a "$log"; status=1
  fi
  echo "gpu.sh: $([ "$status" -eq 0 ] && echo PASSED || echo FAILED) at $rev" | tee -a "$log"
  tar -C "$out" -czf "$out/tests_gpu.tar.gz" gpu_tests.log "$(basename "$xml")" 2>/dev/null || true
  return "$status"
}

case "$mode" in
  pack) shift; pack "$@" ;;
  run) shift; run "$@" ;;
  *) sed -n '2,23p' "$0"; exit 2 ;;
esac
