#!/usr/bin/env python3
"""Sweeps the Lorenz system's rho and draws the final states over it (the README's figure).

    python3 examples/python/lorenz_sweep.py [--runs 16384] [--t-end 30] [--backend auto] [--output lorenz_sweep.png]

One call solves every run (on the GPU when one is usable, else on every CPU core; the line printed
says where and why); the figure shows where the fixed points (rho < 24.7), their loss of stability
and the chaotic attractor's spread of final states lie.
"""

import argparse
import os
import time

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy  # noqa: E402

import batchode  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=16384)
    parser.add_argument("--t-end", type=float, default=30.0)
    parser.add_argument("--backend", default="auto", choices=["auto", "cpu", "gpu"])
    parser.add_argument("--output", default="lorenz_sweep.png")
    args = parser.parse_args()

    model = batchode.load_model(os.path.join(HERE, "..", "models", "lorenz.toml"))
    rho = numpy.linspace(0.0, 60.0, args.runs)
    start = time.perf_counter()
    r = batchode.solve_ivp(model, t_span=(0.0, args.t_end), parameters={"rho": rho}, method="dopri5",
                           rtol=1e-8, atol=1e-8, backend=args.backend, verbosity="none")
    seconds = time.perf_counter() - start  # the first solve of this model also compiles it
    part = r.execution[0]
    print(f"{r.n_runs} runs of {model.name} ({r.method}, {r.precision}) on {'+'.join(r.backends)} "
          f"({part['reason']}) in {seconds:.2f} s; "
          f"{int(r.success.sum())} succeeded")

    fig, axes = plt.subplots(3, 1, sharex=True, figsize=(7, 6.5))
    for axis, j, name in zip(axes, range(3), r.state_names):
        axis.plot(r.parameters[:, 0], r.final_state[:, j], ",", color="tab:blue", alpha=0.6)
        axis.set_ylabel(f"{name}(t = {args.t_end:g})")
    axes[0].set_title(f"Lorenz: final state over rho, {r.n_runs} runs in one batchode.solve_ivp")
    axes[-1].set_xlabel("rho")
    for axis in axes:
        axis.axvline(24.74, color="0.6", lw=0.8, ls="--")
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"figure written to {args.output}")


if __name__ == "__main__":
    main()
