"""Sphinx configuration of batchode's documentation (built by scripts/build_docs.sh, which says how).

Pages: index.md (the front page), guide/*.md (the user guide, MyST Markdown), api/python.rst (autodoc
over the `batchode` package, the real compiled module on PYTHONPATH), api/cpp.rst (Breathe over
Doxygen's XML of the public headers: docs/Doxyfile), architecture.md. Relative links to repository
files outside docs/ (benchmarks/RESULTS.md, examples/) are resolved and checked by _ext/repo_links.py.
"""

import inspect
import os
import re
import sys

from sphinx.util.docstrings import prepare_docstring

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "_ext"))

project = "batchode"
author = "the batchode authors"
copyright = "the batchode authors"


def _version():
    """The project's version, from the top-level CMakeLists.txt's project() call."""
    cmake = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "CMakeLists.txt")
    with open(cmake, encoding="utf-8") as f:
        m = re.search(r"project\(\s*batchode\b[^)]*?VERSION\s+([0-9][0-9.]*)", f.read(), re.S)
    return m.group(1) if m else ""


version = release = _version()

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "breathe",
    "repo_links",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
# `name` in docstrings (the package writes names so) is code, as in Markdown.
default_role = "literal"
exclude_patterns = ["_build", "_ext", "Thumbs.db", ".DS_Store"]
# Pages are checked as they are written: warnings fail the build (build_docs.sh runs sphinx with -W).
# Not nitpicky: the docstrings name numpy's and Python's types in prose, not as cross-references.

# MyST: GitHub's heading anchors (page.md#a-heading) up to ###, ::: fences and $math$ for the guide.
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "dollarmath", "deflist"]

# autodoc over the real package (build_docs.sh puts it on PYTHONPATH): bound functions keep the
# signatures pybind11 writes into their docstrings.
autodoc_member_order = "bysource"
autodoc_docstring_signature = True
autodoc_typehints = "none"
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_use_ivar = True

# Breathe: Doxygen's XML, written by build_docs.sh (BATCHODE_DOXYGEN_XML) before Sphinx runs.
breathe_projects = {
    "batchode": os.path.abspath(os.environ.get(
        "BATCHODE_DOXYGEN_XML",
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "_build", "doxygen", "xml"),
    ))
}
breathe_default_project = "batchode"
breathe_default_members = ()
breathe_show_include = True
cpp_index_common_prefix = ["batchode::"]

# Links out of the site to repository files: to this URL when given (e.g.
# https://github.com/<owner>/batchode/blob/main), else to the files of this checkout.
html_repository_url = os.environ.get("BATCHODE_DOCS_REPOSITORY_URL", "")
repo_links_root = ".."
repo_links_check_files = ["README.md", "benchmarks/RESULTS.md"]

try:
    import sphinx_rtd_theme  # noqa: F401  (Debian: python3-sphinx-rtd-theme)

    html_theme = "sphinx_rtd_theme"
except ImportError:
    html_theme = "alabaster"
html_title = f"batchode {release}"
html_static_path = []
html_show_sourcelink = False


_CODE = re.compile(r"(``.*?``|`[^`]*`)")


def _bound_docstring(app, what, name, obj, options, lines):
    """Docstrings written in C++ (python/src/*.cpp, through pybind11) are plain text, not NumPy style:
    read as they are written. Napoleon would take a property's "text: more text" for "type: text"; an
    example, an indented block after a plain paragraph, would be a quotation (its `*` emphasis); and a
    `*` in a sentence (examples/models/*.toml) would start emphasis. So: a property's docstring is
    taken again as written, each indented block is made a literal block, and other `*` are escaped."""
    if what == "property":  # a pybind11 property's getter is no Python function
        if inspect.isfunction(getattr(obj, "fget", None)):
            return
    else:
        module = getattr(obj, "__module__", None)
        if not isinstance(module, str) or not module.startswith("batchode._batchode"):
            return
    if what == "property" and isinstance(obj.__doc__, str):
        lines[:] = prepare_docstring(obj.__doc__)
    out = []
    for i, line in enumerate(lines):
        if line.startswith("    ") and line.strip():
            if i > 0 and not lines[i - 1].strip():
                before = next((b for b in reversed(lines[: i - 1]) if b.strip()), "")
                if not before.rstrip().endswith("::") and not before.startswith("    "):
                    out[-1:] = ["", "::", ""]
            out.append(line)
        else:
            parts = _CODE.split(line)  # code spans at odd indices
            out.append("".join(p if k % 2 else p.replace("*", "\\*") for k, p in enumerate(parts)))
    lines[:] = out


# Classes a solve makes and the user only reads: their constructors are the package's own.
_NO_CONSTRUCTOR = {"batchode.Result", "batchode.Event"}


def _signature(app, what, name, obj, options, signature, return_annotation):
    """pybind11's signatures name the compiled module and `self`: written as the package's names."""
    if what == "class" and name in _NO_CONSTRUCTOR:
        return "", None
    if what == "class" and name == "batchode.Status":  # not Enum's functional API
        return "(value)", None
    if signature:
        signature = re.sub(r"^\(self(: [\w.]+)?(, )?", "(", signature)
        signature = signature.replace("batchode._batchode.", "batchode.")
    if return_annotation:
        return_annotation = return_annotation.replace("batchode._batchode.", "batchode.")
    return signature, return_annotation


def setup(app):
    # After napoleon's handler (it is registered first, at the same priority).
    app.connect("autodoc-process-docstring", _bound_docstring)
    app.connect("autodoc-process-signature", _signature)
