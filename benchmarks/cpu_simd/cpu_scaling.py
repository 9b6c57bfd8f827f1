#!/usr/bin/env python3
"""batchode's CPU path from Python over every core, with blocks of runs in SIMD lanes (issue 48), beside
scipy's solve_ivp in a loop on the same sweep.

    PYTHONPATH=<built package> python3 benchmarks/cpu_simd/cpu_scaling.py [--runs 262144] [--reps 3]
        [--threads 1 2 4 8 16]

The Lorenz rho sweep of issue 48 (examples/models/lorenz.toml, rho = linspace(0, 21, runs), y0 = (1, 1, 1),
t in [0, 1], final state only), `backend="cpu"`: RK4 with dt 1e-3 and dopri5 at rtol = atol = 1e-6, in
float64 and float32, solved with `cpu_threads` = each of --threads (blocks: the widest instruction set
the CPU has), then with one thread a run at a time (BATCHODE_CPU_SIMD=off, on a sixteenth of the runs)
for the per-core gain. Each case is the median of --reps warm solves of one Solver. Prints run-steps/s
(runs x mean accepted steps / wall), the rate per core, the scaling efficiency (rate / (threads x the
one-thread rate)) and whether the final states are the same bits at every thread count and alone.

scipy: `solve_ivp(method="RK45")` (Dormand-Prince 5(4), dopri5's pair) at the same tolerances, run after
run for --scipy-runs runs of the same sweep, one core, its run-steps/s (its own accepted steps: `nfev`
/ 6, its step counts differ from batchode's controller).
"""

import argparse
import os
import statistics
import time

import numpy

import batchode

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "..", "..", "examples", "models", "lorenz.toml")


def solve_rate(solver, y0, rho, reps, simd=None):
    """(run-steps/s, result): the median of `reps` warm solves."""
    if simd is None:
        os.environ.pop("BATCHODE_CPU_SIMD", None)
    else:
        os.environ["BATCHODE_CPU_SIMD"] = simd
    solver.solve(y0=y0, parameters=rho.reshape(-1, 1))  # warm-up (the first compiles the model)
    walls = []
    for _ in range(reps):
        start = time.perf_counter()
        r = solver.solve(y0=y0, parameters=rho.reshape(-1, 1))
        walls.append(time.perf_counter() - start)
    os.environ.pop("BATCHODE_CPU_SIMD", None)
    steps = float(numpy.mean(r.counters["accepted_steps"]))
    return len(rho) * steps / statistics.median(walls), r


def scipy_rate(runs, rtol, atol):
    try:
        from scipy.integrate import solve_ivp
    except ImportError:
        return None
    rhos = numpy.linspace(0, 21, runs)
    steps, start = 0, time.perf_counter()
    for rho in rhos:
        r = solve_ivp(lambda t, y, rho=rho: [10.0 * (y[1] - y[0]), y[0] * (rho - y[2]) - y[1],
                                             y[0] * y[1] - 8.0 / 3.0 * y[2]],
                      (0.0, 1.0), [1.0, 1.0, 1.0], method="RK45", rtol=rtol, atol=atol)
        steps += len(r.t) - 1
    return steps / (time.perf_counter() - start), steps / runs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=262144)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    parser.add_argument("--scipy-runs", type=int, default=64)
    args = parser.parse_args()
    model = batchode.load_model(MODEL)
    print(f"Lorenz rho sweep, {args.runs} runs, t in [0, 1], backend cpu; {os.cpu_count()} CPUs; "
          f"median of {args.reps} warm solves")
    methods = (("rk4", {"dt": 1e-3}), ("dopri5", {"rtol": 1e-6, "atol": 1e-6}))
    for method, step in methods:
        for precision in ("float64", "float32"):
            dtype = numpy.float64 if precision == "float64" else numpy.float32
            rho = numpy.linspace(0, 21, args.runs).astype(dtype)
            y0 = numpy.array([1.0, 1.0, 1.0], dtype=dtype)

            def solver(threads):
                return batchode.Solver(model, t_span=(0.0, 1.0), method=method, precision=precision,
                                       backend="cpu", cpu_threads=threads, counters=True, verbosity="none",
                                       **step)

            # Blocks first: a model's CPU code is compiled for the instruction set of its first solve
            # (BATCHODE_CPU_SIMD=off: no block code at all, runtime_model_cpu.cpp).
            one = ref = None
            for threads in args.threads:
                rate, r = solve_rate(solver(threads), y0, rho, args.reps)
                if one is None:
                    one, ref = rate, r
                same = numpy.array_equal(r.final_state, ref.final_state) and numpy.array_equal(r.status, ref.status)
                print(f"{method:7s} {precision} threads={threads:3d}  {rate:.3e} run-steps/s  "
                      f"{rate / threads:.3e} a core  efficiency {rate / (threads * one):.2f}  "
                      f"same bits as 1 thread: {same}", flush=True)
            few = args.runs // 16  # a run at a time is ~10x slower: a sixteenth of the runs
            alone, r = solve_rate(solver(1), y0, rho[:few], args.reps, simd="off")
            same = numpy.array_equal(r.final_state, ref.final_state[:few])
            print(f"{method:7s} {precision} a run at a time, 1 thread ({few} runs): {alone:.3e} run-steps/s; "
                  f"blocks on 1 thread {one / alone:.2f}x; same bits: {same}", flush=True)
    scipy = scipy_rate(args.scipy_runs, 1e-6, 1e-6)
    if scipy is not None:
        print(f"scipy solve_ivp RK45 1e-6, a loop of {args.scipy_runs} runs, one core: {scipy[0]:.3e} "
              f"run-steps/s ({scipy[1]:.0f} steps a run)", flush=True)


if __name__ == "__main__":
    main()
