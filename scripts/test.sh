#!/usr/bin/env bash
# scripts/test.sh: README command 2, and what CI runs (through .ci/run). Installs the dependencies,
# then builds and tests up to three variants, each in its own folder:
#   main  build/       default backend (auto: hip on Debian with hipcc, for gfx90a only), Release,
#                      warnings as errors; the library, command line, Python module, examples,
#                      benchmarks, header checks and GPU tests (they skip visibly where no GPU is
#                      usable), and the tests asan cannot run: Python, packages (each consumer route
#                      once, BATCHODE_CONSUMER_TESTS=routes), MPI, those too slow under the sanitizers,
#                      and those whose answer depends on the build (EVERY_BUILD). Where asan is not
#                      among the variants, every CPU test too (BATCHODE_CPU_TESTS). Then the
#                      documentation: scripts/build_docs.sh (phase main:docs)
#   asan  build-asan/  CPU only (BATCHODE_GPU=off), AddressSanitizer + UBSan at -O0, warnings as
#                      errors: the CPU tests, ctest -L cpu (no header checks: main compiles them)
#   cuda  build-cuda-check/  BATCHODE_GPU=cuda with nvcc, compiled and linked only (no GPU here): the
#                      targets nvcc builds and the libraries (batchode_gpu_compiled; the host tests
#                      are asan's and main's, examples and benchmarks nvidia_build.sh's), device code
#                      as PTX only and host code at -O0; skipped with a visible line where nvcc is
#                      missing
# Default: all three (locally and with CI=true). Choose with
#   BATCHODE_QUICK=1 or --quick                  main only (ignored when CI=true)
#   BATCHODE_TEST_VARIANTS="main asan" or --variants main,asan
# Every phase is timed; the last line sums the tests: "batchode: N passed, N failed, N skipped".
# Variants are independent: a failing one does not stop the next; the exit status is 1 if any failed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$BATCHODE_ROOT"

variants="${BATCHODE_TEST_VARIANTS:-main asan cuda}"
if [[ "${BATCHODE_QUICK:-0}" == 1 && "${CI:-}" != true && -z "${BATCHODE_TEST_VARIANTS:-}" ]]; then
  variants=main
fi
while (($# > 0)); do
  case $1 in
    --quick) variants=main ;;
    --variants) variants=${2//,/ }; shift ;;
    --variants=*) variants=${1#--variants=}; variants=${variants//,/ } ;;
    -h | --help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "test.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done
for variant in $variants; do
  case $variant in
    main | asan | cuda) ;;
    *) echo "test.sh: unknown variant '$variant' (main, asan, cuda)" >&2; exit 2 ;;
  esac
done

tests_passed=0 tests_failed=0 tests_skipped=0
failed_variants=()

# The models the tests compile at run time (runtime model, command-line and Python tests) are built at
# -O0, after batchode's own -O3 (solver/systems' BATCHODE_MODEL_CXXFLAGS): the same bits (no -march, so
# no contraction into FMAs), a fraction of the host compiler's time.
export BATCHODE_MODEL_CXXFLAGS=${BATCHODE_MODEL_CXXFLAGS--O0}

# run_ctest <build-dir> [ctest args...]: runs CTest with its log in <build-dir>/ctest.log, adds its
# counts to the totals, and fails when it fails or when it ran no test at all.
run_ctest() {
  local dir=$1
  shift
  local log="$dir/ctest.log" status=0
  ctest --test-dir "$dir" --output-on-failure --no-tests=error -j "$BATCHODE_JOBS" "$@" 2>&1 | tee "$log" ||
    status=$?
  # CTest's summary: "100% tests passed, 0 tests failed out of 42" (CTest 4 drops ", 0 tests
  # failed"); skipped tests count as passed there and are listed as "... (Skipped)" under "The
  # following tests did not run:".
  local total failed skipped
  total=$(sed -n 's/.*% tests passed.* out of \([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)
  failed=$(sed -n 's/.* \([0-9][0-9]*\) tests failed out of .*/\1/p' "$log" | tail -n 1)
  failed=${failed:-0}
  skipped=$(grep -c '(Skipped)$' "$log" || true)
  if [[ -z "$total" || "$total" -eq 0 ]]; then
    echo "test.sh: CTest in $dir ran no test" >&2
    return 1
  fi
  tests_failed=$((tests_failed + failed))
  tests_skipped=$((tests_skipped + skipped))
  tests_passed=$((tests_passed + total - failed - skipped))
  if ((skipped > 0)); then
    echo "test.sh: $skipped of $total tests in $dir skipped (GPU tests skip where no GPU is usable)"
  fi
  return "$status"
}

# Each variant: its phases in order, stopping at the first that fails.
variant_main() {
  # The GPU tests (at -O0) and examples with their device code to LLVM IR only, where no AMD GPU could
  # run them (cmake/BatchodeCompileOnly.cmake: the GPU tests were a quarter of the build).
  local gpu_compile_only=ON
  [[ -e /dev/kfd ]] && gpu_compile_only=OFF
  gpu_compile_only=${BATCHODE_GPU_COMPILE_ONLY:-$gpu_compile_only}
  # One AMD target and each consumer route once: nothing runs on an AMD GPU here, so compiling the
  # device code twice, or batchode four more times for the consumers, would check little more and
  # cost CI a quarter of its hour; and those copies at -O0 (tests/CMakeLists.txt's
  # BATCHODE_PACKAGE_TESTS_OPTIMIZATION). The CPU tests' own sources at -O0
  # (tests/CMakeLists.txt: the same bits, 60 % less compile time than -O3;
  # BATCHODE_CPU_TESTS_OPTIMIZATION= gives the build type's), from one precompiled header
  # (tests/CMakeLists.txt: GoogleTest and batchode.hpp parsed once).
  # The GPU benchmarks are nvidia_build.sh's (they run on NVIDIA machines only); the CPU benchmarks
  # are built here.
  # The CPU tests where asan does not build and run them (tests/CMakeLists.txt: the same sources
  # compiled and run twice were a third of CI's hour).
  local cpu_tests=ON
  [[ " $variants " == *" asan "* ]] && cpu_tests=OFF
  # ccache (Debian's) under this variant's C++ compiles and the builds its tests make: pip install's
  # build of the Python package (python_pip_install) compiles the library with this build's backend
  # and flags, so its ~80 compiles are the cache's (236 -> 30 s). Depend mode: the key is the
  # sources and the headers the compiler's -MD lists, with no preprocessor run, so a miss costs
  # little. The cache is in build/ccache (a fresh build folder starts with an empty one); CMake reads
  # the launcher from the environment when it first configures a folder.
  if command -v ccache >/dev/null 2>&1; then
    local -x CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_DIR="$BATCHODE_ROOT/build/ccache" CCACHE_DEPEND=1 \
      CCACHE_MAXSIZE=2G
  fi
  batchode_phase main:configure batchode_configure build -DCMAKE_BUILD_TYPE=Release \
    -DBATCHODE_GPU="${BATCHODE_GPU:-auto}" -DBATCHODE_WARNINGS_AS_ERRORS=ON -DBATCHODE_SANITIZE=OFF \
    -DBATCHODE_BUILD_TESTS=ON -DBATCHODE_BUILD_EXAMPLES=ON -DBATCHODE_BUILD_BENCHMARKS=ON \
    -DBATCHODE_BUILD_GPU_BENCHMARKS=OFF \
    -DBATCHODE_HIP_ARCHITECTURES="${BATCHODE_HIP_ARCHITECTURES:-gfx90a}" \
    -DBATCHODE_CONSUMER_TESTS="${BATCHODE_CONSUMER_TESTS:-routes}" \
    -DBATCHODE_PACKAGE_TESTS_OPTIMIZATION="${BATCHODE_PACKAGE_TESTS_OPTIMIZATION--O0}" \
    -DBATCHODE_GPU_COMPILE_ONLY="$gpu_compile_only" \
    -DBATCHODE_CPU_TESTS="${BATCHODE_CPU_TESTS:-$cpu_tests}" \
    -DBATCHODE_CPU_TESTS_OPTIMIZATION="${BATCHODE_CPU_TESTS_OPTIMIZATION--O0}" \
    -DBATCHODE_TESTS_PRECOMPILED_HEADER="${BATCHODE_TESTS_PRECOMPILED_HEADER:-ON}" &&
    batchode_phase main:build batchode_build build || return 1
  local status=0
  batchode_phase main:ctest run_ctest build || status=1
  # The documentation (scripts/build_docs.sh: Doxygen and Sphinx, warnings and dead links fail it;
  # 10 s with the Python module this build made), whether or not a test failed, so that neither
  # failure hides the other.
  batchode_phase main:docs bash scripts/build_docs.sh || status=1
  return "$status"
}

variant_asan() {
  # -O0: the sanitized build was CI's longest phase, and -O1 nearly doubles its compile time
  # (accuracy_test.cpp alone: 147 s at -O0, 280 s at -O1, 2 cores). At -O0 the whole variant builds in
  # 15 min here and its tests take 6-7 min; tests that integrate long runs are sized for it
  # (stop_request_test). -g1 gives line numbers.
  # clang where there is one (hipcc's, installed with the HIP dependencies): it builds the sanitized
  # tests in 40 % of g++'s time (odeint_reference_test.cpp: 27 s against 65 s, 2 cores); g++ else.
  # The tests from one precompiled header (a quarter of a source's time), warnings as errors (this
  # variant is the only one that compiles most tests).
  local cxx
  cxx=$(batchode_sanitizer_cxx)
  batchode_phase asan:configure batchode_configure build-asan -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" -DBATCHODE_GPU=off -DBATCHODE_SANITIZE=ON \
    -DBATCHODE_WARNINGS_AS_ERRORS=ON -DBATCHODE_BUILD_TESTS=ON -DBATCHODE_BUILD_EXAMPLES=OFF \
    -DBATCHODE_TESTS_PRECOMPILED_HEADER="${BATCHODE_TESTS_PRECOMPILED_HEADER:-ON}" \
    -DBATCHODE_BUILD_BENCHMARKS=OFF -DBATCHODE_CHECK_HEADERS=OFF &&
    batchode_phase asan:build batchode_build build-asan &&
    ASAN_OPTIONS="detect_leaks=1:detect_stack_use_after_return=1:strict_init_order=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
      UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}" \
      batchode_phase asan:ctest run_ctest build-asan -L cpu
}


variant_cuda() {
  local nvcc
  if ! nvcc=$(batchode_nvcc); then
    echo
    echo "==> [cuda] SKIPPED: no nvcc (PATH or /usr/local/cuda/bin); the cuda variant was not built"
    return 0
  fi
  # Compile + link only, so what would only cost time is left out: ptxas (compute_90 PTX, no sm_90
  # code) and the host optimiser (-O0; nvcc's -O is the host compiler's, the device code is
  # optimised by cicc either way). gpu_vs_cpu_test.cpp took 312 s with sm_90 and -O3 (cicc 99 s,
  # ptxas 35 s, host g++ 167 s; 2 cores). Its own folder: nvidia_build.sh's build-cuda/ keeps sm_90
  # and -O3 for the binaries that run on the GPU machine.
  batchode_phase cuda:configure batchode_configure build-cuda-check "${BATCHODE_CUDA_ARGS[@]}" \
    -DBATCHODE_CUDA_ARCHITECTURES=90-virtual -DCMAKE_CUDA_FLAGS_RELEASE="-O0 -DNDEBUG" \
    -DCMAKE_CXX_FLAGS_RELEASE="-O0 -DNDEBUG" &&
    batchode_phase cuda:build batchode_build build-cuda-check --target batchode_gpu_compiled &&
    echo "==> [cuda] built with $nvcc: compile + link only. Its GPU tests are NOT run here (no NVIDIA" \
      "GPU); run them with scripts/nvidia_build.sh and scripts/nvidia_run.sh (docs/guide/installing.md)."
}

batchode_phase deps bash scripts/install_deps.sh
echo "test.sh: variants: $variants (jobs: $BATCHODE_JOBS)"
# The three folders take ~7 GB (build/ 2, build-asan/ 4.5, build-cuda-check/ 0.2, the test caches in
# them included); a full disk showed only as compilers failing to write (CI, stop 64), so say it first.
free_kib=$(df -Pk "$BATCHODE_ROOT" | awk 'NR == 2 {print $4}')
echo "test.sh: $((free_kib / 1048576)) GiB free on the disk of $BATCHODE_ROOT"
if [[ "$free_kib" =~ ^[0-9]+$ ]] && ((free_kib < 8 * 1048576)); then
  echo "test.sh: WARNING: under 8 GiB free; the three variants need about 7 GiB" >&2
fi
for variant in $variants; do
  "variant_$variant" || failed_variants+=("$variant")
done

batchode_print_timings
if ((${#failed_variants[@]} > 0)); then
  echo "test.sh: FAILED variants: ${failed_variants[*]}"
fi
echo "batchode: $tests_passed passed, $tests_failed failed, $tests_skipped skipped"
((${#failed_variants[@]} == 0))
