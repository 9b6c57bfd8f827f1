"""solve_ivp and Solver: the vocabulary of scipy's solve_ivp and of CuBIE over batchode's solver.

Where the two name one thing differently both are accepted; giving both with different values is a
ValueError (neither silently wins)::

    t_span=(t0, t_end)        scipy   | duration=..., t0=0.0           CuBIE
    method="dopri5"           scipy   | algorithm="dormand-prince-54"  CuBIE
    dt=...                    CuBIE   | first_step=...                 scipy (adaptive methods' first step)
    save_every=...            CuBIE   | dt_save=...                    older CuBIE
    save_at=[t, ...]          batchode | t_eval=[t, ...]               scipy

Outputs as CuBIE names them: output_types=["state", "observables", "time", "iteration_counters",
"status", <summary metrics>] (None: the state series when save_every or save_at is set, and the
final state), or summaries=[<metrics>] beside the other keywords; summarise_every,
sample_summaries_every and summarise_variables place and choose what the metrics are of;
save_variables chooses the states and observables the series keeps.
Method names: batchode's own (batchode.methods()), scipy's RK45, RK23, DOP853 and Radau, CuBIE's
classical-rk4, dormand-prince-54, bogacki-shampine-32, cash-karp-54 and radau (and its vern7, the same
name), and OrdinaryDiffEq.jl's Rodas4, Rodas4P2, Rodas5P, Vern7, Vern9, Kvaerno3, Kvaerno5, KenCarp4 and
RadauIIA5.
"""

import json
import numbers
import os
import sys

import numpy

from . import _batchode, _mpi
from ._paths import fspath
from ._result import Result

_METHOD_ALIASES = {
    "RK45": "dopri5",
    "RK23": "bogacki_shampine32",
    "DOP853": "dop853",
    "classical-rk4": "rk4",
    "dormand-prince-54": "dopri5",
    "bogacki-shampine-32": "bogacki_shampine32",
    "cash-karp-54": "cash_karp54",
    "explicit-euler": "euler",
    "Rodas4": "rodas4",
    "Rodas5P": "rodas5p",
    "Vern7": "vern7",
    "Vern9": "vern9",
    "Kvaerno5": "kvaerno5",
    "Kvaerno3": "kvaerno3",
    "KenCarp4": "kencarp4",
    "Rodas4P2": "rodas4p2",
    "Radau": "radau5",
    "radau": "radau5",
    "RadauIIA5": "radau5",
}
_PRECISIONS = {"float64": numpy.float64, "float32": numpy.float32}


def methods():
    """The integration methods batchode has, with what each one is and where it runs.

    Returns
    -------
    list of dict
        One dict per method, in batchode's order, with the keys ``name`` (str: what ``method=`` takes),
        ``order`` (int), ``adaptive`` (bool: an embedded error estimate controls the step), ``stiff``
        (bool: implicit or linearly implicit: needs the Jacobian), ``gpu`` (bool: has a GPU kernel; False: CPU only) and
        ``dae`` (bool: solves models with algebraic variables).

    Examples
    --------
    >>> [m["name"] for m in batchode.methods() if m["stiff"]]  # doctest: +SKIP
    ['ros3p', 'rodas4', 'rosenbrock4', 'rodas5p', 'kvaerno5', 'radau5', 'kvaerno3', 'kencarp4', 'rodas4p2']
    """
    return _batchode.methods()


def load_model(path):
    """Reads, parses and checks a TOML model file (timed as model_parse); compiles nothing yet.

    Parameters
    ----------
    path : str, bytes or os.PathLike
        The model file (the format of ``examples/models/*.toml``).

    Returns
    -------
    Model
        The model, compiled at its first solve for the method and precision that solve asks for.

    Raises
    ------
    ModelError
        A mistake in the file (or a file that cannot be read), with the file, line and column.
    TypeError
        `path` is not a path.
    """
    return _batchode.load_model(fspath(path, "load_model: path"))


def gpu_unavailable(model, method="dopri5", precision="float64"):
    """Why `method` cannot run on a GPU for `model` on this machine, as far as can be told without compiling.

    Parameters
    ----------
    model : Model
        The model to solve.
    method : str
        A method name or alias, as ``solve_ivp``'s `method`.
    precision : str or numpy.dtype
        ``"float64"`` or ``"float32"``.

    Returns
    -------
    str
        ``""`` when the GPU can run it; else the reason: a CPU-only method, a build without a GPU
        backend, no usable GPU, no runtime compiler (NVRTC or hipRTC).

    Raises
    ------
    ValueError
        An unknown method or precision.
    TypeError
        `method` is not a string.
    """
    return _batchode.gpu_unavailable(model, _method_name(method), _precision_name(precision))


def _method_name(method):
    if not isinstance(method, str):
        raise TypeError(f"method must be a string, not {type(method).__name__}")
    return _METHOD_ALIASES.get(method, method)


def _precision_name(precision):
    try:
        name = numpy.dtype(precision).name
    except TypeError:
        name = None
    if name not in _PRECISIONS:
        raise ValueError(f"precision {precision!r}: use 'float64' or 'float32'")
    return name


def _one_of(name_a, a, name_b, b):
    """The value given under either name; both given and different is an error."""
    if a is not None and b is not None and a != b:
        raise ValueError(f"{name_a}={a!r} and {name_b}={b!r} name the same setting with different values; give one")
    return a if a is not None else b


def _span(t_span, duration, t0):
    """(t0, t_end) from scipy's t_span or CuBIE's duration and t0."""
    if t_span is not None:
        try:
            start, end = (float(v) for v in t_span)
        except (TypeError, ValueError):
            raise ValueError(f"t_span must be a pair (t0, t_end), not {t_span!r}") from None
        if duration is not None and not numpy.isclose(end - start, float(duration), rtol=1e-12, atol=0):
            raise ValueError(f"t_span={t_span!r} and duration={duration!r} disagree; give one")
        if t0 is not None and float(t0) != start:
            raise ValueError(f"t_span={t_span!r} and t0={t0!r} disagree; give one")
        return start, end
    start = 0.0 if t0 is None else float(t0)
    if duration is None:
        raise ValueError("give the span: t_span=(t0, t_end) or duration= (and t0=, default 0)")
    return start, start + float(duration)


def _is_rows(x):
    """True for an (n_runs, n) array (or nested list): one row per run."""
    return x is not None and not isinstance(x, dict) and numpy.ndim(x) == 2


def _defaults(given, names, defaults, what):
    """The default row: the model's, or a 1-D array/list of len(names) given instead."""
    if given is None or isinstance(given, dict):
        return numpy.array(defaults, dtype=numpy.float64)
    row = numpy.asarray(given, dtype=numpy.float64)
    if row.ndim != 1 or row.shape[0] != len(names):
        raise ValueError(
            f"{what} has shape {row.shape}: give ({len(names)},) for one value per {what[:-1] if what.endswith('s') else what} "
            f"shared by all runs, (n_runs, {len(names)}) for one row per run, or a dict {{name: value(s)}}")
    return row


def _axes(given, names, defaults, is_parameter, what):
    """A dict's entries: scalars replace defaults, 1-D sequences become grid axes."""
    axes = []
    if not isinstance(given, dict):
        return axes
    for name, values in given.items():
        if name not in names:
            raise ValueError(f"{what}: the model has no {('parameter' if is_parameter else 'state')} named {name!r} "
                             f"(it has {', '.join(names) or 'none'})")
        values = numpy.asarray(values, dtype=numpy.float64)
        if values.ndim == 0:
            defaults[names.index(name)] = float(values)
        elif values.ndim == 1:
            axes.append((is_parameter, name, values.tolist()))
        else:
            raise ValueError(f"{what}[{name!r}] has shape {values.shape}: give a number or a 1-D sequence")
    return axes


def _batch(model, y0, parameters, grid_type, precision):
    """(y0, parameters) as run-major arrays (parameters None when the model has none): arrays given
    per run pass through untouched (the extension reads them in place when they are C-contiguous and
    of the solve's dtype); dicts build a grid by batchode's GridBuilder. Values stay float64 here: the
    extension checks each in double before narrowing it to the solve's precision."""
    if grid_type not in ("combinatorial", "verbatim"):
        raise ValueError(f"grid_type {grid_type!r}: use 'combinatorial' or 'verbatim'")
    n_params = model.n_parameters
    if n_params == 0 and parameters is not None and numpy.size(parameters) > 0:
        raise ValueError(f"the model '{model.name}' has no parameters, but parameters were given")
    # The common case of repeated solves, kept cheap: both given per run as numpy arrays.
    if type(y0) is numpy.ndarray and y0.ndim == 2 and type(parameters) is numpy.ndarray and parameters.ndim == 2:
        return y0, (parameters if n_params > 0 else None)
    if _is_rows(y0) or _is_rows(parameters):
        if isinstance(y0, dict) or isinstance(parameters, dict):
            raise ValueError("y0 or parameters is given per run (a 2-D array), so the other must be an array too "
                             "(2-D, or 1-D shared by all runs, or None for the model's defaults); a dict builds a grid")
        runs = numpy.shape(y0)[0] if _is_rows(y0) else numpy.shape(parameters)[0]
        # A shared row stays float64: the extension converts it once, checking each value in double
        # before it is narrowed to the solve's precision (a value float32 cannot hold is named).
        if not _is_rows(y0):
            y0 = numpy.broadcast_to(_defaults(y0, model.state_names, model.default_y0, "y0"), (runs, model.n_states))
        if not _is_rows(parameters):
            row = _defaults(parameters, model.parameter_names, model.default_parameters, "parameters")
            parameters = numpy.broadcast_to(row, (runs, n_params))
        return y0, (parameters if n_params > 0 else None)
    y_defaults = _defaults(y0, model.state_names, model.default_y0, "y0")
    p_defaults = _defaults(parameters, model.parameter_names, model.default_parameters, "parameters")
    axes = _axes(y0, model.state_names, y_defaults, False, "y0")
    axes += _axes(parameters, model.parameter_names, p_defaults, True, "parameters")
    build = _batchode.build_grid64 if precision == "float64" else _batchode.build_grid32
    y, p = build(model, y_defaults.tolist(), p_defaults.tolist(), axes, grid_type)
    return y, (p if n_params > 0 else None)


class Solver:
    """A solver built once and solved many times.

    The model is compiled once per method and precision; the GPU buffers, CPU threads and result memory
    are kept between solves::

        s = batchode.Solver(model, method="rk4", dt=1e-3, precision="float32", t_span=(0, 1))
        r = s.solve(y0=..., parameters=...)

    ``solve()`` may give another span (`t_span`, or `duration` and `t0`); a different one builds a new
    solver underneath (compiled code is kept, buffers are not).

    Parameters
    ----------
    model : Model
        The model (``batchode.Model(...)`` or ``batchode.load_model(path)``).
    method : str, optional
        The method (default ``"dopri5"``); CuBIE's name for it, `algorithm`, is taken too.
    t_span, duration, t0
        The span, here or at ``solve()``: ``(t0, t_end)``, or `duration` and `t0` (default 0).
    **options
        Every other keyword of :func:`solve_ivp`, with the same meaning and defaults: `rtol`, `atol`,
        `dt`, `save_every`, `save_at`, `save_mode`, `save_variables`, `output_types`, `summaries`,
        `summarise_every`, `sample_summaries_every`, `summarise_variables`, `drivers`, `max_steps`,
        `max_step`, `precision`, `backend`, `verbosity`, `counters`, `run_order`, `cpu_threads`,
        `memory_fraction`, `chunks`, `split_runs`, `event_tolerance`, `ensemble_statistics`,
        `quantile_rank_error`, `runs_per_slice`, `comm`, and the aliases `first_step`, `dt_save`
        and `t_eval`.

    Attributes
    ----------
    model : Model
        The model solved.
    method : str
        batchode's name of the method (an alias given is resolved).
    precision : str
        ``"float64"`` or ``"float32"``.

    Raises
    ------
    TypeError
        `model` is not a ``batchode.Model``, or an option has the wrong type.
    ValueError
        A bad option or a contradiction (two names of one setting with different values, `t0` alone);
        batchode's checks of the options, by name, when the span is given.
    """

    def __init__(self, model, method=None, *, t_span=None, duration=None, t0=None, rtol=1e-6, atol=1e-6,
                 dt=None, save_every=None, save_at=None, save_mode="auto", max_steps=1_000_000,
                 precision="float64", backend="auto", verbosity=None, counters=False, run_order="auto",
                 cpu_threads=0, memory_fraction=None, chunks=0, event_tolerance=None, algorithm=None,
                 first_step=None, dt_save=None, t_eval=None, comm=None, output_types=None, summaries=None,
                 summarise_every=None, sample_summaries_every=None, summarise_variables=None, drivers=None,
                 save_variables=None, max_step=None, split_runs=True, ensemble_statistics=None,
                 quantile_rank_error=1e-3, runs_per_slice=0):
        if not isinstance(model, _batchode.Model):
            raise TypeError(f"model must be a batchode.Model (batchode.Model(...) or batchode.load_model(path)), "
                            f"not {type(model).__name__}")
        self.model = model
        self._names = (list(model.state_names), list(model.parameter_names), model.name)
        self.precision = _precision_name(precision)
        method = _one_of("method", None if method is None else _method_name(method),
                         "algorithm", None if algorithm is None else _method_name(algorithm))
        self.method = method if method is not None else "dopri5"
        for name, value in (("rtol", rtol), ("atol", atol)):
            if not isinstance(value, numbers.Real):
                raise TypeError(f"{name} must be a number, not {type(value).__name__}")
        self._settings = dict(
            method=self.method, rtol=float(rtol), atol=float(atol),
            dt=_optional_float(_one_of("dt", dt, "first_step", first_step), "dt"),
            save_every=_optional_float(_one_of("save_every", save_every, "dt_save", dt_save), "save_every"),
            save_at=_times(None if _per_run(save_at) else save_at, "save_at", t_eval, "t_eval"),
            save_at_per_run=_per_run_times(save_at, t_eval), save_mode=str(save_mode),
            max_steps=_count(max_steps, "max_steps", 1), max_step=_optional_float(max_step, "max_step"),
            backend=str(backend),
            verbosity=None if verbosity is None else str(verbosity), counters=bool(counters),
            run_order=str(run_order), cpu_threads=_count(cpu_threads, "cpu_threads", 0),
            memory_fraction=_optional_float(memory_fraction, "memory_fraction"), chunks=_count(chunks, "chunks", 0),
            event_tolerance=_optional_float(event_tolerance, "event_tolerance"),
            output_types=_names(output_types, "output_types", "['state', 'mean']"),
            summaries=_names(summaries, "summaries", "['mean', 'extrema', 'peaks[3]']") or [],
            summarise_every=_optional_float(summarise_every, "summarise_every"),
            sample_summaries_every=_optional_float(sample_summaries_every, "sample_summaries_every"),
            summarise_variables=_names(summarise_variables, "summarise_variables", "['x', 'energy']") or [],
            drivers=_drivers(drivers), save_variables=_save_variables(save_variables),
            split_runs=_flag(split_runs, "split_runs"),
            ensemble_statistics=_names(ensemble_statistics, "ensemble_statistics",
                                       "['mean', 'var', 'quantiles[0.05,0.5,0.95]', 'histogram[64]']") or [],
            quantile_rank_error=1e-3 if quantile_rank_error is None
            else _optional_float(quantile_rank_error, "quantile_rank_error"),
            runs_per_slice=_count(runs_per_slice, "runs_per_slice", 0))
        self._span = None
        self._solver = None
        # An mpi4py communicator: every solve is one batch over its processes (batchode._mpi).
        self._collective = None if comm is None else _mpi.Mpi4pyCollective(comm)
        if self._collective is not None and self._collective.rank() != 0:
            _batchode.timing._drop_output()  # only rank 0 prints; every process still times its events
        if t_span is not None or duration is not None:
            self._build(_span(t_span, duration, t0))
        elif t0 is not None:
            raise ValueError("t0 alone is not a span: give duration= too, or t_span=(t0, t_end)")

    def _build(self, span):
        options = _batchode.make_options(t0=span[0], t_end=span[1], **self._settings)
        if self._collective is not None:  # one GPU per process where a node's processes share GPUs
            options = _batchode.for_local_rank(options, self._collective.local_rank(), self._collective.local_size())
        cls = _batchode.Solver64 if self.precision == "float64" else _batchode.Solver32
        self._solver = cls(self.model, options)
        self._span = span

    def solve(self, y0=None, parameters=None, grid_type="combinatorial", *, t_span=None, duration=None, t0=None,
              output=None):
        """Solves one batch.

        Parameters
        ----------
        y0 : None, dict or array_like
            None: the model's defaults. A dict ``{state: value or 1-D values}``: a grid (see
            `grid_type`). An ``(n_states,)`` array: one initial state for all runs. An ``(n_runs,
            n_states)`` array: one per run (read in place when C-contiguous and of the solve's dtype).
        parameters : None, dict or array_like
            The same with the parameters.
        grid_type : {"combinatorial", "verbatim"}
            How the dicts' 1-D values combine: every combination, the first axis slowest, or the i-th
            value of each (all of one length).
        t_span, duration, t0
            Another span than the Solver's (optional).
        output : str, bytes or os.PathLike, optional
            With ``comm=`` only: an .h5 file every process writes its runs into (nothing is gathered).
            None: the results are gathered to rank 0.

        Returns
        -------
        Result
            Every run's final state, status, and what the options asked to keep.

            With ``comm=`` every process must pass the same batch. Rank 0's Result holds every run (or,
            with `output`, its own share); the others' their share (``r.local_runs``: ``(first run,
            runs)``); all have ``r.ranks`` (each process's share, host, time, where it ran, error) and
            ``r.not_solved``, and rank 0 prints the timing across processes (min / mean / max,
            imbalance) unless `verbosity` is ``"none"``.

        Raises
        ------
        ValueError
            A bad batch (shapes, names a model does not have, NaN or infinite values, a value the
            precision cannot hold), no span, or options that do not fit it; the message names it.
        TypeError
            An argument of the wrong type.
        ModelError
            A model mistake found when it is compiled.
        CompileError
            The model's generated code failed to compile (the compiler's log is in the message).
        GpuUnavailable
            ``backend="gpu"`` and no GPU can run the solve (the message says why).
        GpuError
            A GPU failed and the solve could not fall back to the CPU.
        KeyboardInterrupt
            Ctrl-C during the solve (it stops on the CPU within about a thousand steps of each run in
            progress, on a GPU between chunks).
        """
        if t_span is not None or duration is not None or t0 is not None:
            if t_span is None and t0 is None and self._span is not None:
                t0 = self._span[0]  # a new duration from the Solver's own start
            span = _span(t_span, duration, t0)
            if span != self._span:
                self._build(span)
        if self._solver is None:
            raise ValueError("give the span: t_span=(t0, t_end) or duration= (to Solver or to solve)")
        y, p = _batch(self.model, y0, parameters, grid_type, self.precision)
        if self._collective is None:
            if output is not None:
                raise ValueError("output= is for solves over MPI processes (comm=); write a Result with to_xarray()")
            parts, y_used, p_used = self._solver.solve(y, p)
            return Result(parts, y_used, p_used, self._names, self.precision)
        return self._solve_distributed(y, p, output)

    def _solve_distributed(self, y, p, output):
        path = "" if output is None else fspath(output, "output")
        if output is not None and not os.fsdecode(path).lower().endswith((".h5", ".hdf5")):
            raise ValueError(f"output={output!r}: the file of a distributed solve is HDF5 (.h5 or .hdf5)")
        (parts, y_used, p_used, first, runs, ranks, not_solved, report,
         timing_json) = self._solver.solve_distributed(self._collective, y, p, path, 0)
        rows = slice(first, first + runs)
        result = Result(parts, y_used[rows], None if p_used is None else p_used[rows], self._names, self.precision)
        result.local_runs = (first, runs)
        result.ranks = ranks
        result.not_solved = not_solved
        result.timing_across_ranks = json.loads(timing_json)
        verbosity = self._settings["verbosity"]
        if self._collective.rank() == 0 and verbosity != "none" and _batchode.timing.verbosity() != "none":
            sys.stderr.write(report)  # the timing across processes, failed processes, unsolved runs
        return result


def _count(value, name, least):
    """A whole number >= least, named in the error otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a whole number, not {type(value).__name__}")
    if value < least:
        raise ValueError(f"{name} is {value}; it must be at least {least}")
    return int(value)


def _times(a, name_a, b, name_b):
    """A 1-D list of floats from save_at or scipy's t_eval (both given and different: ValueError);
    [] when neither. Order and span are checked by the solver (named errors)."""
    values = []
    for value, name in ((a, name_a), (b, name_b)):
        if value is None:
            continue
        array = numpy.asarray(value, dtype=numpy.float64)
        if array.ndim != 1:
            raise ValueError(f"{name} must be a 1-D sequence of times (or, save_at, a 2-D array: each run's own), "
                             f"got shape {array.shape}")
        if values and (len(values) != array.size or any(v != w for v, w in zip(values, array.tolist()))):
            raise ValueError(f"{name_a} and {name_b} name the same setting with different values; give one")
        values = array.tolist()
    return values


def _per_run(save_at):
    """Whether save_at gives each run its own times: a 2-D array (n_runs, n_saves)."""
    return save_at is not None and numpy.ndim(save_at) == 2


def _per_run_times(save_at, t_eval):
    """save_at as a C-ordered float64 (n_runs, n_saves) array when it is 2-D (each run's own times), else
    None. Not with t_eval (scipy's takes one list). Order and span are checked by the solver."""
    if not _per_run(save_at):
        return None
    if t_eval is not None:
        raise ValueError("save_at gives each run its own times (a 2-D array); t_eval is one list for all: give one")
    array = numpy.ascontiguousarray(save_at, dtype=numpy.float64)
    if array.shape[0] == 0 or array.shape[1] == 0:
        raise ValueError(f"save_at per run must have at least one run and one time, got shape {array.shape}")
    return array


def _names(value, name, example):
    """A list of strings from a list or tuple of them (None stays None); one string alone is a
    TypeError (it would read as a list of its letters)."""
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a list of names, like {example}, not {type(value).__name__} {value!r}")
    for item in value:
        if not isinstance(item, str):
            raise TypeError(f"{name} must be a list of names (strings), but it holds {type(item).__name__} {item!r}")
    return list(value)


def _save_variables(value):
    """save_variables as the C++ side takes it: None (every state and observable) becomes []; an empty
    list would mean the same there, so it is refused here rather than read as "nothing"."""
    names = _names(value, "save_variables", "['z', 'energy']")
    if names is None:
        return []
    if not names:
        raise ValueError("save_variables=[] saves nothing: leave it None to save every state and observable")
    return names


_DRIVER_SETTINGS = ("dt", "time", "times", "order", "wrap", "end", "boundary_condition", "land")


def _drivers(drivers):
    """The C++ side's driver tuples from CuBIE's form: {"u": samples, ..., "dt": h or "time": times,
    "order": 1 | 3, "wrap": bool, "end": "natural" | "clamped" | "periodic" | "not-a-knot"}. One time
    base for every driver named; samples 1-D (shared by the runs) or 2-D (n_runs, n_samples)."""
    if drivers is None:
        return []
    if not isinstance(drivers, dict):
        raise TypeError(f"drivers must be a dict like {{'u': samples, 'dt': 0.1}}, not {type(drivers).__name__}")
    dt = _optional_float(drivers.get("dt"), "drivers['dt']")
    if "time" in drivers and "times" in drivers:
        raise ValueError("drivers: give the samples' times once, as 'time' (or 'times'), not both")
    times = drivers.get("time", drivers.get("times"))
    if dt is not None and times is not None:
        raise ValueError("drivers: give the samples' 'dt' (uniform from t0) or their 'time', not both")
    if dt is None and times is None:
        raise ValueError("drivers: give the samples' 'dt' (uniform from t0) or their 'time' (an array)")
    times = [] if times is None else [float(t) for t in numpy.asarray(times, dtype=numpy.float64).ravel()]
    order = drivers.get("order", 1)
    if isinstance(order, bool) or not isinstance(order, numbers.Integral):
        raise TypeError(f"drivers['order'] must be 1 (linear) or 3 (cubic spline), not {order!r}")
    end = drivers.get("end", drivers.get("boundary_condition", "natural"))
    if not isinstance(end, str):
        raise TypeError(f"drivers['end'] must be 'natural', 'clamped', 'periodic' or 'not-a-knot', not {end!r}")
    wrap, land = drivers.get("wrap", False), drivers.get("land", True)
    for key, flag in (("wrap", wrap), ("land", land)):
        if not isinstance(flag, bool):
            raise TypeError(f"drivers['{key}'] must be True or False, not {flag!r}")
    out = []
    for name, samples in drivers.items():
        if name in _DRIVER_SETTINGS:
            continue
        values = numpy.ascontiguousarray(numpy.asarray(samples, dtype=numpy.float64))
        out.append((str(name), values, times, dt, int(order), end, wrap, land))
    if not out:
        raise ValueError("drivers names no driver: give {'<driver>': samples, ...} beside 'dt' or 'time'")
    return out


def _flag(value, name):
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, not {type(value).__name__}")
    return value


def _optional_float(value, name):
    if value is None:
        return None
    if not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number or None, not {type(value).__name__}")
    return float(value)


def solve_ivp(model, t_span=None, y0=None, parameters=None, *, grid_type="combinatorial", duration=None, t0=None,
              **options):
    """Solves a batch of runs of `model` in one call: ``Solver(model, **options).solve(...)``.

    ::

        r = batchode.solve_ivp(m, t_span=(0.0, 1.0), y0={"x": 1.0},
                               parameters={"rho": numpy.linspace(0, 21, 2**20)},
                               method="dopri5", rtol=1e-6, atol=1e-6)

    Parameters
    ----------
    model : Model
        ``batchode.Model(...)`` or ``batchode.load_model(path)``.
    t_span : (float, float)
        ``(t0, t_end)``; or `duration` and `t0` (CuBIE's names).
    y0, parameters, grid_type
        The batch, as :meth:`Solver.solve` takes it: None (the model's defaults), a dict of values or
        1-D sweeps (a grid), one row shared by all runs, or one row per run.
    duration, t0 : float, optional
        The span as CuBIE gives it: ``(t0, t0 + duration)``, `t0` 0 by default.
    method : str
        ``"dopri5"`` (default), ``"tsit5"``, ``"rk4"``, ``"euler"``, ``"bogacki_shampine32"``,
        ``"cash_karp54"``, ``"fehlberg78"``, ``"vern7"``, ``"vern9"``, ``"dop853"``, ``"rodas4"``, ``"rodas4p2"``,
        ``"rodas5p"``, ``"ros3p"``, ``"kvaerno5"``, ``"kvaerno3"``, ``"kencarp4"`` (implicit, ESDIRK), ``"radau5"`` (implicit,
        Radau IIA), ``"rosenbrock4"`` (CPU only), or an alias (scipy's, CuBIE's, OrdinaryDiffEq.jl's: the module's doc); :func:`methods` lists them. CuBIE's keyword `algorithm` is taken too.
    rtol, atol : float
        The tolerances of adaptive methods (1e-6 each).
    dt : float, optional
        The step of fixed-step methods (rk4, euler: required); the first step of adaptive ones (scipy's
        `first_step` is taken too).
    save_every : float, optional
        Save the state every `save_every` from t0 (``r.state``, ``r.t``); None: the final state only.
        (`dt_save`, older CuBIE's name, is taken too.)
    save_at : array_like, optional
        Save the state at these times instead (scipy's `t_eval` is taken too): strictly increasing, in
        `t_span`; interpolated by the step's dense output (the method's own: dopri5's, tsit5's,
        vern7's, ...; else the Hermite cubic), so the steps stay those of a solve without saves. A 2-D array ``(n_runs,
        n_saves)`` gives each run its own times (the batch must then have n_runs runs; ``r.t`` is then
        ``(n_runs, n_saves)``).
    output_types : list of str, optional
        CuBIE's list of what to keep: ``"state"`` and ``"observables"`` (the series at `save_every` or
        `save_at`; without either no series is kept), ``"time"``, ``"status"`` (kept anyway),
        ``"iteration_counters"`` (``r.counters``) and summary metrics (as `summaries`). None: the
        series when `save_every` or `save_at` is set.
    summaries : list of str, optional
        Summary metrics kept per run and window, of the states and observables (``r.summaries``):
        ``"mean"``, ``"std"``, ``"rms"``, ``"max"``, ``"min"``, ``"extrema"`` (max, min),
        ``"max_magnitude"``, ``"max_time"``, ``"min_time"`` (the time of the first max / min),
        ``"mean_std"``, ``"std_rms"``, ``"mean_std_rms"``, ``"dxdt_max"``, ``"dxdt_min"``,
        ``"dxdt_extrema"`` (of backward differences / dt), ``"d2xdt2_max"``, ``"d2xdt2_min"``,
        ``"d2xdt2_extrema"`` (second differences / dt^2), ``"peaks[n]"``, ``"negative_peaks[n]"`` (the
        times of the first n samples strictly above / below both neighbours; NaN in the slots left).
        Here or in `output_types`, not both.
    summarise_every : float, optional
        The windows' length: (t0 + w T, t0 + (w + 1) T], whole windows up to t_end. None: the whole span.
    sample_summaries_every : float, optional
        The spacing dt of the samples t0 + j dt (j >= 1) the metrics are of (the state at t0 only
        starts the history): a whole number of them per window. None: `summarise_every` / 10 (the span
        / 100 without `summarise_every`). With a series too, `save_every` must be a whole number of
        them (the series is saved at samples).
    summarise_variables : list of str, optional
        The states and observables summarised, by name; None: all of them.
    ensemble_statistics : list of str, optional
        Statistics across the runs at every save time (``r.statistics``), of the series' variables
        (`save_variables` chooses them): ``"count"``, ``"mean"``, ``"var"``, ``"std"``, ``"min"``,
        ``"max"``, ``"quantiles[0.05,0.5,0.95]"`` and ``"histogram[64]"`` (over the range of the first
        slice's values) or ``"histogram[64,low,high]"``. Needs `save_every` or `save_at`. With
        `output_types` that keep no series, the result keeps no series, so memory does not grow with the
        runs beyond one row per run (final state, status, stop time): moments alone on GPUs are reduced
        on the device chunk by chunk; otherwise the runs are solved in slices of `runs_per_slice` whose
        series are reduced on the host and dropped.
    quantile_rank_error : float
        Each quantile's rank among the runs' values lies within this fraction of the asked one (1e-3).
    runs_per_slice : int
        Runs solved at a time for statistics without a series (0: as many as 1 GiB of series holds).
    save_variables : list of str, optional
        The states and observables the series keeps, by name, in the model's order whatever order they
        are named in (only they take memory); needs `save_every` or `save_at`. ``r.state`` is then
        ``(n_runs, n_saves, n_saved)`` over ``r.saved_state_names`` (None when only observables are
        chosen), ``r.observables`` holds the chosen observables. None: every state and observable. The
        final state, events and summaries keep every one.
    drivers : dict, optional
        The model's time-varying inputs (its ``drivers=[...]`` or ``[drivers]``), in CuBIE's form:
        ``{"u": samples, ..., "dt": h (uniform from t0) or "time": times, "order": 1 (linear, default)
        or 3 (cubic spline), "end": "natural" | "clamped" | "periodic" | "not-a-knot", "wrap": True for
        a periodic signal, "land": False to let adaptive steps straddle the samples' times}`` (they end
        on them by default: a linear driver's slope jumps there, a spline's third derivative); samples
        1-D (shared) or 2-D ``(n_runs, n_samples)``: each run's own. Samples a model file gives are
        used for drivers not named here.
    save_mode : {"auto", "land", "interpolate"}
        ``"auto"``: `save_every` lands, `save_at` interpolates, except for cash_karp54 and fehlberg78,
        whose long steps the Hermite cubic cannot keep up with: they land. ``"land"``: steps end on
        every save time (the method's own values, shorter steps). ``"interpolate"``.
    max_steps : int
        Per run (1e6), accepted and rejected steps.
    max_step : float, optional
        The largest step adaptive methods take (scipy's name; None: no limit). Events are found by the
        sign change of their function between steps, so a crossing and its return inside one step go
        unseen: give `max_step` below the spacing of the crossings you expect (scipy's advice too).
    precision : {"float64", "float32"}
        The arithmetic of the solve and the dtype of the result.
    backend : {"auto", "cpu", "gpu"}
        ``"auto"``: a GPU when one is usable, else the CPU (``r.execution`` says why); ``"gpu"``
        raises :class:`GpuUnavailable` when none can run.
    verbosity : {"default", "none", "verbose", "debug"}, optional
        What the solve's timing prints (None: the time logger's level).
    counters : bool
        Also return per-run step counters (``r.counters``).
    run_order : {"auto", "off"}
        ``"auto"``: on the GPU, order each chunk's runs by their inputs (not when the cost probe saw its
        runs take the same steps: backend ``"auto"``'s before each solve, backend ``"gpu"``'s beside a
        Solver's earlier solves of the same batch). Results are the same either way.
    cpu_threads : int
        CPU worker threads (0: every core).
    event_tolerance : float, optional
        The width in t to which event times are located (the model's events; ``r.events``). None: 100
        ulps of the span's larger end in the solve's precision.
    memory_fraction : float, optional
        The GPU's memory budget, a fraction of its free memory.
    chunks : int
        A forced chunk count on the GPU (0: planned from the memory budget).
    split_runs : bool
        On the GPU, let one run of a large model take several lanes of a warp where one thread's registers
        would not hold it (True, the default; explicit methods, final states only, models written out
        state by state as a few formulas over the state's index, such as Lorenz-96 or a discretised PDE).
        False keeps one thread per run. The same numbers either way: bit for bit where the components share
        no arithmetic, else within rounding (a product two components share is fused otherwise).
    comm : mpi4py.MPI.Comm, optional
        A communicator: one batch over its processes (each passes the same batch; see
        :meth:`Solver.solve`); `output` then names an .h5 file all of them write into.
    output : str, bytes or os.PathLike, optional
        With `comm` only, as :meth:`Solver.solve`'s.

    Returns
    -------
    Result
        Every run's final state and status, with the series, observables, events, summaries and
        counters the options asked for, and where each part of the batch ran.

    Raises
    ------
    ValueError
        A bad option, batch or span, or two names of one setting with different values; batchode's
        message names it (an unknown method lists the valid names).
    TypeError
        An argument of the wrong type (a number given as a string, one name where a list is expected).
    ModelError
        A constant or default value of the model that the precision cannot hold (1e300 in float32).
    CompileError
        The model's generated code failed to compile (the compiler's log is in the message).
    GpuUnavailable
        ``backend="gpu"`` and no GPU can run the solve.
    GpuError
        A GPU failed and the solve could not fall back to the CPU.
    KeyboardInterrupt
        Ctrl-C during the solve.
    """
    output = options.pop("output", None)
    return Solver(model, t_span=t_span, duration=duration, t0=t0, **options).solve(y0, parameters, grid_type,
                                                                                   output=output)
