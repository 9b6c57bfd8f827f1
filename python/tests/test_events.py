"""Events from Python (issue 12): a model's events (model file, Model(events=...) as a dict or a list)
give r.events[name].t / .state / .count against closed forms, terminal ones end runs with
stopped_by_event and say which event did; mistakes are named (expression at line and column, bad
words, a bad tolerance)."""

import math
import os

import numpy
import pytest

import batchode
from conftest import REPO, quiet

PROJECTILE_TOML = os.path.join(REPO, "examples", "models", "projectile.toml")


def test_the_projectile_example_meets_its_closed_form():
    m = batchode.load_model(PROJECTILE_TOML)
    assert list(m.events) == ["apex", "ground"]
    assert m.events["ground"] == {"expr": "h", "direction": "falling", "action": "terminal", "max": 1}
    v0 = numpy.array([2.0, 5.0, 10.0, 20.0])
    g, h0 = 9.81, 10.0
    r = batchode.solve_ivp(m, t_span=(0.0, 10.0), y0={"v": v0}, method="dopri5", rtol=1e-10, atol=1e-10,
                           event_tolerance=1e-10, backend="cpu", **quiet())
    assert list(r.events) == ["apex", "ground"]
    apex, ground = r.events["apex"], r.events["ground"]
    assert apex.t.shape == (4, 1) and apex.state.shape == (4, 1, 2) and apex.count.shape == (4,)
    numpy.testing.assert_allclose(apex.t[:, 0], v0 / g, rtol=0, atol=1e-8)
    numpy.testing.assert_allclose(apex.state[:, 0, 0], h0 + v0 ** 2 / (2 * g), rtol=0, atol=1e-8)
    t_ground = (v0 + numpy.sqrt(v0 ** 2 + 2 * g * h0)) / g
    numpy.testing.assert_allclose(ground.t[:, 0], t_ground, rtol=0, atol=1e-8)
    numpy.testing.assert_array_equal(ground.count, [1, 1, 1, 1])
    assert ground.terminal and not apex.terminal
    # Every run ended at the ground: a finished run, not a success, and the result says why.
    numpy.testing.assert_array_equal(r.status, batchode.Status.stopped_by_event)
    assert r.finished.all() and not r.success.any()
    numpy.testing.assert_array_equal(r.stopping_event, [1, 1, 1, 1])
    assert r.stopped_by(2) == "ground"
    numpy.testing.assert_array_equal(r.t_stop, ground.t[:, 0])  # each run's final state is at its event
    numpy.testing.assert_allclose(r.final_state[:, 0], 0.0, atol=1e-8)


def test_events_as_a_dict_record_the_first_crossings_and_count_the_rest():
    # x = cos(w t): zeros at (k + 1/2) pi / w; the first 3 stored, the count goes on.
    m = batchode.Model(equations="dx = v\ndv = -w^2 * x", states={"x": 1.0, "v": 0.0}, parameters={"w": 2.0},
                       name="py_oscillator_events", events={"x_zero": {"expr": "x", "max": 3}})
    w = numpy.array([2.0, 5.0])
    r = batchode.solve_ivp(m, t_span=(0.0, 4.0), parameters={"w": w}, method="dopri5", rtol=1e-10, atol=1e-10,
                           backend="cpu", **quiet())
    e = r.events["x_zero"]
    expected = numpy.array([[(k + 0.5) * math.pi / wi for k in range(3)] for wi in w])
    numpy.testing.assert_allclose(e.t, expected, rtol=0, atol=1e-7)
    numpy.testing.assert_array_equal(e.count, [int(4.0 * wi / math.pi + 0.5) for wi in w])  # 3 and 6
    assert (r.status == batchode.Status.success).all()
    numpy.testing.assert_array_equal(r.stopping_event, [-1, -1])
    assert r.stopped_by(0) is None
    assert "x_zero" in repr(e)


def test_events_as_a_list_are_named_in_order_and_a_run_without_a_crossing_has_nan():
    m = batchode.Model(equations="dy = -k * y", states={"y": 1.0}, parameters={"k": 1.0}, name="py_decay_events",
                       events=["y - 0.5", "y - 2"])
    r = batchode.solve_ivp(m, t_span=(0.0, 1.0), parameters={"k": [1.0, 0.1]}, backend="cpu", rtol=1e-10,
                           atol=1e-10, **quiet())
    assert list(r.events) == ["event0", "event1"]
    half = r.events["event0"].t[:, 0]
    assert abs(half[0] - math.log(2.0)) < 1e-7  # k = 1: ln 2 < 1
    assert math.isnan(half[1])                  # k = 0.1: ln 2 / 0.1 beyond the span
    assert numpy.isnan(r.events["event1"].t).all()


def test_event_mistakes_are_named():
    with pytest.raises(batchode.ModelError, match=r"test\.toml:9:24: .*'hh'"):
        batchode.Model.from_toml('name = "m"\nequations = "dh = v\\ndv = -1"\n[states]\nh = 1\nv = 0\n'
                                 '\n[events]\n\nground = { expr = "h + hh" }\n', "test.toml")
    base = dict(equations="dy = -y", states={"y": 1.0}, name="m")
    with pytest.raises(batchode.ModelError, match="direction 'up'"):
        batchode.Model(events={"e": {"expr": "y", "direction": "up"}}, **base)
    with pytest.raises(batchode.ModelError, match="max = 0"):
        batchode.Model(events={"e": {"expr": "y", "max": 0}}, **base)
    with pytest.raises(batchode.ModelError, match="unknown key 'when'"):
        batchode.Model(events={"e": {"expr": "y", "when": 1}}, **base)
    with pytest.raises(batchode.ModelError, match="has no \"expr\""):
        batchode.Model(events={"e": {"max": 2}}, **base)
    with pytest.raises(batchode.ModelError, match="list of expressions or a dict"):
        batchode.Model(events="y", **base)
    m = batchode.Model(events=["y - 0.5"], **base)
    with pytest.raises(ValueError, match="event_tolerance must be positive"):
        batchode.solve_ivp(m, t_span=(0, 1), event_tolerance=-1.0, backend="cpu", **quiet())
