#!/usr/bin/env bash
# scripts/install_deps.sh: installs batchode's build and test dependencies from Debian 12's packages.
# Idempotent: asks dpkg first and touches apt only when something is missing, so a second run is
# silent and takes well under a second. Runs as root, or through sudo where that exists.
# nvcc is not a Debian package: the cuda variant is built only where /usr/local/cuda/bin/nvcc (or an
# nvcc on PATH) already exists; nothing here installs it.
set -euo pipefail

# Why each package: a C++17 toolchain and CMake/Ninja; hipcc (clang-15, lld-15, rocminfo) with the
# HIP runtime headers/library and the AMD device bitcode for the hip backend; Boost.Odeint (header
# only, in libboost-dev); {fmt}; GoogleTest/GoogleMock (static libs + CMake config); Google Benchmark;
# toml++ (model files), OpenSSL's libcrypto (SHA-256 of compiled-model cache entries), CLI11 and
# HDF5 (the batchode command line and its .h5 output); matplotlib for Debian's python3
# (scripts/plot_trace.py, the picture of a solve's timeline, and its test, and the Python example);
# pybind11, Python's headers, numpy, pytest and venv (with pip's wheel) for the Python package
# (python/: built by CMake and by `pip install .` in a `python3 -m venv --system-site-packages`);
# OpenMPI and mpi4py for a batch over MPI processes (mpi/, tests under mpiexec, comm= in Python), and
# h5py to read back the .h5 file they write; scipy, whose find_peaks the summary tests check the
# peaks against (python/tests/test_summaries.py); ccache, through which scripts/test.sh's main variant
# compiles, so that the builds its tests make of the same sources (pip install) are the cache's;
# Sphinx with MyST (the Markdown pages), Breathe, Doxygen and the Read the Docs theme for the
# documentation (scripts/build_docs.sh: the guide, and the API reference from docstrings and `///`).
packages=(
  build-essential cmake ninja-build ccache
  hipcc libamdhip64-dev rocm-device-libs
  libboost-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-matplotlib
  pybind11-dev python3-dev python3-numpy python3-pytest python3-venv python3-pip
  python3-scipy
  libtomlplusplus-dev libssl-dev libcli11-dev libhdf5-dev
  libopenmpi-dev openmpi-bin python3-mpi4py python3-h5py
  python3-sphinx python3-myst-parser python3-breathe doxygen python3-sphinx-rtd-theme
)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done
((${#missing[@]} == 0)) && exit 0

echo "install_deps: installing ${missing[*]}"
if [[ $(id -u) -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "install_deps: missing packages (${missing[*]}) and not root, with no sudo: install them as root." >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install_deps: done"
