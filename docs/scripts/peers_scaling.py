#!/usr/bin/env python3
"""The scaling picture of the docs: batchode from Python against CuBIE 0.9.0 on the Lorenz RK4 sweep, wall
time of a warm solve against the number of runs, float32 and float64 (docs/images/peers_scaling.png).

Its data are the two programs' printouts from one lease on the GPU machine (docs/data/):

    PYTHONPATH=<kit> python3 benchmarks/python_peers.py --sizes 4096 16384 65536 262144 1048576 4194304 \\
        | grep rk4 > docs/data/peers_scaling_h200_batchode.txt
    PYTHONPATH=<stubs>:<cubie-0.9.0/src> python3 benchmarks/peers/cubie_lorenz_scaling.py \\
        4096 16384 65536 262144 1048576 4194304 > docs/data/peers_scaling_h200_cubie.txt
    python3 docs/scripts/peers_scaling.py [--output docs/images/peers_scaling.png]
"""

import argparse
import os
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
LINE = re.compile(r"^(\S+) rk4 (float32|float64) n=\s*(\d+) wall\(min of 10\)\s+([\d.]+) ms")


def read(path):
    """{precision: [(runs, ms), ...]} from a printout of python_peers.py or cubie_lorenz_scaling.py."""
    points = {}
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if m:
                points.setdefault(m.group(2), []).append((int(m.group(3)), float(m.group(4))))
    return points


def main():
    data = os.path.join(HERE, "..", "data")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batchode", default=os.path.join(data, "peers_scaling_h200_batchode.txt"))
    ap.add_argument("--cubie", default=os.path.join(data, "peers_scaling_h200_cubie.txt"))
    ap.add_argument("--output", default=os.path.join(HERE, "..", "images", "peers_scaling.png"))
    args = ap.parse_args()
    ours, theirs = read(args.batchode), read(args.cubie)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
    for ax, precision in zip(axes, ("float32", "float64")):
        for points, label, style in ((ours, "batchode", "o-"), (theirs, "CuBIE 0.9.0", "s--")):
            runs, ms = zip(*sorted(points[precision]))
            ax.loglog(runs, ms, style, label=label)
        for (n, a), (_, b) in zip(sorted(ours[precision]), sorted(theirs[precision])):
            ax.annotate(f"{b / a:.1f}x", (n, a), textcoords="offset points", xytext=(0, -14), ha="center",
                        fontsize=8)
        ax.set_title(f"Lorenz, RK4 dt 1e-3, t in [0, 1], {precision}")
        ax.set_xlabel("runs")
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel("warm solve from Python, ms (min of 10)")
    axes[0].legend()
    fig.suptitle("One H200, one lease (2026-11-30): batchode's speed-up over CuBIE at each size", fontsize=10)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print("wrote", args.output)


if __name__ == "__main__":
    main()
