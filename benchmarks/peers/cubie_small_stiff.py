# CuBIE on the small stiff problems of benchmarks/stiff_models.py --small (its SMALL: van der Pol as CuBIE's
# stiff tutorial, mu = linspace(20, 80, RUNS), t in [0, 20], rtol 1e-5, atol 1e-8; Robertson, k3 =
# linspace(5e3, 2e4, RUNS), t in [0, 40], rtol 1e-6, atol 1e-10), float64, final state only, on that
# script's protocol: first_s from create_ODE_system to the end of the first solve with CuBIE's caches in a
# fresh folder (a cold JIT), solve_ms the median of REPEATS (3) later solves, err_tol the largest
# |y - y_ref| / (atol + rtol |y_ref|) of runs 0, RUNS/2 and RUNS-1 against scipy's Radau at rtol 1e-12.
# One line per (problem, algorithm):
#   cubie_stiff model=<vdp|robertson> algorithm=<a> precision=float64 N=<n> runs=<r> first_s=<s>
#     solve_ms=<ms> ok=<k>/<r> err_tol=<e>
#
#   python3 benchmarks/peers/cubie_small_stiff.py RUNS [ALGORITHM ...]   (default: radau ros3p rodas3p)
#
# On the GPU machine, as cubie_bruss.py (../shared/peers/README.md): CuBIE's source on PYTHONPATH.
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from stiff_models import SMALL, err_tol, reference  # noqa: E402 - benchmarks/ put on the path above


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 65536
    algorithms = sys.argv[2:] or ["radau", "ros3p", "rodas3p"]
    repeats = int(os.environ.get("REPEATS", "3"))
    import numpy as np
    from numba import cuda

    import cubie as qb
    from cubie.cache_root import set_cache_root

    cuda.current_context()
    picks = [0, runs // 2, runs - 1]
    for name, case in SMALL.items():
        sweep = np.linspace(*case["sweep"], runs)
        y_start = np.array(list(case["states"].values()))
        refs = [reference(case["rhs"], y_start, sweep[i], case["t_end"]) for i in picks]
        for algorithm in algorithms:
            with tempfile.TemporaryDirectory(prefix="cubie_small_cache_") as cache:
                set_cache_root(cache)
                try:
                    t0 = time.perf_counter()
                    system = qb.create_ODE_system(case["equations"].splitlines(), states=case["states"],
                                                  parameters={case["parameter"]: 1.0}, name=f"{name}_{algorithm}",
                                                  precision=np.float64)
                    solver = qb.Solver(system, algorithm=algorithm, rtol=case["rtol"], atol=case["atol"],
                                       save_every=case["t_end"], output_types=["state"], time_logging_level=None)
                    y = {s: np.full(runs, v) for s, v in case["states"].items()}
                    p = {case["parameter"]: sweep}
                    r = solver.solve(y, p, duration=case["t_end"], grid_type="verbatim")
                    cuda.synchronize()
                    first_s = time.perf_counter() - t0
                    walls = []
                    for _ in range(repeats):
                        t = time.perf_counter()
                        r = solver.solve(y, p, duration=case["t_end"], grid_type="verbatim")
                        cuda.synchronize()
                        walls.append(time.perf_counter() - t)
                    codes = np.asarray(r.status_codes).ravel()
                    order = tuple(getattr(r, "_stride_order", ("time", "variable", "run")))
                    state = np.transpose(np.asarray(r.state), [order.index(k) for k in ("time", "variable", "run")])
                    index = [int(np.asarray(solver.get_state_indices([s])).ravel()[0]) for s in case["states"]]
                    final = state[-1][index].T  # (runs, states) in the problem's order
                    ok = int(np.sum(codes == 0))
                    print(f"cubie_stiff model={name} algorithm={algorithm} precision=float64 N={len(y_start)} "
                          f"runs={runs} first_s={first_s:.2f} solve_ms={statistics.median(walls) * 1e3:.2f} "
                          f"ok={ok}/{runs} err_tol={err_tol(final, picks, refs, case['rtol'], case['atol']):.3g}",
                          flush=True)
                    del r
                except Exception as exc:  # noqa: BLE001 - report and go on
                    print(f"cubie_stiff model={name} algorithm={algorithm} error {type(exc).__name__}: {exc}"[:400],
                          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
