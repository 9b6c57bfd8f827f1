#!/usr/bin/env python3
"""batchode from Python on the peers' protocols, printed in their scripts' format
(../shared/peers/cubie_bench.py, cubie_adaptive.py, peers.py), so one run on the GPU machine puts
batchode beside CuBIE, diffrax and torchdiffeq (benchmarks/python_device.sh runs them all).

    PYTHONPATH=<built package> python3 benchmarks/python_peers.py [--sizes 1048576 4194304]

- Lorenz rho = linspace(0, 21, n), y0 = (1, 0, 0), sigma 10, beta 8/3, t in [0, 1], final state only:
  RK4 dt 1e-3 in float32 and float64 at each size; dopri5 and tsit5 at rtol = atol = 1e-6 in float64
  at the first size. CuBIE's measure: the minimum wall time of 10 solves after a warm-up (of a reused
  Solver, inputs given as arrays, as CuBIE's own benchmark does); the median is printed beside it.
- With --tight (issue 47; benchmarks/peers/cubie_lorenz_tight.py is CuBIE's side): the same sweep at
  the first size, float64, rtol = atol = 1e-10, with the high-order methods (vern7, vern9, dop853,
  fehlberg78, dopri5); err: the largest |x - x_ref| of runs 0, n/2 and n-1 against scipy's DOP853 at 1e-13.
"""

import argparse
import statistics
import time

import numpy

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
    parser.add_argument("--tight", action="store_true", help="only the high-order methods at 1e-10")
    args = parser.parse_args()
    import batchode  # here, so that benchmarks/peers/cubie_lorenz_tight.py imports lorenz_reference without it

    model = batchode.Model(**LORENZ)
    if args.tight:
        return tight(batchode, model, args.sizes[0])
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


def lorenz_reference(rho_values, times=None):
    """Final x of the Lorenz runs with these rho, by scipy's DOP853 at rtol 1e-13; with `times`, x at
    those times instead (an array of runs x times)."""
    from scipy.integrate import solve_ivp

    out = []
    for rho in rho_values:
        f = lambda t, y: [10.0 * (y[1] - y[0]), y[0] * (rho - y[2]) - y[1], y[0] * y[1] - 8.0 / 3.0 * y[2]]  # noqa: E731
        x = solve_ivp(f, (0.0, 1.0), [1.0, 0.0, 0.0], method="DOP853", rtol=1e-13, atol=1e-15, t_eval=times).y[0]
        out.append(x if times is not None else x[-1])
    return numpy.array(out)


def tight(batchode, model, n):
    y0 = numpy.zeros((n, 3))
    y0[:, 0] = 1.0
    rho = numpy.linspace(0.0, 21.0, n).reshape(n, 1)
    picks = [0, n // 2, n - 1]
    ref = lorenz_reference(rho[picks, 0])
    for method in ("vern7", "vern9", "dop853", "fehlberg78", "dopri5"):
        s = batchode.Solver(model, method=method, rtol=1e-10, atol=1e-10, t_span=(0.0, 1.0), verbosity="none",
                            counters=True)
        w, med, where = timed(s, y0, rho, reps=5)
        r = s.solve(y0=y0, parameters=rho)
        err = float(numpy.max(numpy.abs(r.final_state[picks, 0] - ref)))
        steps = float(numpy.mean(r.counters["accepted_steps"]))
        print(f"batchode-py {method:10s} f64 1e-10 lorenz n={n} wall {w * 1e3:9.2f} ms  median {med * 1e3:9.2f} ms  "
              f"steps_mean {steps:.1f}  err {err:.2e}  on {where}", flush=True)
    return 0


if __name__ == "__main__":
    main()
