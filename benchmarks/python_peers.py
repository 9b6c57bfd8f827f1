#!/usr/bin/env python3
"""batchode from Python on the peers' protocols, printed in their scripts' format
(../shared/peers/cubie_bench.py, cubie_adaptive.py, peers.py), so one run on the GPU machine puts
batchode beside CuBIE, diffrax and torchdiffeq (benchmarks/python_device.sh runs them all).

    PYTHONPATH=<built package> python3 benchmarks/python_peers.py [--sizes 1048576 4194304]

- Lorenz rho = linspace(0, 21, n), y0 = (1, 0, 0), sigma 10, beta 8/3, t in [0, 1], final state only:
  RK4 dt 1e-3 in float32 and float64 at each size; dopri5 and tsit5 at rtol = atol = 1e-6 in float64
  at the first size. CuBIE's measure: the minimum wall time of 10 solves after a warm-up (of a reused
  Solver, inputs given as arrays, as CuBIE's own benchmark does); the median is printed beside it.
"""

import argparse
import statistics
import time

import numpy

import batchode

LORENZ = dict(equations="dx = sigma * (y - x)\ndy = x * (rho - z) - y\ndz = x * y - beta * z",
              states={"x": 1.0, "y": 0.0, "z": 0.0}, parameters={"rho": 21.0},
              constants={"sigma": 10.0, "beta": 8.0 / 3.0}, name="lorenz_peers")


def timed(solver, y0, rho, reps=10):
    solver.solve(y0=y0, parameters=rho)
    walls = []
    for _ in range(reps):
        start = time.perf_counter()
        r = solver.solve(y0=y0, parameters=rho)
        walls.append(time.perf_counter() - start)
        where = "+".join(r.backends)
        del r
    return min(walls), statistics.median(walls), where


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1 << 20, 1 << 22])
    args = parser.parse_args()
    model = batchode.Model(**LORENZ)
    for precision in ("float32", "float64"):
        for n in args.sizes:
            dtype = numpy.dtype(precision)
            y0 = numpy.zeros((n, 3), dtype=dtype)
            y0[:, 0] = 1.0
            rho = numpy.linspace(0.0, 21.0, n).astype(dtype).reshape(n, 1)
            s = batchode.Solver(model, method="rk4", dt=1e-3, t_span=(0.0, 1.0), precision=precision,
                                verbosity="none")
            w, med, where = timed(s, y0, rho)
            print(f"batchode-py rk4 {precision} n={n:>9d} wall(min of 10) {w * 1e3:9.2f} ms  median {med * 1e3:9.2f} ms"
                  f"  {n * 1000 / w:.3e} traj-steps/s  on {where}", flush=True)
    n = args.sizes[0]
    y0 = numpy.zeros((n, 3))
    y0[:, 0] = 1.0
    rho = numpy.linspace(0.0, 21.0, n).reshape(n, 1)
    for method in ("dopri5", "tsit5"):
        s = batchode.Solver(model, method=method, rtol=1e-6, atol=1e-6, t_span=(0.0, 1.0), verbosity="none")
        w, med, where = timed(s, y0, rho, reps=5)
        print(f"batchode-py {method:18s} f64 lorenz n={n} wall {w * 1e3:9.2f} ms  median {med * 1e3:9.2f} ms  on {where}",
              flush=True)


if __name__ == "__main__":
    main()
