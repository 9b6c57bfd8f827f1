#!/usr/bin/env python3
"""tests/cli: what `batchode run` says of runs that fail (issue 44, item 8): blow_up.toml swept over
p = 1, 0.25 to t = 2, without --method (dopri5, the default): run 0 blows up at t = 1, run 1 reaches
t = 2 (y = 2).

check_run_failures.py --batchode BIN --h5-summary BIN --model blow_up.toml --work DIR

- the exit status is 3 and one line counts the failed runs by status; with --allow-failed-runs it is 0;
- the .csv names its columns by the model's state (y), and t is each run's stop time (1 and 2);
- the .npy has _status.npy (int32 codes) and _t_stop.npy beside it; the .h5 has /status and /t_stop;
- float32 at --rtol 1e-12 (below what float32 can meet) warns, naming the tolerance asked and used.
Plain Python (CI's Python has no numpy, no h5py).
"""
import argparse
import csv
import json
import math
import subprocess
import sys
from pathlib import Path

from check_run_output import Checks, read_npy  # beside this script

FAILED_CODES = {1, 2, 3}  # max_steps_reached, step_size_underflow, non_finite_state: the blow-up's endings


def run(args, output, *extra):
    command = [args.batchode, "run", args.model, "--sweep", "p=1,0.25", "--t-end", "2", "--backend", "cpu",
               "--output", str(output), *extra]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    print("command:", " ".join(command), "->", done.returncode)
    print(done.stdout + done.stderr)
    return done


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batchode", required=True)
    parser.add_argument("--h5-summary", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    checks = Checks(1e-3)  # the blow-up is located to the last steps before t = 1; y(2) to rtol

    done = run(args, work / "failures.csv")
    checks.equal("exit status with a failed run", done.returncode, 3)
    checks.equal("the default method", "(dopri5, float64, cpu)" in done.stdout, True)
    checks.equal("the failures counted by status",
                 any(line.startswith("batchode: warning: 1 of 2 runs failed: 1 ") for line in done.stderr.splitlines()),
                 True)
    with open(work / "failures.csv", newline="") as f:
        rows = list(csv.reader(f))
    checks.equal("csv header", rows[0], ["run", "t", "status", "y"])
    checks.equal("csv rows", len(rows), 3)
    checks.equal("run 0 failed", rows[1][2] in ("step_size_underflow", "non_finite_state"), True)
    checks.close("run 0 stopped at the singularity", float(rows[1][1]), 1.0)
    checks.equal("run 1", rows[2][:3], ["1", "2", "success"])
    checks.close("run 1 y(2) = 1 / (1 - 0.5)", float(rows[2][3]), 2.0)

    done = run(args, work / "failures.npy", "--allow-failed-runs")
    checks.equal("exit status with --allow-failed-runs", done.returncode, 0)
    header, codes = read_npy(work / "failures_status.npy")
    checks.equal("status npy", (header["descr"], header["shape"]), ("<i4", (2,)))
    checks.equal("status codes", (codes[0] in FAILED_CODES, codes[1]), (True, 0))
    header, t_stop = read_npy(work / "failures_t_stop.npy")
    checks.equal("t_stop npy", (header["descr"], header["shape"]), ("<f8", (2,)))
    checks.close("t_stop run 0", t_stop[0], 1.0)
    checks.equal("t_stop run 1", t_stop[1], 2.0)

    done = run(args, work / "failures.h5", "--precision", "float32", "--rtol", "1e-12")
    checks.equal("exit status, float32", done.returncode, 3)
    checks.equal("the floor's warning",
                 "batchode: warning: --rtol: rtol = 1e-12 is below what float32 arithmetic can meet; using rtol = 1e-06"
                 in done.stderr, True)
    summary = subprocess.run([args.h5_summary, str(work / "failures.h5")], capture_output=True, text=True, check=True)
    datasets = json.loads(summary.stdout)["datasets"]
    checks.equal("/status run 1", datasets["/status"]["values"][1], 0)
    checks.equal("/t_stop type", datasets["/t_stop"]["type"], "float32")
    checks.close("/t_stop run 0", datasets["/t_stop"]["values"][0], 1.0)

    for failure in checks.failures:
        print("FAILED:", failure)
    print(f"run failures: {'FAILED' if checks.failures else 'passed'}")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
