"""The result of a solve: numpy arrays over batchode's memory (no copy on the way out), with names."""

import enum

import numpy

from . import _batchode


class Status(enum.IntEnum):
    """How each run ended: ``r.status`` holds these codes (int32), ``r.status_names[code]`` their names.

    An ``enum.IntEnum``, so ``r.status == batchode.Status.success`` compares the codes directly.
    """

    success = 0  #: reached the end of the span
    max_steps_reached = 1  #: max_steps accepted + rejected steps before the end
    step_size_underflow = 2  #: the step controller asked for a step below dt_min or rounding level
    non_finite_state = 3  #: the state (or the error estimate) became NaN or infinite
    singular_matrix = 4  #: a Rosenbrock step met an exactly singular iteration matrix
    not_solved = 5  #: never integrated, as the MPI rank or device holding it failed and none could take over
    stopped_by_event = 6  #: a terminal event ended the run before the end of the span (not a failure)
    #: a DAE's algebraic variables could not be made consistent at t0 (Newton failed or dg/dz singular)
    inconsistent_initial_values = 7
    #: events that change the state kept firing at one time (Zeno); the run ended at the last of them
    zeno_events = 8
    #: an implicit method's (ESDIRK's, radau5's) Newton iteration failed at every step size down to the smallest
    newton_failure = 9


STATUS_NAMES = tuple(s.name for s in Status)


class Event:
    """One event function's records over the batch (views of the result's memory, no copy).

    Made by a solve, never by the user: ``r.events[name]``.

    Attributes
    ----------
    name : str
        Its name (the model's ``[events]`` key, or ``event<k>`` for the list form).
    t : numpy.ndarray
        ``(n_runs, max)`` times of the first `max` crossings; NaN where a run met fewer.
    state : numpy.ndarray
        ``(n_runs, max, n_states)`` the states there (interpolated on the step's dense output).
    count : numpy.ndarray
        ``(n_runs,)`` uint32 crossings met: above `max`, the later ones were not stored.
    max : int
        Crossings stored per run.
    terminal : bool
        Whether a crossing ends its run (``Status.stopped_by_event``).
    """

    def __init__(self, name, records, counts, max_, terminal):
        self.name = name
        self.t = records[:, :max_, 0]
        self.state = records[:, :max_, 1:]
        self.count = counts
        self.max = max_
        self.terminal = terminal

    def __repr__(self):
        fired = int(numpy.count_nonzero(self.count))
        kind = "terminal" if self.terminal else f"record, max {self.max}"
        return f"<batchode.Event '{self.name}' ({kind}): fired in {fired} of {self.count.shape[0]} runs>"
assert list(STATUS_NAMES) == _batchode.status_names(), "Status out of step with batchode's C++ enum"


class Result:
    """What one solve gives back: numpy arrays over batchode's memory, with names.

    Made by a solve, never by the user. The large arrays are views of batchode's result memory (their
    ``.base`` is the capsule that keeps it alive): nothing is copied, and the memory goes back to
    batchode when the last view dies.

    Attributes
    ----------
    final_state : numpy.ndarray
        ``(n_runs, n_states)``, the state at the end of the span (NaN-free only where status == 0; a
        failed run holds its last accepted state).
    t : numpy.ndarray
        ``(n_saves,)`` the save times; empty without `save_every` or `save_at`; ``(n_runs, n_saves)``
        when each run has its own (`save_at` as a 2-D array).
    state : numpy.ndarray or None
        ``(n_runs, n_saves, n_saved)``, the saved series, or None without saves (or when
        `save_variables` chose observables only); points a failed run never reached are NaN. n_saved
        is n_states unless `save_variables` chose some: `saved_state_names` names them.
    saved_state_names : list of str
        The states the series keeps (`state`'s last axis), in the model's order: `state_names`, or
        those `save_variables` chose.
    observables : numpy.ndarray or None
        ``(n_runs, n_saves, n_observables)``: the model's observables (its `observables` list of
        auxiliaries; those `save_variables` chose) at every saved point, computed from the full state;
        None without saves or observables.
    observable_names : list of str
        Names `observables`' last axis.
    status : numpy.ndarray
        ``(n_runs,)`` int32 codes (:class:`Status`); success: ``status == 0``.
    status_names : tuple of str
        The names of the codes, ``status_names[code]``.
    t_stop : numpy.ndarray or None
        ``(n_runs,)`` the time of each run's final state: t_end for a success, the event's time for a
        run a terminal event stopped, else the time where the run failed (NaN for a run never solved);
        kept with `status` (None without it).
    events : dict of str to Event
        ``{name: Event}`` (t, state, count per run), in the model's order; ``{}`` without events.
    stopping_event : numpy.ndarray
        ``(n_runs,)`` int32: the index into `events` of the terminal event that ended each run (status
        ``stopped_by_event``), -1 for the others; :meth:`stopped_by` names it.
    summaries : dict of str to numpy.ndarray
        The summary metrics asked for (`summaries` or `output_types`), keyed by the name without a
        count (``"peaks"`` for ``"peaks[3]"``), in the order asked: ``(n_runs, n_windows,
        n_summarised)`` for one value per variable (``"mean"``, ``"max_time"``, ...); ``(n_runs,
        n_windows, n_summarised, k)`` for a combined one (``"extrema"``: max, min) and ``peaks[k]`` /
        ``negative_peaks[k]`` (times, NaN where fewer were found). A window a run never completed is
        NaN. ``{}`` without summaries. Each its own C-contiguous array.
    summary_variables : list of str
        The states and observables summarised (the n_summarised axis), ``[]`` without summaries.
    summary_value_names : dict of str to list of str
        ``{name: the names along a summary's last axis}`` (``["max", "min"]``, ``["peaks[0]", ...]``);
        ``[]`` for one value.
    summary_window_ends : numpy.ndarray
        ``(n_windows,)`` the end of each window, ``t0 + (w + 1) summarise_every`` (its last sample's
        time); empty without summaries.
    statistics : dict of str to numpy.ndarray
        Statistics across the runs at every save time (`ensemble_statistics`), of `statistics_variables`:
        ``"count"`` (runs with a value: a failed run's unreached points are left out), ``"mean"``,
        ``"var"`` (numpy's, ddof 0), ``"std"``, ``"min"``, ``"max"``, each ``(n_saves, n_variables)``;
        ``"quantiles"`` ``(n_saves, n_variables, n_levels)`` at ``"quantile_levels"``, each within
        ``"quantile_rank_error"`` (a fraction of the count, at most the asked `quantile_rank_error`) of
        its rank; ``"histogram"`` ``(n_saves, n_variables, bins)`` counts over ``"histogram_edges"``
        ``(n_saves, n_variables, bins + 1)`` (numpy.histogram's bins), with ``"histogram_below"`` and
        ``"histogram_above"`` the values outside. ``{}`` without statistics.
    statistics_variables : list of str
        The states and observables the statistics are of (the series' variables), ``[]`` without.
    statistics_t : numpy.ndarray or None
        ``(n_saves,)`` the times the statistics are at (also when no series is kept), None without.
    counters : numpy.ndarray or None
        ``(n_runs,)`` structured (accepted_steps, rejected_steps, rhs_evaluations) when asked
        (``counters=True``), else None.
    y0, parameters : numpy.ndarray
        ``(n_runs, n_states)`` and ``(n_runs, n_parameters)``: the runs actually solved (the grid built
        from dicts, or the arrays given: the very same objects when used in place). `parameters` is
        None for a model without parameters.
    state_names, parameter_names : list of str
        The model's names, in state and parameter order.
    model_name : str
        The model's name.
    method, precision : str
        The method solved with (batchode's name) and ``"float64"`` or ``"float32"``.
    execution : list of dict
        Where each part ran and why: dicts with ``backend`` (``"cpu"``, ``"gpu:0"``), ``reason``
        (``"gpu_available"``, ``"gpu_unavailable"``, ``"cost_model"``, ...), ``first_run``, ``runs``,
        ``wall_ms``, ``predicted_ms``, ``chunks``, ``detail`` and ``instruction_set`` (a CPU part's
        for its blocks of runs in SIMD lanes: ``"avx512"``, ``"avx2"``, ``"baseline"`` or ``"off"``).
    local_runs, ranks, not_solved, timing_across_ranks
        Only after a solve with ``comm=`` (:meth:`Solver.solve`): this process's ``(first run, runs)``,
        each process's share, host, time, backend and error, the runs no process could solve, and the
        timing across the processes.
    """

    def __init__(self, parts, y0, parameters, names, precision):
        self.final_state = parts["final_state"]
        self.state = parts["state"]
        # The series' columns by name; from their indices for a result made without the names.
        self.saved_state_names = list(parts.get("saved_state_names") or
                                      [names[0][i] for i in parts.get("saved_states", range(len(names[0])))])
        self.t = parts["t"]
        self.observables = parts.get("observables")
        self.observable_names = list(parts.get("observable_names", []))
        self.summaries = dict(parts.get("summaries", {}))
        self.summary_variables = list(parts.get("summary_variables", []))
        self.summary_value_names = {name: list(v) for name, v in parts.get("summary_value_names", {}).items()}
        self.summary_window_ends = parts.get("summary_window_ends")
        if self.summary_window_ends is None:
            self.summary_window_ends = numpy.empty(0, dtype=self.final_state.dtype)
        self.statistics = dict(parts.get("statistics", {}))
        self.statistics_variables = list(parts.get("statistics_variables", []))
        self.statistics_t = parts.get("statistics_t")
        self.status = parts["status"]
        self.t_stop = parts["t_stop"]
        self.counters = parts["counters"]
        self.execution = parts["execution"]
        self.method = parts["method"]
        self.y0 = y0
        self.parameters = parameters
        self.state_names, self.parameter_names, self.model_name = names  # (state names, parameter names, model)
        self.precision = precision
        self.status_names = STATUS_NAMES
        self.events = {}
        self.stopping_event = parts.get("stopping_event")  # C++'s SolveResult::stopping_event, -1 for none
        if self.stopping_event is None:
            self.stopping_event = numpy.full(self.final_state.shape[0], -1, dtype=numpy.int32)
        if parts.get("events") is not None:
            records, counts = parts["events"], parts["event_counts"]
            for e, name in enumerate(parts["event_names"]):
                self.events[name] = Event(name, records[:, e], counts[:, e], parts["event_max"][e],
                                          parts["event_terminal"][e])

    @property
    def n_runs(self):
        """int: the runs of the batch (``final_state.shape[0]``)."""
        return self.final_state.shape[0]

    @property
    def success(self):
        """numpy.ndarray: ``(n_runs,)`` bool, the runs that reached the end of the span."""
        return self.status == Status.success

    @property
    def finished(self):
        """numpy.ndarray: ``(n_runs,)`` bool, the runs that reached the end of the span or stopped at a
        terminal event."""
        return (self.status == Status.success) | (self.status == Status.stopped_by_event)

    def stopped_by(self, run):
        """The terminal event that ended one run.

        Parameters
        ----------
        run : int
            The run's index in the batch.

        Returns
        -------
        str or None
            The event's name (a key of `events`), or None when no terminal event ended the run.

        Raises
        ------
        IndexError
            `run` is outside the batch.
        """
        e = int(self.stopping_event[run])
        return None if e < 0 else list(self.events)[e]

    @property
    def backends(self):
        """list of str: the backends the solve ran on, e.g. ``["gpu:0"]`` or ``["cpu"]``, in order."""
        seen = []
        for part in self.execution:
            if part["backend"] not in seen:
                seen.append(part["backend"])
        return seen

    def to_xarray(self):
        """The result as an xarray.Dataset, the inputs as coordinates.

        The series is over (run, time, variable) when it keeps every state, else over (run, time,
        saved_variable), saved_variable holding `saved_state_names` ("variable" stays `final_state`'s).
        Summaries are variables ``summary_<name>`` over (run, window, summary_variable), with a last
        dimension ``<name>_value`` for a summary of several values (extrema: max, min; peaks[k]), and
        the windows' ends as the coordinate ``window_end`` along ``window``. Statistics across runs are
        variables ``statistics_<name>`` over (time, statistics_variable), with a last dimension
        ``quantile`` (the levels) or ``bin`` (``statistics_histogram_edges``: ``bin_edge``).

        Returns
        -------
        xarray.Dataset
            Variables final_state, status, t_stop, state, observables and the summaries (those the
            result has); coordinates run, variable, the initial values (``y0_<state>``) and parameters
            of each run, and time.

        Raises
        ------
        ImportError
            xarray is not installed.
        """
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
        if self.t_stop is not None:
            data["t_stop"] = (("run",), self.t_stop)
        if self.observables is not None:
            coords["observable"] = self.observable_names
            data["observables"] = (("run", "save" if self.t.ndim == 2 else "time", "observable"), self.observables)
        if self.summaries:
            coords["summary_variable"] = self.summary_variables
            coords["window_end"] = ("window", self.summary_window_ends)
            for name, values in self.summaries.items():
                dims = ("run", "window", "summary_variable")
                if values.ndim == 4:
                    dims += (name + "_value",)
                    coords[name + "_value"] = self.summary_value_names[name]
                data["summary_" + name] = (dims, values)
        # A chosen series has its own variable axis: "variable" is the final state's, every state.
        columns = "variable"
        if self.state is not None and self.saved_state_names != self.state_names:
            columns = "saved_variable"
            coords[columns] = self.saved_state_names
        # The save times (each run's own: a coordinate per run and save), for the observables too
        # (save_variables may choose observables alone).
        if self.state is not None or self.observables is not None:
            coords["time"] = (("run", "save"), self.t) if self.t.ndim == 2 else self.t
        if self.state is not None:
            data["state"] = (("run", "save" if self.t.ndim == 2 else "time", columns), self.state)
        if self.statistics:  # over the same save times as the series, kept or not
            coords.setdefault("time", self.statistics_t)
            coords["statistics_variable"] = self.statistics_variables
            for name, values in self.statistics.items():
                if name in ("quantile_levels", "quantile_rank_error", "histogram_edges"):
                    continue
                dims = ("time", "statistics_variable")
                if name == "quantiles":
                    dims += ("quantile",)
                    coords["quantile"] = self.statistics["quantile_levels"]
                elif name == "histogram":
                    dims += ("bin",)
                data["statistics_" + name] = (dims, values)
            if "histogram_edges" in self.statistics:
                data["statistics_histogram_edges"] = (("time", "statistics_variable", "bin_edge"),
                                                      self.statistics["histogram_edges"])
        return xarray.Dataset(data, coords=coords, attrs={"model": self.model_name, "method": self.method})

    def __repr__(self):
        ok = int(numpy.count_nonzero(self.success))
        summaries = (f", {len(self.summaries)} summaries x {self.summary_window_ends.shape[0]} windows"
                     if self.summaries else "")
        return (f"<batchode.Result '{self.model_name}' {self.method} {self.precision}: {self.n_runs} runs x "
                f"{len(self.state_names)} states, {self.t.shape[-1]} saves{summaries}, {ok} succeeded, on "
                f"{'+'.join(self.backends) or 'nothing'}>")
