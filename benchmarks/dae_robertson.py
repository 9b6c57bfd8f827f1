#!/usr/bin/env python3
"""Robertson as a differential-algebraic model against the same kinetics as an ODE (issue 47): what the
mass matrix and the consistent start cost a batch, on one backend, in one process.

    PYTHONPATH=<built package> python3 benchmarks/dae_robertson.py [--runs 65536] [--backend gpu]
        [--methods rodas4 rodas5p] [--repeats 5] [--precision float64]

Both models sweep k3 over [5e3, 2e4] (the issue's Robertson case: t in [0, 40], rtol 1e-6, atol 1e-10);
the DAE's y3 is algebraic (0 = y1 + y2 + y3 - 1) and starts from the guess 0.5, which the solve makes
consistent (0). Printed per (model, method): the warm solve's median ms over --repeats (after a first
solve that compiles), the mean accepted steps of a run, and err_tol of runs 0, n/2 and n-1 against
scipy's Radau on the ODE at rtol 1e-12 (the largest |y - y_ref| / (atol + rtol |y_ref|) over the final
state: below 1 is within the tolerance asked).
"""

import argparse
import statistics
import time

import numpy

EQUATIONS = ("dy1 = -k1 * y1 + k3 * y2 * y3\n"
             "dy2 = k1 * y1 - k3 * y2 * y3 - k2 * y2^2\n")
K = {"k1": 0.04, "k2": 3e7, "k3": 1e4}


def reference(k3, t_end):
    from scipy.integrate import solve_ivp

    def f(_t, y):
        r1, r2, r3 = K["k1"] * y[0], K["k2"] * y[1] ** 2, k3 * y[1] * y[2]
        return [-r1 + r3, r1 - r2 - r3, r2]

    return solve_ivp(f, (0.0, t_end), [1.0, 0.0, 0.0], method="Radau", rtol=1e-12, atol=1e-16).y[:, -1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=65536)
    ap.add_argument("--backend", default="gpu")
    ap.add_argument("--methods", nargs="+", default=["rodas4", "rodas5p"])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--precision", default="float64")
    args = ap.parse_args()
    import batchode

    models = {
        "ode": (batchode.Model(equations=EQUATIONS + "dy3 = k2 * y2^2", states={"y1": 1.0, "y2": 0.0, "y3": 0.0},
                               parameters=K, name="robertson_ode"), 0.0),
        "dae": (batchode.Model(equations=EQUATIONS + "0 = y1 + y2 + y3 - 1", states={"y1": 1.0, "y2": 0.0},
                               algebraic={"y3": 0.0}, parameters=K, name="robertson_dae"), 0.5),
    }
    k3 = numpy.linspace(5e3, 2e4, args.runs)
    rtol, atol, t_end = 1e-6, 1e-10, 40.0
    picks = [0, args.runs // 2, args.runs - 1]
    refs = {i: reference(k3[i], t_end) for i in picks}
    print(f"Robertson, {args.runs} runs, {args.precision}, backend {args.backend}, rtol {rtol} atol {atol}")
    print("model  method     warm ms   first s  steps/run  err_tol")
    for method in args.methods:
        for name, (model, guess) in models.items():
            y0 = numpy.tile([1.0, 0.0, guess], (args.runs, 1))
            params = numpy.column_stack([numpy.full(args.runs, K["k1"]), numpy.full(args.runs, K["k2"]), k3])
            solver = batchode.Solver(model, method=method, t_span=(0.0, t_end), rtol=rtol, atol=atol,
                                     backend=args.backend, precision=args.precision, counters=True,
                                     verbosity="none")
            start = time.perf_counter()
            r = solver.solve(y0=y0, parameters=params)
            first = time.perf_counter() - start
            walls = []
            for _ in range(args.repeats):
                start = time.perf_counter()
                r = solver.solve(y0=y0, parameters=params)
                walls.append(time.perf_counter() - start)
            assert r.success.all(), (name, method, numpy.unique(r.status))
            err = max(float(numpy.max(numpy.abs(r.final_state[i] - refs[i]) / (atol + rtol * numpy.abs(refs[i]))))
                      for i in picks)
            steps = float(numpy.mean(r.counters["accepted_steps"]))
            print(f"{name:5s}  {method:8s} {statistics.median(walls) * 1e3:9.2f} {first:8.1f} {steps:10.1f} "
                  f"{err:8.3f}", flush=True)


if __name__ == "__main__":
    main()
