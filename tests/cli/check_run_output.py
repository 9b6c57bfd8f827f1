#!/usr/bin/env python3
"""tests/cli: `batchode run` on examples/models/lorenz.toml, its output checked against an independent
RK4 written here in plain Python (no numpy, no h5py: CI's Python has neither).

check_run_output.py --batchode BIN --h5-summary BIN --model lorenz.toml --work DIR
                    --format h5|npy|csv [--precision float32|float64] [--save-variables NAMES]

The grid: rho = linspace(0, 30, 4) (the parameter) x x = 1, 2 (a state's initial value), combinatorial,
so 8 runs, rho slowest. RK4 with dt = 0.01 to t = 1, saved every 0.5. The reference takes the model's
defaults and constants from the TOML file (tomllib) and writes the Lorenz equations itself.
float64 results must match the reference to 1e-9 (relative; only rounding differs: the order of
operations in the generated code and odeint's RK4 sum); float32 to 1e-4.
With --save-variables (a comma list of states, e.g. "z"), the series keeps those columns only, in the
model's order: the .h5's /series is (8, 3, chosen) with their state_names, the .csv's header names
each by its state's name, and their values equal, bit for bit, those columns of a run without the flag.
"""
import argparse
import ast
import csv
import json
import math
import struct
import subprocess
import sys
import tomllib
from pathlib import Path

STATE_NAMES = ["x", "y", "z"]
RHO = [0.0, 10.0, 20.0, 30.0]
X0 = [1.0, 2.0]
DT, T_END, SAVE_EVERY = 0.01, 1.0, 0.5
SAVES = [0.0, 0.5, 1.0]


def lorenz(state, rho, sigma, beta):
    x, y, z = state
    return [sigma * (y - x), x * (rho - z) - y, x * y - beta * z]


def rk4(state, rho, sigma, beta, steps):
    """`steps` classic RK4 steps of DT; returns the state after each step."""
    out = []
    for _ in range(steps):
        k1 = lorenz(state, rho, sigma, beta)
        k2 = lorenz([s + DT / 2 * k for s, k in zip(state, k1)], rho, sigma, beta)
        k3 = lorenz([s + DT / 2 * k for s, k in zip(state, k2)], rho, sigma, beta)
        k4 = lorenz([s + DT * k for s, k in zip(state, k3)], rho, sigma, beta)
        state = [s + DT / 6 * (a + 2 * b + 2 * c + d) for s, a, b, c, d in zip(state, k1, k2, k3, k4)]
        out.append(state)
    return out


def reference(model):
    """(grid y0, grid rho, series at SAVES) per run, in the order the CLI's combinatorial grid has."""
    states, constants = model["states"], model["constants"]
    sigma, beta = constants["sigma"], constants["beta"]
    runs = []
    for rho in RHO:          # the first --sweep varies slowest
        for x0 in X0:
            y0 = [x0, states["y"], states["z"]]
            steps = rk4(y0, rho, sigma, beta, round(T_END / DT))
            series = [y0] + [steps[round(t / DT) - 1] for t in SAVES[1:]]
            runs.append((y0, rho, series))
    return runs


class Checks:
    def __init__(self, tolerance):
        self.tolerance = tolerance
        self.failures = []

    def equal(self, what, got, expected):
        if got != expected:
            self.failures.append(f"{what}: got {got!r}, expected {expected!r}")

    def close(self, what, got, expected):
        if not math.isfinite(got) or abs(got - expected) > self.tolerance * max(1.0, abs(expected)):
            self.failures.append(f"{what}: got {got!r}, expected {expected!r} (tolerance {self.tolerance})")


def read_npy(path):
    data = Path(path).read_bytes()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{path} is not an NPY file")
    header_length = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + header_length].decode("latin1"))
    body = data[10 + header_length:]
    code = {"<f8": "d", "<f4": "f", "<u4": "I", "<i4": "i"}[header["descr"]]
    count = len(body) // struct.calcsize(code)
    return header, list(struct.unpack(f"<{count}{code}", body))


def run_batchode(args, output, save_variables=None):
    command = [args.batchode, "run", args.model, "--sweep", "rho=linspace(0, 30, 4)", "--sweep", "x=1,2",
               "--t-end", str(T_END), "--method", "rk4", "--dt", str(DT), "--save-every", str(SAVE_EVERY),
               "--precision", args.precision, "--backend", "cpu", "--counters", "--output", str(output)]
    if save_variables is not None:
        command += ["--save-variables", save_variables]
    print("command:", " ".join(command))
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    print("exit code:", done.returncode)
    print("--- stdout ---\n" + done.stdout + "--- stderr ---\n" + done.stderr + "---")
    return done


def main():
    parser = argparse.ArgumentParser()
    for name in ("--batchode", "--h5-summary", "--model", "--work", "--format"):
        parser.add_argument(name, required=True)
    parser.add_argument("--precision", default="float64", choices=["float32", "float64"])
    parser.add_argument("--save-variables", help="a comma list of states the series keeps (default: all)")
    args = parser.parse_args()
    chosen = STATE_NAMES if args.save_variables is None else args.save_variables.split(",")
    columns = [s for s, name in enumerate(STATE_NAMES) if name in chosen]  # the model's order
    width = len(columns)
    model = tomllib.loads(Path(args.model).read_text())
    runs = reference(model)
    checks = Checks(1e-4 if args.precision == "float32" else 1e-9)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    # Its own files with --save-variables (CTest runs the checks in parallel): the chosen series and a
    # full one to compare with.
    stem = f"lorenz_{args.precision}" if args.save_variables is None else f"lorenz_{args.precision}_chosen"
    output = work / f"{stem}.{args.format}"
    output.unlink(missing_ok=True)

    done = run_batchode(args, output, args.save_variables)
    checks.equal("exit code", done.returncode, 0)
    checks.equal("summary line", f"lorenz: 8 runs x 3 states (rk4, {args.precision}, cpu) written to {output}"
                 in done.stdout, True)
    if done.returncode != 0 or not output.exists():
        checks.failures.append(f"no output file {output}")
    elif args.format == "npy":
        header, values = read_npy(output)
        checks.equal("npy dtype", header["descr"], "<f4" if args.precision == "float32" else "<f8")
        checks.equal("npy shape", header["shape"], (8, 3))
        checks.equal("npy order", header["fortran_order"], False)
        for r, (_, _, series) in enumerate(runs):
            for s in range(3):
                checks.close(f"final state run {r} state {s}", values[r * 3 + s], series[-1][s])
    elif args.format == "csv":
        with open(output, newline="") as f:
            rows = list(csv.reader(f))
        checks.equal("csv header", rows[0], ["run", "t", "status", "t_stop"] + [STATE_NAMES[s] for s in columns])
        checks.equal("csv rows", len(rows) - 1, 8 * len(SAVES))
        for i, row in enumerate(rows[1:]):
            r, k = divmod(i, len(SAVES))
            checks.equal(f"row {i} run", int(row[0]), r)
            checks.close(f"row {i} t", float(row[1]), SAVES[k])
            checks.equal(f"row {i} status", row[2], "success")
            checks.equal(f"row {i} t_stop", float(row[3]), T_END)
            for c, s in enumerate(columns):
                checks.close(f"run {r} t={SAVES[k]} state {s}", float(row[4 + c]), runs[r][2][k][s])
        if args.save_variables is not None:  # the same text as those columns of a full series
            full = work / f"{stem}_full.csv"
            full.unlink(missing_ok=True)
            checks.equal("full run exit code", run_batchode(args, full).returncode, 0)
            with open(full, newline="") as f:
                full_rows = list(csv.reader(f))
            checks.equal("full csv rows", len(full_rows), len(rows))
            for i, (row, full_row) in enumerate(zip(rows[1:], full_rows[1:])):
                checks.equal(f"row {i} against the full series", row, full_row[:4] + [full_row[4 + s] for s in columns])
    else:
        summary = subprocess.run([args.h5_summary, str(output)], capture_output=True, text=True, check=True)
        h5 = json.loads(summary.stdout)
        datasets, root = h5["datasets"], h5["attributes"]["/"]
        ftype = "float32" if args.precision == "float32" else "float64"
        expected_shapes = {"/final_state": ([8, 3], ftype), "/series": ([8, 3, width], ftype), "/t": ([3], ftype),
                           "/status": ([8], "int32"), "/t_stop": ([8], ftype), "/counters": ([8, 3], "uint32"),
                           "/grid/y0": ([8, 3], ftype), "/grid/parameters": ([8, 1], ftype)}
        checks.equal("datasets", sorted(datasets), sorted(expected_shapes))
        for name, (shape, type_name) in expected_shapes.items():
            if name in datasets:
                checks.equal(f"{name} shape", datasets[name]["shape"], shape)
                checks.equal(f"{name} type", datasets[name]["type"], type_name)
        final, series = datasets["/final_state"]["values"], datasets["/series"]["values"]
        for r, (y0, rho, ref) in enumerate(runs):
            for s in range(3):
                checks.close(f"final state run {r} state {s}", final[r * 3 + s], ref[-1][s])
                checks.equal(f"grid y0 run {r} state {s}", datasets["/grid/y0"]["values"][r * 3 + s], y0[s])
            for k in range(len(SAVES)):
                for c, s in enumerate(columns):
                    checks.close(f"series run {r} t={SAVES[k]} state {s}", series[(r * 3 + k) * width + c],
                                 ref[k][s])
            checks.equal(f"grid rho run {r}", datasets["/grid/parameters"]["values"][r], rho)
            checks.equal(f"counters run {r} (accepted, rejected)", datasets["/counters"]["values"][r * 3:r * 3 + 2],
                         [100, 0])
        checks.equal("t", datasets["/t"]["values"], SAVES)
        checks.equal("status", datasets["/status"]["values"], [0] * 8)
        checks.equal("status_names", h5["attributes"]["/status"].get("status_names", [])[:2],
                     ["success", "max_steps_reached"])
        checks.equal("/final_state state_names", h5["attributes"]["/final_state"].get("state_names"),
                     ["x", "y", "z"])
        checks.equal("/series state_names", h5["attributes"].get("/series", {}).get("state_names"),
                     [STATE_NAMES[s] for s in columns])
        checks.equal("/grid/parameters parameter_names",
                     h5["attributes"]["/grid/parameters"].get("parameter_names"), ["rho"])
        expected_root = {"state_names": ["x", "y", "z"], "parameter_names": ["rho"], "method": "rk4",
                         "precision": args.precision, "t0": 0, "t_end": T_END, "dt": DT,
                         "save_every": SAVE_EVERY, "rtol": 1e-6, "atol": 1e-6, "max_steps": 1000000,
                         "backend": "cpu", "run_order": "automatic", "model_name": "lorenz",
                         "grid_kind": "combinatorial",
                         "model_source": Path(args.model).read_text()}
        if args.save_variables is not None:
            expected_root["save_variables"] = chosen
        for key, value in expected_root.items():
            checks.equal(f"attribute {key}", root.get(key), value)
        checks.equal("attribute batchode_version is set", bool(root.get("batchode_version")), True)
        checks.equal("attribute execution", [e.split(":")[0] for e in root.get("execution", [])], ["cpu"])
        if args.save_variables is None:
            checks.equal("no attribute save_variables", "save_variables" in root, False)
        else:  # the same values as those columns of a full series
            full = work / f"{stem}_full.h5"
            full.unlink(missing_ok=True)
            checks.equal("full run exit code", run_batchode(args, full).returncode, 0)
            whole = json.loads(subprocess.run([args.h5_summary, str(full)], capture_output=True, text=True,
                                              check=True).stdout)["datasets"]["/series"]["values"]
            checks.equal("series against the full series", series,
                         [whole[i * 3 + s] for i in range(8 * len(SAVES)) for s in columns])

    for failure in checks.failures:
        print("FAILED:", failure)
    print(f"{args.format} {args.precision}: {'FAILED' if checks.failures else 'passed'}")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
