#!/usr/bin/env python3
"""tests/cli: Ctrl-C (SIGINT) and SIGTERM while `batchode run` compiles its model (issue 44).

check_interrupt.py --batchode BIN --model lorenz.toml --work DIR

The host compiler is a script (BATCHODE_CXX) that writes a precompiled prelude at once but, for the
model itself, starts a child and waits a minute: it runs in a process group of its own, as every
compile does, so the terminal's signal never reaches it. Once it runs (and batchode's private folders
exist: batchode-jit-* for the compile, batchode-prelude-* for its -include), the signal goes to batchode
alone. Checked for each signal: batchode ends within 10 s with 128 + the signal's number and one line
on stderr, no process of the compiler's group still runs, no folder is left in the TMPDIR of the
run, and no output file was written.
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Answers --version at once (batchode asks before compiling), writes a stand-in precompiled header
# for `-x c++-header` (the prelude, cached and then handed to the model's compile), and otherwise says
# who it is (its pid is its process group's id) once its child runs, and waits for that child.
SLOW_COMPILER = """#!/bin/sh
case "$1" in --version) echo "slow-c++ 1.0 (batchode interrupt test)"; exit 0;; esac
out=
previous=
header=no
for a in "$@"; do
  [ "$previous" = "-o" ] && out=$a
  [ "$a" = "c++-header" ] && header=yes
  previous=$a
done
if [ "$header" = yes ]; then echo "not a real precompiled header" > "$out"; exit 0; fi
sleep 60 &
echo $$ > "$PID_FILE.tmp" && mv "$PID_FILE.tmp" "$PID_FILE"
wait
"""


def running_in_group(group):
    """Pids of the processes of process group `group` that still run (zombies excluded)."""
    running = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / "stat").read_text()
        except OSError:
            continue
        fields = text[text.rfind(")") + 2:].split()  # state, ppid, pgrp, ...
        if fields[2] == str(group) and fields[0] != "Z":
            running.append(int(entry.name))
    return running


def interrupt_once(args, work, sig):
    failures = []
    tmpdir, cache = work / "tmp", work / "cache"
    tmpdir.mkdir()
    pid_file = work / "compiler.pid"
    compiler = work / "slow-c++"
    compiler.write_text(SLOW_COMPILER)
    compiler.chmod(0o700)
    output = work / "out.npy"
    env = dict(os.environ, BATCHODE_CXX=str(compiler), TMPDIR=str(tmpdir), BATCHODE_CACHE_DIR=str(cache),
               PID_FILE=str(pid_file), BATCHODE_VERBOSITY="")
    command = [args.batchode, "run", args.model, "--t-end", "1", "--method", "rk4", "--dt", "0.01",
               "--backend", "cpu", "--output", str(output)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not pid_file.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        if not pid_file.exists():
            process.kill()
            out, err = process.communicate()
            return [f"the compiler never started (batchode exit {process.returncode}): {err.strip()}"]
        group = int(pid_file.read_text())
        folders = sorted(p.name for p in tmpdir.iterdir())
        for prefix in ("batchode-jit-", "batchode-prelude-"):
            if not any(name.startswith(prefix) for name in folders):
                failures.append(f"no {prefix}* folder while the compiler runs (there are: {folders})")
        sent = time.monotonic()
        process.send_signal(sig)
        try:
            out, err = process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
            failures.append("batchode was still running 10 s after the signal")
        print(f"{sig.name}: exit {process.returncode} after {time.monotonic() - sent:.2f} s; "
              f"stderr: {err!r}")
        if process.returncode != 128 + sig.value:
            failures.append(f"exit code {process.returncode}, expected {128 + sig.value}")
        lines = err.splitlines()
        if len(lines) != 1 or not lines[0].startswith(f"batchode: stopped by {sig.name}"):
            failures.append(f"stderr is not one line 'batchode: stopped by {sig.name}...': {err!r}")
        left = running_in_group(group)
        if left:
            failures.append(f"processes of the compiler's group {group} still run: {left}")
            for pid in left:
                os.kill(pid, signal.SIGKILL)
        left = sorted(p.name for p in tmpdir.iterdir())
        if left:
            failures.append(f"left in TMPDIR: {left}")
        if output.exists():
            failures.append(f"{output} was written")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batchode", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    Path(args.work).mkdir(parents=True, exist_ok=True)
    failures = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        work = Path(tempfile.mkdtemp(prefix=f"interrupt-{sig.name}-", dir=args.work))
        try:
            failures += [f"{sig.name}: {f}" for f in interrupt_once(args, work, sig)]
        finally:
            shutil.rmtree(work, ignore_errors=True)
    for failure in failures:
        print("FAILED:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
