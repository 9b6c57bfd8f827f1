#!/usr/bin/env bash
# benchmarks/large_systems/bruss_kernel.sh: builds bruss_kernel.cu for each N, precision and variant,
# side by side on the machine's cores, and runs each build on the GPU in turn: nvcc s, kernel ms,
# state-steps/s, and the checksum and bits (FNV hash of the final states) the variants must share.
#   bash benchmarks/large_systems/bruss_kernel.sh [N ...]          (default 32 64)
# The variants: the ways of compiling a stiff step's loops over N (annotations.hpp: full unrolling up to
# UNROLLED states, then loops unrolled LOOP_UNROLL times), or, with AD_GROUPS set, the dense Jacobian by
# AD in column groups (jacobian.hpp's dense_ad_columns; the band undeclared) for each group size given
# and N (one call with every column, the layout before groups), beside the band declared:
#   AD_GROUPS="4 8 16" bash benchmarks/large_systems/bruss_kernel.sh 32 64
# Environment: PRECISIONS ("double float"), VARIANTS ("16:1 16:2 16:4 64:1": UNROLLED:LOOP_UNROLL pairs),
# AD_GROUPS (not GROUPS, which bash sets), RUNS (65536), LIMIT (s per build, 300), NVCC.
set -uo pipefail
# shellcheck source=benchmarks/large_systems/nvcc_variants.sh
source "$(dirname "${BASH_SOURCE[0]}")/nvcc_variants.sh"
sizes=("$@")
[[ ${#sizes[@]} -eq 0 ]] && sizes=(32 64)
source_file="$nvcc_variants_root/benchmarks/large_systems/bruss_kernel.cu"
for n in "${sizes[@]}"; do
  for t in ${PRECISIONS:-double float}; do
    common=(-DN_="$n" -DT_="$t" -DRUNS_="${RUNS:-65536}")
    if [[ -n "${AD_GROUPS:-}" ]]; then
      nvcc_variant "n${n}_${t}_band" "$source_file" "${common[@]}" -DBAND_=1
      for g in $AD_GROUPS "$n"; do
        nvcc_variant "n${n}_${t}_dense_g${g}" "$source_file" "${common[@]}" -DBAND_=0 -DBATCHODE_DENSE_AD_COLUMNS="$g"
      done
      continue
    fi
    for v in ${VARIANTS:-16:1 16:2 16:4 64:1}; do
      nvcc_variant "n${n}_${t}_${v/:/_}" "$source_file" "${common[@]}" -DBATCHODE_UNROLLED_STATES="${v%%:*}" \
        -DBATCHODE_STATE_LOOP_UNROLL="${v##*:}"
    done
  done
done
run_nvcc_variants
