#!/usr/bin/env bash
# examples/run_lorenz_model.sh: the Lorenz sweep as a model file run by the `batchode` command line,
# with no C++ written and nothing compiled ahead: examples/models/lorenz.toml, rho over [0, 21],
# t in [0, 1], RK4 with dt = 1e-3 (examples/lorenz_sweep's sweep), written to an HDF5 file. The first
# run compiles the model (seconds); later runs load it from the cache ($BATCHODE_CACHE_DIR, else
# ~/.cache/batchode).
#
#   bash examples/run_lorenz_model.sh [OUTPUT]     (default lorenz_sweep.h5; .npy and .csv work too)
#
# Environment: BATCHODE (the binary; default build/cli/batchode), RUNS (default 65536), METHOD
# (default rk4), PRECISION (float32 | float64, default float64), BACKEND (auto | cpu | gpu, default
# auto). Read the file with h5py: f["final_state"] (runs x states), f["grid/parameters"], f.attrs.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
batchode=${BATCHODE:-$root/build/cli/batchode}
output=${1:-lorenz_sweep.h5}
if [[ ! -x "$batchode" ]]; then
  echo "run_lorenz_model: no batchode binary at $batchode; build it (cmake --build build --target batchode_cli)" \
       "or set BATCHODE" >&2
  exit 1
fi

"$batchode" check "$root/examples/models/lorenz.toml" >/dev/null  # a bad model stops here, with file:line:col
"$batchode" run "$root/examples/models/lorenz.toml" \
  --sweep "rho=linspace(0, 21, ${RUNS:-65536})" \
  --t-end 1 --method "${METHOD:-rk4}" --dt 1e-3 \
  --precision "${PRECISION:-float64}" --backend "${BACKEND:-auto}" \
  --output "$output"
