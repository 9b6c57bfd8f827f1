#!/usr/bin/env bash
# benchmarks/large_systems/register_use.sh: for each workload, precision and N, the batch kernel's
# registers, stack frame and spills as ptxas reports them, and nvcc's time to build it (one kernel per
# build; register_use.cu says what is built). Needs nvcc (no GPU). A markdown table on stdout.
#   bash benchmarks/large_systems/register_use.sh [N ...]     (default 4 8 16 32 64 128 256)
# Environment: WORKLOADS ("lorenz96 bruss bruss_dense": the Brusselator with its declared band, and
# without, kernels/linalg/band.hpp), PRECISIONS ("float double"), LIMIT (s per build, 600), BRUSS_MAX (largest N
# for the dense Brusselator, 64: its rodas4 build grows fastest).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
sizes=("$@")
[[ ${#sizes[@]} -eq 0 ]] && sizes=(4 8 16 32 64 128 256)
limit=${LIMIT:-600}
bruss_max=${BRUSS_MAX:-64}
echo "| workload | precision | N | registers | stack frame bytes | spill stores bytes | spill loads bytes | nvcc s |"
echo "|---|---|---|---|---|---|---|---|"
for workload in ${WORKLOADS:-lorenz96 bruss bruss_dense}; do
  band=1
  case $workload in
    lorenz96) w=1 ;;
    bruss) w=2 ;;
    bruss_dense) w=2 band=0 ;;
    *) echo "unknown workload $workload" >&2; exit 2 ;;
  esac
  for t in ${PRECISIONS:-float double}; do
    for n in "${sizes[@]}"; do
      [[ $workload == bruss_dense && $n -gt $bruss_max ]] && continue
      start=$(date +%s.%N)
      out=$(timeout "$limit" "$nvcc" -O3 -arch=sm_90 -std=c++17 --expt-relaxed-constexpr -DBATCHODE_WITH_CUDA=1 \
        -I"$root/kernels/include" -I"$root/benchmarks" -DN_="$n" -DT_="$t" -DWORKLOAD_=$w -DBAND_=$band -Xptxas -v -c -o /dev/null \
        "$root/benchmarks/large_systems/register_use.cu" 2>&1)
      status=$?
      secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
      if ((status != 0)); then
        echo "| $workload | $t | $n | (build failed or over ${limit} s: status $status) | | | | $secs |"
        continue
      fi
      regs=$(grep -o 'Used [0-9]* registers' <<<"$out" | grep -o '[0-9]*' | tail -1)
      # The kernel's own line: two after "Compiling entry function" (its "Function properties", then this).
      read -r stack stores loads < <(grep -A2 'Compiling entry function' <<<"$out" |
        grep -o '[0-9]* bytes stack frame, [0-9]* bytes spill stores, [0-9]* bytes spill loads' |
        tail -1 | awk '{print $1, $5, $9}')
      echo "| $workload | $t | $n | $regs | $stack | $stores | $loads | $secs |"
    done
  done
done
