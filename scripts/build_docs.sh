#!/usr/bin/env bash
# scripts/build_docs.sh: builds the documentation (docs/) into HTML, docs/_build/html/index.html. One
# command from a fresh clone; warnings fail it. In order:
#   1. install_deps.sh (Sphinx, MyST, Breathe, Doxygen and the sphinx_rtd_theme are Debian packages);
#   2. the compiled Python module, for the Python API reference: taken from BATCHODE_BUILD_DIR
#      (default: build/ when it is configured, else build-docs/), whose target batchode_python is
#      built when the module is missing there (a folder not yet configured is configured first, CPU
#      only, without tests: a few minutes on two cores, once). The package's .py files are taken from
#      python/batchode/ (not the build's copies), so the docstrings are those of the work tree;
#   3. Doxygen over the public headers docs/Doxyfile lists (XML for Breathe; its warnings fail);
#   4. sphinx-build -W --keep-going: every warning fails the build, after all are listed. The links
#      are checked offline: a relative link to a page or a page's heading that does not exist is a
#      Sphinx/MyST warning, and docs/_ext/repo_links.py resolves links to repository files outside
#      docs/ (benchmarks/RESULTS.md, examples/) only when the file (and a Markdown heading it names)
#      exists, and checks the relative links of README.md and benchmarks/RESULTS.md the same way.
# Environment: BATCHODE_BUILD_DIR (above); BATCHODE_DOCS_OUT (default docs/_build); BATCHODE_DOCS_PYTHON
# (default /usr/bin/python3, Debian's, where Sphinx is installed); BATCHODE_DOCS_REPOSITORY_URL (links
# to repository files point there, e.g. https://github.com/<owner>/batchode/blob/main; default: the
# files of this checkout).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$BATCHODE_ROOT"

bash scripts/install_deps.sh

out=$(realpath -m "${BATCHODE_DOCS_OUT:-docs/_build}")
python=${BATCHODE_DOCS_PYTHON:-/usr/bin/python3}
[[ -x "$python" ]] || python=$(command -v python3)

# 2. The compiled module.
if [[ -n "${BATCHODE_BUILD_DIR:-}" ]]; then
  build_dir=$BATCHODE_BUILD_DIR
elif [[ -f build/CMakeCache.txt ]]; then
  build_dir=build
else
  # Not build/: configuring it here would fix its settings (and its ccache launcher) before
  # scripts/test.sh or main_job.sh first configure it.
  build_dir=build-docs
fi
find_module() { compgen -G "${build_dir}/python/batchode/_batchode*.so" | head -n 1; }
module=$(find_module || true)
if [[ -z "$module" ]]; then
  echo "build_docs: no compiled module in ${build_dir}/python/batchode: building target batchode_python"
  if [[ ! -f "${build_dir}/CMakeCache.txt" ]]; then
    batchode_configure "$build_dir" -DCMAKE_BUILD_TYPE=Release -DBATCHODE_GPU=off -DBATCHODE_SANITIZE=OFF \
      -DBATCHODE_BUILD_PYTHON=ON -DPython_EXECUTABLE="$python" -DBATCHODE_BUILD_TESTS=OFF \
      -DBATCHODE_BUILD_EXAMPLES=OFF -DBATCHODE_BUILD_BENCHMARKS=OFF
  fi
  batchode_build "$build_dir" --target batchode_python
  module=$(find_module || true)
  if [[ -z "$module" ]]; then
    echo "build_docs: ${build_dir} built no Python module (BATCHODE_BUILD_PYTHON off there?);" \
      "set BATCHODE_BUILD_DIR to a build with the Python package" >&2
    exit 1
  fi
fi
# The package as the docs import it: the work tree's .py files beside the build's module.
package="$out/python/batchode"
rm -rf "$package"
mkdir -p "$package"
cp python/batchode/*.py "$package/"
ln -s "$(realpath "$module")" "$package/"
if ! PYTHONPATH="$out/python" "$python" -c "import batchode" 2>"$out/import_error.txt"; then
  cat "$out/import_error.txt" >&2
  echo "build_docs: $python cannot import the module $module (built for another Python?);" \
    "set BATCHODE_DOCS_PYTHON or BATCHODE_BUILD_DIR" >&2
  exit 1
fi

# 3. Doxygen: XML of the public headers (WARN_AS_ERROR in docs/Doxyfile).
rm -rf "$out/doxygen"
mkdir -p "$out/doxygen"
if ! {
  cat docs/Doxyfile
  echo "OUTPUT_DIRECTORY = $out/doxygen"
} | doxygen -; then
  echo "build_docs: FAILED: Doxygen warned (above) about a /// comment of the headers docs/Doxyfile" \
    "lists; every warning fails the docs build" >&2
  exit 1
fi

# 4. Sphinx. -W --keep-going: all warnings listed, then the build fails; -n is not used (docstrings
# name numpy's types in prose). -E: a fresh environment, so no warning is hidden by a cached page.
if ! BATCHODE_DOXYGEN_XML="$out/doxygen/xml" PYTHONPATH="$out/python${PYTHONPATH:+:$PYTHONPATH}" \
  PYTHONDONTWRITEBYTECODE=1 "$python" -m sphinx -b html -W --keep-going -E -q -w "$out/warnings.txt" \
  -d "$out/doctrees" docs "$out/html"; then
  echo "build_docs: FAILED: $(grep -c 'WARNING\|ERROR' "$out/warnings.txt" || true) warnings (above, and in" \
    "$out/warnings.txt); every warning fails the docs build" >&2
  exit 1
fi
echo "build_docs: ${out#"$BATCHODE_ROOT"/}/html/index.html, no warnings (${SECONDS}s)"
