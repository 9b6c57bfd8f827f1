"""batchode.Model, load_model and Model.from_toml: names, defaults, and errors with line and column."""

import pathlib

import pytest

import batchode
from conftest import LORENZ_TOML


def test_load_model_reads_names_and_defaults(lorenz):
    assert lorenz.name == "lorenz"
    assert lorenz.state_names == ["x", "y", "z"]
    assert lorenz.parameter_names == ["rho"]
    assert list(lorenz.default_y0) == [1.0, 1.0, 1.0]
    assert list(lorenz.default_parameters) == [28.0]
    assert lorenz.constants == {"sigma": 10.0, "beta": 2.6666666666666665}
    assert "lorenz" in repr(lorenz)


def test_model_from_dicts_keeps_declaration_order():
    m = batchode.Model(equations="db = -a\nda = b", states={"b": 2.0, "a": 3.0}, parameters={"k": 1.0, "j": 4.0})
    assert m.state_names == ["b", "a"]
    assert m.parameter_names == ["k", "j"]
    assert list(m.default_y0) == [2.0, 3.0]
    assert m.n_states == 2 and m.n_parameters == 2


def test_from_toml_matches_load_model(lorenz):
    with open(LORENZ_TOML, encoding="utf-8") as f:
        m = batchode.Model.from_toml(f.read(), "lorenz.toml")
    assert m.state_names == lorenz.state_names
    assert m.equations == lorenz.equations


def test_bad_equation_names_line_and_column():
    with pytest.raises(batchode.ModelError) as e:
        batchode.Model(equations="dx = -k * x\ndy = x +* 2", states={"x": 1.0, "y": 0.0}, parameters={"k": 1.0})
    assert e.value.line == 2
    assert e.value.column > 0
    assert str(e.value).startswith("<string>:2:")
    assert isinstance(e.value, ValueError)


def test_unknown_symbol_is_named():
    with pytest.raises(batchode.ModelError, match="nope"):
        batchode.Model(equations="dx = nope * x", states={"x": 1.0})


def test_state_without_equation_is_an_error():
    with pytest.raises(batchode.ModelError, match="y"):
        batchode.Model(equations="dx = -x", states={"x": 1.0, "y": 1.0})


def test_values_must_be_numbers():
    with pytest.raises(batchode.ModelError, match="'x'"):
        batchode.Model(equations="dx = -x", states={"x": "one"})
    with pytest.raises(batchode.ModelError, match="dict"):
        batchode.Model(equations="dx = -x", states=[("x", 1.0)])


def test_toml_error_names_the_file_line():
    with pytest.raises(batchode.ModelError) as e:
        batchode.Model.from_toml('name = "m"\nequations = """\ndx = -x\n"""\n[states]\nx = \n', "bad.toml")
    assert e.value.source == "bad.toml"
    assert e.value.line == 6


def test_paths_may_be_path_like(lorenz, tmp_path):
    # Issue 44 item 16: pathlib.Path was a TypeError.
    assert batchode.load_model(pathlib.Path(LORENZ_TOML)).equations == lorenz.equations
    assert batchode.load_model(LORENZ_TOML.encode()).state_names == lorenz.state_names
    with pytest.raises(TypeError, match=r"load_model: path must be a file path .*not int 42"):
        batchode.load_model(42)
    trace = tmp_path / "trace.json"
    batchode.time_logger.start_trace(trace)
    batchode.solve_ivp(lorenz, t_span=(0, 0.01), parameters={"rho": [28.0]}, backend="cpu", verbosity="default")
    assert batchode.time_logger.stop_trace() == str(trace)
    assert trace.stat().st_size > 0


def test_missing_file_is_a_model_error(tmp_path):
    with pytest.raises(batchode.ModelError, match="missing.toml"):
        batchode.load_model(str(tmp_path / "missing.toml"))
