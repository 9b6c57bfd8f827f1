# shellcheck shell=bash
# benchmarks/large_systems/nvcc_variants.sh: sourced by the kernel benchmarks here (bruss_kernel.sh,
# lanes_kernel.sh), which build one program per variant side by side on the machine's cores and then
# run the builds one at a time on the GPU.
#   nvcc_variant NAME SOURCE [NVCC FLAGS ...]   starts NAME's build in the background (LIMIT s at most)
#   run_nvcc_variants                            waits for the builds, then runs each in the order
#                                                started: its lines with " nvcc_s=<build seconds>", or
#                                                why it did not build
# Environment: NVCC, LIMIT (s per build, 300).
nvcc_variants_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
nvcc_variants_nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
nvcc_variants_work=$(mktemp -d)
trap 'rm -rf "$nvcc_variants_work"' EXIT
nvcc_variants_names=()

nvcc_variant() {
  local name=$1 source=$2
  shift 2
  nvcc_variants_names+=("$name")
  (
    local start status
    start=$(date +%s.%N)
    timeout "${LIMIT:-300}" "$nvcc_variants_nvcc" -O3 -arch=sm_90 -std=c++17 --expt-relaxed-constexpr \
      -DBATCHODE_WITH_CUDA=1 -I"$nvcc_variants_root/kernels/include" -I"$nvcc_variants_root/benchmarks" "$@" \
      -o "$nvcc_variants_work/$name" "$source" >"$nvcc_variants_work/$name.log" 2>&1
    status=$?
    echo "$status $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')" \
      >"$nvcc_variants_work/$name.built"
  ) &
}

run_nvcc_variants() {
  wait
  local name status secs
  for name in "${nvcc_variants_names[@]}"; do
    read -r status secs <"$nvcc_variants_work/$name.built"
    if ((status != 0)); then
      echo "$name: build failed or over the limit (status $status, $secs s): $(head -c 300 "$nvcc_variants_work/$name.log")"
      continue
    fi
    "$nvcc_variants_work/$name" | sed "s/\$/ nvcc_s=$secs/"
  done
}
