"""batchode: very large batches of independent ODE runs (parameter and initial-value sweeps) on GPUs
and on every CPU core, from Python.

    import numpy, batchode
    m = batchode.load_model("examples/models/lorenz.toml")
    r = batchode.solve_ivp(m, t_span=(0.0, 1.0), parameters={"rho": numpy.linspace(0, 21, 2**20)},
                           method="dopri5", rtol=1e-6, atol=1e-6)
    r.final_state          # (n_runs, n_states) numpy array over batchode's own memory

Models are equations (batchode.Model or a TOML file), compiled at run time for the CPU (the host C++
compiler) and the GPU (NVRTC or hipRTC); the package never compiles user C++. The solve releases
the GIL, and Ctrl-C stops it with KeyboardInterrupt (on the CPU within about a thousand steps of
every run in progress, on a GPU between chunks).
"""

import os as _os

# An installed wheel carries the headers a model's generated code includes (batchode/include); a build
# tree leaves the choice to the library (its source tree). A value already set is the user's and stays.
_headers = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "include")
if _os.path.isdir(_os.path.join(_headers, "batchode", "kernels")):
    _os.environ.setdefault("BATCHODE_INCLUDE_DIR", _headers)

from ._batchode import CompileError, GpuError, GpuUnavailable, Model, ModelError
from ._api import Solver, solve_ivp, methods, gpu_unavailable, load_model
from ._result import Event, Result, Status
from . import _timing as time_logger
from ._batchode import __version__  # noqa: F401,E402

__all__ = [
    "CompileError",
    "Event",
    "GpuError",
    "GpuUnavailable",
    "Model",
    "ModelError",
    "Result",
    "Solver",
    "Status",
    "gpu_unavailable",
    "load_model",
    "methods",
    "solve_ivp",
    "time_logger",
]
