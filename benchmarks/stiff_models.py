#!/usr/bin/env python3
"""Stiff models written as equations, from Python (issue 46): BRUSS at N states and POLLU, batchode's
first solve (model compile included, from an empty cache) and warm solve, beside CuBIE 0.9.0 run by
benchmarks/peers/cubie_bruss.py and cubie_pollu.py on the same protocol (one line per case, same keys).

    PYTHONPATH=<built package> python3 benchmarks/stiff_models.py [--runs 65536] [--sizes 8 16 ...]
        [--methods rodas4 ros3p] [--precisions float64 float32] [--pollu-only | --bruss-only]

- BRUSS (tests/support/bruss_model.hpp, benchmarks/peers/cubie_bruss.py: the same equations, initial
  state and sweep): N = 2 M states, A = linspace(0.9, 1.1, runs), t in [0, 1], final state only;
  float64 at rtol = atol = 1e-6, float32 at 1e-4 (above float32's tolerance floor).
- POLLU (examples/models/pollu.toml, the IVP test set's chemistry): k1 = 0.35 * linspace(0.5, 1.5, runs),
  t in [0, 60], rtol 1e-6, atol 1e-9, float64.
- With --small (issue 47's rows; benchmarks/peers/cubie_small_stiff.py runs CuBIE's side): van der Pol
  as CuBIE's stiff tutorial (x0 = 2, v0 = 0, mu = linspace(20, 80, runs), t in [0, 20], rtol 1e-5,
  atol 1e-8) and Robertson (y0 = (1, 0, 0), k3 = linspace(5e3, 2e4, runs), t in [0, 40], rtol 1e-6,
  atol 1e-10), float64.
- With --l96-sizes: the explicit model path beside them, Lorenz-96 with N states written as equations
  (benchmarks/large_systems.sh's), rk4 with dt 1e-3 over t in [0, 1] (1000 steps; --l96-methods adds
  adaptive ones at rtol = atol = 1e-6, 1e-4 in float32), F = linspace(7, 9, runs); state_steps_per_s =
  runs N (mean accepted steps) / the warm solve; split_runs=1: a run over several lanes where the rule
  splits it (--l96-one-thread adds split_runs=0 and same_bits, the final states' comparison).
first_s: from the Model's construction to the end of the first solve, with BATCHODE_CACHE_DIR an empty
folder (a cold compile); solve_ms: median of REPEATS (3) later solves. Accuracy: runs 0, runs/2 and
runs-1 against scipy's Radau at rtol 1e-12 (where scipy is installed): err_tol is the largest
|y - y_ref| / (atol + rtol |y_ref|) over their states (1 or a little more is the tolerance asked).
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
import tomllib

import numpy

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def bruss(n):
    """BRUSS as batchode.Model keywords (cubie_bruss.py's equations, initial state and c: one BRUSS for both)."""
    sys.path.insert(0, os.path.join(ROOT, "benchmarks", "peers"))
    from cubie_bruss import bruss_model

    equations, states, c = bruss_model(n)
    return dict(equations=equations, states=states, parameters={"A": 1.0}, constants={"cdiff": c}, name=f"bruss{n}")


def bruss_rhs(n):
    m = n // 2
    c = (m + 1) * (m + 1) / 50.0

    def f(t, y, a):
        u, v = y[0::2], y[1::2]
        ul = numpy.concatenate([[1.0], u[:-1]]); ur = numpy.concatenate([u[1:], [1.0]])
        vl = numpy.concatenate([[3.0], v[:-1]]); vr = numpy.concatenate([v[1:], [3.0]])
        out = numpy.empty_like(y)
        out[0::2] = a + u * u * v - 4.0 * u + c * (ul - 2.0 * u + ur)
        out[1::2] = 3.0 * u - u * u * v + c * (vl - 2.0 * v + vr)
        return out
    return f


def pollu_rhs():
    """POLLU's right-hand side from examples/models/pollu.toml's text (for scipy), and its defaults."""
    with open(os.path.join(ROOT, "examples", "models", "pollu.toml"), "rb") as fh:
        model = tomllib.load(fh)
    lines = [l.strip() for l in model["equations"].splitlines() if l.strip()]
    body = "\n".join(f"    {l.replace('d', 'dd_', 1) if l.startswith('dy') else l}" for l in lines)
    names = list(model["states"])
    src = "def f(t, y, k1):\n"
    src += "".join(f"    {k} = {v!r}\n" for k, v in model["constants"].items())
    src += "".join(f"    {s} = y[{i}]\n" for i, s in enumerate(names))
    src += body + "\n    return [" + ", ".join(f"dd_{s}" for s in names) + "]\n"
    scope = {}
    exec(src, scope)  # noqa: S102 - our own model file
    return scope["f"], [float(v) for v in model["states"].values()]


# The small stiff problems of --small, shared with benchmarks/peers/cubie_small_stiff.py: equations as
# both front ends read them, the swept parameter, span and tolerances, and the right-hand side for scipy.
SMALL = {
    "vdp": dict(equations="dx = v\ndv = mu * (1 - x*x) * v - x", states={"x": 2.0, "v": 0.0}, parameter="mu",
                sweep=(20.0, 80.0), t_end=20.0, rtol=1e-5, atol=1e-8,
                rhs=lambda t, y, mu: [y[1], mu * (1 - y[0] * y[0]) * y[1] - y[0]]),
    "robertson": dict(equations="dy1 = -0.04 * y1 + 1e4 * y2 * y3\n"
                                "dy2 = 0.04 * y1 - 1e4 * y2 * y3 - k3 * y2 * y2\n"
                                "dy3 = k3 * y2 * y2",
                      states={"y1": 1.0, "y2": 0.0, "y3": 0.0}, parameter="k3", sweep=(5e3, 2e4), t_end=40.0,
                      rtol=1e-6, atol=1e-10,
                      rhs=lambda t, y, k3: [-0.04 * y[0] + 1e4 * y[1] * y[2],
                                            0.04 * y[0] - 1e4 * y[1] * y[2] - k3 * y[1] * y[1], k3 * y[1] * y[1]]),
}


def reference(f, y0, p, t_end):
    try:
        from scipy.integrate import solve_ivp
    except ImportError:
        return None
    r = solve_ivp(lambda t, y: f(t, y, p), (0.0, t_end), y0, method="Radau", rtol=1e-12, atol=1e-14)
    return r.y[:, -1] if r.success else None


def err_tol(final, picks, refs, rtol, atol):
    worst = 0.0
    for run, ref in zip(picks, refs):
        if ref is None:
            return float("nan")
        y = numpy.asarray(final[run], dtype=numpy.float64)
        worst = max(worst, float(numpy.max(numpy.abs(y - ref) / (atol + rtol * numpy.abs(ref)))))
    return worst


def measure(batchode, make_model, y0, params, method, precision, t_end, rtol, atol, repeats, backend="auto",
            **options):
    """(first_s, solve_ms, result, steps_mean) with a cold cache for the first solve; `options`: more of
    the Solver's keywords (dt, split_runs)."""
    with tempfile.TemporaryDirectory(prefix="batchode_stiff_cache_") as cache:
        os.environ["BATCHODE_CACHE_DIR"] = cache
        start = time.perf_counter()
        model = make_model()
        solver = batchode.Solver(model, method=method, t_span=(0.0, t_end), rtol=rtol, atol=atol,
                                 precision=precision, verbosity="none", counters=True, backend=backend, **options)
        r = solver.solve(y0=y0, parameters=params)
        first_s = time.perf_counter() - start
        walls = []
        for _ in range(repeats):
            t = time.perf_counter()
            r = solver.solve(y0=y0, parameters=params)
            walls.append(time.perf_counter() - t)
        steps = float(numpy.mean(r.counters["accepted_steps"])) if r.counters is not None else float("nan")
        return first_s, statistics.median(walls) * 1e3, r, steps


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=65536)
    ap.add_argument("--sizes", type=int, nargs="+", default=[8, 16, 32, 64, 128, 256])
    ap.add_argument("--methods", nargs="+", default=["rodas4", "ros3p"])
    ap.add_argument("--precisions", nargs="+", default=["float64", "float32"])
    ap.add_argument("--repeats", type=int, default=int(os.environ.get("REPEATS", "3")))
    ap.add_argument("--pollu-only", action="store_true")
    ap.add_argument("--bruss-only", action="store_true")
    ap.add_argument("--small", action="store_true", help="also van der Pol and Robertson (SMALL)")
    ap.add_argument("--small-only", action="store_true", help="only van der Pol and Robertson")
    ap.add_argument("--l96-sizes", type=int, nargs="*", default=[])
    ap.add_argument("--l96-only", action="store_true", help="only the Lorenz-96 sizes")
    ap.add_argument("--l96-methods", nargs="+", default=["rk4"], help="rk4 (dt 1e-3) or adaptive ones (rtol 1e-6 / 1e-4)")
    ap.add_argument("--l96-one-thread", action="store_true",
                    help="also each Lorenz-96 case with split_runs=False (one thread per run; same_bits compares)")
    ap.add_argument("--backend", default="auto", help="auto (default) or gpu: first_s then times the GPU compile only")
    args = ap.parse_args()
    import batchode

    runs = args.runs
    picks = [0, runs // 2, runs - 1]
    if args.small_only:
        args.small, args.bruss_only, args.pollu_only, args.sizes = True, True, False, []
    for name, case in SMALL.items() if args.small else ():
        sweep = numpy.linspace(*case["sweep"], runs)
        y_start = numpy.array(list(case["states"].values()))
        refs = [reference(case["rhs"], y_start, sweep[i], case["t_end"]) for i in picks]
        y0 = numpy.tile(y_start, (runs, 1))
        for method in args.methods:
            try:
                first_s, ms, r, steps = measure(
                    batchode, lambda: batchode.Model(equations=case["equations"], states=case["states"],
                                                     parameters={case["parameter"]: 1.0}, name=name),
                    y0, sweep.reshape(runs, 1), method, "float64", case["t_end"], case["rtol"], case["atol"],
                    args.repeats, args.backend)
                ok = int(numpy.sum(r.status == 0))
                print(f"batchode_stiff model={name} algorithm={method} precision=float64 N={len(y_start)} runs={runs} "
                      f"first_s={first_s:.2f} solve_ms={ms:.2f} steps_mean={steps:.1f} ok={ok}/{runs} "
                      f"err_tol={err_tol(r.final_state, picks, refs, case['rtol'], case['atol']):.3g}", flush=True)
            except Exception as exc:  # noqa: BLE001 - report and go on
                print(f"batchode_stiff model={name} algorithm={method} error {type(exc).__name__}: {exc}"[:400],
                      flush=True)
    for n in args.l96_sizes:
        equations = "\n".join(f"dx{i} = (x{(i + 1) % n} - x{(i - 2) % n}) * x{(i - 1) % n} - x{i} + F" for i in range(n))
        states = {f"x{i}": (8.01 if i == 0 else 8.0) for i in range(n)}
        for precision in args.precisions:
            y0 = numpy.tile(numpy.array(list(states.values())), (runs, 1)).astype(precision)
            params = numpy.linspace(7.0, 9.0, runs).reshape(runs, 1).astype(precision)
            for method in args.l96_methods:
                tol = 1e-6 if precision == "float64" else 1e-4
                step = dict(dt=1e-3) if method == "rk4" else {}
                finals = {}
                for split_runs in (True, False) if args.l96_one_thread else (True,):
                    try:
                        first_s, ms, r, steps = measure(
                            batchode, lambda: batchode.Model(equations=equations, states=states,
                                                             parameters={"F": 8.0}, name=f"l96_{n}"),
                            y0, params, method, precision, 1.0, tol, tol, args.repeats, args.backend,
                            split_runs=split_runs, **step)
                        finals[split_runs] = r.final_state
                        same = "" if len(finals) < 2 else f" same_bits={int(numpy.array_equal(finals[True], finals[False]))}"
                        print(f"batchode_explicit model=lorenz96 algorithm={method} precision={precision} N={n} "
                              f"runs={runs} split_runs={int(split_runs)} first_s={first_s:.2f} solve_ms={ms:.2f} "
                              f"steps_mean={steps:.1f} state_steps_per_s={runs * n * steps / (ms / 1e3):.3g} "
                              f"ok={int(numpy.sum(r.status == 0))}/{runs} "
                              f"x0_mean={float(numpy.mean(r.final_state[:, 0])):.10g}{same}", flush=True)
                    except Exception as exc:  # noqa: BLE001 - report and go on
                        print(f"batchode_explicit model=lorenz96 algorithm={method} precision={precision} N={n} "
                              f"split_runs={int(split_runs)} error {type(exc).__name__}: {exc}"[:400], flush=True)
    if not args.pollu_only and not args.l96_only:
        for n in args.sizes:
            kw = bruss(n)
            y_start = numpy.array(list(kw["states"].values()))
            sweep = numpy.linspace(0.9, 1.1, runs)
            # (scipy's Radau takes minutes past 128 states with its finite-difference Jacobian: nan there)
            refs = [reference(bruss_rhs(n), y_start, sweep[i], 1.0) if n <= 128 else None for i in picks]
            for precision in args.precisions:
                tol = 1e-6 if precision == "float64" else 1e-4
                y0 = numpy.tile(y_start, (runs, 1)).astype(precision)
                params = sweep.reshape(runs, 1).astype(precision)
                for method in args.methods:
                    try:
                        first_s, ms, r, steps = measure(batchode, lambda: batchode.Model(**kw), y0, params, method,
                                                        precision, 1.0, tol, tol, args.repeats, args.backend)
                        ok = int(numpy.sum(r.status == 0))
                        print(f"batchode_stiff model=bruss algorithm={method} precision={precision} N={n} runs={runs} "
                              f"first_s={first_s:.2f} solve_ms={ms:.2f} steps_mean={steps:.1f} ok={ok}/{runs} "
                              f"err_tol={err_tol(r.final_state, picks, refs, tol, tol):.3g} "
                              f"u1_mean={float(numpy.mean(r.final_state[:, 0])):.10g}", flush=True)
                    except Exception as exc:  # noqa: BLE001 - report and go on
                        print(f"batchode_stiff model=bruss algorithm={method} precision={precision} N={n} "
                              f"error {type(exc).__name__}: {exc}"[:400], flush=True)
    if not args.bruss_only and not args.l96_only:
        f, y_start = pollu_rhs()
        k1 = 0.35 * numpy.linspace(0.5, 1.5, runs)
        refs = [reference(f, numpy.array(y_start), k1[i], 60.0) for i in picks]
        y0 = numpy.tile(numpy.array(y_start), (runs, 1))
        for method in args.methods:
            try:
                first_s, ms, r, steps = measure(
                    batchode, lambda: batchode.load_model(os.path.join(ROOT, "examples", "models", "pollu.toml")),
                    y0, k1.reshape(runs, 1), method, "float64", 60.0, 1e-6, 1e-9, args.repeats, args.backend)
                ok = int(numpy.sum(r.status == 0))
                print(f"batchode_stiff model=pollu algorithm={method} precision=float64 N=20 runs={runs} "
                      f"first_s={first_s:.2f} solve_ms={ms:.2f} steps_mean={steps:.1f} ok={ok}/{runs} "
                      f"err_tol={err_tol(r.final_state, picks, refs, 1e-6, 1e-9):.3g} "
                      f"y1_mean={float(numpy.mean(r.final_state[:, 0])):.10g}", flush=True)
            except Exception as exc:  # noqa: BLE001
                print(f"batchode_stiff model=pollu algorithm={method} error {type(exc).__name__}: {exc}"[:400],
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
