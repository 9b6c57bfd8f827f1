"""A batch over MPI processes from Python (comm=, mpi4py): `mpiexec -n 3` runs a script that solves one
Lorenz sweep over the processes, gathered and into one .h5 file, and compares every run bit for bit
with one process's solve of the same batch (the CPU integrates each run alone, so whichever process
solved a run, its numbers are the same). Skipped, visibly, without mpi4py or mpiexec."""

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from conftest import LORENZ_TOML

mpi4py = pytest.importorskip("mpi4py", reason="comm= needs mpi4py (Debian: python3-mpi4py)")
MPIEXEC = shutil.which("mpiexec")

SCRIPT = textwrap.dedent("""
    import pathlib
    import sys
    import numpy
    from mpi4py import MPI
    import batchode

    comm = MPI.COMM_WORLD
    model = batchode.load_model(sys.argv[1])
    out = sys.argv[2]
    grid = dict(parameters={"rho": numpy.linspace(0.0, 50.0, 101)}, y0={"x": 1.0, "y": 1.0, "z": 1.0})
    options = dict(t_span=(0.0, 2.0), method="dopri5", rtol=1e-8, atol=1e-8, save_every=0.5, counters=True,
                   backend="cpu", cpu_threads=1, verbosity="none")
    one = batchode.solve_ivp(model, **grid, **options)
    r = batchode.solve_ivp(model, **grid, **options, comm=comm)
    first, runs = r.local_runs
    assert len(r.ranks) == comm.size
    assert sum(rank["runs"] for rank in r.ranks) == 101
    assert r.not_solved == 0
    assert r.timing_across_ranks["ranks"] == comm.size
    assert r.timing_across_ranks["events"] == []  # verbosity "none" records nothing
    if comm.rank == 0:
        assert (first, runs) == (0, 101)
    assert numpy.array_equal(r.final_state, one.final_state[first:first + runs])
    assert numpy.array_equal(r.state, one.state[first:first + runs], equal_nan=True)
    assert numpy.array_equal(r.status, one.status[first:first + runs])
    assert numpy.array_equal(r.t_stop, one.t_stop[first:first + runs])
    assert numpy.array_equal(r.counters, one.counters[first:first + runs])
    assert numpy.array_equal(r.parameters, one.parameters[first:first + runs])

    w = batchode.solve_ivp(model, **grid, **dict(options, verbosity="default"), comm=comm, output=pathlib.Path(out))
    local = [e for e in w.timing_across_ranks["events"] if e["label"] == "mpi_local_solve"]
    assert len(local) == 1 and len(local[0]["total_ms"]) == comm.size and local[0]["imbalance"] >= 1
    assert w.local_runs == (w.ranks[comm.rank]["first_run"], w.ranks[comm.rank]["runs"])
    comm.Barrier()
    if comm.rank == 0:
        try:
            import h5py
        except ImportError:
            h5py = None
        if h5py is not None:
            with h5py.File(out, "r") as f:
                assert numpy.array_equal(f["final_state"][...], one.final_state)
                assert numpy.array_equal(f["series"][...], one.state)
                assert numpy.array_equal(f["status"][...], one.status)
                assert list(f.attrs["state_names"]) == ["x", "y", "z"]
    try:
        batchode.solve_ivp(model, **grid, **options, comm=comm, output=out + ".npy")
    except ValueError as e:
        assert "HDF5" in str(e)
    else:
        raise AssertionError("output=.npy accepted")
    print(f"rank {comm.rank}: ok", flush=True)
""")


@pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec on PATH (Debian: openmpi-bin)")
@pytest.mark.parametrize("processes", [1, 3])
def test_one_batch_over_mpi_processes_equals_one_process(tmp_path, processes):
    script = tmp_path / "sweep.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl_vader_single_copy_mechanism="none", OMPI_MCA_rmaps_base_oversubscribe="1")
    done = subprocess.run([MPIEXEC, "-n", str(processes), sys.executable, str(script), LORENZ_TOML,
                           str(tmp_path / "sweep.h5")], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    for rank in range(processes):
        assert f"rank {rank}: ok" in done.stdout, done.stdout + done.stderr
    # Rank 0 alone prints the timing across processes (and its own summary).
    assert done.stderr.count(f"timing across {processes} processes") == 1, done.stderr


def test_comm_must_be_a_communicator(lorenz):
    import batchode
    with pytest.raises(TypeError, match="mpi4py communicator"):
        batchode.Solver(lorenz, t_span=(0, 1), comm="world")


def test_output_needs_comm(lorenz):
    import batchode
    with pytest.raises(ValueError, match="comm="):
        batchode.solve_ivp(lorenz, (0, 1), output="x.h5", verbosity="none")
