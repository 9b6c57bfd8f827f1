"""batchode.time_logger: the TimeLogger every solve records into (the process's default one).

Every phase of every solve (model parsing and compiling, planning, each chunk's copies and kernels,
the CPU's runs) is a timed event there; these functions read it::

    batchode.time_logger.print_summary(category="runtime")
    data = json.loads(batchode.time_logger.to_json())
    batchode.time_logger.stats("kernel_run_execution")["total_ms"]
"""

import atexit
import sys

from ._batchode import timing as _timing
from ._paths import fspath

# The logger prints to Python's sys.stderr while Python runs (so notebooks show it); at exit, C++'s.
atexit.register(_timing._print_to_cpp_stderr)

summary = _timing.summary
to_json = _timing.to_json
reset = _timing.reset
set_verbosity = _timing.set_verbosity
verbosity = _timing.verbosity
stats = _timing.stats
is_registered = _timing.is_registered
stop_trace = _timing.stop_trace


def start_trace(path):
    """Writes every timed event from now on into a trace file, until :func:`stop_trace`.

    Parameters
    ----------
    path : str, bytes or os.PathLike
        The trace file (the Trace Event Format of Perfetto and chrome://tracing; scripts/plot_trace.py
        draws it); :func:`stop_trace` returns it.

    Raises
    ------
    TypeError
        `path` is not a path.
    RuntimeError
        The file cannot be written (the message names it). A trace already running is stopped first.
    """
    _timing.start_trace(fspath(path, "start_trace: path"))


def print_summary(category="", file=None):
    """Prints the summary table of the timed events: :func:`summary`'s text.

    Parameters
    ----------
    category : str
        Only this category's events (``"runtime"``, ...); ``""``: every event.
    file : file-like, optional
        Where to print (default ``sys.stdout``).
    """
    print(_timing.summary(category), file=file if file is not None else sys.stdout)
