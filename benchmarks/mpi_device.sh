#!/usr/bin/env bash
# benchmarks/mpi_device.sh: issue 14's measurements on a machine with 2 GPUs (the device tool's
# nvidia-h200-x2 kind), from the repository root there, with build-dev/ carried:
#   here:  bash scripts/nvidia_python.sh; cp build-cuda/cli/batchode build-dev/bin/
#          (and libhdf5_serial.so.103 into build-dev/lib-cli/ in case that machine lacks it)
#   there: OUT=<folder> bash benchmarks/mpi_device.sh
# 1. `mpirun -n 2 batchode run` on both GPUs against one process: the files equal run by run (h5py).
# 2. benchmarks/mpi_scaling.py with 1 and 2 GPU processes on a heavy sweep, then CPU processes'
#    weak scaling (1 to 16 processes of one core each), and python/tests/test_mpi.py.
set -uo pipefail
rc=0
export BATCHODE_CACHE_DIR=/tmp/bcache OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
(
  export LD_LIBRARY_PATH=$PWD/build-dev/lib
  ldd build-dev/bin/batchode | grep -q "libhdf5_serial.so.103 => not found" && export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/build-dev/lib-cli
  args=(run examples/models/lorenz.toml --sweep 'rho=linspace(26,30,1048576)' --t-end 100 --method dopri5 --backend gpu --counters)
  build-dev/bin/batchode "${args[@]}" --output /tmp/one.h5 > $OUT/cli_one.log 2>&1 || { cat $OUT/cli_one.log; exit 1; }
  mpirun -n 2 --bind-to none build-dev/bin/batchode "${args[@]}" --output /tmp/two.h5 > $OUT/cli_two.log 2>&1 || { cat $OUT/cli_two.log; exit 1; }
  grep -E "mpi_|written" $OUT/cli_two.log | head -8
  python3 - <<'PY'
import h5py, numpy
a, b = h5py.File("/tmp/one.h5", "r"), h5py.File("/tmp/two.h5", "r")
for name in ("final_state", "status", "counters", "grid/parameters"):
    assert numpy.array_equal(a[name][...], b[name][...]), name
print("mpirun -n 2 on two GPUs equals one process run by run:", a["final_state"].shape, list(b.attrs["execution"]))
PY
) || rc=1
export LD_LIBRARY_PATH=$PWD/build-dev/py/lib:$PWD/build-dev/lib
bash build-dev/py/build.sh > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
export PYTHONPATH=$PWD/build-dev/py/python
for n in 1 2; do
  mpirun -n $n --bind-to none python3 benchmarks/mpi_scaling.py --runs 4194304 --backend gpu --t-end 1000 --reps 5 \
    2>$OUT/gpu_$n.err | tail -1 | tee $OUT/gpu_$n.json
done
for n in 1 2 4 8 16; do
  mpirun -n $n --bind-to core python3 benchmarks/mpi_scaling.py --runs-per-rank 16384 --backend cpu --cpu-threads 1 \
    --reps 5 2>$OUT/cpu_$n.err | tail -1 | tee $OUT/cpu_$n.json
done
python3 -m pytest -q -rs python/tests/test_mpi.py 2>&1 | tail -2
exit $rc
