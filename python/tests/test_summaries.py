"""Summary metrics (issue 11): output_types / summaries=, summarise_every, sample_summaries_every and
summarise_variables, and r.summaries / r.summary_variables / r.summary_window_ends. Checked against
numpy (and scipy.signal.find_peaks, where installed) over the series saved at the very samples the
metrics are of, in the same solve; against closed forms; and for bad input. The rules
(kernels/outputs/summaries.hpp): samples at t0 + j dt, j >= 1; window w holds samples w n + 1 .. (w + 1) n;
the state at t0 only starts the history."""

import math

import numpy
import pytest

import batchode
from conftest import quiet

METRICS = ["mean", "std", "rms", "extrema", "max_magnitude", "max_time", "min_time", "dxdt_extrema",
           "d2xdt2_extrema", "peaks[3]", "negative_peaks[3]"]
DT = 0.01            # sample_summaries_every (and save_every: the series is every sample)
WINDOW = 1.5         # summarise_every: 150 samples a window
SPAN = (0.0, 6.0)    # 4 whole windows
N = 150


@pytest.fixture(scope="module")
def observed():
    """The oscillator with one observable, x * v (one product: the series' observable and the
    summaries' are the same number, so peaks of it compare exactly)."""
    return batchode.Model(equations="xv = x * v\ndx = v\ndv = -w^2 * x", states={"x": 1.0, "v": 0.0},
                          parameters={"w": 1.0}, observables=["xv"], name="summarised_oscillator")


@pytest.fixture(scope="module")
def solved(observed):
    """One solve keeping the series at every sample and every metric of x, v and xv."""
    return batchode.solve_ivp(observed, t_span=SPAN, y0={"x": [1.0, -0.4]}, parameters={"w": [0.7, 2.3, 13.0]},
                              method="dopri5", rtol=1e-10, atol=1e-10, backend="cpu", save_every=DT,
                              sample_summaries_every=DT, summarise_every=WINDOW,
                              output_types=["state", "observables"] + METRICS, **quiet())


def reference(x, t, n, windows, dt, peaks=3):
    """The metrics of one variable's series x (sample j at t[j], sample 0 at t0) by numpy, as the
    kernel defines them: {name: (windows,) or (windows, width)}."""
    out = {k: [] for k in ("mean", "std", "rms", "extrema", "max_magnitude", "max_time", "min_time",
                           "dxdt_extrema", "d2xdt2_extrema", "peaks", "negative_peaks")}
    last = windows * n  # the last sample's index: never a peak (no next sample is taken)
    inner = numpy.arange(1, last)
    is_peak = (x[inner] > x[inner - 1]) & (x[inner] > x[inner + 1])
    is_trough = (x[inner] < x[inner - 1]) & (x[inner] < x[inner + 1])
    for w in range(windows):
        j = numpy.arange(w * n + 1, (w + 1) * n + 1)
        xs = x[j]
        out["mean"].append(xs.mean())
        out["std"].append(xs.std())
        out["rms"].append(math.sqrt(numpy.mean(xs * xs)))
        out["extrema"].append([xs.max(), xs.min()])
        out["max_magnitude"].append(numpy.abs(xs).max())
        out["max_time"].append(t[j[numpy.argmax(xs)]])
        out["min_time"].append(t[j[numpy.argmin(xs)]])
        dx = x[j] - x[j - 1]
        out["dxdt_extrema"].append([dx.max() / dt, dx.min() / dt])
        j2 = j[j >= 2]
        d2 = (x[j2] - x[j2 - 1]) - (x[j2 - 1] - x[j2 - 2])
        out["d2xdt2_extrema"].append([d2.max() / (dt * dt), d2.min() / (dt * dt)])
        for name, found in (("peaks", is_peak), ("negative_peaks", is_trough)):
            times = t[inner[found & ((inner - 1) // n == w)]][:peaks]
            out[name].append(numpy.concatenate([times, numpy.full(peaks - times.size, numpy.nan)]))
    return {k: numpy.array(v) for k, v in out.items()}


def test_every_metric_matches_numpy_on_the_saved_samples(solved):
    r = solved
    assert numpy.all(r.success)
    names = ["x", "v", "xv"]
    assert r.summary_variables == names
    assert list(r.summaries) == [m.split("[")[0] for m in METRICS]  # the order asked, without counts
    runs, windows = r.n_runs, int(round((SPAN[1] - SPAN[0]) / WINDOW))
    assert r.t.shape == (windows * N + 1,)
    numpy.testing.assert_allclose(r.t, SPAN[0] + DT * numpy.arange(windows * N + 1), rtol=1e-14)
    numpy.testing.assert_allclose(r.summary_window_ends, SPAN[0] + WINDOW * numpy.arange(1, windows + 1),
                                  rtol=1e-15)
    widths = {"extrema": 2, "dxdt_extrema": 2, "d2xdt2_extrema": 2, "peaks": 3, "negative_peaks": 3}
    for name, values in r.summaries.items():
        assert values.dtype == numpy.float64 and values.flags.c_contiguous
        assert values.shape == (runs, windows, 3) + ((widths[name],) if name in widths else ()), name
    assert r.summary_value_names["extrema"] == ["max", "min"]
    assert r.summary_value_names["peaks"] == ["peaks[0]", "peaks[1]", "peaks[2]"]
    assert r.summary_value_names["mean"] == []
    series = numpy.concatenate([r.state, r.observables], axis=2)  # (runs, saves, x v xv)
    exact = ("extrema", "max_magnitude", "max_time", "min_time", "dxdt_extrema", "d2xdt2_extrema", "peaks",
             "negative_peaks")
    for run in range(runs):
        for v, name in enumerate(names):
            x = series[run, :, v]
            want = reference(x, r.t, N, windows, DT)
            scale = numpy.abs(x).max()
            for metric, expected in want.items():
                got = r.summaries[metric][run, :, v]
                where = f"{metric} of {name} in run {run}"
                if metric in exact:
                    numpy.testing.assert_array_equal(got, expected, err_msg=where)
                else:  # moments: accumulated shifted, in another order than numpy's
                    numpy.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12 * scale, err_msg=where)
    # Peaks found (the fast runs have several a window), and NaN padding left (the slow ones have none).
    for name in ("peaks", "negative_peaks"):
        assert numpy.isfinite(r.summaries[name]).any() and numpy.isnan(r.summaries[name]).any()
    assert numpy.isfinite(r.summaries["peaks"][:, :, 2, 2]).any()  # xv of w = 13: more than 3 a window


def test_the_strict_peak_rule_is_scipys_find_peaks_without_plateaus(solved):
    signal = pytest.importorskip("scipy.signal", reason="scipy is not installed here")
    r = solved
    windows = r.summary_window_ends.shape[0]
    series = numpy.concatenate([r.state, r.observables], axis=2)
    for run in range(r.n_runs):
        for v in range(series.shape[2]):
            x = series[run, :windows * N + 1, v]
            assert numpy.all(numpy.diff(x) != 0)  # no plateau: scipy's rule is then the strict one
            for name, sign in (("peaks", 1.0), ("negative_peaks", -1.0)):
                found = signal.find_peaks(sign * x)[0]
                for w in range(windows):
                    mine = found[(found - 1) // N == w][:3]
                    got = r.summaries[name][run, w, v]
                    numpy.testing.assert_array_equal(got[:mine.size], r.t[mine])
                    assert numpy.all(numpy.isnan(got[mine.size:]))


def test_summaries_keyword_and_chosen_variables(observed, solved):
    # summaries= instead of output_types, the variables in the system's order whatever the order asked,
    # and no series without save_every: the same numbers as the solve above.
    r = batchode.solve_ivp(observed, t_span=SPAN, y0={"x": [1.0, -0.4]}, parameters={"w": [0.7, 2.3, 13.0]},
                           method="dopri5", rtol=1e-10, atol=1e-10, backend="cpu", summaries=["extrema", "peaks[2]"],
                           summarise_every=WINDOW, sample_summaries_every=DT, summarise_variables=["xv", "x"],
                           **quiet())
    assert r.state is None and r.observables is None
    assert r.summary_variables == ["x", "xv"]
    assert list(r.summaries) == ["extrema", "peaks"]
    assert r.summaries["peaks"].shape == (6, 4, 2, 2)
    numpy.testing.assert_array_equal(r.summaries["extrema"], solved.summaries["extrema"][:, :, [0, 2]])
    numpy.testing.assert_array_equal(r.summaries["peaks"], solved.summaries["peaks"][:, :, [0, 2], :2])
    numpy.testing.assert_array_equal(r.summary_window_ends, solved.summary_window_ends)
    assert "summaries x 4 windows" in repr(r)


def test_defaults_series_beside_and_float32(observed):
    # No cadence given: one window, the whole span, of 100 samples; a series at save_every beside.
    r = batchode.solve_ivp(observed, t_span=(1.0, 3.0), method="dopri5", rtol=1e-10, atol=1e-10, backend="cpu",
                           save_every=0.1, summaries=["mean", "max"], **quiet())
    assert r.summaries["mean"].shape == (1, 1, 3)
    numpy.testing.assert_allclose(r.summary_window_ends, [3.0], rtol=1e-15)
    numpy.testing.assert_allclose(r.t, 1.0 + 0.1 * numpy.arange(21), rtol=1e-14)
    numpy.testing.assert_allclose(r.state[0, :, 0], numpy.cos(r.t - 1.0), atol=1e-8)
    # x = cos(t - 1): its max over the samples 1.02, 1.04, ... is at the first.
    numpy.testing.assert_allclose(r.summaries["max"][0, 0, 0], math.cos(0.02), atol=1e-8)
    # output_types without "state" or "observables": no series (save_every is dropped), the final state kept.
    r = batchode.solve_ivp(observed, t_span=(0.0, 2.0), backend="cpu", save_every=0.1,
                           output_types=["mean", "iteration_counters"], **quiet())
    assert r.state is None and r.counters is not None and list(r.summaries) == ["mean"]
    # float32: the solve's dtype, near float64's.
    kw = dict(t_span=(0.0, 2.0), method="rk4", dt=0.01, backend="cpu", summaries=["rms", "extrema"],
              summarise_every=0.5, sample_summaries_every=0.05, **quiet())
    r32 = batchode.solve_ivp(observed, precision="float32", **kw)
    r64 = batchode.solve_ivp(observed, **kw)
    assert r32.summaries["rms"].dtype == numpy.float32 and r32.summary_window_ends.dtype == numpy.float32
    for name in ("rms", "extrema"):
        numpy.testing.assert_allclose(r32.summaries[name], r64.summaries[name], rtol=1e-4, atol=1e-5)


def test_no_summaries(observed):
    r = batchode.solve_ivp(observed, t_span=(0.0, 1.0), backend="cpu", save_every=0.5, **quiet())
    assert r.summaries == {} and r.summary_variables == [] and r.summary_value_names == {}
    assert r.summary_window_ends.shape == (0,)


def test_closed_forms_of_the_cosine(oscillator):
    # x'' = -x from (1, 0): x = cos t. Windows of 2 pi, 1000 samples each, over [0, 4 pi].
    period = 2 * math.pi
    r = batchode.solve_ivp(oscillator, t_span=(0.0, 2 * period), parameters={"w": 1.0}, method="dopri5",
                           rtol=1e-12, atol=1e-12, backend="cpu", summarise_every=period,
                           sample_summaries_every=period / 1000,
                           summaries=["mean", "rms", "peaks[2]", "negative_peaks[2]"], **quiet())
    assert numpy.all(r.success)
    x, v = 0, 1
    numpy.testing.assert_allclose(r.summary_window_ends, [period, 2 * period], rtol=1e-15)
    numpy.testing.assert_allclose(r.summaries["mean"][0], numpy.zeros((2, 2)), atol=1e-8)
    numpy.testing.assert_allclose(r.summaries["rms"][0], numpy.full((2, 2), 1 / math.sqrt(2)), atol=1e-8)
    troughs = r.summaries["negative_peaks"][0, :, x]
    numpy.testing.assert_allclose(troughs[:, 0], [math.pi, 3 * math.pi], rtol=1e-12)
    assert numpy.all(numpy.isnan(troughs[:, 1]))
    # cos peaks at 2 pi, window 0's last sample: window 0's (seen at the next sample). The one at 4 pi,
    # the last sample of the last window, is never found.
    peaks = r.summaries["peaks"][0, :, x]
    numpy.testing.assert_allclose(peaks[0, 0], period, rtol=1e-12)
    assert numpy.all(numpy.isnan(peaks[0, 1:])) and numpy.all(numpy.isnan(peaks[1]))
    # v = -sin t: troughs at pi / 2 and 5 pi / 2, peaks at 3 pi / 2 and 7 pi / 2.
    numpy.testing.assert_allclose(r.summaries["negative_peaks"][0, :, v, 0], [math.pi / 2, 5 * math.pi / 2],
                                  rtol=1e-12)
    numpy.testing.assert_allclose(r.summaries["peaks"][0, :, v, 0], [3 * math.pi / 2, 7 * math.pi / 2], rtol=1e-12)


def test_bad_summary_input_is_named(oscillator):
    solve = dict(t_span=(0.0, 2.0), backend="cpu", **quiet())
    with pytest.raises(ValueError, match="bogus"):
        batchode.solve_ivp(oscillator, save_every=0.1, output_types=["state", "bogus"], **solve)
    with pytest.raises(ValueError, match="bogus"):
        batchode.solve_ivp(oscillator, summaries=["mean", "bogus"], **solve)
    with pytest.raises(ValueError, match="summarise_every.*sample_summaries_every"):
        batchode.solve_ivp(oscillator, summaries=["mean"], summarise_every=1.0, sample_summaries_every=0.3, **solve)
    with pytest.raises(ValueError, match="nope"):
        batchode.solve_ivp(oscillator, summaries=["mean"], summarise_variables=["x", "nope"], **solve)
    with pytest.raises(ValueError, match="both"):
        batchode.solve_ivp(oscillator, output_types=["max"], summaries=["mean"], **solve)
    with pytest.raises(ValueError, match="no metrics"):
        batchode.solve_ivp(oscillator, summarise_every=0.5, **solve)
    with pytest.raises(ValueError, match="save_every"):  # the series is saved at samples
        batchode.solve_ivp(oscillator, save_every=0.15, summaries=["mean"], sample_summaries_every=0.1, **solve)
    with pytest.raises(TypeError, match="output_types must be a list"):
        batchode.solve_ivp(oscillator, output_types="mean", **solve)
    with pytest.raises(TypeError, match="summarise_variables"):
        batchode.solve_ivp(oscillator, summaries=["mean"], summarise_variables=[0], **solve)


def test_to_xarray_holds_the_summaries(observed, solved):
    xarray = pytest.importorskip("xarray", reason="xarray is not installed here (Result.to_xarray needs it)")
    ds = solved.to_xarray()
    assert isinstance(ds, xarray.Dataset)
    assert ds["summary_mean"].dims == ("run", "window", "summary_variable")
    assert ds["summary_extrema"].dims == ("run", "window", "summary_variable", "extrema_value")
    assert ds["summary_peaks"].dims == ("run", "window", "summary_variable", "peaks_value")
    numpy.testing.assert_array_equal(ds["summary_extrema"].sel(summary_variable="xv", extrema_value="min").values,
                                     solved.summaries["extrema"][:, :, 2, 1])
    numpy.testing.assert_array_equal(ds["window_end"].values, solved.summary_window_ends)
    assert ds["state"].dims == ("run", "time", "variable")
