"""Fixtures of the Python package's tests. They run against whichever batchode is imported: the build
tree's (CTest python_pytest.<file>: PYTHONPATH=<build>/python) or an installed wheel (tests/python/pip_install.sh).
"""

import os

import numpy
import pytest

import batchode

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LORENZ_TOML = os.path.join(REPO, "examples", "models", "lorenz.toml")


@pytest.fixture(scope="session")
def lorenz():
    return batchode.load_model(LORENZ_TOML)


@pytest.fixture(scope="session")
def decay():
    """x' = -k x, x(0) = x0: x(t) = x0 exp(-k t)."""
    return batchode.Model(equations="dx = -k * x", states={"x": 1.0}, parameters={"k": 0.5}, name="py_decay")


@pytest.fixture(scope="session")
def oscillator():
    """x'' = -w^2 x as a system: x(t) = cos(w t), v(t) = -w sin(w t) from (1, 0)."""
    return batchode.Model(equations="dx = v\ndv = -w^2 * x", states={"x": 1.0, "v": 0.0}, parameters={"w": 2.0},
                          name="py_oscillator")


def gpu_reason(model, method="dopri5", precision="float64"):
    """'' when the GPU can run `method` for `model`; else why not (the skip message)."""
    return batchode.gpu_unavailable(model, method, precision)


def quiet(**options):
    """Options of a quiet solve (tests print no timing tables)."""
    options.setdefault("verbosity", "none")
    return options


def sweep(n, low=0.0, high=21.0):
    return numpy.linspace(low, high, n)
