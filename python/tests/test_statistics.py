"""Statistics across runs (issue 52, ``ensemble_statistics=``): against numpy on the full per-run series
of the same solve (mean and variance within rounding, min and max equal, each quantile's rank within the
bound the result reports, histograms equal to numpy.histogram over the result's edges), the same
statistics from a solve that keeps no series (solved in slices), on the GPU where there is one, and the
errors a user meets."""

import numpy
import pytest

import batchode
from conftest import gpu_reason, quiet

STATISTICS = ["count", "mean", "var", "std", "min", "max", "quantiles[0.05,0.5,0.95]", "histogram[32]"]


def linear_batch(n, seed=1):
    """dx = -k x from x0 ~ N(2, 0.5^2), k ~ U(0.5, 1.5): x(t) = x0 exp(-k t) (its exact mean and
    variance over the draws are known; numpy's of the solved series is the reference here)."""
    rng = numpy.random.default_rng(seed)
    return rng.normal(2.0, 0.5, (n, 1)), rng.uniform(0.5, 1.5, (n, 1))


def check_against_numpy(stats, series, variables, own_range=True):
    """`stats` (r.statistics) against numpy over `series` (n_runs, n_saves, n_variables)."""
    values = numpy.asarray(series, dtype=numpy.float64)
    assert stats["count"].shape == values.shape[1:]
    numpy.testing.assert_array_equal(stats["count"], numpy.sum(~numpy.isnan(values), axis=0))
    # Rounding is relative to the values' size, not to a mean that cancels to near 0 (Lorenz's y).
    scale = numpy.nanmax(numpy.abs(values), axis=0)
    assert numpy.all(numpy.abs(stats["mean"] - numpy.nanmean(values, axis=0)) <= 1e-13 * scale)
    assert numpy.all(numpy.abs(stats["var"] - numpy.nanvar(values, axis=0)) <= 1e-12 * scale ** 2)
    numpy.testing.assert_allclose(stats["std"], numpy.sqrt(stats["var"]), rtol=1e-15)
    numpy.testing.assert_array_equal(stats["min"], numpy.nanmin(values, axis=0))
    numpy.testing.assert_array_equal(stats["max"], numpy.nanmax(values, axis=0))
    levels = stats["quantile_levels"]
    assert stats["quantile_rank_error"] <= 1e-3
    for k in range(values.shape[1]):
        for v in range(len(variables)):
            column = numpy.sort(values[:, k, v][~numpy.isnan(values[:, k, v])])
            n = column.size
            bound = stats["quantile_rank_error"] * n
            for j, q in enumerate(levels):
                got = stats["quantiles"][k, v, j]
                below = numpy.searchsorted(column, got, "left")
                up_to = numpy.searchsorted(column, got, "right")
                assert below <= q * n + bound and up_to >= q * n - bound, (k, v, q, got)
            counts, _ = numpy.histogram(column, bins=stats["histogram_edges"][k, v])
            numpy.testing.assert_array_equal(stats["histogram"][k, v], counts)
            if own_range:  # histogram[bins]: the range of the values themselves (one slice), as numpy's
                low, high = (column[0], column[-1]) if column[0] < column[-1] else (column[0] - 0.5, column[0] + 0.5)
                assert stats["histogram_edges"][k, v, 0] == low and stats["histogram_edges"][k, v, -1] == high
            below = numpy.count_nonzero(column < stats["histogram_edges"][k, v, 0])
            assert stats["histogram_below"][k, v] == below


def test_statistics_agree_with_numpy_on_the_series(decay):
    y0, k = linear_batch(20000)
    r = batchode.solve_ivp(decay, (0.0, 2.0), y0, k, **quiet(backend="cpu", method="dopri5", save_every=0.25,
                                                             ensemble_statistics=STATISTICS))
    assert r.statistics_variables == ["x"]
    numpy.testing.assert_array_equal(r.statistics_t, r.t)
    check_against_numpy(r.statistics, r.state, r.statistics_variables)
    # And the population's own: x0 exp(-k t) has mean 2 E[exp(-k t)], within sampling error.
    t = r.t
    exact_mean = 2.0 * numpy.array([1.0 if s == 0 else (numpy.exp(-0.5 * s) - numpy.exp(-1.5 * s)) / s for s in t])
    numpy.testing.assert_allclose(r.statistics["mean"][:, 0], exact_mean, rtol=5e-3)


def test_statistics_without_a_series_are_those_of_the_series(decay):
    y0, k = linear_batch(5000, seed=2)
    # A histogram over a range given: without one, the first slice's range would be taken.
    fixed = STATISTICS[:-1] + ["histogram[32,0.5,3.5]"]
    options = quiet(backend="cpu", method="dopri5", save_every=0.5, ensemble_statistics=fixed)
    kept = batchode.solve_ivp(decay, (0.0, 2.0), y0, k, **options)
    alone = batchode.solve_ivp(decay, (0.0, 2.0), y0, k, output_types=["status"], runs_per_slice=1024, **options)
    assert alone.state is None and kept.state is not None
    numpy.testing.assert_array_equal(alone.final_state, kept.final_state)
    numpy.testing.assert_array_equal(alone.status, kept.status)
    numpy.testing.assert_array_equal(alone.statistics_t, kept.t)
    assert sum(part["runs"] for part in alone.execution) == 5000
    assert len(alone.execution) >= 5  # five slices
    for name in ("count", "min", "max", "histogram", "histogram_edges"):
        numpy.testing.assert_array_equal(alone.statistics[name], kept.statistics[name])
    for name in ("mean", "var"):
        numpy.testing.assert_allclose(alone.statistics[name], kept.statistics[name], rtol=1e-13)
    check_against_numpy(alone.statistics, kept.state, kept.statistics_variables, own_range=False)
    assert alone.statistics["histogram_below"].sum() + alone.statistics["histogram_above"].sum() > 0


def test_to_xarray_has_the_statistics_over_time(decay):
    xarray = pytest.importorskip("xarray", reason="xarray is not installed here (Result.to_xarray needs it)")
    y0, k = linear_batch(2000, seed=3)
    r = batchode.solve_ivp(decay, (0.0, 2.0), y0, k, output_types=["status"],
                           **quiet(backend="cpu", save_every=0.5, ensemble_statistics=STATISTICS))
    d = r.to_xarray()
    assert isinstance(d, xarray.Dataset)
    numpy.testing.assert_array_equal(d["statistics_mean"].sel(statistics_variable="x").values,
                                     r.statistics["mean"][:, 0])
    numpy.testing.assert_array_equal(d["time"].values, r.statistics_t)
    assert d["statistics_quantiles"].dims == ("time", "statistics_variable", "quantile")
    assert d["statistics_histogram"].shape == (5, 1, 32)


def test_failed_runs_leave_their_unreached_points_out():
    blow_up = batchode.Model(equations="dy = p * y^2", states={"y": 1.0}, parameters={"p": 1.0}, name="py_blow_up")
    # p = 1.6 blows up at t = 0.625: its saves after that are NaN and not counted.
    r = batchode.solve_ivp(blow_up, (0.0, 2.0), None, {"p": [-1.0, -0.5, 1.6]},
                           **quiet(backend="cpu", save_every=0.5, ensemble_statistics=["count", "mean"]))
    assert list(r.statistics["count"][:, 0]) == [3, 3, 2, 2, 2]
    numpy.testing.assert_allclose(r.statistics["mean"][:, 0], numpy.nanmean(r.state[:, :, 0], axis=0), rtol=1e-14)


def test_statistics_errors_name_what_was_written(decay):
    with pytest.raises(ValueError, match="statistics are taken at the save times"):
        batchode.solve_ivp(decay, (0.0, 1.0), **quiet(backend="cpu", ensemble_statistics=["mean"]))
    with pytest.raises(ValueError, match="unknown statistic 'median'"):
        batchode.solve_ivp(decay, (0.0, 1.0), **quiet(backend="cpu", save_every=0.5, ensemble_statistics=["median"]))
    with pytest.raises(ValueError, match=r"level 2 is outside \[0, 1\]"):
        batchode.solve_ivp(decay, (0.0, 1.0), **quiet(backend="cpu", save_every=0.5,
                                                      ensemble_statistics=["quantiles[0.5,2]"]))


def test_gpu_statistics_agree_with_numpy_on_its_series(lorenz):
    reason = gpu_reason(lorenz)
    if reason:
        pytest.skip(f"no GPU here: {reason}")
    r = batchode.solve_ivp(lorenz, (0.0, 1.0), None, {"rho": numpy.linspace(0, 30, 65536)},
                           **quiet(backend="gpu", save_every=0.1, ensemble_statistics=STATISTICS))
    check_against_numpy(r.statistics, numpy.concatenate([r.state, r.observables], axis=2)
                        if r.observables is not None else r.state, r.statistics_variables)
