#!/usr/bin/env bash
# scripts/main_job.sh: README command 1. Installs the dependencies, builds batchode (Release, GPU
# backend auto unless BATCHODE_GPU says otherwise) into build/, and runs the main example,
# build/examples/lorenz_sweep, passing on any arguments: bash scripts/main_job.sh [args...]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$BATCHODE_ROOT"
trap batchode_print_timings EXIT

batchode_phase deps bash scripts/install_deps.sh
# Warnings-as-errors OFF here (test.sh turns it ON): a new compiler warning must not stop the demo.
batchode_phase configure batchode_configure build -DCMAKE_BUILD_TYPE=Release \
  -DBATCHODE_GPU="${BATCHODE_GPU:-auto}" -DBATCHODE_SANITIZE=OFF -DBATCHODE_WARNINGS_AS_ERRORS=OFF
batchode_phase build batchode_build build --target lorenz_sweep
batchode_phase lorenz_sweep build/examples/lorenz_sweep "$@"
