#!/usr/bin/env bash
# scripts/nvidia_build.sh: builds the cuda variant HERE (nvcc, no GPU needed) into build-cuda/, for
# running on an NVIDIA GPU machine with scripts/nvidia_run.sh. Release, tests, examples and
# benchmarks; static batchode and static cudart (BatchodeGpu.cmake), GoogleTest linked statically.
# Debian ships {fmt} and Google Benchmark as shared libraries only, so every shared library the
# binaries need beyond glibc and the C++ runtime is copied into build-cuda/runtime-libs/, which
# nvidia_run.sh puts on LD_LIBRARY_PATH: the GPU machine needs no Debian package.
# Usage: bash scripts/nvidia_build.sh   (BATCHODE_WARNINGS_AS_ERRORS=OFF to build despite warnings)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$BATCHODE_ROOT"
trap batchode_print_timings EXIT

if ! nvcc=$(batchode_nvcc); then
  echo "nvidia_build.sh: nvcc not found (PATH or /usr/local/cuda/bin); it is not a Debian package" >&2
  exit 1
fi
echo "nvidia_build.sh: using $nvcc"

# Copies into <dir> each shared library that the ELF files given need and that the GPU machine may
# lack. Skipped: glibc's own libraries (the GPU machine's glibc is as new or newer), and libstdc++ /
# libgcc_s, which every Linux has and which must stay the system's (ctest there loads them too).
# libcuda comes from the GPU machine's driver; cudart is linked statically.
copy_runtime_libs() {
  local dir=$1
  shift
  rm -rf "$dir" && mkdir -p "$dir" || return
  local missing
  missing=$(ldd "$@" 2>/dev/null | grep 'not found' | sort -u || true)
  if [[ -n "$missing" ]]; then
    echo "nvidia_build.sh: unresolved shared libraries:" >&2
    echo "$missing" >&2
    return 1
  fi
  local libs
  libs=$(ldd "$@" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1 " " $3}' | sort -u |
    grep -Ev '^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libutil|libstdc\+\+|libgcc_s|libcuda|libnvidia)[.-]' ||
    true)
  [[ -z "$libs" ]] && { echo "  (none needed)"; return 0; }
  local soname path
  while read -r soname path; do
    cp -L "$path" "$dir/$soname" || return
    echo "  $soname  <- $path"
  done <<<"$libs"
}

batchode_phase deps bash scripts/install_deps.sh
batchode_phase configure batchode_configure build-cuda "${BATCHODE_CUDA_ARGS[@]}"
batchode_phase build batchode_build build-cuda

mapfile -t binaries < <(find build-cuda/tests build-cuda/benchmarks build-cuda/examples \
  -path '*/CMakeFiles' -prune -o -type f -perm -u+x -print 2>/dev/null |
  while read -r f; do [[ $(head -c 4 "$f" | od -An -c | tr -d ' ') == 177ELF ]] && echo "$f"; done)
if ((${#binaries[@]} == 0)); then
  echo "nvidia_build.sh: no test, benchmark or example binaries found in build-cuda/" >&2
  exit 1
fi
echo "nvidia_build.sh: ${#binaries[@]} binaries; shared libraries copied to build-cuda/runtime-libs/:"
batchode_phase runtime-libs copy_runtime_libs build-cuda/runtime-libs "${binaries[@]}"

# The device tool carries at most 64 MiB of working tree (carried paths included).
size_kib=$(du -sk build-cuda | cut -f1)
echo "nvidia_build.sh: build-cuda/ is $((size_kib / 1024)) MiB"
if ((size_kib > 56 * 1024)); then
  echo "nvidia_build.sh: WARNING: build-cuda/ is close to or over the 64 MiB carry limit;" \
    "object files (build-cuda/**/CMakeFiles/*.o) are not needed to run and can be deleted" >&2
fi
echo "nvidia_build.sh: now run on the GPU machine, from the repo root with build-cuda/ carried:"
echo "  bash scripts/nvidia_run.sh [benchmark-filter]"
