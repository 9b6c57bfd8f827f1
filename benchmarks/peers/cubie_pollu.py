# CuBIE on POLLU (examples/models/pollu.toml: the IVP test set's air-pollution chemistry, 20 species,
# 25 reactions), on benchmarks/stiff_models.py's protocol: k1 = 0.35 * linspace(0.5, 1.5, RUNS), t in
# [0, 60], rtol 1e-6, atol 1e-9, float64, final state only. The reaction rates are written into the
# derivatives (CuBIE's SymPy front end finds the common subexpressions again). first_s: from
# create_ODE_system to the end of the first solve with CuBIE's caches in a fresh folder (a cold JIT);
# solve_ms: median of REPEATS (3) later solves. One line per algorithm:
#   cubie_pollu algorithm=<a> precision=float64 N=20 runs=<r> first_s=<s> solve_ms=<ms> ok=<k>/<r>
#     y1_mean=<mean final y1> status=<...>
#
#   python3 benchmarks/peers/cubie_pollu.py RUNS [ALGORITHM ...]     (default: ros3p rodas3p radau)
#
# On the GPU machine, as cubie_bruss.py (../shared/peers/README.md): CuBIE's source on PYTHONPATH.
import os
import re
import statistics
import sys
import tempfile
import time
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pollu_for_cubie():
    with open(os.path.join(ROOT, "examples", "models", "pollu.toml"), "rb") as fh:
        model = tomllib.load(fh)
    rates, derivatives = {}, []
    for line in model["equations"].splitlines():
        if "=" not in line:
            continue
        lhs, rhs = (s.strip() for s in line.split("=", 1))
        if lhs.startswith("dy"):
            derivatives.append(f"{lhs} = " + re.sub(r"\br(\d+)\b", lambda m: f"({rates['r' + m.group(1)]})", rhs))
        else:
            rates[lhs] = rhs
    return "\n".join(derivatives), dict(model["states"]), dict(model["constants"])


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 65536
    algorithms = sys.argv[2:] or ["ros3p", "rodas3p", "radau"]
    repeats = int(os.environ.get("REPEATS", "3"))
    import numpy as np
    from numba import cuda

    import cubie as qb
    from cubie.cache_root import set_cache_root

    cuda.current_context()
    equations, states, constants = pollu_for_cubie()
    k1 = 0.35 * np.linspace(0.5, 1.5, runs)
    for algorithm in algorithms:
        with tempfile.TemporaryDirectory(prefix="cubie_pollu_cache_") as cache:
            set_cache_root(cache)
            try:
                t0 = time.perf_counter()
                system = qb.create_ODE_system(equations, states=states, parameters={"k1": 0.35}, constants=constants,
                                              name=f"pollu_{algorithm}", precision=np.float64)
                solver = qb.Solver(system, algorithm=algorithm, rtol=1e-6, atol=1e-9, save_every=60.0,
                                   output_types=["state"], time_logging_level=None)
                y = {name: np.full(runs, value) for name, value in states.items()}
                p = {"k1": k1}
                r = solver.solve(y, p, duration=60.0, grid_type="verbatim")
                cuda.synchronize()
                first_s = time.perf_counter() - t0
                walls = []
                for _ in range(repeats):
                    t = time.perf_counter()
                    r = solver.solve(y, p, duration=60.0, grid_type="verbatim")
                    cuda.synchronize()
                    walls.append(time.perf_counter() - t)
                codes = np.asarray(r.status_codes).ravel()
                order = tuple(getattr(r, "_stride_order", ("time", "variable", "run")))
                state = np.transpose(np.asarray(r.state), [order.index(k) for k in ("time", "variable", "run")])
                iy1 = int(np.asarray(solver.get_state_indices(["y1"])).ravel()[0])
                ok = int(np.sum(codes == 0))
                print(f"cubie_pollu algorithm={algorithm} precision=float64 N=20 runs={runs} first_s={first_s:.2f} "
                      f"solve_ms={statistics.median(walls) * 1e3:.2f} ok={ok}/{runs} "
                      f"y1_mean={float(np.mean(state[-1][iy1])):.10g} status={'ok' if ok == runs else 'partial'}",
                      flush=True)
                del r
            except Exception as exc:  # noqa: BLE001 - report and go on
                print(f"cubie_pollu algorithm={algorithm} error {type(exc).__name__}: {exc}"[:400], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
