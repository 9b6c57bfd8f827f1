#!/usr/bin/env bash
# scripts/nvidia_run.sh: run ON the NVIDIA GPU machine, from the repo root, with build-cuda/ (made by
# scripts/nvidia_build.sh) carried along. Runs the whole CTest suite, GPU tests included, and fails
# if any test failed, was skipped or did not run (a skipped GPU test there means no usable GPU);
# then runs every benchmark in build-cuda/benchmarks/ briefly. Logs go to $OUT when it is set.
# Usage: bash scripts/nvidia_run.sh [benchmark-filter-regex]
#   BATCHODE_BENCH_MIN_TIME=0.05  seconds per benchmark (Google Benchmark's --benchmark_min_time)
#   BATCHODE_SKIP_TESTS=1 / BATCHODE_SKIP_BENCH=1  run only one half
# Needs only ctest (any CMake >= 3.20) and the NVIDIA driver there: no compiler, no Debian packages.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
build="$root/build-cuda"
filter=${1:-}
logs=${OUT:-$build/run-logs}
mkdir -p "$logs"

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  echo "nvidia_run.sh: $build/CMakeCache.txt missing: run scripts/nvidia_build.sh here first, then carry build-cuda" >&2
  exit 1
fi
export LD_LIBRARY_PATH="$build/runtime-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

# CTest files hold the absolute paths of the machine that built them (e.g. /work/main/build-cuda).
# Where this checkout lives elsewhere: first choice, a symbolic link from the old path to this one
# (nothing is edited, and paths compiled into the binaries keep working too); where the old path
# exists and is something else, rewrite the paths in the CTest files of this (carried) copy.
old_build=$(sed -n 's/^CMAKE_CACHEFILE_DIR:INTERNAL=//p' "$build/CMakeCache.txt")
old_root=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
same_dir() { [[ -e "$1" && "$(cd "$1" && pwd -P)" == "$(cd "$2" && pwd -P)" ]]; }
if ! same_dir "$old_build" "$build"; then
  if [[ ! -e "$old_root" && ! -L "$old_root" ]] && mkdir -p "$(dirname "$old_root")" 2>/dev/null &&
    ln -s "$root" "$old_root" 2>/dev/null && same_dir "$old_build" "$build"; then
    echo "nvidia_run.sh: linked $old_root -> $root (build paths recorded there)"
  elif [[ ! -e "$old_build" && ! -L "$old_build" ]] && mkdir -p "$(dirname "$old_build")" 2>/dev/null &&
    ln -s "$build" "$old_build" 2>/dev/null; then
    echo "nvidia_run.sh: linked $old_build -> $build"
  else
    echo "nvidia_run.sh: rewriting $old_build -> $build in the CTest files"
    find "$build" \( -name CTestTestfile.cmake -o -name '*_tests.cmake' -o -name '*_include.cmake' \) \
      -exec sed -i -e "s#${old_build}/#${build}/#g" -e "s#${old_build}\"#${build}\"#g" \
      -e "s#${old_root}/#${root}/#g" {} +
  fi
fi

status=0
if [[ "${BATCHODE_SKIP_TESTS:-0}" != 1 ]]; then
  gpu_tests=$(ctest --test-dir "$build" -N -L gpu | sed -n 's/^Total Tests: //p')
  echo "nvidia_run.sh: $(ctest --test-dir "$build" -N | sed -n 's/^Total Tests: //p') tests, ${gpu_tests:-0} labelled gpu"
  if [[ "${gpu_tests:-0}" -eq 0 ]]; then
    echo "nvidia_run.sh: no GPU test in build-cuda: was it built with BATCHODE_BUILD_TESTS=ON?" >&2
    status=1
  fi
  # Tests named *TwoGpu* need two GPUs: on a one-GPU machine they are left out, visibly.
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
  exclude=()
  if [[ "${gpus:-0}" -lt 2 ]]; then
    echo "nvidia_run.sh: ${gpus:-0} GPU(s): the two-GPU tests (*TwoGpu*) are NOT run here"
    exclude=(-E TwoGpu)
  fi
  # The install test (label 'package') needs Debian's -dev packages and CMake here, so it is left out.
  ctest --test-dir "$build" --output-on-failure --no-tests=error -LE package "${exclude[@]}" -j 4 \
    --output-junit "$logs/ctest-junit.xml" 2>&1 | tee "$logs/ctest.log" || status=1
  not_run=$(sed -n '/The following tests did not run:/,/^$/p' "$logs/ctest.log" | grep -E '\((Skipped|Disabled|Not Run)\)' || true)
  if [[ -n "$not_run" ]]; then
    echo "nvidia_run.sh: FAILED: on a GPU machine every test must run, but these did not:" >&2
    echo "$not_run" >&2
    status=1
  fi
fi

if [[ "${BATCHODE_SKIP_BENCH:-0}" != 1 ]]; then
  json_dir=$(mktemp -d)
  mapfile -t benches < <(find "$build/benchmarks" -maxdepth 1 -type f -perm -u+x 2>/dev/null | sort)
  echo "nvidia_run.sh: ${#benches[@]} benchmark binaries${filter:+, filter '$filter'}" | tee "$logs/benchmarks.log"
  for bench in "${benches[@]}"; do
    name=$(basename "$bench")
    echo "==> $name" | tee -a "$logs/benchmarks.log"
    args=(--benchmark_min_time="${BATCHODE_BENCH_MIN_TIME:-0.05}" --benchmark_out="$json_dir/$name.json"
      --benchmark_out_format=json)
    [[ -n "$filter" ]] && args+=(--benchmark_filter="$filter")
    "$bench" "${args[@]}" 2>&1 | tee -a "$logs/benchmarks.log" || { echo "FAILED: $name" | tee -a "$logs/benchmarks.log"; status=1; }
  done
  # One file back instead of one per binary (the device tool returns at most 8 files).
  tar -czf "$logs/benchmarks-json.tar.gz" -C "$json_dir" . && rm -rf "$json_dir"
fi

echo "nvidia_run.sh: logs in $logs"
if ((status == 0)); then echo "nvidia_run.sh: OK"; else echo "nvidia_run.sh: FAILED"; fi
exit "$status"
