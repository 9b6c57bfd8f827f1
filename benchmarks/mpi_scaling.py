#!/usr/bin/env python3
"""One batch over MPI processes (issue 14): weak scaling with CPU ranks, and GPU ranks on a node.

    # weak scaling: each process one CPU core and a fixed share of runs
    mpiexec -n K python3 benchmarks/mpi_scaling.py --runs-per-rank 65536 --backend cpu --cpu-threads 1
    # a fixed batch over K processes, one GPU each (for_local_rank), against one process
    mpiexec -n K python3 benchmarks/mpi_scaling.py --runs 4194304 --backend gpu

The Lorenz model of examples/models/lorenz.toml, rho = linspace(26, 30, runs) (--rho), dopri5 at rtol = atol =
1e-6 on [0, --t-end], final states only, gathered to rank 0 (or --output FILE.h5: written by all).
Every process builds the same grid; a barrier starts each solve and the wall time is rank 0's from
the barrier to the results on rank 0 (a gather waits for the slowest process). The first solve is a
warm-up (it calibrates the cost model that sizes the shares, and compiles the model). Prints, on rank
0, the median wall time over --reps solves, each event's median total on the slowest process, the
imbalance of the local solves, and the bytes gathered per run.
"""

import argparse
import json
import os
import statistics
import time

import numpy
from mpi4py import MPI

import batchode

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "..", "examples", "models", "lorenz.toml")


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--runs-per-rank", type=int, default=0, help="weak scaling: runs = this x processes")
    a.add_argument("--runs", type=int, default=0, help="a fixed batch over the processes")
    a.add_argument("--t-end", type=float, default=10.0)
    a.add_argument("--rho", type=float, nargs=2, default=(26.0, 30.0),
                   help="rho = linspace(lo, hi, runs): a narrow chaotic band costs about the same per run, so "
                        "equal shares finish together (an uneven sweep's contiguous shares would not: issue 18)")
    a.add_argument("--method", default="dopri5")
    a.add_argument("--precision", default="float64")
    a.add_argument("--backend", default="cpu")
    a.add_argument("--cpu-threads", type=int, default=1)
    a.add_argument("--reps", type=int, default=5)
    a.add_argument("--output", default=None)
    args = a.parse_args()
    comm = MPI.COMM_WORLD
    runs = args.runs if args.runs > 0 else args.runs_per_rank * comm.size
    model = batchode.load_model(MODEL)
    rho = numpy.linspace(args.rho[0], args.rho[1], runs)
    y0 = numpy.tile(numpy.array([1.0, 1.0, 1.0]), (runs, 1))
    params = rho.reshape(runs, 1)
    dtype = numpy.float32 if args.precision == "float32" else numpy.float64
    y0, params = y0.astype(dtype), params.astype(dtype)
    solver = batchode.Solver(model, method=args.method, t_span=(0.0, args.t_end), rtol=1e-6, atol=1e-6,
                             precision=args.precision, backend=args.backend, cpu_threads=args.cpu_threads,
                             verbosity="default", comm=comm)
    walls, events, imbalance = [], {}, []
    for rep in range(args.reps + 1):
        batchode.time_logger.reset()
        comm.Barrier()
        start = time.perf_counter()
        r = solver.solve(y0=y0, parameters=params, output=args.output)
        wall = (time.perf_counter() - start) * 1e3
        if rep == 0:
            continue  # warm-up: calibration and compilation
        walls.append(wall)
        for e in r.timing_across_ranks["events"]:
            events.setdefault(e["label"], []).append(e["max_ms"])
            if e["label"] == "mpi_local_solve":
                imbalance.append(e["imbalance"])
    if comm.rank != 0:
        return
    shares = [(rank["runs"], rank["where"], rank["capability"], round(rank["predicted_ms"], 1)) for rank in r.ranks]
    bytes_per_run = r.final_state.itemsize * r.final_state.shape[1] + 4  # final state and status
    print(json.dumps({
        "processes": comm.size, "runs": runs, "backend": args.backend, "cpu_threads": args.cpu_threads,
        "method": args.method, "precision": args.precision, "t_end": args.t_end,
        "median_wall_ms": round(statistics.median(walls), 2), "walls_ms": [round(w, 2) for w in walls],
        "median_event_max_ms": {k: round(statistics.median(v), 3) for k, v in events.items()},
        "median_local_solve_imbalance": round(statistics.median(imbalance), 4) if imbalance else None,
        "shares": shares, "gathered_bytes_per_run": bytes_per_run if args.output is None else 0,
        "hosts": sorted(set(rank["host"] for rank in r.ranks)),
    }))


if __name__ == "__main__":
    main()
