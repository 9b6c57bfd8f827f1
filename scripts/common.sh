# scripts/common.sh: helpers shared by the build and test scripts (sourced, never run).
# Knows the repo root, times named phases, and configures a build folder the same way every time.

BATCHODE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BATCHODE_JOBS="${BATCHODE_JOBS:-2}"  # CI and developer machines have 2 cores

# Phase timings, printed by batchode_print_timings: "name|seconds|status".
batchode_timings=()

# batchode_phase <name> <command...>: runs the command, prints how long it took, records the result.
# Returns the command's exit status.
batchode_phase() {
  local name=$1
  shift
  local start=$SECONDS status=0
  echo
  echo "==> [${name}] $*"
  "$@" || status=$?
  local elapsed=$((SECONDS - start))
  local verdict=ok
  ((status == 0)) || verdict="FAILED (exit ${status})"
  echo "<== [${name}] ${verdict} in ${elapsed}s"
  batchode_timings+=("${name}|${elapsed}|${verdict}")
  return "$status"
}

batchode_print_timings() {
  ((${#batchode_timings[@]} > 0)) || return 0
  echo
  echo "Phase timings:"
  local entry name secs verdict
  for entry in "${batchode_timings[@]}"; do
    IFS='|' read -r name secs verdict <<<"$entry"
    printf '  %-28s %6ss  %s\n' "$name" "$secs" "$verdict"
  done
}

# batchode_nvcc: prints the nvcc to use (PATH first, then /usr/local/cuda), or fails quietly.
batchode_nvcc() {
  if command -v nvcc >/dev/null 2>&1; then
    command -v nvcc
  elif [[ -x /usr/local/cuda/bin/nvcc ]]; then
    echo /usr/local/cuda/bin/nvcc
  else
    return 1
  fi
}

# batchode_sanitizer_cxx: the C++ compiler of the sanitized build: clang++ (15, hipcc's, or any on PATH)
# with its sanitizer runtime, else c++.
batchode_sanitizer_cxx() {
  local clang
  for clang in /usr/lib/llvm-15/bin/clang++ "$(command -v clang++-15 || true)" "$(command -v clang++ || true)"; do
    if [[ -n "$clang" && -x "$clang" ]] &&
      [[ -e "$("$clang" -print-file-name=libclang_rt.asan-x86_64.a)" ]]; then
      echo "$clang"
      return
    fi
  done
  command -v c++
}

# batchode_configure <build-dir> <cmake -D args...>: configures <build-dir> from the repo root.
# Ninja when available, but only for a fresh folder: an existing cache keeps its own generator.
batchode_configure() {
  local dir=$1
  shift
  local generator=()
  if [[ ! -f "${dir}/CMakeCache.txt" ]] && command -v ninja >/dev/null 2>&1; then
    generator=(-G Ninja)
  fi
  cmake -S "$BATCHODE_ROOT" -B "$dir" "${generator[@]}" "$@"
}

# batchode_build <build-dir> [cmake --build args...]
batchode_build() {
  local dir=$1
  shift
  cmake --build "$dir" --parallel "$BATCHODE_JOBS" "$@"
}

# The cuda variant's configuration, shared by test.sh (compile + link only) and nvidia_build.sh
# (binaries for the GPU machine), so that both reuse one build-cuda/ without reconfiguring.
# Static library and static cudart (BatchodeGpu.cmake): the binaries need no CUDA install to run.
BATCHODE_CUDA_ARGS=(
  -DBATCHODE_GPU=cuda -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DBATCHODE_SANITIZE=OFF
  -DBATCHODE_BUILD_TESTS=ON -DBATCHODE_BUILD_EXAMPLES=ON -DBATCHODE_BUILD_BENCHMARKS=ON
  -DBATCHODE_WARNINGS_AS_ERRORS="${BATCHODE_WARNINGS_AS_ERRORS:-ON}"
)
