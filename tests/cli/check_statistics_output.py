#!/usr/bin/env python3
"""tests/cli: `batchode run --statistics ...` on examples/models/lorenz.toml (issue 52): the .h5's
/statistics of a run that keeps the series, checked against that series (plain Python: no numpy, no
h5py), and the same statistics from a run that keeps no series (--output-types status, solved in slices
by --runs-per-slice's default: one here), which writes no /series.

check_statistics_output.py --batchode BIN --h5-summary BIN --model lorenz.toml --work DIR

rho over 64 values, RK4 with dt = 0.01 to t = 1, saves every 0.25: 5 save times x 3 states.
"""
import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

RUNS, SAVES, STATES = 64, 5, ["x", "y", "z"]
STATISTICS = "count,mean,var,min,max,quantiles[0.25,0.5,0.75],histogram[8]"


def run(args, output, output_types):
    command = [args.batchode, "run", args.model, "--sweep", f"rho=linspace(0,30,{RUNS})", "--t-end", "1",
               "--method", "rk4", "--dt", "0.01", "--backend", "cpu", "--save-every", "0.25",
               "--statistics", STATISTICS, "--output-types", output_types, "--output", str(output),
               "--verbosity", "none"]
    print("command:", " ".join(command))
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    print("exit code:", done.returncode, "\n--- stdout ---\n" + done.stdout + "--- stderr ---\n" + done.stderr)
    if done.returncode != 0:
        sys.exit(1)
    return json.loads(subprocess.run([args.h5_summary, str(output)], capture_output=True, text=True,
                                     check=True).stdout)


def main():
    parser = argparse.ArgumentParser()
    for name in ("--batchode", "--h5-summary", "--model", "--work"):
        parser.add_argument(name, required=True)
    args = parser.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    failures = []

    def check(what, ok):
        if not ok:
            failures.append(what)

    kept = run(args, work / "statistics_kept.h5", "state")
    alone = run(args, work / "statistics_alone.h5", "status")
    series = kept["datasets"]["/series"]["values"]
    check("/series kept", kept["datasets"]["/series"]["shape"] == [RUNS, SAVES, 3])
    check("no /series without state", "/series" not in alone["datasets"])
    group = kept["attributes"].get("/statistics", {})
    check("variables", group.get("variables") == STATES)
    check("t", group.get("t") == [0.0, 0.25, 0.5, 0.75, 1.0])
    check("rank_error 0 (64 runs kept whole)", kept["attributes"]["/statistics/quantiles"].get("rank_error") == 0)
    d = kept["datasets"]
    for k in range(SAVES):
        for s in range(3):
            c = k * 3 + s
            x = sorted(series[(r * SAVES + k) * 3 + s] for r in range(RUNS))
            mean = math.fsum(x) / RUNS
            var = math.fsum((v - mean) ** 2 for v in x) / RUNS
            check(f"count[{k},{s}]", d["/statistics/count"]["values"][c] == RUNS)
            check(f"mean[{k},{s}]", abs(d["/statistics/mean"]["values"][c] - mean) <= 1e-13 * max(1, abs(mean)))
            check(f"var[{k},{s}]", abs(d["/statistics/var"]["values"][c] - var) <= 1e-12 * max(1, var))
            check(f"min[{k},{s}]", d["/statistics/min"]["values"][c] == x[0])
            check(f"max[{k},{s}]", d["/statistics/max"]["values"][c] == x[-1])
            for j, q in enumerate([0.25, 0.5, 0.75]):  # exact: the smallest value whose rank reaches q n
                check(f"quantile {q} [{k},{s}]", d["/statistics/quantiles"]["values"][c * 3 + j] ==
                      x[max(1, math.ceil(q * RUNS)) - 1])
            edges = d["/statistics/histogram_edges"]["values"][c * 9:(c + 1) * 9]
            counts = [0] * 8
            for v in x:
                counts[min(7, max(b for b in range(8) if edges[b] <= v))] += 1
            check(f"histogram[{k},{s}]", d["/statistics/histogram"]["values"][c * 8:(c + 1) * 8] == counts)
    for name in ("count", "mean", "var", "min", "max", "quantiles", "histogram", "histogram_edges"):
        check(f"/statistics/{name} the same without the series",
              alone["datasets"][f"/statistics/{name}"]["values"] == d[f"/statistics/{name}"]["values"])
    check("final states the same", alone["datasets"]["/final_state"]["values"] == d["/final_state"]["values"])
    for f in failures:
        print("FAILED:", f)
    print("check_statistics_output:", "FAILED" if failures else "passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
