#!/usr/bin/env python3
"""Events that change the state at batch scale (issue 49): Izhikevich neurons (spike and reset), each run
its own input current, on one backend: what a solve costs and how many resets it made.

    PYTHONPATH=<built package> python3 benchmarks/event_actions.py [--runs 1048576] [--backend gpu]
        [--precisions float32 float64] [--t-end 1000] [--repeats 5]

The model: v' = 0.04 v^2 + 5 v + 140 - u + I, u' = a (b v - u), regular spiking (a, b, c, d) = (0.02,
0.2, -65, 8); a spike at v = 30 (rising) resets v = c, u = u + d. I is swept over [0, 15] (silent runs
to ~60 Hz), t in [0, t_end] ms, dopri5 at rtol = atol = 1e-6 (float64) / 1e-4 (float32). Printed per
precision: the warm solve's median ms over --repeats (after a first solve that compiles), the mean
spikes and accepted steps of a run, and ns per run-step (the batch's time over its accepted steps).
"""

import argparse
import statistics
import time

import numpy


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1 << 20)
    ap.add_argument("--backend", default="gpu")
    ap.add_argument("--precisions", nargs="+", default=["float32", "float64"])
    ap.add_argument("--t-end", type=float, default=1000.0)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    import batchode

    model = batchode.Model(
        equations="dv = 0.04 * v^2 + 5 * v + 140 - u + I\ndu = a * (b * v - u)",
        states={"v": -65.0, "u": -13.0}, parameters={"I": 10.0},
        constants={"a": 0.02, "b": 0.2, "c": -65.0, "d": 8.0},
        events={"spike": {"expr": "v - 30", "direction": "rising", "assign": "v = c; u = u + d", "max": 1}},
        name="izhikevich")
    current = numpy.linspace(0.0, 15.0, args.runs)
    print(f"Izhikevich neurons, {args.runs} runs, t in [0, {args.t_end}] ms, dopri5, backend {args.backend}")
    print("precision   warm ms   first s  spikes/run  steps/run  ns/run-step")
    for precision in args.precisions:
        tol = 1e-6 if precision == "float64" else 1e-4
        solver = batchode.Solver(model, method="dopri5", t_span=(0.0, args.t_end), rtol=tol, atol=tol,
                                 backend=args.backend, precision=precision, counters=True, verbosity="none")
        start = time.perf_counter()
        r = solver.solve(parameters={"I": current})
        first = time.perf_counter() - start
        walls = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            r = solver.solve(parameters={"I": current})
            walls.append(time.perf_counter() - start)
        assert r.success.all(), numpy.unique(r.status, return_counts=True)
        spikes = float(numpy.mean(r.events["spike"].count))
        steps = float(numpy.mean(r.counters["accepted_steps"]))
        ms = statistics.median(walls) * 1e3
        per_step = ms * 1e6 / (args.runs * steps)
        print(f"{precision:9s} {ms:9.2f} {first:9.1f} {spikes:11.1f} {steps:10.1f} {per_step:12.3f}", flush=True)


if __name__ == "__main__":
    main()
