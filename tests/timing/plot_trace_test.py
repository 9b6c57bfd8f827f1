#!/usr/bin/env python3
"""tests/timing/: a solve's timeline, end to end: the main example (lorenz_sweep --trace) writes a
trace of a chunked CPU solve, which is valid JSON with the phases nested in the solve, and
scripts/plot_trace.py draws it as a PNG; a trace cut short (no closing bracket) is still read, and
an empty or missing one is refused with a message. Exit 77 (skipped) where matplotlib cannot be imported.

  plot_trace_test.py LORENZ_SWEEP PLOT_TRACE_PY WORK_DIR
"""
import importlib.util
import json
import os
import subprocess
import sys


def fail(message):
    print("FAILED: " + message)
    sys.exit(1)


def main():
    lorenz_sweep, plot_script, work = sys.argv[1:4]
    if importlib.util.find_spec("matplotlib") is None:
        print(f"SKIPPED: matplotlib is not importable by {sys.executable} (Debian: python3-matplotlib)")
        sys.exit(77)
    os.makedirs(work, exist_ok=True)
    trace = os.path.join(work, "lorenz_cpu.json")
    run = subprocess.run([lorenz_sweep, "--backend", "cpu", "--runs", "4096", "--chunks", "4", "--trace", trace],
                         capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        fail(f"lorenz_sweep exited {run.returncode}: {run.stdout}{run.stderr}")
    if f"timeline written to {trace}" not in run.stdout:
        fail("lorenz_sweep did not say where the timeline went: " + run.stdout)
    with open(trace, encoding="utf-8") as f:
        events = json.load(f)  # a closed trace is strict JSON
    spans = [e for e in events if e.get("ph") == "X"]
    names = {e["name"] for e in spans}
    for expected in ("solve_ivp_execution", "kernel_run_execution", "cpu_integration"):
        if expected not in names:
            fail(f"no '{expected}' in the trace: {sorted(names)}")
    solve = next(e for e in spans if e["name"] == "solve_ivp_execution")
    for e in spans:
        if e["ts"] < solve["ts"] - 0.01 or e["ts"] + e["dur"] > solve["ts"] + solve["dur"] + 0.01:
            fail(f"{e['name']} lies outside the solve")

    sys.path.insert(0, os.path.dirname(plot_script))
    import plot_trace

    png = os.path.join(work, "lorenz_cpu.png")
    plot_trace.main([trace, png, "--title", "lorenz_sweep on the CPU"])
    with open(png, "rb") as f:
        head = f.read(8)
    if head != b"\x89PNG\r\n\x1a\n" or os.path.getsize(png) < 10_000:
        fail(f"{png} is not a PNG picture ({os.path.getsize(png)} bytes)")

    focused = os.path.join(work, "lorenz_cpu_run.png")
    plot_trace.main([trace, focused, "--focus", "kernel_run_execution"])
    if os.path.getsize(focused) < 10_000:
        fail(f"{focused} is too small to be the picture")
    try:
        plot_trace.main([trace, focused, "--focus", "no_such_event"])
    except SystemExit as stop:
        if "no 'no_such_event' event" not in str(stop.code):
            fail(f"unexpected message for an unknown --focus: {stop.code}")
    else:
        fail("--focus on an event the trace lacks drew something")

    cut = os.path.join(work, "cut.json")
    with open(trace, encoding="utf-8") as f:
        text = f.read().rstrip().rstrip("]").rstrip()
    with open(cut, "w", encoding="utf-8") as f:
        f.write(text + ",\n")  # as a crash after a flush would leave it
    read, _ = plot_trace.read_trace(cut)
    if len(read) != len(spans):
        fail(f"the cut-short trace gave {len(read)} events, not {len(spans)}")
    with open(cut, "w", encoding="utf-8") as f:
        f.write(text[: len(text) - 20])  # and one cut in the middle of its last line
    read, _ = plot_trace.read_trace(cut)
    if len(read) != len(spans) - 1:
        fail(f"the trace cut mid-line gave {len(read)} events, not {len(spans) - 1}")

    try:
        plot_trace.main([os.path.join(work, "no_such_trace.json"), os.path.join(work, "x.png")])
    except SystemExit as stop:
        if "cannot read the trace" not in str(stop.code):
            fail(f"unexpected message for a missing trace file: {stop.code}")
    else:
        fail("a missing trace file was drawn")

    empty = os.path.join(work, "empty.json")
    with open(empty, "w", encoding="utf-8") as f:
        f.write("[\n]\n")
    try:
        plot_trace.main([empty, os.path.join(work, "empty.png")])
    except SystemExit as stop:
        if "no events" not in str(stop.code):
            fail(f"unexpected message for an empty trace: {stop.code}")
    else:
        fail("an empty trace was drawn")
    print(f"plot_trace_test: {len(spans)} events traced and drawn to {png}")


if __name__ == "__main__":
    main()
