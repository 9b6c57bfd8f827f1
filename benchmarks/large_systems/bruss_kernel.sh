#!/usr/bin/env bash
# benchmarks/large_systems/bruss_kernel.sh: builds bruss_kernel.cu for each N, precision and way of
# compiling a stiff step's loops over N (annotations.hpp: full unrolling up to UNROLLED states, then
# loops unrolled LOOP_UNROLL times), side by side on the machine's cores, and runs each build on the
# GPU in turn: nvcc s, kernel ms, state-steps/s, and the checksum the variants must share.
#   bash benchmarks/large_systems/bruss_kernel.sh [N ...]          (default 32 64)
# Environment: PRECISIONS ("double float"), VARIANTS ("16:1 16:2 16:4 64:1": UNROLLED:LOOP_UNROLL pairs),
# RUNS (65536), LIMIT (s per build, 300), NVCC.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
sizes=("$@")
[[ ${#sizes[@]} -eq 0 ]] && sizes=(32 64)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
builds=()
for n in "${sizes[@]}"; do
  for t in ${PRECISIONS:-double float}; do
    for v in ${VARIANTS:-16:1 16:2 16:4 64:1}; do
      name="n${n}_${t}_${v/:/_}"
      builds+=("$name")
      (
        start=$(date +%s.%N)
        timeout "${LIMIT:-300}" "$nvcc" -O3 -arch=sm_90 -std=c++17 --expt-relaxed-constexpr -DBATCHODE_WITH_CUDA=1 \
          -I"$root/kernels/include" -I"$root/benchmarks" -DN_="$n" -DT_="$t" -DRUNS_="${RUNS:-65536}" \
          -DBATCHODE_UNROLLED_STATES="${v%%:*}" -DBATCHODE_STATE_LOOP_UNROLL="${v##*:}" \
          -o "$work/$name" "$root/benchmarks/large_systems/bruss_kernel.cu" >"$work/$name.log" 2>&1
        echo "$? $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')" >"$work/$name.built"
      ) &
    done
  done
done
wait
for name in "${builds[@]}"; do
  read -r status secs <"$work/$name.built"
  if ((status != 0)); then
    echo "$name: build failed or over the limit (status $status, $secs s): $(head -c 300 "$work/$name.log")"
    continue
  fi
  echo "$("$work/$name") nvcc_s=$secs"
done
