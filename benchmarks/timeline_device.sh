#!/usr/bin/env bash
# benchmarks/timeline_device.sh: issue 15's measurements on the GPU machine, from binaries built here
# (ninja -C build-cuda <targets below>, as scripts/nvidia_build.sh configures build-cuda) and copied,
# stripped, into build-dev/bin with the shared libraries they need (ldd) in build-dev/lib, the NVTX
# test's injection library included; BASE=build-dev/bin/timing_overhead_base is the same benchmark
# built from the commit before the trace (822e194). Carry build-dev; run from the repository root:
#   bash benchmarks/timeline_device.sh            # writes traces and logs under $OUT
# Prints: the trace tests (GPU and NVTX), two 2^22 Lorenz timelines (float32, float64), end to end
# with the trace off and on (alternating), the kernel ratio to the hand-written kernel, and the cost
# of a TimeLogger start/stop pair against the commit before, pinned to one core, alternating.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/build-dev/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=build-dev/bin
OUT=${OUT:-/tmp/timeline-out}
mkdir -p "$OUT"
nvidia-smi -L
for t in timing_trace_gpu_test timing_gpu_test gpu_vs_cpu_test; do
  $B/$t > "$OUT/$t.log" 2>&1
  echo "$t: rc=$? $(grep -E '^\[  (PASSED|FAILED) |\[trace\]' "$OUT/$t.log" | tr '\n' ' ')"
done
NVTX_INJECTION64_PATH=$PWD/build-dev/lib/libnvtx_counting_injection.so $B/timing_nvtx_ranges_test 2>&1 | tail -1
for p in float double; do
  flag=""; [[ $p == float ]] && flag=--float
  $B/lorenz_sweep --runs 4194304 $flag --trace "$OUT/lorenz_2p22_$p.json" 2>&1 |
    grep -E "solve_ivp_execution took|timeline|succeeded"
done
for r in 1 2 3 4 5; do
  off=$($B/lorenz_sweep --runs 4194304 --float 2>&1 | grep -o "solve_ivp_execution took [0-9.]*" | awk '{print $3}')
  on=$($B/lorenz_sweep --runs 4194304 --float --trace /tmp/t.json 2>&1 | grep -o "solve_ivp_execution took [0-9.]*" | awk '{print $3}')
  echo "round $r: trace off $off ms, on $on ms"
done
$B/gpu_lorenz --reps 7 --min-log2 20 --max-log2 22 > "$OUT/gpu_lorenz.log" 2>&1
grep -E "^\| 2\^|^## " "$OUT/gpu_lorenz.log"
for r in 1 2 3 4 5 6; do
  for v in timing_overhead_base timing_overhead; do
    taskset -c 3 $B/$v --benchmark_repetitions=7 --benchmark_report_aggregates_only=true \
      --benchmark_filter='StartStop' 2>&1 | grep median | awk -v v=$v -v r=$r '{print r, v, $1, $2}'
  done
done
compute-sanitizer --tool memcheck $B/timing_trace_gpu_test 2>&1 | tail -1
