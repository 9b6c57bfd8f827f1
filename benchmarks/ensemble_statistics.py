#!/usr/bin/env python3
"""Statistics across runs (issue 52): against numpy on the full per-run series, and what they cost.

    PYTHONPATH=<built package> python3 benchmarks/ensemble_statistics.py [--runs 1000000] [--saves 10]
        [--backend auto] [--repeats 3] [--cost-runs 4194304 --cost-saves 100 --t-end 1]
        [--sweep-runs 1000000000 --sweep-saves 1000]

Checks (the Lorenz sweep with random initial values, x, y, z ~ U(-10, 10) and rho ~ U(0, 30), dopri5 at
rtol = atol = 1e-6, t in [0, 1], float64, `saves` save times; and x' = -a x with x0 ~ N(2, 0.5^2), a =
0.7, whose population mean 2 exp(-a t) and variance 0.25 exp(-2 a t) are exact): one solve keeping the
series and the statistics (mean, var, min, max, quantiles[0.01,0.05,0.25,0.5,0.75,0.95,0.99],
histogram[64]); numpy's nanmean / nanvar / nanmin / nanmax of that series, the rank of each quantile in
the sorted column against the bound the result reports, numpy.histogram over the result's edges.

Cost (alone: --cost-only): the Lorenz solve over [0, t_end] keeping final states only, keeping the series
at `cost_saves` save times (skipped past 16 GiB of series), and with statistics only (output_types=
["status"]: no series kept; moments alone are reduced on the GPU chunk by chunk, with quantiles and a
histogram the runs are solved in slices reduced on the host) of mean, var, min, max, then with three
quantiles and histogram[64] too (skipped with --moments-only): warm medians over `repeats`.

Sweep (--sweep-runs N): one solve of N Lorenz runs (x, y, z ~ U(-10, 10), rho ~ U(0, 30)) with
`sweep_saves` save times keeping count/mean/var/min/max of the three states only: its wall time, the process's
peak resident memory, and the statistics' size.
"""

import argparse
import resource
import statistics
import time

import numpy

from python_peers import LORENZ

LEVELS = [0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99]


def against_numpy(r):
    """Largest relative differences of mean and var, whether min / max / histograms are equal, and the
    worst quantile rank error over the bound (<= 1 passes)."""
    s, values = r.statistics, r.state.astype(numpy.float64)
    mean, var = numpy.nanmean(values, axis=0), numpy.nanvar(values, axis=0)
    scale = numpy.maximum(numpy.abs(mean), 1e-300)
    out = dict(mean_rel=float(numpy.max(numpy.abs(s["mean"] - mean) / scale)),
               var_rel=float(numpy.max(numpy.abs(s["var"] - var) / numpy.maximum(var, 1e-300))),
               min_equal=bool(numpy.array_equal(s["min"], numpy.nanmin(values, axis=0))),
               max_equal=bool(numpy.array_equal(s["max"], numpy.nanmax(values, axis=0))),
               histograms_equal=True, worst_rank_over_bound=0.0, rank_error=s["quantile_rank_error"])
    for k in range(values.shape[1]):
        for v in range(values.shape[2]):
            column = numpy.sort(values[:, k, v][~numpy.isnan(values[:, k, v])])
            n = column.size
            bound = max(s["quantile_rank_error"] * n, 0.5)
            for j, q in enumerate(LEVELS):
                got = s["quantiles"][k, v, j]
                below, up_to = numpy.searchsorted(column, got, "left"), numpy.searchsorted(column, got, "right")
                off = max(0.0, below - q * n, q * n - up_to)
                out["worst_rank_over_bound"] = max(out["worst_rank_over_bound"], off / bound)
            counts, _ = numpy.histogram(column, bins=s["histogram_edges"][k, v])
            out["histograms_equal"] &= bool(numpy.array_equal(counts, s["histogram"][k, v]))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1_000_000)
    parser.add_argument("--saves", type=int, default=10)
    parser.add_argument("--cost-runs", type=int, default=1 << 20)
    parser.add_argument("--cost-saves", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--cost-only", action="store_true", help="skip the checks against numpy")
    parser.add_argument("--t-end", type=float, default=1.0, help="the cost cases' span [0, t_end]")
    parser.add_argument("--moments-only", action="store_true", help="cost: skip quantiles and histograms")
    parser.add_argument("--sweep-runs", type=int, default=0, help="the sweep's runs (0: no sweep)")
    parser.add_argument("--sweep-saves", type=int, default=1000)
    args = parser.parse_args()
    import batchode

    rng = numpy.random.default_rng(52)
    lorenz = batchode.Model(**LORENZ)
    every = dict(ensemble_statistics=["mean", "var", "min", "max", f"quantiles[{','.join(map(str, LEVELS))}]",
                                      "histogram[64]"], verbosity="none", backend=args.backend)
    if args.sweep_runs:
        sweep(args, batchode, lorenz, rng)
        return
    if not args.cost_only:
        check(args, batchode, lorenz, every, rng)
    cost(args, batchode, lorenz, rng)


def sweep(args, batchode, lorenz, rng):
    """One solve of sweep_runs runs keeping mean/var/min/max only: wall time and peak memory."""
    n = args.sweep_runs
    y0 = numpy.empty((n, 3))
    rho = numpy.empty((n, 1))
    step = 1 << 24
    for first in range(0, n, step):  # drawn in pieces: no temporaries of the whole sweep's size
        y0[first:first + step] = rng.uniform(-10, 10, (min(step, n - first), 3))
        rho[first:first + step] = rng.uniform(0, 30, (min(step, n - first), 1))
    inputs_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    solver = batchode.Solver(lorenz, verbosity="none", backend=args.backend, t_span=(0.0, args.t_end),
                             save_every=args.t_end / args.sweep_saves, output_types=["status"],
                             ensemble_statistics=["count", "mean", "var", "min", "max"])
    begin = time.perf_counter()
    r = solver.solve(y0=y0, parameters=rho)
    wall = time.perf_counter() - begin
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    s = r.statistics
    print(f"sweep: {n} runs x {s['mean'].shape[0]} save times ({'+'.join(r.backends)}, {len(r.execution)} parts): "
          f"{wall:.1f} s with the first compile, {n / wall:.3g} runs/s; peak resident {peak:.1f} GiB "
          f"(inputs alone {inputs_rss:.1f} GiB); statistics {sum(v.nbytes for v in s.values() if hasattr(v, 'nbytes')) / 2**20:.2f} MiB; "
          f"count at the end {int(s['count'][-1].min())}, all succeeded {bool(r.success.all())}; "
          f"mean at t_end {s['mean'][-1]}")


def check(args, batchode, lorenz, every, rng):
    n = args.runs
    y0 = rng.uniform(-10, 10, (n, 3))
    rho = rng.uniform(0, 30, (n, 1))
    start = time.perf_counter()
    r = batchode.solve_ivp(lorenz, (0.0, 1.0), y0, rho, save_every=1.0 / args.saves, **every)
    print(f"lorenz {n} runs x {args.saves + 1} saves ({'+'.join(r.backends)}, {time.perf_counter() - start:.1f} s "
          f"with the first compile): {against_numpy(r)}")
    # Moments alone and no series: on a GPU, reduced on the device chunk by chunk (no series leaves it).
    moments = batchode.solve_ivp(lorenz, (0.0, 1.0), y0, rho, save_every=1.0 / args.saves, output_types=["status"],
                                 ensemble_statistics=["count", "mean", "var", "min", "max"], verbosity="none",
                                 backend=args.backend)
    s, values = moments.statistics, r.state.astype(numpy.float64)
    mean, var = numpy.nanmean(values, axis=0), numpy.nanvar(values, axis=0)
    size = numpy.abs(mean) + numpy.sqrt(var)
    print(f"lorenz moments without a series ({'+'.join(moments.backends)}): mean within "
          f"{float(numpy.max(numpy.abs(s['mean'] - mean) / size)):.2e} of numpy's relative to |mean| + std, var "
          f"{float(numpy.max(numpy.abs(s['var'] - var) / var)):.2e} relative, min/max equal "
          f"{bool(numpy.array_equal(s['min'], numpy.nanmin(values, axis=0)))}/"
          f"{bool(numpy.array_equal(s['max'], numpy.nanmax(values, axis=0)))}, count equal "
          f"{bool(numpy.array_equal(s['count'], numpy.sum(~numpy.isnan(values), axis=0)))}")

    decay = batchode.Model(equations="dx = -a * x", states={"x": 1.0}, parameters={"a": 0.7}, name="stats_ou")
    x0 = rng.normal(2.0, 0.5, (n, 1))
    r = batchode.solve_ivp(decay, (0.0, 2.0), x0, None, save_every=0.5, rtol=1e-10, atol=1e-12, **every)
    t = r.statistics_t
    exact_mean, exact_var = 2.0 * numpy.exp(-0.7 * t), 0.25 * numpy.exp(-1.4 * t)
    sigmas = numpy.abs(r.statistics["mean"][:, 0] - exact_mean) / numpy.sqrt(exact_var / n)
    var_rel = numpy.abs(r.statistics["var"][:, 0] / exact_var - 1)
    print(f"x' = -a x {n} runs: {against_numpy(r)}; against the exact population: mean within "
          f"{sigmas.max():.2f} standard errors, var within {var_rel.max():.2e} relative "
          f"(sampling: ~{numpy.sqrt(2 / n):.1e})")



def cost(args, batchode, lorenz, rng):
    """What statistics cost against the same solve keeping final states only, or the series."""
    m = args.cost_runs
    y0, rho = rng.uniform(-10, 10, (m, 3)), rng.uniform(0, 30, (m, 1))
    base = dict(verbosity="none", backend=args.backend, t_span=(0.0, args.t_end))
    saves = dict(save_every=args.t_end / args.cost_saves)
    moments = ["mean", "var", "min", "max"]
    cases = [("final states", {}), ("series kept", saves),
             ("statistics only", dict(output_types=["status"], ensemble_statistics=moments, **saves)),
             ("statistics only, 3 quantiles and histogram[64]",
              dict(output_types=["status"], ensemble_statistics=moments + ["quantiles[0.05,0.5,0.95]", "histogram[64]"],
                   **saves))]
    if m * (args.cost_saves + 1) * 3 * 8 > 16 * 2**30:
        cases = [c for c in cases if c[0] != "series kept"]
    if args.moments_only:
        cases = cases[:-1]
    walls = {}
    print(f"Lorenz, dopri5 1e-6, t in [0, {args.t_end:g}], {args.cost_saves + 1} save times where saved:")
    for name, options in cases:
        solver = batchode.Solver(lorenz, **base, **options)
        solver.solve(y0=y0, parameters=rho)
        times = []
        for _ in range(args.repeats):
            begin = time.perf_counter()
            out = solver.solve(y0=y0, parameters=rho)
            times.append(time.perf_counter() - begin)
        walls[name] = statistics.median(times)
        print(f"{name}: {m} runs: {walls[name] * 1e3:.1f} ms "
              f"({len(out.execution)} parts, {'+'.join(out.backends)})")
    print(f"statistics only / final states: {walls['statistics only'] / walls['final states']:.2f}x"
          + (f", / series kept: {walls['statistics only'] / walls['series kept']:.2f}x" if "series kept" in walls else ""))


if __name__ == "__main__":
    main()
