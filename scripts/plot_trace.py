#!/usr/bin/env python3
"""Draws a batchode trace (TimeLogger::start_trace, BATCHODE_TRACE, `batchode run --trace`) as a PNG.

One row per host thread (its events stacked by nesting depth) and one per GPU stream, time in ms
from the first event. Colours follow what an event does: kernels, uploads, downloads, host copies,
compilation, the rest. Needs matplotlib (Debian: python3-matplotlib).

  scripts/plot_trace.py TRACE.json OUT.png [--title T] [--window START_MS END_MS | --focus EVENT]
                        [--depth N]
--focus draws the span of EVENT's longest occurrence (e.g. kernel_run_execution: the chunk pipeline).
"""
import argparse
import json
import sys

COLOURS = [  # (test on the event name, colour, legend)
    (lambda n: n == "kernel_launch", "#d62728", "kernel"),
    (lambda n: n.startswith("h2d_"), "#1f77b4", "upload (h2d)"),
    (lambda n: n.startswith("d2h_"), "#2ca02c", "download (d2h)"),
    (lambda n: n in ("host_staging", "host_transpose"), "#ff7f0e", "host copies"),
    (lambda n: n == "cpu_integration", "#9467bd", "CPU integration"),
    (lambda n: n.startswith("model_") or n == "kernel_compile", "#8c564b", "compile / load"),
]
OTHER = ("#b0b0b0", "other phases")


def colour_of(name):
    for test, colour, _ in COLOURS:
        if test(name):
            return colour
    return OTHER[0]


def read_trace(path):
    """The complete events and the track names of a trace file: a JSON array (or an object with
    traceEvents); a file cut short by a crash (no closing bracket, perhaps half a last line) gives
    the events of its complete lines, batchode writing one event per line."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        events = json.loads(text)
    except ValueError:
        events = []
        for line in text.splitlines():
            line = line.strip().rstrip(",")
            if line in ("", "[", "]"):
                continue
            try:
                events.append(json.loads(line))
            except ValueError:
                break  # the line a crash cut: nothing after it was written
    if isinstance(events, dict):
        events = events.get("traceEvents", [])
    names = {}
    spans = []
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[e["tid"]] = e["args"]["name"]
        elif e.get("ph") == "X":
            spans.append(e)
    return spans, names


def draw(spans, names, out, title=None, window=None, max_depth=8):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    if not spans:
        raise SystemExit("plot_trace: the trace has no events (was the verbosity none?)")
    origin = min(s["ts"] for s in spans)
    host_tracks = sorted({s["tid"] for s in spans if s["tid"] < 1000})
    gpu_tracks = sorted({s["tid"] for s in spans if s["tid"] >= 1000})
    # Rows, top to bottom: each host thread's depths, then each GPU stream.
    rows = []
    for tid in host_tracks:
        depths = sorted({min(int(s.get("args", {}).get("depth", 0)), max_depth) for s in spans if s["tid"] == tid})
        for d in depths:
            rows.append((tid, d, names.get(tid, f"thread {tid}") + (f" [{d}]" if len(depths) > 1 else "")))
    for tid in gpu_tracks:
        rows.append((tid, None, names.get(tid, f"gpu track {tid}")))
    row_of = {(tid, d): i for i, (tid, d, _) in enumerate(rows)}

    fig, ax = plt.subplots(figsize=(14, 0.45 * len(rows) + 1.6))
    shown = [s for s in spans if not window or (window[0] <= (s["ts"] - origin + s["dur"]) / 1000.0
                                                and (s["ts"] - origin) / 1000.0 <= window[1])]
    extent = (window[1] - window[0]) if window else max((s["ts"] + s["dur"] - origin) / 1000.0 for s in spans)
    for s in shown:
        tid = s["tid"]
        depth = None if tid >= 1000 else min(int(s.get("args", {}).get("depth", 0)), max_depth)
        y = len(rows) - 1 - row_of[(tid, depth)]
        start = (s["ts"] - origin) / 1000.0
        width = max(s["dur"] / 1000.0, 1e-6)
        ax.broken_barh([(start, width)], (y - 0.4, 0.8), facecolors=colour_of(s["name"]),
                       edgecolor="black", linewidth=0.2)
        left = max(start, window[0]) if window else start
        right = min(start + width, window[1]) if window else start + width
        if right - left > 0.08 * extent:  # name the phases wide enough to hold their name
            ax.text((left + right) / 2, y, s["name"], ha="center", va="center", fontsize=7, clip_on=True)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([label for _, _, label in reversed(rows)], fontsize=8)
    ax.set_xlabel("time (ms)")
    if window:
        ax.set_xlim(window[0], window[1])
    ax.grid(axis="x", linewidth=0.3)
    legend = [Patch(color=c, label=l) for _, c, l in COLOURS] + [Patch(color=OTHER[0], label=OTHER[1])]
    ax.legend(handles=legend, loc="upper center", bbox_to_anchor=(0.5, -0.12 - 0.6 / len(rows)), ncol=7,
              fontsize=8, frameon=False)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(out, dpi=130)
    return len(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("png")
    parser.add_argument("--title")
    parser.add_argument("--window", nargs=2, type=float, metavar=("START_MS", "END_MS"))
    parser.add_argument("--focus", metavar="EVENT", help="draw only the span of EVENT's longest occurrence")
    parser.add_argument("--depth", type=int, default=8, help="deepest nesting level drawn apart (default 8)")
    args = parser.parse_args(argv)
    try:
        spans, names = read_trace(args.trace)
    except (OSError, ValueError) as error:
        raise SystemExit(f"plot_trace: cannot read the trace '{args.trace}': {error}")
    window = args.window
    if args.focus:
        chosen = [e for e in spans if e["name"] == args.focus]
        if not chosen:
            raise SystemExit(f"plot_trace: no '{args.focus}' event in the trace")
        longest = max(chosen, key=lambda e: e["dur"])
        origin = min(e["ts"] for e in spans)
        start, end = (longest["ts"] - origin) / 1000.0, (longest["ts"] + longest["dur"] - origin) / 1000.0
        pad = 0.02 * (end - start)
        window = [start - pad, end + pad]
    rows = draw(spans, names, args.png, args.title, window, args.depth)
    print(f"plot_trace: {len(spans)} events on {rows} rows written to {args.png}")


if __name__ == "__main__":
    sys.exit(main())
