# CuBIE 0.9.0 on the Lorenz sweep at high accuracy (issue 47; batchode's side: benchmarks/python_peers.py
# --tight): rho = linspace(0, 21, N), y0 = (1, 0, 0), t in [0, 1], float64, rtol = atol = 1e-10, final
# state only, with CuBIE's high-order explicit methods; the wall time of Solver.solve after a warm-up
# (min and median of 5, as ../shared/peers/cubie9_bench.py measures), and err: the largest |x - x_ref| of
# runs 0, N/2 and N-1 against scipy's DOP853 at 1e-13 (the same reference as batchode's side).
#
#   python3 benchmarks/peers/cubie_lorenz_tight.py [N] [ALGORITHM ...]   (default: 1048576 vern7 dop853)
#
# On the GPU machine, as cubie_bruss.py (../shared/peers/README.md): CuBIE's source on PYTHONPATH.
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 20
    algorithms = sys.argv[2:] or ["vern7", "dop853"]
    import numpy as np

    import cubie as qb
    from python_peers import lorenz_reference  # noqa: E402 - benchmarks/ put on the path above

    rho = np.linspace(0.0, 21.0, n)
    picks = [0, n // 2, n - 1]
    ref = lorenz_reference(rho[picks])
    system = qb.create_ODE_system("dx = sigma * (y - x)\ndy = x * (rho - z) - y\ndz = x * y - beta * z",
                                  states={"x": 1.0, "y": 0.0, "z": 0.0}, parameters={"rho": 21.0},
                                  constants={"sigma": 10.0, "beta": 8.0 / 3.0}, name="LorenzTight",
                                  precision=np.float64)
    y = {"x": np.ones(n), "y": np.zeros(n), "z": np.zeros(n)}
    p = {"rho": rho}
    for algorithm in algorithms:
        try:
            solver = qb.Solver(system, algorithm=algorithm, rtol=1e-10, atol=1e-10, save_every=1.0,
                               output_types=["state"], time_logging_level=None)
            t0 = time.perf_counter()
            r = solver.solve(y, p, duration=1.0, grid_type="verbatim")
            first_s = time.perf_counter() - t0
            walls = []
            for _ in range(5):
                t = time.perf_counter()
                r = solver.solve(y, p, duration=1.0, grid_type="verbatim")
                walls.append(time.perf_counter() - t)
            order = tuple(getattr(r, "_stride_order", ("time", "variable", "run")))
            state = np.transpose(np.asarray(r.state), [order.index(k) for k in ("time", "variable", "run")])
            ix = int(np.asarray(solver.get_state_indices(["x"])).ravel()[0])
            err = float(np.max(np.abs(state[-1][ix][picks] - ref)))
            ok = int(np.sum(np.asarray(r.status_codes).ravel() == 0))
            print(f"cubie {algorithm:8s} f64 1e-10 lorenz n={n} min_ms={min(walls) * 1e3:.2f} "
                  f"med_ms={statistics.median(walls) * 1e3:.2f} ok={ok}/{n} err {err:.2e} first_s={first_s:.1f}",
                  flush=True)
        except Exception as exc:  # noqa: BLE001 - report and go on
            print(f"cubie {algorithm} error {type(exc).__name__}: {exc}"[:400], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
