#!/usr/bin/env bash
# benchmarks/large_systems.sh: how the GPU path holds as the state count N grows (issue 13, "measure
# first"): models written as text and run by the `batchode` command line (NVRTC builds each kernel on
# first use), so no C++ program has to be compiled per N. Two workloads:
#   lorenz96  N states, dx_i = (x_{i+1} - x_{i-2}) x_{i-1} - x_i + F; explicit (rk4, dt 1e-3, t in [0, 1]:
#             1000 steps), a sweep of F in [7, 9]
#   bruss     the 1-D Brusselator (Hairer & Wanner's BRUSS), N = 2 M states (u_i, v_i on a grid of M
#             points, alpha = 1/50): stiff as M^2 grows; rodas4, rtol = atol = 1e-6, t in [0, 1], a
#             sweep of A in [0.9, 1.1]
# For each N, precision and workload: the model's compile time (first solve: the kernel built) and the
# kernel time and wall time (solve_ivp_execution: transfers and all) of a second solve (cache hit), from
# the command line's verbose timing; state-steps/s from the kernel time (bruss: N times the accepted
# steps its HDF5 counters sum to, read with python3 and h5py where they are).
#
#   bash benchmarks/large_systems.sh [RUNS] [N ...]      (default 65536 runs; N = 4 8 16 32 64 128 256)
#
# Environment: BATCHODE (the binary; default build-cuda/cli/batchode), PYTHON (python3), WORKLOADS ("lorenz96 bruss"),
# PRECISIONS ("float32 float64"), LIMIT (seconds per solve, default 300), BACKEND (default gpu).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
batchode=${BATCHODE:-$root/build-cuda/cli/batchode}
runs=${1:-65536}
shift || true
sizes=("$@")
[[ ${#sizes[@]} -eq 0 ]] && sizes=(4 8 16 32 64 128 256)
limit=${LIMIT:-300}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

lorenz96() {  # N
  local n=$1 i
  echo 'name = "lorenz96"'
  echo 'equations = """'
  for ((i = 0; i < n; ++i)); do
    echo "dx$i = (x$(((i + 1) % n)) - x$(((i - 2 + n) % n))) * x$(((i - 1 + n) % n)) - x$i + F"
  done
  echo '"""'
  echo '[states]'
  for ((i = 0; i < n; ++i)); do echo "x$i = $([[ $i -eq 0 ]] && echo 8.01 || echo 8.0)"; done
  echo '[parameters]'
  echo 'F = 8.0'
}

bruss() {  # N (even): M = N / 2 grid points, u_0 = u_{M+1} = 1, v_0 = v_{M+1} = 3
  local m=$(($1 / 2)) i
  local c
  c=$(awk -v m="$m" 'BEGIN { printf "%.17g", (m + 1) * (m + 1) / 50.0 }')
  echo 'name = "bruss"'
  echo 'equations = """'
  local ul ur vl vr
  for ((i = 1; i <= m; ++i)); do
    ul="u$((i - 1))" vl="v$((i - 1))" ur="u$((i + 1))" vr="v$((i + 1))"
    [[ $i -eq 1 ]] && ul=1.0 vl=3.0
    [[ $i -eq $m ]] && ur=1.0 vr=3.0
    echo "du$i = A + u$i * u$i * v$i - 4.0 * u$i + $c * ($ul - 2.0 * u$i + $ur)"
    echo "dv$i = 3.0 * u$i - u$i * u$i * v$i + $c * ($vl - 2.0 * v$i + $vr)"
  done
  echo '"""'
  echo '[states]'
  for ((i = 1; i <= m; ++i)); do
    awk -v i="$i" -v m="$m" 'BEGIN { printf "u%d = %.17g\nv%d = 3.0\n", i, 1 + sin(2 * 3.14159265358979 * i / (m + 1)), i }'
  done
  echo '[parameters]'
  echo 'A = 1.0'
}

# The accepted steps of the last bruss solve, summed over its runs (- without python3 and h5py).
accepted_steps() {
  "${PYTHON:-python3}" -c 'import sys, h5py; f = h5py.File(sys.argv[1], "r"); print(int(f["counters"][:, 0].sum()))' \
    "$work/out.h5" 2>/dev/null || echo -
}

# One solve; prints "<compile ms> <kernel gpu ms>" from the verbose timing (- where absent).
solve() {  # model workload precision
  local model=$1 workload=$2 precision=$3 out
  local args=(--t-end 1 --precision "$precision" --backend "${BACKEND:-gpu}" --verbosity verbose)
  if [[ $workload == lorenz96 ]]; then
    args+=(--sweep "F=linspace(7,9,$runs)" --method rk4 --dt 1e-3 --output "$work/out.npy")
  else
    # Counters (HDF5 only): the state-steps of an adaptive solve are N times its accepted steps.
    args+=(--sweep "A=linspace(0.9,1.1,$runs)" --method rodas4 --rtol 1e-6 --atol 1e-6 --counters
      --output "$work/out.h5")
  fi
  out=$(timeout "$limit" "$batchode" run "$model" "${args[@]}" 2>&1)
  local rc=$?
  if [[ $rc -ne 0 ]]; then
    echo "failed(rc=$rc: $(echo "$out" | grep -m1 -iE 'error|batchode:' | cut -c1-80))"
    return
  fi
  # The table's rows: compile events (total ms), the kernel launches' GPU ms and the solve's wall ms.
  echo "$out" | awk '
    $1 ~ /compile$/ && $2 ~ /^[0-9]+$/ { c += $3 }
    $1 == "kernel_launch" && $2 ~ /^[0-9]+$/ { g += $NF }  # (its GPU ms: the last column)
    $1 == "solve_ivp_execution" && $2 ~ /^[0-9]+$/ { w += $3 }
    END { printf "%s %s %s\n", (c > 0 ? sprintf("%.0f", c) : "-"), (g > 0 ? sprintf("%.2f", g) : "-"),
                 (w > 0 ? sprintf("%.2f", w) : "-") }'
}

export BATCHODE_CACHE_DIR=${BATCHODE_CACHE_DIR:-$work/cache}
echo "| workload | N | precision | first solve: compile ms | second solve: kernel ms | second solve: solve ms | state-steps/s |"
echo "|---|---|---|---|---|---|---|"
for workload in ${WORKLOADS:-lorenz96 bruss}; do
  for n in "${sizes[@]}"; do
    "$workload" "$n" > "$work/$workload$n.toml"
    for precision in ${PRECISIONS:-float32 float64}; do
      read -r compile _ _ <<< "$(solve "$work/$workload$n.toml" "$workload" "$precision")"
      read -r _ kernel wall <<< "$(solve "$work/$workload$n.toml" "$workload" "$precision")"
      rate=-
      if [[ $workload == lorenz96 && $kernel != - && $kernel != failed* ]]; then
        rate=$(awk -v r="$runs" -v n="$n" -v ms="$kernel" 'BEGIN { printf "%.3g", r * n * 1000 / (ms * 1e-3) }')
      elif [[ $workload == bruss && $kernel != - && $kernel != failed* ]]; then
        steps=$(accepted_steps)
        [[ $steps != - ]] && rate=$(awk -v s="$steps" -v n="$n" -v ms="$kernel" 'BEGIN { printf "%.3g", s * n / (ms * 1e-3) }')
      fi
      echo "| $workload | $n | $precision | $compile | $kernel | ${wall:--} | $rate |"
    done
  done
done
