#!/usr/bin/env bash
# tests/python/pip_install.sh <python3> <repo> <work-dir> <backend> <warnings-as-errors>: the README's
# promise, checked from scratch: in a new `python3 -m venv --system-site-packages` (Debian's numpy and
# pytest seen through it), `pip install <repo>` builds batchode and its extension with the project's
# own build backend (nothing from PyPI) and installs it; the installed package, imported from outside
# the source tree, solves and compiles models through the headers of its wheel (python/tests'
# test_solve.py and test_models.py: the whole suite runs on the build tree, python_pytest.*).
# The package is built with the calling build's GPU backend and warning flags (<backend>,
# <warnings-as-errors>: python/CMakeLists.txt passes them), so its compile lines are that build's:
# where the calling build compiled through ccache (scripts/test.sh's main variant exports
# CMAKE_CXX_COMPILER_LAUNCHER), pip's ~80 compiles of the same sources are the cache's.
set -euo pipefail
python=$1
repo=$2
work=$3
backend=$4
warnings_as_errors=$5
settings=(--config-settings "build-dir=$work/build" --config-settings "gpu=$backend"
  --config-settings "cmake-args=-DBATCHODE_WARNINGS_AS_ERRORS=$warnings_as_errors")
rm -rf "$work"
mkdir -p "$work"
"$python" -m venv --system-site-packages "$work/venv"
start=$(date +%s)
"$work/venv/bin/python" -m pip install --no-cache-dir "${settings[@]}" "$repo"
echo "pip_install: pip install took $(($(date +%s) - start)) s"
cd "$work"
"$work/venv/bin/python" - <<'PY'
import os, batchode
where = os.path.dirname(batchode.__file__)
assert "site-packages" in where, f"imported {where}, not the installed package"
assert os.environ["BATCHODE_INCLUDE_DIR"].startswith(where), "the wheel's headers are not the ones used"
print("pip_install: imported", where)
PY
"$work/venv/bin/python" -m pytest -q -rs -p no:cacheprovider "$repo/python/tests/test_solve.py" \
  "$repo/python/tests/test_models.py"
