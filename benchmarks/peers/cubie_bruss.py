# CuBIE on BRUSS, the 1-D Brusselator (Hairer & Wanner), the stiff workload of
# benchmarks/large_systems.sh written the same way: N = 2 M states u1, v1, ..., uM, vM,
# c = (M + 1)^2 / 50, boundary u = 1, v = 3, initial u_i = 1 + sin(2 pi i / (M + 1)), v_i = 3,
# A swept over linspace(0.9, 1.1, RUNS), t in [0, 1], rtol = atol = 1e-6, final state only.
# For each N, precision and algorithm: first_s is the wall time from create_ODE_system to the end
# of the first Solver.solve (code generation and numba-cuda JIT included; the CUDA context is made
# before the clock starts and CuBIE's disk caches point at a fresh empty folder, so it is a cold
# compile); solve_ms is the median wall time of REPEATS (default 3) later solves of the same
# Solver, each synchronised.
#
#   python3 cubie_bruss.py RUNS N [N ...]
#
# One line per case (the status text is last and may hold spaces):
#   cubie_bruss algorithm=<a> precision=<p> N=<n> runs=<r> first_s=<s> solve_ms=<ms> u1_mean=<mean of
#     final u1 over the runs that succeeded> status=<ok | partial(...) | error: ... | timeout ...>
# and a detail line: cubie_bruss_detail ... setup_s first_solve_s solve_ms_all ok_runs=<k>/<r>
#   codes=<status word:flags xcount;...> settings=<solver keyword overrides or defaults>
#   (with COUNTERS=1 also CuBIE's per-run iteration counters averaged over runs).
#
# Environment:
#   PRECISIONS   "float64 float32" (default)
#   ALGORITHMS   "ros3p rodas3p radau" (default; cheapest first)
#   REPEATS      later solves timed (default 3)
#   CASE_LIMIT   seconds per case (default 300, the child's imports included): each case runs in a
#                child process that is killed past it (then status=timeout ...). 0: all cases in
#                this process, no limit.
#   COUNTERS     1: also save CuBIE's iteration counters (output type iteration_counters; this
#                changes the compiled kernel a little, so use it for diagnosis, not for timing)
#   SOLVER_KWARGS  comma-separated key=value extra Solver keywords, e.g.
#                "krylov_max_iters=500,preconditioner_type='jacobi'" (values are Python literals
#                without commas; default: none, CuBIE's own)
#   CUBIE_CACHE_DIR  when set, CuBIE's disk caches go there (a warm second run can then reuse them);
#                when unset, each case gets a fresh temporary folder (a cold first solve).
#
# On the GPU machine (see ../shared/peers/README.md), from the repository root:
#   mkdir -p /tmp/cubie && tar xzf peers-run/cubie-0.3.1-src.tar.gz -C /tmp/cubie
#   export PYTHONPATH=$PWD/peers-run/stubs:/tmp/cubie/src PYTHONUNBUFFERED=1
#   python3 benchmarks/peers/cubie_bruss.py 65536 8 32 128
#
# Algorithms (CuBIE 0.3.1 source, src/cubie/...):
#   integrators/algorithms/__init__.py registers the families euler, backwards_euler,
#   backwards_euler_pc, crank_nicolson, dirk, firk, erk, rosenbrock and the tableau aliases.
#   Implicit and adaptive (an embedded error estimate, algorithm_is_adaptive):
#   - Rosenbrock-W (generic_rosenbrockw_tableaus.py, ROSENBROCK_TABLEAUS): ros3p (3 stages, order 3,
#     Lang & Verwer's method for parabolic problems, CuBIE's default Rosenbrock tableau), rodas3p
#     (5 stages, order 3, stiffly accurate: the nearest to batchode's rodas4; rodas4p and rodas5p
#     are commented out there, "don't have step-end embedded weights"), rosenbrock23 / ode23s (order 2).
#   - FIRK (generic_firk_tableaus.py): radau = radau_iia_5 (Radau IIA order 5 with embedded b_hat);
#     the Gauss-Legendre tableaus have no error estimate (fixed step only).
#   - DIRK (generic_dirk_tableaus.py): kvaerno3, kvaerno5, l_stable_sdirk_4 carry b_hat;
#     implicit_midpoint, trapezoidal_dirk/ode23t, sdirk_2_2, l_stable_dirk_3 (the DIRK default) do not.
#   - crank_nicolson.py is_adaptive = True (order 2); backwards_euler.py is_adaptive = False.
#   Chosen: ros3p (CuBIE's default stiff method, built for exactly this kind of reaction-diffusion
#   problem), rodas3p (the Rodas family batchode's rodas4 belongs to) and radau (Hairer & Wanner's
#   RADAU5 method, the classic for BRUSS). The DIRKs (kvaerno5 ...) are accepted via ALGORITHMS.
#
# Newton / Krylov settings: CuBIE's defaults (none passed unless SOLVER_KWARGS says so). What they are:
#   - linear solver: integrators/algorithms/ode_implicitstep.py builds MRLinearSolver
#     (matrix_free_solvers/linear_solver.py, linear_correction_type "minimal_residual": one search
#     direction per iteration, not GMRES) with preconditioner_type "neumann", preconditioner_order 2
#     (odesystems/symbolic/codegen/preconditioners.py: the truncated series I + T + T^2, T = h*gamma*J).
#   - iteration limits: matrix_free_solvers/base_solver.py max_iters = 100 for both
#     krylov_max_iters and newton_max_iters.
#   - tolerances: integrators/SingleIntegratorRunCore.py _apply_inner_tolerance_defaults:
#     krylov_atol/rtol = the step's atol/rtol, newton_atol/rtol = atol/rtol / 10,
#     krylov_residual_reduction = rtol (x 0.01 for the linearly implicit Rosenbrock steps);
#     matrix_free_solvers/linear_solver_base.py: residual floor sqrt(eps) in the weighted RMS norm.
#   - step control: generic_rosenbrock_w.py ROSENBROCK_ADAPTIVE_DEFAULTS and generic_firk.py
#     FIRK_ADAPTIVE_DEFAULTS (gustafsson, min_gain 0.2, max_gain 8, safety 0.9);
#     step_control/adaptive_step_controller.py dt_min = 1e-6, dt_max = 1, first dt = 1e-3.
#   Why the defaults are kept although they are weak for BRUSS: the Neumann series diverges once
#   h*gamma*|lambda_max| > 1 (|lambda_max| ~ 4c: about 1330 at N = 256; gamma = 0.789 for ros3p,
#   1/3 for rodas3p), and one-direction MR needs many iterations when I - h*gamma*J is badly
#   conditioned, so large steps exhaust the 100 Krylov iterations. But that does not stop a run:
#   integrators/loops/ode_loop.py turns a nonzero step status (MAX_LINEAR_ITERATIONS_EXCEEDED = 4,
#   MAX_NEWTON_ITERATIONS_EXCEEDED = 2, result_codes.py) into error = 1e16, a rejected step and a
#   smaller dt; only STEP_TOO_SMALL (dt below dt_min = 1e-6) or STAGNATION end a run, and at
#   h = 1e-6 h*gamma*4c is ~1e-3, where the Krylov solve converges at once. So the defaults work;
#   they cap CuBIE's step by Krylov convergence rather than accuracy at large N, which is what a
#   CuBIE user gets. For a tuned second run, for example:
#   SOLVER_KWARGS="preconditioner_type='jacobi',krylov_max_iters=500".
import ast
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

PI_AWK = 3.14159265358979  # the constant large_systems.sh's awk uses for pi (initial u_i)
T_END = 1.0
TOL = 1e-6


def bruss_model(n):
    """Equation strings, states (name -> initial value, ordered u1, v1, u2, ...) and c for N = n."""
    if n < 2 or n % 2:
        raise ValueError(f"N must be even and >= 2, got {n}")
    m = n // 2
    c = (m + 1) * (m + 1) / 50.0
    lines = []
    states = {}
    for i in range(1, m + 1):
        ul, vl = ("1.0", "3.0") if i == 1 else (f"u{i - 1}", f"v{i - 1}")
        ur, vr = ("1.0", "3.0") if i == m else (f"u{i + 1}", f"v{i + 1}")
        lines.append(f"du{i} = A + u{i} * u{i} * v{i} - 4.0 * u{i} + cdiff * ({ul} - 2.0 * u{i} + {ur})")
        lines.append(f"dv{i} = 3.0 * u{i} - u{i} * u{i} * v{i} + cdiff * ({vl} - 2.0 * v{i} + {vr})")
        states[f"u{i}"] = 1.0 + math.sin(2.0 * PI_AWK * i / (m + 1))
        states[f"v{i}"] = 3.0
    return "\n".join(lines), states, c


def solver_kwargs_from_env():
    """SOLVER_KWARGS="a=1,b='x'" -> {"a": 1, "b": "x"} (values as Python literals, else strings)."""
    raw = os.environ.get("SOLVER_KWARGS", "").strip()
    out = {}
    if not raw:
        return out
    for item in raw.split(","):
        if not item.strip():
            continue
        key, _, value = item.partition("=")
        value = value.strip()
        try:
            out[key.strip()] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            out[key.strip()] = value
    return out


def one_line(text, limit=300):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def summarise_codes(codes):
    """'none' when every run succeeded, else 'word:FLAG|FLAG x count;...'."""
    import numpy as np

    if codes is None:
        return "unavailable"
    codes = np.asarray(codes).ravel()
    values, counts = np.unique(codes, return_counts=True)
    parts = []
    try:
        from cubie.result_codes import CUBIE_RESULT_CODES

        flags = [f for f in CUBIE_RESULT_CODES if f.value != 0]
    except Exception:  # noqa: BLE001 - the names are a nicety
        flags = []
    for value, count in zip(values.tolist(), counts.tolist()):
        if value == 0:
            continue
        names = "|".join(f.name for f in flags if value & f.value == f.value) or "?"
        parts.append(f"{value}:{names}x{count}")
    return ";".join(parts) if parts else "none"


def extract(result, counters):
    """(final state as float64 (n_states, runs), status codes or None, counters (4, runs) or None)."""
    import numpy as np

    order = tuple(getattr(result, "_stride_order", ("time", "variable", "run")))
    perm = [order.index(k) for k in ("time", "variable", "run")]
    state = np.transpose(np.asarray(result.state), perm)
    final = np.array(state[-1], dtype=np.float64)
    codes = None if result.status_codes is None else np.array(result.status_codes).ravel()
    ctr = None
    if counters and result.iteration_counters is not None:
        c = np.transpose(np.asarray(result.iteration_counters), perm)  # (time, 4, run), per save
        ctr = c.sum(axis=0, dtype=np.int64)
    return final, codes, ctr


def run_case(algorithm, precision, n, runs, announce, info):
    """Build, solve and time one case; print its two lines. Exceptions propagate (info["first_s"]
    holds the first solve's time once it is known)."""
    import numpy as np
    from numba import cuda

    import cubie as qb

    cuda.current_context()  # the context, before any clock starts
    if announce:
        dev = cuda.get_current_device().name
        dev = dev.decode() if isinstance(dev, bytes) else dev
        print(f"# cubie {getattr(qb, '__version__', '?')} on {dev}", flush=True)

    # CuBIE's disk caches (generated code, compiled kernels; cubie/cache_root.py) default to
    # ./generated: point them at an empty folder so the first solve compiles from scratch.
    cache_tmp = None
    if not os.environ.get("CUBIE_CACHE_DIR", "").strip():
        cache_dir = os.environ.get("BRUSS_CASE_CACHE")  # made (and removed) by the parent process
        if not cache_dir:
            cache_dir = cache_tmp = tempfile.mkdtemp(prefix="cubie_bruss_cache_")
        from cubie.cache_root import set_cache_root

        set_cache_root(cache_dir)
    try:
        dtype = {"float64": np.float64, "float32": np.float32}[precision]
        repeats = int(os.environ.get("REPEATS", "3"))
        counters = os.environ.get("COUNTERS", "0") == "1"
        extra = solver_kwargs_from_env()
        equations, states, c = bruss_model(n)
        sweep = np.linspace(0.9, 1.1, runs)

        t0 = time.perf_counter()
        system = qb.create_ODE_system(equations, states=states, parameters={"A": 1.0},
                                      constants={"cdiff": c}, name=f"bruss{n}", precision=dtype)
        solver = qb.Solver(system, algorithm=algorithm, atol=TOL, rtol=TOL, save_every=T_END,
                           output_types=["state"] + (["iteration_counters"] if counters else []),
                           time_logging_level=None, **extra)
        inits, params = solver.build_grid(initial_values=states, parameters={"A": sweep})
        iu1 = int(np.asarray(solver.get_state_indices(["u1"])).ravel()[0])
        setup_s = time.perf_counter() - t0
        result = solver.solve(inits, params, duration=T_END)
        cuda.synchronize()
        first_s = time.perf_counter() - t0
        info["first_s"] = f"{first_s:.2f}"
        print(f"cubie_bruss_progress algorithm={algorithm} precision={precision} N={n} runs={runs} "
              f"first_s={first_s:.2f}", flush=True)
        final, codes, ctr = extract(result, counters)
        del result  # CuBIE lends its host buffers to a live result; free them before the next solve

        walls = []
        for _ in range(repeats):
            t = time.perf_counter()
            result = solver.solve(inits, params, duration=T_END)
            cuda.synchronize()
            walls.append(time.perf_counter() - t)
            final, codes, ctr = extract(result, counters)
            del result
        solve_ms = statistics.median(walls) * 1e3 if walls else float("nan")

        ok = np.ones(runs, dtype=bool) if codes is None else (codes == 0)
        n_ok = int(ok.sum())
        u1 = final[iu1]
        u1_mean = float(np.mean(u1[ok])) if n_ok else float("nan")
        code_text = summarise_codes(codes)
        status = "ok" if n_ok == runs else f"partial({runs - n_ok} of {runs} runs failed: {code_text})"
        if n_ok and not np.all(np.isfinite(final[:, ok])):
            status += " (non-finite values in successful runs)"
        tag = f"algorithm={algorithm} precision={precision} N={n} runs={runs}"
        print(f"cubie_bruss {tag} first_s={first_s:.2f} solve_ms={solve_ms:.2f} u1_mean={u1_mean:.10g} "
              f"status={status}", flush=True)
        detail = (f"cubie_bruss_detail {tag} setup_s={setup_s:.2f} first_solve_s={first_s - setup_s:.2f} "
                  f"solve_ms_all={','.join(f'{w * 1e3:.2f}' for w in walls)} ok_runs={n_ok}/{runs} "
                  f"codes={code_text} c={c:.17g} "
                  f"settings={','.join(f'{k}={v!r}' for k, v in extra.items()) or 'defaults'}")
        if ctr is not None:
            names = ("newton_iters", "krylov_iters", "steps", "rejected")
            detail += " " + " ".join(f"{names[i]}_mean={ctr[i].mean():.1f}" for i in range(min(4, ctr.shape[0])))
        print(detail, flush=True)
    finally:
        if cache_tmp is not None:
            shutil.rmtree(cache_tmp, ignore_errors=True)


def error_line(algorithm, precision, n, runs, first_s, status):
    return (f"cubie_bruss algorithm={algorithm} precision={precision} N={n} runs={runs} first_s={first_s} "
            f"solve_ms=nan u1_mean=nan status={one_line(status)}")


def child_main(argv):
    algorithm, precision, n, runs = argv[0], argv[1], int(argv[2]), int(argv[3])
    announce = len(argv) > 4 and argv[4] == "announce"
    info = {"first_s": "nan"}
    try:
        run_case(algorithm, precision, n, runs, announce, info)
    except Exception as exc:  # noqa: BLE001 - report and keep going
        print(error_line(algorithm, precision, n, runs, info["first_s"], f"error: {type(exc).__name__}: {exc}"),
              flush=True)
        import traceback

        traceback.print_exc()
    return 0


def as_text(data):
    if data is None:
        return ""
    return data.decode(errors="replace") if isinstance(data, bytes) else data


def case_in_child(algorithm, precision, n, runs, limit, announce):
    cmd = [sys.executable, os.path.abspath(__file__), "--case", algorithm, precision, str(n), str(runs)]
    if announce:
        cmd.append("announce")
    verbose = os.environ.get("VERBOSE", "0") == "1"
    env = dict(os.environ)
    cache_dir = None
    if not env.get("CUBIE_CACHE_DIR", "").strip():
        cache_dir = env["BRUSS_CASE_CACHE"] = tempfile.mkdtemp(prefix="cubie_bruss_cache_")
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        out, err = proc.communicate(timeout=limit)
        rc, timed_out = proc.returncode, False
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        rc, timed_out = None, True
    finally:
        if proc.poll() is None:  # this process is being stopped: take the child down with it
            proc.kill()
            proc.wait()
        if cache_dir:
            shutil.rmtree(cache_dir, ignore_errors=True)
    out, err = as_text(out), as_text(err)
    lines = out.splitlines()
    result_lines = [l for l in lines if l.startswith(("cubie_bruss ", "cubie_bruss_detail ", "# "))]
    for line in result_lines:
        print(line, flush=True)
    if not any(l.startswith("cubie_bruss ") for l in lines):
        progress = [l for l in lines if l.startswith("cubie_bruss_progress ")]
        first_s = "nan"
        if progress:
            first_s = progress[-1].split("first_s=")[-1].strip()
        if timed_out:
            what = "timeout after {:.0f} s ({})".format(
                time.perf_counter() - start,
                "first solve done, later solves unfinished" if progress else "first solve (JIT) unfinished")
        else:
            tail = [l for l in err.splitlines() if l.strip()]
            what = f"crashed (rc={rc}): {tail[-1] if tail else 'no message'}"
        print(error_line(algorithm, precision, n, runs, first_s, what), flush=True)
    if verbose or timed_out or rc not in (0, None) or "Traceback" in err:
        tail = err.splitlines()[-15:]
        if tail:
            sys.stderr.write("\n".join(f"  [{algorithm} {precision} N={n}] {l}" for l in tail) + "\n")
            sys.stderr.flush()


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--case":
        return child_main(sys.argv[2:])
    if len(sys.argv) < 3:
        print("usage: python3 cubie_bruss.py RUNS N [N ...]", file=sys.stderr)
        return 2
    # A SIGTERM (e.g. from `timeout`) unwinds normally, so a running case's child is killed too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    runs = int(sys.argv[1])
    sizes = [int(s) for s in sys.argv[2:]]
    precisions = os.environ.get("PRECISIONS", "float64 float32").split()
    algorithms = os.environ.get("ALGORITHMS", "ros3p rodas3p radau").split()
    limit = float(os.environ.get("CASE_LIMIT", "300"))
    for p in precisions:
        if p not in ("float64", "float32"):
            print(f"unknown precision {p!r} (float64 or float32)", file=sys.stderr)
            return 2
    print(f"# cubie_bruss runs={runs} N={' '.join(map(str, sizes))} precisions={' '.join(precisions)} "
          f"algorithms={' '.join(algorithms)} case_limit={limit:g} repeats={os.environ.get('REPEATS', '3')} "
          f"solver_kwargs={os.environ.get('SOLVER_KWARGS', '') or 'defaults'} "
          f"cache={os.environ.get('CUBIE_CACHE_DIR', '') or 'fresh per case'}", flush=True)
    first = True
    for n in sizes:
        for precision in precisions:
            for algorithm in algorithms:
                if limit > 0:
                    case_in_child(algorithm, precision, n, runs, limit, announce=first)
                else:
                    info = {"first_s": "nan"}
                    try:
                        run_case(algorithm, precision, n, runs, first, info)
                    except Exception as exc:  # noqa: BLE001 - report and keep going
                        print(error_line(algorithm, precision, n, runs, info["first_s"],
                                         f"error: {type(exc).__name__}: {exc}"), flush=True)
                first = False
    return 0


if __name__ == "__main__":
    sys.exit(main())
