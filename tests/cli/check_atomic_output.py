#!/usr/bin/env python3
"""tests/cli: an output that exists is never lost (issue 44, items 1 and 2).

check_atomic_output.py --batchode BIN --model lorenz.toml --work DIR --format h5|npy|csv

A good run writes the output; a second run to the same path under a file-size limit (ulimit -f, as on
a full disk) fails with exit status 1 naming the file, and leaves the first output byte for byte as it
was, with no partial or temporary file beside it. An output that cannot be written at all (a folder
that is not there, a path that is a folder, /proc) is refused with exit status 2 before the model is
even loaded (a model path that does not exist shows that nothing else was tried first).
"""
import argparse
import resource
import signal
import subprocess
import sys
from pathlib import Path


def run(batchode, model, output, limit=None):
    command = [batchode, "run", model, "--t-end", "1", "--method", "rk4", "--dt", "0.001", "--backend", "cpu",
               "--sweep", "rho=linspace(0, 50, 400)", "--save-every", "0.01", "--verbosity", "none",
               "--output", str(output)]

    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # as a shell leaves it: batchode itself ignores it
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))

    done = subprocess.run(command, capture_output=True, text=True, timeout=600,
                          preexec_fn=limited if limit is not None else None)
    print("command:", " ".join(command), f"(file-size limit {limit})" if limit else "", "->", done.returncode)
    print(done.stdout + done.stderr)
    return done


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batchode", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--format", required=True, choices=["h5", "npy", "csv"])
    args = parser.parse_args()
    folder = Path(args.work) / f"atomic_{args.format}"
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        if old.is_file():
            old.unlink()
    output = folder / f"result.{args.format}"
    failures = []

    done = run(args.batchode, args.model, output)
    if done.returncode != 0:
        failures.append(f"the first run failed ({done.returncode})")
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    done = run(args.batchode, args.model, output, limit=4096)  # each format writes more than 9 KB
    if done.returncode != 1:
        failures.append(f"exit status {done.returncode} under the file-size limit, expected 1")
    if "File too large" not in done.stderr or f"{folder}/" not in done.stderr:
        failures.append("the error does not name the file and the OS error")
    after = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    if sorted(after) != sorted(before):
        failures.append(f"files before {sorted(before)}, after {sorted(after)}")
    for name, data in before.items():
        if after.get(name) != data:
            failures.append(f"{name} changed ({len(data)} bytes before, {len(after.get(name, b''))} after)")

    # Refused before anything else: the model named here does not exist, and is not what is reported.
    (folder / f"a_folder.{args.format}").mkdir(exist_ok=True)
    for bad, why in ((folder / "missing" / f"x.{args.format}", "does not exist"),
                     (folder / f"a_folder.{args.format}", "it is a folder"),
                     (Path(f"/proc/x.{args.format}"), "cannot create a file in the folder '/proc'")):
        done = subprocess.run([args.batchode, "run", str(folder / "no_model.toml"), "--t-end", "1",
                               "--output", str(bad)], capture_output=True, text=True, timeout=60)
        print("unwritable:", bad, "->", done.returncode, done.stderr.strip())
        if done.returncode != 2 or f"--output '{bad}': " not in done.stderr or why not in done.stderr:
            failures.append(f"--output {bad}: exit {done.returncode}, {done.stderr.strip()!r}")

    for failure in failures:
        print("FAILED:", failure)
    print(f"atomic {args.format}: {'FAILED' if failures else 'passed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
