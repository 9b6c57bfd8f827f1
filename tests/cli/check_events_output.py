#!/usr/bin/env python3
"""tests/cli: `batchode run` on examples/models/projectile.toml (issue 12): the model's events in the
.h5, .npy and .csv outputs, checked against the closed form (plain Python: CI's Python has neither
numpy nor h5py).

check_events_output.py --batchode BIN --h5-summary BIN --model projectile.toml --work DIR --format h5|npy|csv

A ball thrown up from h0 = 10 at v0 = 2, 5, 10, 20 (--sweep v=...) under g = 9.81: the apex (v falls
through 0, recorded) at v0 / g, the ground (h falls through 0, terminal) at (v0 + sqrt(v0^2 + 2 g h0))
/ g. dopri5 integrates the quadratic exactly (to rounding) and its own dense output is of fourth
order, so the times are the root finder's, located to --event-tolerance 1e-10: checked to 1e-8.
"""
import argparse
import csv
import json
import math
import subprocess
import sys
from pathlib import Path

from check_run_output import Checks, read_npy  # beside this script

V0 = [2.0, 5.0, 10.0, 20.0]
H0, G = 10.0, 9.81
TOLERANCE = 1e-8


def apex(v0):
    return v0 / G


def ground(v0):
    return (v0 + math.sqrt(v0 * v0 + 2 * G * H0)) / G


def main():
    parser = argparse.ArgumentParser()
    for name in ("--batchode", "--h5-summary", "--model", "--work", "--format"):
        parser.add_argument(name, required=True)
    args = parser.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    output = work / f"projectile.{args.format}"
    command = [args.batchode, "run", args.model, "--sweep", "v=" + ",".join(str(v) for v in V0), "--t-end", "10",
               "--method", "dopri5", "--rtol", "1e-10", "--atol", "1e-10", "--event-tolerance", "1e-10",
               "--backend", "cpu", "--output", str(output)]
    print("command:", " ".join(command))
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    print("--- stdout ---\n" + done.stdout + "--- stderr ---\n" + done.stderr + "---")
    checks = Checks(TOLERANCE)
    checks.equal("exit code", done.returncode, 0)
    checks.equal("events line", "events: apex: 4 runs, 4 crossings; ground: 4 runs, 4 crossings "
                 "(4 runs stopped there)" in done.stdout, True)
    # The ground ends every run: nothing is said about runs that did not reach t_end.
    checks.equal("no warning", "warning" in done.stderr, False)
    if done.returncode != 0:
        checks.failures.append("batchode failed")
    elif args.format == "npy":
        stem = str(output)[:-len(".npy")]
        for name, exact in (("apex", apex), ("ground", ground)):
            header, t = read_npy(f"{stem}_event_{name}_t.npy")
            checks.equal(f"{name} t shape", header["shape"], (4, 1))
            for r, v0 in enumerate(V0):
                checks.close(f"{name} time run {r}", t[r], exact(v0))
            header, state = read_npy(f"{stem}_event_{name}_state.npy")
            checks.equal(f"{name} state shape", header["shape"], (4, 1, 2))
            header, count = read_npy(f"{stem}_event_{name}_count.npy")
            checks.equal(f"{name} count", (header["descr"], count), ("<u4", [1, 1, 1, 1]))
        # The final state is the state at the ground: h = 0 to the tolerance, v = -sqrt(v0^2 + 2 g h0).
        _, final = read_npy(output)
        for r, v0 in enumerate(V0):
            checks.close(f"final h run {r}", final[2 * r], 0.0)
            checks.close(f"final v run {r}", final[2 * r + 1], -math.sqrt(v0 * v0 + 2 * G * H0))
        # Each run stopped at the ground: its status, and its stop time the ground's.
        checks.equal("status npy", read_npy(f"{stem}_status.npy"), ({"descr": "<i4", "fortran_order": False,
                                                                   "shape": (4,)}, [6] * 4))
        _, t_stop = read_npy(f"{stem}_t_stop.npy")
        for r, v0 in enumerate(V0):
            checks.close(f"t_stop run {r}", t_stop[r], ground(v0))
    elif args.format == "csv":
        with open(str(output)[:-len(".csv")] + "_events.csv", newline="") as f:
            rows = list(csv.reader(f))
        checks.equal("events csv header", rows[0], ["run", "event", "k", "t", "h", "v"])
        checks.equal("events csv rows", len(rows) - 1, 8)
        for row in rows[1:]:
            r, name = int(row[0]), row[1]
            checks.close(f"csv {name} run {r}", float(row[3]), (apex if name == "apex" else ground)(V0[r]))
        with open(output, newline="") as f:
            rows = list(csv.reader(f))
        checks.equal("csv header", rows[0], ["run", "t", "status", "h", "v"])
        checks.equal("csv statuses", [row[2] for row in rows[1:]], ["stopped_by_event"] * 4)
        for r, v0 in enumerate(V0):  # t: the time each run stopped at, the ground's
            checks.close(f"csv t_stop run {r}", float(rows[1 + r][1]), ground(v0))
    else:
        summary = subprocess.run([args.h5_summary, str(output)], capture_output=True, text=True, check=True)
        h5 = json.loads(summary.stdout)
        datasets, attributes = h5["datasets"], h5["attributes"]
        checks.equal("/events names", attributes.get("/events", {}).get("names"), ["apex", "ground"])
        for name, exact, action in (("apex", apex, "record"), ("ground", ground, "terminal")):
            group = f"/events/{name}"
            checks.equal(f"{group} attributes", {k: attributes.get(group, {}).get(k) for k in ("direction", "action", "max")},
                         {"direction": "falling", "action": action, "max": 1})
            t = datasets.get(group + "/t", {})
            checks.equal(f"{group}/t shape", t.get("shape"), [4, 1])
            for r, v0 in enumerate(V0):
                checks.close(f"{group}/t run {r}", t.get("values", [math.nan] * 4)[r], exact(v0))
            checks.equal(f"{group}/state shape", datasets.get(group + "/state", {}).get("shape"), [4, 1, 2])
            checks.equal(f"{group}/count", datasets.get(group + "/count", {}).get("values"), [1, 1, 1, 1])
        # The apex's state: h0 + v0^2 / (2 g), v = 0.
        state = datasets.get("/events/apex/state", {}).get("values", [math.nan] * 8)
        for r, v0 in enumerate(V0):
            checks.close(f"apex height run {r}", state[2 * r], H0 + v0 * v0 / (2 * G))
        checks.equal("status", datasets.get("/status", {}).get("values"), [6] * 4)
        t_stop = datasets.get("/t_stop", {}).get("values", [math.nan] * 4)
        for r, v0 in enumerate(V0):
            checks.close(f"/t_stop run {r}", t_stop[r], ground(v0))

    for failure in checks.failures:
        print("FAILED:", failure)
    print(f"events {args.format}: {'FAILED' if checks.failures else 'passed'}")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
