"""The result of a solve: numpy arrays over batchode's memory (no copy on the way out), with names."""

import enum

import numpy

from . import _batchode


class Status(enum.IntEnum):
    """How each run ended (r.status holds these codes)."""

    success = 0  #: reached the end of the span
    max_steps_reached = 1  #: max_steps accepted + rejected steps before the end
    step_size_underflow = 2  #: the step controller asked for a step below dt_min or rounding level
    non_finite_state = 3  #: the state (or the error estimate) became NaN or infinite
    singular_matrix = 4  #: a Rosenbrock step met an exactly singular iteration matrix
    not_solved = 5  #: never integrated: the MPI rank or device holding it failed and none could take over
    stopped_by_event = 6  #: a terminal event ended the run before the end of the span (not a failure)


STATUS_NAMES = tuple(s.name for s in Status)
assert list(STATUS_NAMES) == _batchode.status_names(), "Status out of step with batchode's C++ enum"


class Result:
    """What one solve gives back.

    final_state   (n_runs, n_states), the state at the end of the span (NaN-free only where
                  status == 0; a failed run holds its last accepted state)
    t             (n_saves,) the save times; empty without save_every or save_at
    state         (n_runs, n_saves, n_states), the saved series, or None without saves; points
                  a failed run never reached are NaN
    status        (n_runs,) int32 codes (batchode.Status); success: status == 0
    status_names  the names of the codes, status_names[code]
    counters      (n_runs,) structured (accepted_steps, rejected_steps, rhs_evaluations) when asked
                  (counters=True), else None
    y0, parameters (n_runs, n_states) and (n_runs, n_parameters): the runs actually solved (the grid
                  built from dicts, or the arrays given: the very same objects when used in place)
    state_names, parameter_names, method, precision
    execution     where each part ran and why: dicts with backend ("cpu", "gpu:0"), reason
                  ("gpu_available", "gpu_unavailable", "cost_model", ...), first_run, runs, wall_ms,
                  predicted_ms, chunks and detail

    The large arrays are views of batchode's result memory (their .base is the capsule that keeps
    it alive): nothing is copied, and the memory goes back to batchode when the last view dies.
    """

    def __init__(self, parts, y0, parameters, names, precision):
        self.final_state = parts["final_state"]
        self.state = parts["state"]
        self.t = parts["t"]
        self.status = parts["status"]
        self.counters = parts["counters"]
        self.execution = parts["execution"]
        self.method = parts["method"]
        self.y0 = y0
        self.parameters = parameters
        self.state_names, self.parameter_names, self.model_name = names  # (state names, parameter names, model)
        self.precision = precision
        self.status_names = STATUS_NAMES

    @property
    def n_runs(self):
        return self.final_state.shape[0]

    @property
    def success(self):
        """(n_runs,) bool: the runs that reached the end of the span."""
        return self.status == Status.success

    @property
    def backends(self):
        """The backends the solve ran on, e.g. ["gpu:0"] or ["cpu"]."""
        seen = []
        for part in self.execution:
            if part["backend"] not in seen:
                seen.append(part["backend"])
        return seen

    def to_xarray(self):
        """An xarray.Dataset (final_state, state, status, inputs as coordinates); needs xarray."""
        try:
            import xarray
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("Result.to_xarray() needs the xarray package") from e
        coords = {"run": numpy.arange(self.n_runs), "variable": self.state_names}
        for j, name in enumerate(self.state_names):
            coords["y0_" + name] = ("run", self.y0[:, j])
        if self.parameters is not None:
            for j, name in enumerate(self.parameter_names):
                coords[name] = ("run", self.parameters[:, j])
        data = {
            "final_state": (("run", "variable"), self.final_state),
            "status": (("run",), self.status),
        }
        if self.state is not None:
            coords["time"] = self.t
            data["state"] = (("run", "time", "variable"), self.state)
        return xarray.Dataset(data, coords=coords, attrs={"model": self.model_name, "method": self.method})

    def __repr__(self):
        ok = int(numpy.count_nonzero(self.success))
        return (f"<batchode.Result '{self.model_name}' {self.method} {self.precision}: {self.n_runs} runs x "
                f"{len(self.state_names)} states, {len(self.t)} saves, {ok} succeeded, on "
                f"{'+'.join(self.backends) or 'nothing'}>")
