# CuBIE's first solve of a new model (issue 16's comparison): Lorenz written as text, as in
# ../shared/peers/cubie_bench.py (classical RK4, dt 1e-3, t in [0, 1], final state, float64), timed
# from create_ODE_system to the end of the first Solver.solve of `n` runs (its numba-cuda JIT
# included), then a second Solver of a new system object with the same text in the same process
# ("warm": whatever CuBIE caches in memory or on disk). The CUDA context is created first, outside
# the clock, as batchode's benchmark does. Run it twice in fresh processes to see a disk cache.
#   python3 cubie_first_solve.py [n]     (default 1)
import sys
import time

import numpy as np
from numba import cuda

import cubie as qb

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1
cuda.current_context()  # the context, before any clock starts


def first_solve(label):
    start = time.perf_counter()
    system = qb.create_ODE_system(
        """
        dx = sigma * (y - x)
        dy = x * (rho - z) - y
        dz = x * y - beta * z
        """,
        states={"x": 1.0, "y": 0.0, "z": 0.0},
        parameters={"rho": 21.0},
        constants={"sigma": 10.0, "beta": 8.0 / 3.0},
        name="Lorenz",
        precision=np.float64,
    )
    solver = qb.Solver(system, algorithm="classical-rk4", dt=0.001, save_every=1.0, step_controller="fixed",
                       output_types=["state"], time_logging_level=None)
    inits, params = solver.build_grid(initial_values={"x": 1.0, "y": 0.0, "z": 0.0},
                                      parameters={"rho": np.linspace(0.0, 21.0, n)})
    solver.solve(inits, params, duration=1.0)
    cuda.synchronize()
    print(f"cubie first solve ({label}) rk4 float64 n={n}: {(time.perf_counter() - start) * 1e3:.0f} ms", flush=True)


first_solve("new process")
first_solve("second system object, same process")
