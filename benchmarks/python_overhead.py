#!/usr/bin/env python3
"""The Python package's cost over C++ (issue 17: within 3% on 2^20 Lorenz runs, GPU and CPU).

    PYTHONPATH=build/python python3 benchmarks/python_overhead.py --cpp build/benchmarks/runtime_solve \
        [--runs 1048576] [--method rk4] [--precision float64] [--backend auto] [--reps 10] [--rounds 3]

The same solve both ways: one Solver over examples/models/lorenz.toml, y0 = the model's defaults and
rho = linspace(0, 21, runs) as run-major arrays (read in place by the Python package), RK4 dt 1e-3 on
[0, 1] by default. C++ is benchmarks/runtime_solve.cpp, run as a child process; Python is
batchode.Solver(...).solve(y0=, parameters=) timed around the whole call (option and input handling,
the solve, the Result). Rounds alternate C++ and Python so drifts of the machine hit both; each
round's first solve is a warm-up. Prints per-round medians, the overall medians and their ratio.

A second measure needs no second process: in one Python process, one Solver alternates a solve from
Python with a solve timed in C++ around Solver::solve alone (the extension's time_solves_in_cpp),
--interleaved times, so both see the same GPU clocks, memory pool and page cache.
"""

import argparse
import os
import re
import statistics
import subprocess
import time

import numpy

import batchode

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "..", "examples", "models", "lorenz.toml")


def cpp_round(args):
    out = subprocess.run([args.cpp, "--runs", str(args.runs), "--method", args.method, "--dt", str(args.dt),
                          "--precision", args.precision, "--backend", args.backend, "--reps", str(args.reps),
                          "--model", MODEL], check=True, capture_output=True, text=True).stdout
    walls = [float(v) for v in re.findall(r"^cpp_solve_ms (\S+)", out, re.M)]
    where = re.search(r"backend (\S+)", out).group(1)
    return walls, where


def python_round(args, model, y0, rho):
    solver = batchode.Solver(model, method=args.method, dt=args.dt, t_span=(0.0, 1.0), precision=args.precision,
                             backend=args.backend, verbosity="none")
    walls = []
    where = None
    for rep in range(args.reps + 1):
        start = time.perf_counter()
        r = solver.solve(y0=y0, parameters=rho)
        ms = (time.perf_counter() - start) * 1e3
        if rep == 0:
            where = "+".join(r.backends)
            assert r.y0 is y0 and r.parameters is rho, "the inputs were copied"
        else:
            walls.append(ms)
        del r
    return walls, where


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpp", required=True, help="path of the runtime_solve benchmark")
    parser.add_argument("--runs", type=int, default=1 << 20)
    parser.add_argument("--method", default="rk4")
    parser.add_argument("--dt", type=float, default=1e-3)
    parser.add_argument("--precision", default="float64")
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--interleaved", type=int, default=60)
    args = parser.parse_args()

    model = batchode.load_model(MODEL)
    dtype = numpy.float64 if args.precision == "float64" else numpy.float32
    y0 = numpy.ascontiguousarray(numpy.broadcast_to(model.default_y0.astype(dtype), (args.runs, 3)))
    rho = numpy.linspace(0.0, 21.0, args.runs).astype(dtype).reshape(args.runs, 1)
    cpp_all, py_all, ratios = [], [], []
    for k in range(args.rounds):
        cpp, cpp_where = cpp_round(args)
        py, py_where = python_round(args, model, y0, rho)
        cpp_all += cpp
        py_all += py
        ratios.append(statistics.median(py) / statistics.median(cpp))
        print(f"round {k}: C++ median {statistics.median(cpp):9.3f} ms on {cpp_where}   "
              f"Python median {statistics.median(py):9.3f} ms on {py_where}   ratio {ratios[-1]:.4f}", flush=True)
    c, p = statistics.median(cpp_all), statistics.median(py_all)
    print(f"python_overhead runs={args.runs} {args.method} {args.precision} backend={args.backend}: "
          f"C++ {c:.3f} ms, Python {p:.3f} ms, Python/C++ {p / c:.4f} (medians of {len(cpp_all)} solves each; "
          f"median of the rounds' ratios {statistics.median(ratios):.4f})")

    solver = batchode.Solver(model, method=args.method, dt=args.dt, t_span=(0.0, 1.0), precision=args.precision,
                             backend=args.backend, verbosity="none")
    solver.solve(y0=y0, parameters=rho)
    py, cpp = [], []
    for _ in range(args.interleaved):
        start = time.perf_counter()
        r = solver.solve(y0=y0, parameters=rho)
        py.append((time.perf_counter() - start) * 1e3)
        del r
        cpp += solver._solver.time_solves_in_cpp(y0, rho, 1)
    c, p = statistics.median(cpp), statistics.median(py)
    print(f"python_overhead interleaved in one process, runs={args.runs} {args.method} {args.precision} "
          f"backend={args.backend}: C++ {c:.3f} ms, Python {p:.3f} ms, Python/C++ {p / c:.4f} "
          f"(medians of {len(py)} alternating solves)")


if __name__ == "__main__":
    main()
