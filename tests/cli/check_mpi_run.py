#!/usr/bin/env python3
"""`mpiexec -n N batchode run ...` (no extra flag) against `batchode run ...` on the same sweep: the .h5
file the N processes write together must equal the one-process file in every dataset and attribute
but `execution` (which names the processes), the .npy gathered to rank 0 must equal the one-process
.npy byte for byte, and only rank 0 prints. Used by CTest (cli_mpi_run; cli_mpi_time_events with a model
whose events act at given times, the events in the file) with h5_summary (no h5py)."""

import argparse
import json
import os
import subprocess
import sys


def run(command, env):
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        sys.exit(f"FAILED ({done.returncode}): {' '.join(command)}\n{done.stdout}\n{done.stderr}")
    return done


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--batchode", required=True)
    a.add_argument("--mpiexec", required=True)
    a.add_argument("--h5-summary", required=True)
    a.add_argument("--model", required=True)
    a.add_argument("--work", required=True)
    a.add_argument("--processes", type=int, default=3)
    a.add_argument("--sweep", default="rho=linspace(0,50,101)", help="the runs (a parameter's sweep)")
    a.add_argument("--t-end", default="2")
    args = a.parse_args()
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl_vader_single_copy_mechanism="none", OMPI_MCA_rmaps_base_oversubscribe="1")
    solve = ["run", args.model, "--t-end", args.t_end, "--method", "dopri5", "--rtol", "1e-8", "--atol", "1e-8",
             "--save-every", "0.5", "--backend", "cpu", "--counters", "--sweep", args.sweep]
    mpi = [args.mpiexec, "-n", str(args.processes), args.batchode]
    os.makedirs(args.work, exist_ok=True)
    files = {k: os.path.join(args.work, f"mpi_{k}") for k in ("one.h5", "all.h5", "one.npy", "all.npy")}

    run([args.batchode, *solve, "--output", files["one.h5"]], env)
    done = run([*mpi, *solve, "--output", files["all.h5"]], env)
    written = [line for line in done.stdout.splitlines() if "written to" in line]
    if len(written) != 1 or f"{args.processes} processes" not in written[0]:
        sys.exit(f"expected one 'written to' line naming {args.processes} processes:\n{done.stdout}")
    if f"timing across {args.processes} processes" not in done.stderr or "mpi_local_solve" not in done.stderr:
        sys.exit(f"expected the timing across processes on stderr:\n{done.stderr}")

    one = json.loads(run([args.h5_summary, files["one.h5"]], env).stdout)
    everyone = json.loads(run([args.h5_summary, files["all.h5"]], env).stdout)
    execution = everyone["attributes"]["/"].pop("execution")
    one["attributes"]["/"].pop("execution")
    if one != everyone:
        sys.exit("the file written by the processes differs from the one-process file")
    if not all("rank " in part for part in execution):
        sys.exit(f"execution does not name the processes: {execution}")

    run([args.batchode, *solve, "--output", files["one.npy"]], env)
    run([*mpi, *solve, "--output", files["all.npy"]], env)
    with open(files["one.npy"], "rb") as f1, open(files["all.npy"], "rb") as f2:
        if f1.read() != f2.read():
            sys.exit("the .npy gathered to rank 0 differs from the one-process .npy")

    # Bad input: every process meets it, rank 0 alone says it and ends with the exit code (the others end
    # quietly once it has: a process ending first with an error had the launcher kill rank 0 unheard).
    nan = args.sweep.split("=")[0] + "=nan"
    done = subprocess.run([*mpi, *solve[:-2], "--sweep", nan, "--output", files["all.npy"]], env=env,
                          capture_output=True, text=True, timeout=600)
    if done.returncode == 0 or done.stderr.count("batchode: ") != 1 or "nan" not in done.stderr.lower():
        sys.exit(f"a NaN parameter: expected one error line and a failure:\n{done.returncode}\n{done.stderr}")
    print("ok: one file, one .npy and one error line from", args.processes, "processes")


if __name__ == "__main__":
    main()
