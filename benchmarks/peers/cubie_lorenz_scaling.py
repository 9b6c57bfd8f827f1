# CuBIE 0.9.0 on the Lorenz RK4 sweep at sizes from 2^12 to 2^22 runs (issue 50's scaling picture;
# batchode's side: benchmarks/python_peers.py --sizes ...): rho = linspace(0, 21, N), y0 = (1, 0, 0),
# classical RK4, dt = 1e-3, t in [0, 1], final state only, float32 and float64; the wall time of a reused
# Solver's solve after a warm-up, min and median of 10 (as ../shared/peers/cubie9_bench.py measures),
# printed as python_peers.py prints batchode's, so docs/scripts/peers_scaling.py reads both.
#
#   python3 benchmarks/peers/cubie_lorenz_scaling.py [N ...]   (default: 4096 16384 ... 4194304)
#
# On the GPU machine, as cubie_bruss.py (../shared/peers/README.md): CuBIE's source on PYTHONPATH.
import statistics
import sys
import time


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [1 << k for k in range(12, 23, 2)]
    import numpy as np

    import cubie as qb

    for precision in (np.float32, np.float64):
        system = qb.create_ODE_system("dx = sigma * (y - x)\ndy = x * (rho - z) - y\ndz = x * y - beta * z",
                                      states={"x": 1.0, "y": 0.0, "z": 0.0}, parameters={"rho": 21.0},
                                      constants={"sigma": 10.0, "beta": 8.0 / 3.0}, name="Lorenz",
                                      precision=precision)
        solver = qb.Solver(system, algorithm="classical-rk4", dt=0.001, save_every=1.0, step_controller="fixed",
                           output_types=["state"], time_logging_level=None)
        for n in sizes:
            y = {"x": np.ones(n, precision), "y": np.zeros(n, precision), "z": np.zeros(n, precision)}
            p = {"rho": np.linspace(0, 21, n, dtype=precision)}
            solver.solve(y, p, duration=1.0, grid_type="verbatim")
            walls = []
            for _ in range(10):
                start = time.perf_counter()
                solver.solve(y, p, duration=1.0, grid_type="verbatim")
                walls.append(time.perf_counter() - start)
            w = min(walls)
            print(f"cubie rk4 {np.dtype(precision).name} n={n:>9d} wall(min of 10) {w * 1e3:9.2f} ms  median "
                  f"{statistics.median(walls) * 1e3:9.2f} ms  {n * 1000 / w:.3e} traj-steps/s", flush=True)


if __name__ == "__main__":
    main()
