#!/usr/bin/env bash
# benchmarks/large_systems/program_build.sh: the build time of a user's program whose system has 64
# states (program_build.cpp), with every method and with compiled_methods = {rodas4}: each object built
# from scratch with the build folder's GPU compiler, one at a time (each build is one compiler process).
#   bash benchmarks/large_systems/program_build.sh [build-folder]     (default build-cuda)
# Then run the two programs on a GPU (they check GPU against CPU run by run).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build-cuda}
for variant in one all; do
  target=program_build_$variant
  # The libraries first, untimed; then the program's own object, timed, and its link.
  ninja -C "$build" batchode >/dev/null
  object=$(ninja -C "$build" -t targets all | grep -o "benchmarks/CMakeFiles/$target.dir/[^:]*\.o" | head -1)
  rm -f "$build/$object"
  start=$(date +%s.%N)
  ninja -C "$build" "$object" >/dev/null
  compiled=$(date +%s.%N)
  ninja -C "$build" "$target" >/dev/null
  done_at=$(date +%s.%N)
  awk -v v="$variant" -v a="$start" -v b="$compiled" -v c="$done_at" \
    'BEGIN { printf "program_build_%s: compile %.1f s, link %.1f s\n", v, b - a, c - b }'
done
