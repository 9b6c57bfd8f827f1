#!/usr/bin/env python3
"""Where a stiff model's GPU solve goes (issue 46): BRUSS written as equations, warm solves and one
solve's TimeLogger breakdown, or one solve alone for a profiler.

    PYTHONPATH=<built package> python3 benchmarks/stiff_breakdown.py time 8 16 32 64 2> breakdown.txt
    ncu --clock-control none --metrics <list> --launch-count 6 \\
        python3 benchmarks/stiff_breakdown.py ncu 32          # (after `time`, with the same cache)

BRUSS (benchmarks/stiff_models.py's: cubie_bruss.py's equations, A = linspace(0.9, 1.1, runs)), 65536
runs (RUNS), t in [0, 1], rtol = atol = 1e-6, float64, METHOD (rodas5p). `time`: for each size, the first
solve and the median and least of 5 warm solves with backend "auto" and "gpu" (steps: mean accepted
steps a run), then two solves at verbosity "verbose" (the second's breakdown on stderr is the warm one).
`ncu`: one solve with backend "gpu" per size, nothing else launched but what a solve launches.
"""
import os
import statistics
import sys
import time

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stiff_models import bruss  # noqa: E402

import batchode  # noqa: E402


def main():
    runs = int(os.environ.get("RUNS", 65536))
    mode, sizes = sys.argv[1], [int(a) for a in sys.argv[2:]]
    method = os.environ.get("METHOD", "rodas5p")
    for n in sizes:
        kw = bruss(n)
        y0 = numpy.tile(numpy.array(list(kw["states"].values())), (runs, 1))
        params = numpy.linspace(0.9, 1.1, runs).reshape(runs, 1)

        def solver(backend, verbosity="none", counters=False):
            return batchode.Solver(batchode.Model(**kw), method=method, t_span=(0.0, 1.0), rtol=1e-6, atol=1e-6,
                                   precision="float64", verbosity=verbosity, counters=counters, backend=backend)

        if mode == "ncu":
            solver("gpu").solve(y0=y0, parameters=params)
            continue
        for backend in ("auto", "gpu"):
            s = solver(backend, counters=True)
            start = time.perf_counter()
            r = s.solve(y0=y0, parameters=params)
            first = time.perf_counter() - start
            walls = []
            for _ in range(5):
                start = time.perf_counter()
                r = s.solve(y0=y0, parameters=params)
                walls.append(time.perf_counter() - start)
            print(f"N={n} backend={backend} first_s={first:.2f} warm_ms={statistics.median(walls) * 1e3:.3f} "
                  f"min_ms={min(walls) * 1e3:.3f} steps={float(numpy.mean(r.counters['accepted_steps'])):.1f}",
                  flush=True)
        s = solver("gpu", verbosity="verbose")
        s.solve(y0=y0, parameters=params)
        s.solve(y0=y0, parameters=params)


if __name__ == "__main__":
    main()
