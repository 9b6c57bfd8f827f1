#!/usr/bin/env python3
"""Work-precision of the stiff methods on the CPU (issue 47): error against cost for batchode's Rosenbrock
methods, the ESDIRKs kvaerno5, kencarp4 and kvaerno3, radau5 (Radau IIA) and scipy's Radau, BDF and
LSODA on four problems of Hairer & Wanner's and the IVP test set's, and Robertson as a differential-algebraic model (robertson_dae:
y3 algebraic, fixed by y1 + y2 + y3 = 1; only the methods that solve DAEs, rodas4, rodas5p and radau5,
against scipy on the equivalent ODE, whose solution is the DAE's).

    PYTHONPATH=<built package> python3 benchmarks/stiff_work_precision.py [--problems robertson hires
        vdp oregonator] [--methods ros3p rodas4 rodas5p kvaerno5 kencarp4 kvaerno3 radau5
        rosenbrock4] [--tols 1e-3 ... 1e-10]
        [--runs 64] [--repeats 3] [--plot work_precision.png]

- Robertson (t in [0, 40], y0 = (1, 0, 0)), HIRES (8 states, t in [0, 321.8122]), van der Pol with
  mu = 1000 (y0 = (2, 0), t in [0, 2000]) and the Oregonator (Field-Noyes, y0 = (1, 2, 3), t in
  [0, 360]): the equations of Hairer & Wanner II, IV.10 and the IVP test set.
- Each tolerance rtol in --tols, with atol = rtol times the problem's scale (Robertson 1e-6, HIRES 1e-4,
  the others 1): batchode solves --runs copies of the run on one CPU thread (cpu_threads=1, a warm
  Solver, median of --repeats solves; its time per run is the batch's over runs), scipy one run
  (median of --repeats).
- error: the largest relative error over the final state's components, |y - y_ref| / |y_ref|, against
  scipy's Radau at rtol 1e-13, atol 1e-16 x scale (a reference no method here is measured against
  below 1e-11: rows under that floor read as "<= 1e-11").
Printed: one row per (problem, method, tol): error, steps, ms per run. --plot draws the diagrams
(error against ms per run, log-log, one panel per problem) with matplotlib.
"""

import argparse
import math
import os
import statistics
import sys
import tempfile
import time

import numpy

PROBLEMS = {
    "robertson": dict(
        states={"y1": 1.0, "y2": 0.0, "y3": 0.0},
        equations="""
dy1 = -0.04 * y1 + 1e4 * y2 * y3
dy2 = 0.04 * y1 - 1e4 * y2 * y3 - 3e7 * y2 * y2
dy3 = 3e7 * y2 * y2
""",
        t_end=40.0, atol_scale=1e-6),
    "robertson_dae": dict(
        states={"y1": 1.0, "y2": 0.0}, algebraic={"y3": 0.0}, ode="robertson",
        equations="""
dy1 = -0.04 * y1 + 1e4 * y2 * y3
dy2 = 0.04 * y1 - 1e4 * y2 * y3 - 3e7 * y2 * y2
0 = y1 + y2 + y3 - 1
""",
        t_end=40.0, atol_scale=1e-6),
    "hires": dict(
        states={"y1": 1.0, "y2": 0.0, "y3": 0.0, "y4": 0.0, "y5": 0.0, "y6": 0.0, "y7": 0.0, "y8": 0.0057},
        equations="""
dy1 = -1.71 * y1 + 0.43 * y2 + 8.32 * y3 + 0.0007
dy2 = 1.71 * y1 - 8.75 * y2
dy3 = -10.03 * y3 + 0.43 * y4 + 0.035 * y5
dy4 = 8.32 * y2 + 1.71 * y3 - 1.12 * y4
dy5 = -1.745 * y5 + 0.43 * y6 + 0.43 * y7
dy6 = -280.0 * y6 * y8 + 0.69 * y4 + 1.71 * y5 - 0.43 * y6 + 0.69 * y7
dy7 = 280.0 * y6 * y8 - 1.81 * y7
dy8 = -280.0 * y6 * y8 + 1.81 * y7
""",
        t_end=321.8122, atol_scale=1e-4),
    "vdp": dict(
        states={"y1": 2.0, "y2": 0.0},
        equations="""
dy1 = y2
dy2 = 1000.0 * (1.0 - y1 * y1) * y2 - y1
""",
        t_end=2000.0, atol_scale=1.0),
    "oregonator": dict(
        states={"y1": 1.0, "y2": 2.0, "y3": 3.0},
        equations="""
dy1 = 77.27 * (y2 + y1 * (1.0 - 8.375e-6 * y1 - y2))
dy2 = (y3 - (1.0 + y1) * y2) / 77.27
dy3 = 0.161 * (y1 - y3)
""",
        t_end=360.0, atol_scale=1.0),
}


def python_rhs(problem):
    """The same equations as a Python function of (t, y), for scipy."""
    names = list(problem["states"])
    lines = [l.strip() for l in problem["equations"].strip().splitlines()]
    src = "def f(t, y):\n" + "".join(f"    {s} = y[{i}]\n" for i, s in enumerate(names))
    src += "".join(f"    d_{l[1:]}\n" for l in lines)
    src += "    return [" + ", ".join(f"d_{s}" for s in names) + "]\n"
    scope = {}
    exec(src, scope)  # noqa: S102 - the equations above
    return scope["f"]


def rel_error(y, ref):
    y, ref = numpy.asarray(y, dtype=numpy.float64), numpy.asarray(ref, dtype=numpy.float64)
    mask = ref != 0
    return float(numpy.max(numpy.abs(y[mask] - ref[mask]) / numpy.abs(ref[mask])))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", nargs="+", default=[p for p in PROBLEMS if p != "robertson_dae"])
    ap.add_argument("--methods", nargs="+",
                    default=["ros3p", "rodas4", "rodas5p", "kvaerno5", "kencarp4", "kvaerno3", "radau5",
                             "rosenbrock4"])
    ap.add_argument("--scipy", nargs="*", default=["Radau", "BDF", "LSODA"])
    ap.add_argument("--tols", type=float, nargs="+", default=[10.0 ** -k for k in range(3, 11)])
    ap.add_argument("--runs", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--plot", default="")
    args = ap.parse_args()
    import batchode
    from scipy.integrate import solve_ivp

    rows = []
    print("problem     method        rtol     error      steps    ms/run")
    for name in args.problems:
        problem = PROBLEMS[name]
        # A DAE's reference and scipy's solves are of its equivalent ODE (the same states, in order).
        f = python_rhs(PROBLEMS[problem.get("ode", name)])
        y0 = list(PROBLEMS[problem.get("ode", name)]["states"].values())
        scale = problem["atol_scale"]
        ref = solve_ivp(f, (0.0, problem["t_end"]), y0, method="Radau", rtol=1e-13, atol=1e-16 * scale)
        if not ref.success:
            sys.exit(f"{name}: scipy's reference failed: {ref.message}")
        y_ref = ref.y[:, -1]
        with tempfile.TemporaryDirectory(prefix="batchode_wp_cache_") as cache:
            os.environ["BATCHODE_CACHE_DIR"] = cache
            model = batchode.Model(equations=problem["equations"], states=problem["states"],
                                   algebraic=problem.get("algebraic", {}), name=name)
            y0_batch = numpy.tile(numpy.array(y0), (args.runs, 1))
            dae_methods = {m["name"] for m in batchode.methods() if m["dae"]}
            for method in args.methods:
                if "algebraic" in problem and method not in dae_methods:
                    continue
                for rtol in args.tols:
                    solver = batchode.Solver(model, method=method, t_span=(0.0, problem["t_end"]), rtol=rtol,
                                             atol=rtol * scale, verbosity="none", counters=True, backend="cpu",
                                             cpu_threads=1)
                    r = solver.solve(y0=y0_batch)
                    walls = []
                    for _ in range(args.repeats):
                        start = time.perf_counter()
                        r = solver.solve(y0=y0_batch)
                        walls.append(time.perf_counter() - start)
                    status = r.status_names[int(r.status[0])]
                    steps = int(r.counters["accepted_steps"][0]) + int(r.counters["rejected_steps"][0])
                    err = rel_error(r.final_state[0], y_ref) if status == "success" else math.nan
                    ms = statistics.median(walls) * 1e3 / args.runs
                    rows.append((name, method, rtol, err, steps, ms, str(status)))
                    print(f"{name:11s} {method:12s} {rtol:8.0e} {err:9.2e} {steps:8d} {ms:9.4f}  {status}",
                          flush=True)
        for method in args.scipy:
            for rtol in args.tols:
                walls, sol = [], None
                for _ in range(args.repeats):
                    start = time.perf_counter()
                    sol = solve_ivp(f, (0.0, problem["t_end"]), y0, method=method, rtol=rtol, atol=rtol * scale)
                    walls.append(time.perf_counter() - start)
                err = rel_error(sol.y[:, -1], y_ref) if sol.success else math.nan
                steps = int(sol.t.size - 1)
                ms = statistics.median(walls) * 1e3
                rows.append((name, "scipy " + method, rtol, err, steps, ms, "success" if sol.success else "fail"))
                print(f"{name:11s} {'scipy ' + method:12s} {rtol:8.0e} {err:9.2e} {steps:8d} {ms:9.4f}", flush=True)
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, len(args.problems), figsize=(4.2 * len(args.problems), 4), squeeze=False)
        for ax, name in zip(axes[0], args.problems):
            for method in args.methods + ["scipy " + m for m in args.scipy]:
                pts = [(ms, max(err, 1e-11)) for (p, m, _, err, _, ms, _) in rows
                       if p == name and m == method and not math.isnan(err)]
                if pts:
                    ax.loglog([p[0] for p in pts], [p[1] for p in pts], "o-" if "scipy" not in method else "s--",
                              label=method, markersize=3)
            ax.set_title(name)
            ax.set_xlabel("ms per run (one core)")
            ax.set_ylabel("relative error of the final state")
            ax.grid(True, which="both", alpha=0.3)
        axes[0][0].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)
        print("wrote", args.plot)


if __name__ == "__main__":
    main()
