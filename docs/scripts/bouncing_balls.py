#!/usr/bin/env python3
"""Draws docs/images/bouncing_balls.png for the guide's events page: balls dropped from 10 m that bounce
(an event whose `assign` reverses and damps the speed), one run per restitution e, each ending with the
status zeno_events where its bounces pile up (its time of rest). One solve of
examples/models/bouncing_ball.toml; the data are made here, nothing is read.

    PYTHONPATH=build/python python3 docs/scripts/bouncing_balls.py [--output docs/images/bouncing_balls.png]
"""

import argparse
import os

import matplotlib

matplotlib.use("Agg")  # files only
import matplotlib.pyplot as plt  # noqa: E402
import numpy  # noqa: E402

import batchode  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default=os.path.join(ROOT, "docs", "images", "bouncing_balls.png"))
    args = parser.parse_args()

    model = batchode.load_model(os.path.join(ROOT, "examples", "models", "bouncing_ball.toml"))
    restitution = numpy.array([0.5, 0.7, 0.85])
    r = batchode.solve_ivp(model, (0.0, 25.0), parameters={"e": restitution}, save_every=0.005, rtol=1e-10,
                           atol=1e-10, verbosity="none")
    bounces = r.events["bounce"]
    fig, ax = plt.subplots(figsize=(7, 3))
    for i, e in enumerate(restitution):
        line, = ax.plot(r.t, r.state[i, :, 0], lw=1, label=f"e = {e:g}: {int(bounces.count[i])} bounces, "
                                                            f"{r.status_names[r.status[i]]} at t = {r.t_stop[i]:.2f}")
        ax.plot(r.t_stop[i], 0.0, "x", color=line.get_color())
    ax.set_xlabel("t")
    ax.set_ylabel("height h")
    ax.set_title("bouncing_ball.toml: one solve, one run per restitution e")
    ax.legend(fontsize=8)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    fig.savefig(args.output, dpi=100)
    print(f"{args.output}: {r.n_runs} runs, statuses {[r.status_names[s] for s in r.status]}")


if __name__ == "__main__":
    main()
