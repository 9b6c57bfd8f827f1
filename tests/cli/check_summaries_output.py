#!/usr/bin/env python3
"""tests/cli: `batchode run --output-types state,mean,max,peaks[2]` on examples/models/lorenz.toml, its
summaries checked against the series saved densely in the same file (plain Python: no numpy, no h5py).

check_summaries_output.py --batchode BIN --h5-summary BIN --model lorenz.toml --work DIR

rho = 10, 28 (2 runs), RK4 with dt = 0.01 to t = 1; samples (and series saves) every 0.05, windows of
0.25: 4 windows of 5 samples. Window w holds samples k = 5 w + 1 .. 5 (w + 1) of the series (sample 0,
at t0, only starts the history), so its mean and max are those of these points, and its peaks the
times of the first 2 samples of them greater than both neighbours (NaN for the slots left). The .h5
(/summaries/<name>, shapes, attributes), then the .npy (<stem>_summary_<name>.npy) and the .csv
(<stem>_summaries.csv) of the same run are checked, the latter two against the .h5's values.
"""
import argparse
import ast
import csv
import json
import math
import struct
import subprocess
import sys
from pathlib import Path

RUNS, WINDOWS, SAMPLES, STATES = 2, 4, 5, ["x", "y", "z"]
SPACING, WINDOW = 0.05, 0.25
METRICS = ["mean", "max", "peaks[2]"]


class Checks:
    def __init__(self):
        self.failures = []

    def equal(self, what, got, expected):
        if got != expected:
            self.failures.append(f"{what}: got {got!r}, expected {expected!r}")

    def close(self, what, got, expected, tolerance=1e-12):
        both_nan = isinstance(got, float) and math.isnan(got) and math.isnan(expected)
        if not both_nan and not (abs(got - expected) <= tolerance * max(1.0, abs(expected))):
            self.failures.append(f"{what}: got {got!r}, expected {expected!r}")


def run_batchode(args, output):
    command = [args.batchode, "run", args.model, "--sweep", "rho=10,28", "--t-end", "1", "--method", "rk4",
               "--dt", "0.01", "--backend", "cpu", "--save-every", str(SPACING),
               "--output-types", "state," + ",".join(METRICS), "--summarise-every", str(WINDOW),
               "--sample-summaries-every", str(SPACING), "--output", str(output)]
    print("command:", " ".join(command))
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    print("exit code:", done.returncode)
    print("--- stdout ---\n" + done.stdout + "--- stderr ---\n" + done.stderr + "---")
    return done


def read_npy(path):
    data = Path(path).read_bytes()
    header_length = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + header_length].decode("latin1"))
    body = data[10 + header_length:]
    code = {"<f8": "d", "<f4": "f"}[header["descr"]]
    return header, list(struct.unpack(f"<{len(body) // struct.calcsize(code)}{code}", body))


def expected_summaries(series, t):
    """mean, max (run, window, state) and peaks (run, window, state, 2) from the dense series."""
    mean, maximum, peaks = [], [], []
    for r in range(RUNS):
        for w in range(WINDOWS):
            for s in range(len(STATES)):
                x = [series[(r * len(t) + k) * len(STATES) + s] for k in range(len(t))]
                window = range(w * SAMPLES + 1, (w + 1) * SAMPLES + 1)
                mean.append(sum(x[k] for k in window) / SAMPLES)
                maximum.append(max(x[k] for k in window))
                found = [t[k] for k in window if k + 1 < len(x) and x[k - 1] < x[k] > x[k + 1]][:2]
                peaks.extend(found + [math.nan] * (2 - len(found)))
    return {"mean": mean, "max": maximum, "peaks": peaks}


def main():
    parser = argparse.ArgumentParser()
    for name in ("--batchode", "--h5-summary", "--model", "--work"):
        parser.add_argument(name, required=True)
    args = parser.parse_args()
    checks = Checks()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    shapes = {"mean": [RUNS, WINDOWS, 3], "max": [RUNS, WINDOWS, 3], "peaks": [RUNS, WINDOWS, 3, 2]}
    line = f"summaries: {', '.join(METRICS)} of x, y, z over {WINDOWS} windows"

    # The .h5: the summaries and the series they are of.
    output = work / "summaries.h5"
    output.unlink(missing_ok=True)
    done = run_batchode(args, output)
    checks.equal("exit code (h5)", done.returncode, 0)
    checks.equal(f"'{line}' printed", line in done.stdout, True)
    if done.returncode != 0 or not output.exists():
        print("FAILED: no output file", output)
        return 1
    h5 = json.loads(subprocess.run([args.h5_summary, str(output)], capture_output=True, text=True,
                                   check=True).stdout)
    datasets, attributes = h5["datasets"], h5["attributes"]
    for name, shape in shapes.items():
        checks.equal(f"/summaries/{name} shape", datasets.get(f"/summaries/{name}", {}).get("shape"), shape)
        checks.equal(f"/summaries/{name} type", datasets.get(f"/summaries/{name}", {}).get("type"), "float64")
    points = WINDOWS * SAMPLES + 1
    checks.equal("/series shape", datasets["/series"]["shape"], [RUNS, points, 3])
    group = attributes.get("/summaries", {})
    checks.equal("summary_variables", group.get("summary_variables"), STATES)
    checks.equal("names", group.get("names"), ["mean", "max", "peaks"])
    checks.close("summarise_every", group.get("summarise_every", math.nan), WINDOW)
    checks.close("sample_summaries_every", group.get("sample_summaries_every", math.nan), SPACING)
    ends = group.get("window_ends", [])
    checks.equal("window_ends count", len(ends), WINDOWS)
    for w, end in enumerate(ends):
        checks.close(f"window_ends[{w}]", end, (w + 1) * WINDOW)
    checks.equal("peaks value_names", attributes.get("/summaries/peaks", {}).get("value_names"),
                 ["peaks[0]", "peaks[1]"])
    checks.equal("mean has no value_names", "value_names" in attributes.get("/summaries/mean", {}), False)
    t = datasets["/t"]["values"]
    for k, tk in enumerate(t):
        checks.close(f"t[{k}]", tk, k * SPACING)
    expected = expected_summaries(datasets["/series"]["values"], t)
    stored = {name: datasets[f"/summaries/{name}"]["values"] for name in shapes}
    for name, values in expected.items():
        checks.equal(f"{name} values", len(stored[name]), len(values))
        for i, (got, want) in enumerate(zip(stored[name], values)):
            checks.close(f"{name}[{i}]", got, want, 0 if name == "max" else 1e-12)
    checks.equal("some peaks found", any(not math.isnan(v) for v in stored["peaks"]), True)
    checks.equal("some peak slots empty", any(math.isnan(v) for v in stored["peaks"]), True)

    # The .npy: <stem>_summary_<name>.npy, the .h5's values.
    output = work / "summaries.npy"
    done = run_batchode(args, output)
    checks.equal("exit code (npy)", done.returncode, 0)
    for name, shape in shapes.items():
        path = work / f"summaries_summary_{name}.npy"
        if not path.exists():
            checks.failures.append(f"no {path}")
            continue
        header, values = read_npy(path)
        checks.equal(f"{path.name} shape", list(header["shape"]), shape)
        checks.equal(f"{path.name} dtype", header["descr"], "<f8")
        for i, (got, want) in enumerate(zip(values, stored[name])):
            checks.close(f"{path.name}[{i}]", got, want, 0)

    # The .csv: <stem>_summaries.csv, a row per run, window and variable.
    output = work / "summaries.csv"
    done = run_batchode(args, output)
    checks.equal("exit code (csv)", done.returncode, 0)
    path = work / "summaries_summaries.csv"
    if not path.exists():
        checks.failures.append(f"no {path}")
    else:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        checks.equal("csv header", rows[0], ["run", "window", "window_end", "variable", "mean", "max", "peaks[0]",
                                             "peaks[1]"])
        checks.equal("csv rows", len(rows) - 1, RUNS * WINDOWS * 3)
        for i, row in enumerate(rows[1:]):
            r, rest = divmod(i, WINDOWS * 3)
            w, s = divmod(rest, 3)
            checks.equal(f"csv row {i} run, window, variable", [row[0], row[1], row[3]], [str(r), str(w), STATES[s]])
            checks.close(f"csv row {i} window_end", float(row[2]), (w + 1) * WINDOW)
            checks.close(f"csv row {i} mean", float(row[4]), stored["mean"][i], 0)
            checks.close(f"csv row {i} max", float(row[5]), stored["max"][i], 0)
            for c in range(2):
                checks.close(f"csv row {i} peaks[{c}]", float(row[6 + c]), stored["peaks"][2 * i + c], 0)

    for failure in checks.failures[:50]:
        print("FAILED:", failure)
    print(f"summaries: {'FAILED' if checks.failures else 'passed'} ({len(checks.failures)} failures)")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
