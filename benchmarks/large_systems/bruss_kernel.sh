#!/usr/bin/env bash
# benchmarks/large_systems/bruss_kernel.sh: builds bruss_kernel.cu for each N, precision and way of
# compiling a stiff step's loops over N (annotations.hpp: full unrolling up to UNROLLED states, then
# loops unrolled LOOP_UNROLL times), side by side on the machine's cores, and runs each build on the
# GPU in turn: nvcc s, kernel ms, state-steps/s, and the checksum the variants must share.
#   bash benchmarks/large_systems/bruss_kernel.sh [N ...]          (default 32 64)
# Environment: PRECISIONS ("double float"), VARIANTS ("16:1 16:2 16:4 64:1": UNROLLED:LOOP_UNROLL pairs),
# RUNS (65536), LIMIT (s per build, 300), NVCC.
set -uo pipefail
# shellcheck source=benchmarks/large_systems/nvcc_variants.sh
source "$(dirname "${BASH_SOURCE[0]}")/nvcc_variants.sh"
sizes=("$@")
[[ ${#sizes[@]} -eq 0 ]] && sizes=(32 64)
for n in "${sizes[@]}"; do
  for t in ${PRECISIONS:-double float}; do
    for v in ${VARIANTS:-16:1 16:2 16:4 64:1}; do
      nvcc_variant "n${n}_${t}_${v/:/_}" "$nvcc_variants_root/benchmarks/large_systems/bruss_kernel.cu" \
        -DN_="$n" -DT_="$t" -DRUNS_="${RUNS:-65536}" -DBATCHODE_UNROLLED_STATES="${v%%:*}" \
        -DBATCHODE_STATE_LOOP_UNROLL="${v##*:}"
    done
  done
done
run_nvcc_variants
