#!/usr/bin/env python3
"""tests/cli: runs one command line and checks its exit code and output.

expect_cli.py --exit N [--stdout REGEX]... [--stderr REGEX]... [--not-stderr REGEX]... -- COMMAND ARGS...

Prints the command, its exit code, stdout and stderr, then every check that failed; exits 0 when all
pass, 1 otherwise. Regexes are Python's, searched (re.search, multiline) anywhere in the stream.
"""
import argparse
import re
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--exit", type=int, required=True, dest="exit_code")
    parser.add_argument("--stdout", action="append", default=[])
    parser.add_argument("--stderr", action="append", default=[])
    parser.add_argument("--not-stderr", action="append", default=[])
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
    print("command:", " ".join(repr(c) if " " in c or "(" in c else c for c in command))
    print("exit code:", done.returncode)
    print("--- stdout ---\n" + done.stdout + "--- stderr ---\n" + done.stderr + "---")
    failures = []
    if done.returncode != args.exit_code:
        failures.append(f"exit code {done.returncode}, expected {args.exit_code}")
    for pattern in args.stdout:
        if not re.search(pattern, done.stdout, re.MULTILINE):
            failures.append(f"stdout does not match {pattern!r}")
    for pattern in args.stderr:
        if not re.search(pattern, done.stderr, re.MULTILINE):
            failures.append(f"stderr does not match {pattern!r}")
    for pattern in args.not_stderr:
        if re.search(pattern, done.stderr, re.MULTILINE):
            failures.append(f"stderr matches {pattern!r}")
    for failure in failures:
        print("FAILED:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
