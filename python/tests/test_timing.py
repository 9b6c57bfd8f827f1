"""batchode.time_logger: every solve from Python is timed in the default TimeLogger."""

import json

import batchode
from conftest import sweep


def test_solves_are_timed_and_exported_as_json(lorenz, capsys):
    before = batchode.time_logger.stats("solver_solve_execution")["count"]
    batchode.solve_ivp(lorenz, t_span=(0, 0.1), parameters={"rho": sweep(16)}, backend="cpu", verbosity="default")
    assert batchode.time_logger.stats("solver_solve_execution")["count"] == before + 1
    data = json.loads(batchode.time_logger.to_json())
    assert "solver_solve_execution" in json.dumps(data)
    batchode.time_logger.print_summary(category="runtime")
    printed = capsys.readouterr().out
    assert "solver_solve_execution" in printed


def test_verbosity_none_records_nothing(lorenz):
    before = batchode.time_logger.stats("solver_solve_execution")["count"]
    batchode.solve_ivp(lorenz, t_span=(0, 0.1), parameters={"rho": sweep(4)}, backend="cpu", verbosity="none")
    assert batchode.time_logger.stats("solver_solve_execution")["count"] == before


def test_unknown_event_is_an_error():
    import pytest
    with pytest.raises(Exception, match="no_such_event"):
        batchode.time_logger.stats("no_such_event")
