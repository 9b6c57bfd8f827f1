#!/usr/bin/env bash
# benchmarks/large_systems/lanes_kernel.sh: builds lanes_kernel.cu for each N, precision and method side
# by side on the machine's cores, then runs each build on the GPU in turn: for every lane count, the
# kernel ms, state-steps/s and the values that differ from one thread per run (lanes_kernel.cu).
#   bash benchmarks/large_systems/lanes_kernel.sh [N ...]          (default 4 8 16 32 64 128)
# Environment: PRECISIONS ("double float"), METHODS ("Rk4 Dopri5"), RUNS (262144), LIMIT (s per build,
# 300), NVCC, EXTRA (more nvcc flags, e.g. -DBATCHODE_LANE_WORDS=96).
set -uo pipefail
# shellcheck source=benchmarks/large_systems/nvcc_variants.sh
source "$(dirname "${BASH_SOURCE[0]}")/nvcc_variants.sh"
sizes=("$@")
[[ ${#sizes[@]} -eq 0 ]] && sizes=(4 8 16 32 64 128)
for n in "${sizes[@]}"; do
  for t in ${PRECISIONS:-double float}; do
    for m in ${METHODS:-Rk4 Dopri5}; do
      # shellcheck disable=SC2086
      nvcc_variant "n${n}_${t}_${m}" "$nvcc_variants_root/benchmarks/large_systems/lanes_kernel.cu" \
        -DN_="$n" -DT_="$t" -DMETHOD_="$m" -DRUNS_="${RUNS:-262144}" ${EXTRA:-}
    done
  done
done
run_nvcc_variants
