#!/usr/bin/env python3
"""Saves of the high-order methods: their own interpolants against landing on the save times (issue 47).

    PYTHONPATH=<built package> python3 benchmarks/dense_output.py [--runs 1048576] [--points 100]

The Lorenz sweep of benchmarks/python_peers.py --tight (rho = linspace(0, 21, n), y0 = (1, 0, 0), t in
[0, 1], float64, rtol = atol = 1e-10), each method solved four ways: the final state only ("final"),
`save_at` at `points` times in (0, 1] interpolated by the method's dense output ("interpolate") and
landed on ("land"), and `save_every` = 1 / points, landed ("every": the kernel that keeps a series,
without interpolating). Per line: the warm solve's median over `repeats` (after a first solve), the
mean accepted steps a run, the evaluations of f a run, and err: the largest |x(t) - x_ref(t)| over the
saved points of runs 0, n/2 and n-1 against scipy's DOP853 at rtol 1e-13 (the final x for "final").
"""

import argparse
import statistics
import time

import numpy

from python_peers import LORENZ, lorenz_reference


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1 << 20)
    parser.add_argument("--points", type=int, default=100)
    parser.add_argument("--methods", nargs="+", default=["vern7", "vern9", "dop853", "dopri5"])
    parser.add_argument("--modes", nargs="+", default=["final", "interpolate", "land", "every"])
    parser.add_argument("--rtol", type=float, default=1e-10)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--backend", default="auto")
    args = parser.parse_args()
    import batchode

    n = args.runs
    model = batchode.Model(**LORENZ)
    y0 = numpy.zeros((n, 3))
    y0[:, 0] = 1.0
    rho = numpy.linspace(0.0, 21.0, n).reshape(n, 1)
    picks = [0, n // 2, n - 1]
    times = numpy.arange(1, args.points + 1) / args.points
    ref = lorenz_reference(rho[picks, 0], times)
    for method in args.methods:
        for mode in args.modes:
            saves = {}
            if mode in ("interpolate", "land"):
                saves = dict(save_at=times, save_mode=mode)
            elif mode == "every":
                saves = dict(save_every=1.0 / args.points)
            s = batchode.Solver(model, method=method, rtol=args.rtol, atol=args.rtol, t_span=(0.0, 1.0),
                                verbosity="none", counters=True, backend=args.backend, **saves)
            r = s.solve(y0=y0, parameters=rho)
            walls = []
            for _ in range(args.repeats):
                start = time.perf_counter()
                s.solve(y0=y0, parameters=rho)
                walls.append(time.perf_counter() - start)
            if mode in ("interpolate", "land"):
                err = float(numpy.max(numpy.abs(r.state[picks, :, 0] - ref)))
            elif mode == "final":
                err = float(numpy.max(numpy.abs(r.final_state[picks, 0] - ref[:, -1])))
            else:
                err = float(numpy.max(numpy.abs(r.state[picks, -1, 0] - ref[:, -1])))
            steps = float(numpy.mean(r.counters["accepted_steps"]))
            evaluations = float(numpy.mean(r.counters["rhs_evaluations"]))
            print(f"dense_output {method:8s} {mode:11s} n={n} median {statistics.median(walls) * 1e3:9.2f} ms  "
                  f"steps {steps:7.1f}  f_evals {evaluations:8.1f}  err {err:.2e}  on {'+'.join(r.backends)}",
                  flush=True)
            del r


if __name__ == "__main__":
    main()
