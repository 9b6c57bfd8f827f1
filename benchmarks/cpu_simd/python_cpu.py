#!/usr/bin/env python3
"""batchode's CPU path from Python, one core, with and without blocks of runs in SIMD lanes (issue 48).

    PYTHONPATH=build/python taskset -c 1 python3 benchmarks/cpu_simd/python_cpu.py [--runs 16384] [--reps 5]
        [--no-saves] [--stiff] [--methods rk4 dopri5 dop853] [--summaries]

The Lorenz rho sweep of issue 48 (examples/models/lorenz.toml, rho = linspace(0, 21, runs), t in [0, 1]),
`backend="cpu", cpu_threads=1`: RK4 with dt 1e-3 and dopri5 at rtol = atol = 1e-6, float64 and float32,
each keeping the final state only, then a series of 101 points (`--saves`, the default: also
`save_every=0.01`, which RK4 saves every 10 steps and dopri5 lands its steps on, and scipy's
`t_eval=linspace(0, 1, 101)`, which both interpolate; --summaries: also the mean and the extrema of
every state over 10 windows of 10 samples, with no series). --methods: the explicit methods to run
(rk4, dt 1e-3; any adaptive one at rtol = atol = 1e-6). With --stiff, Robertson's chemistry written as
equations instead (k3 = 1e3 .. 1e5 over the runs, y0 = (1, 0, 0), t in [0, 40], rtol 1e-6, atol 1e-10,
float64): ros3p, rodas4 and rodas5p, final state and t_eval = linspace(0, 40, 41) (ros3p's interpolated
saves run a run at a time: its doubled step has no dense output of its own in lanes; rodas4's and
rodas5p's do). Each case is solved with the blocks the CPU allows
(BATCHODE_CPU_SIMD unset: the widest instruction set) and a run at a time (BATCHODE_CPU_SIMD=off),
alternately, by one Solver (the model compiled once); the median of --reps warm solves each. Prints
run-steps/s (runs x mean accepted steps / wall), the ratio and whether every final state, status, step
count and saved point is the same bits.
"""

import argparse
import os
import statistics
import time

import numpy

import batchode

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "..", "..", "examples", "models", "lorenz.toml")
ROBERTSON = """
dy1 = -0.04 * y1 + 1e4 * y2 * y3
dy2 = 0.04 * y1 - 1e4 * y2 * y3 - k3 * y2^2
dy3 = k3 * y2^2
"""


def timed(solver, y0, rho, simd):
    if simd is None:
        os.environ.pop("BATCHODE_CPU_SIMD", None)
    else:
        os.environ["BATCHODE_CPU_SIMD"] = simd
    start = time.perf_counter()
    r = solver.solve(y0=y0, parameters=rho.reshape(-1, 1))
    return time.perf_counter() - start, r


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=16384)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--no-saves", action="store_true", help="the final-state cases only")
    parser.add_argument("--stiff", action="store_true", help="Robertson with the Rosenbrock methods instead")
    parser.add_argument("--methods", nargs="+", default=["rk4", "dopri5"], help="the explicit methods (Lorenz)")
    parser.add_argument("--summaries", action="store_true", help="a case keeping summaries (Lorenz)")
    args = parser.parse_args()
    if args.stiff:
        model = batchode.Model(equations=ROBERTSON, states={"y1": 1.0, "y2": 0.0, "y3": 0.0},
                               parameters={"k3": 3e7}, name="robertson")
        t_end, sweep, y_start = 40.0, numpy.geomspace(1e3, 1e5, args.runs), [1.0, 0.0, 0.0]
        print(f"Robertson k3 sweep, {args.runs} runs, t in [0, 40], backend cpu, 1 thread; "
              f"median of {args.reps} warm solves")
        methods = tuple((m, {"rtol": 1e-6, "atol": 1e-10}) for m in ("ros3p", "rodas4", "rodas5p"))
        saves = [("final state", {})] + ([] if args.no_saves else
                                         [("t_eval", {"t_eval": numpy.linspace(0.0, t_end, 41)})])
        precisions = ("float64",)
    else:
        model = batchode.load_model(MODEL)
        t_end, sweep, y_start = 1.0, numpy.linspace(0, 21, args.runs), [1.0, 1.0, 1.0]
        print(f"Lorenz rho sweep, {args.runs} runs, t in [0, 1], backend cpu, 1 thread; "
              f"median of {args.reps} warm solves")
        saves = [("final state", {})]
        if not args.no_saves:
            saves += [("save_every", {"save_every": 0.01}), ("t_eval", {"t_eval": numpy.linspace(0.0, 1.0, 101)})]
        if args.summaries:
            saves += [("summaries", {"summaries": ["mean", "extrema"], "summarise_every": 0.1,
                                     "sample_summaries_every": 0.01})]
        methods = tuple((m, {"dt": 1e-3} if m == "rk4" else {"rtol": 1e-6, "atol": 1e-6}) for m in args.methods)
        precisions = ("float64", "float32")
    cases = [(m, step, p, sv) for sv in saves for m, step in methods for p in precisions]
    for method, step, precision, (saved, save) in cases:
        dtype = numpy.float64 if precision == "float64" else numpy.float32
        rho = sweep.astype(dtype)
        y0 = numpy.array(y_start, dtype=dtype)  # shared by every run
        solver = batchode.Solver(model, t_span=(0.0, t_end), method=method, precision=precision, backend="cpu",
                                 cpu_threads=1, counters=True, verbosity="none", **step, **save)
        walls = {"blocks": [], "alone": []}
        results = {}
        timed(solver, y0, rho, None)  # warm-up: compiles the model
        for _ in range(args.reps):
            for name, simd in (("blocks", None), ("alone", "off")):
                wall, results[name] = timed(solver, y0, rho, simd)
                walls[name].append(wall)
        a, b = results["blocks"], results["alone"]
        same = (numpy.array_equal(a.final_state, b.final_state) and numpy.array_equal(a.status, b.status)
                and numpy.array_equal(a.counters, b.counters)
                and (saved not in ("save_every", "t_eval") or numpy.array_equal(a.state, b.state, equal_nan=True))
                and all(numpy.array_equal(a.summaries[k], b.summaries[k], equal_nan=True) for k in b.summaries)
                and a.summaries.keys() == b.summaries.keys())
        steps = float(numpy.mean(b.counters["accepted_steps"]))
        rate = {k: args.runs * steps / statistics.median(v) for k, v in walls.items()}
        print(f"{method:7s} {precision} {saved:11s}  blocks {rate['blocks']:.3e}  "
              f"a run at a time {rate['alone']:.3e} run-steps/s  "
              f"({rate['blocks'] / rate['alone']:.2f}x; {steps:.0f} steps a run)  same bits: {same}")
    os.environ.pop("BATCHODE_CPU_SIMD", None)


if __name__ == "__main__":
    main()
