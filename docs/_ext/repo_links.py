"""repo_links: relative links from the docs to repository files outside docs/, checked.

MyST (0.18) turns a relative Markdown link into a reference that Sphinx must resolve: to another page
of the site (`[...](methods.md)`, `[...](methods.md#choosing)`), or, for an existing file that is not
a page (`[...](../lorenz.png)`), a download. A link to a file outside the site that *is* Markdown
(`[...](../../benchmarks/RESULTS.md)`), or to a folder (`[...](../../examples/)`), resolves to
nothing, and MyST warns "reference target not found". This extension resolves exactly those links,
and only when their target exists in the repository:

* the link becomes one to the repository file: `<html_repository_url>/<path>` when that is set
  (conf.py: BATCHODE_DOCS_REPOSITORY_URL, e.g. https://github.com/<owner>/batchode/blob/main), else
  a relative path from the HTML page to the file in this checkout (right where the site was built);
* an anchor into a Markdown file (`RESULTS.md#cpu-lorenz`) must name one of its headings, with
  GitHub's slugs (lower case, punctuation dropped, spaces as hyphens); a wrong one is a warning.

A link to a path that does not exist stays unresolved, so MyST's warning stands and -W fails the
build: every relative link of the site is checked offline. The same check runs over the Markdown files
outside the site that the site links to and that people read on GitHub (repo_links_check_files:
README.md, benchmarks/RESULTS.md): their relative links and anchors must exist too.
"""

import os
import re
import unicodedata

from docutils import nodes
from sphinx.util import logging

logger = logging.getLogger(__name__)

_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


def github_slug(heading):
    """GitHub's anchor of a Markdown heading: lower case, markup and punctuation dropped, spaces as '-'."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links and images: their text
    text = text.strip().lower()
    text = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LNM")
    return text.replace(" ", "-")


def markdown_anchors(path):
    """The GitHub anchors of a Markdown file's headings (a repeated heading gets -1, -2, ... as there)."""
    anchors, seen, fenced = set(), {}, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if _FENCE.match(line):
                fenced = not fenced
                continue
            m = None if fenced else _HEADING.match(line)
            if not m:
                continue
            slug = github_slug(m.group(2))
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            anchors.add(slug if n == 0 else f"{slug}-{n}")
    # explicit anchors people write in Markdown: <a id="..."></a> or <a name="...">
    with open(path, encoding="utf-8") as f:
        anchors.update(re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", f.read()))
    return anchors


def _repository_root(app):
    return os.path.abspath(os.path.join(app.srcdir, app.config.repo_links_root))


def _inside(path, root):
    return os.path.commonpath([path, root]) == root


def _split(target):
    path, _, anchor = target.partition("#")
    return path, anchor


def _check_anchor(file_path, anchor, where, app):
    """Warns (at `where`) when `anchor` names no heading of the Markdown file."""
    if not anchor or not file_path.endswith(".md") or not os.path.isfile(file_path):
        return
    if anchor not in markdown_anchors(file_path):
        rel = os.path.relpath(file_path, _repository_root(app))
        logger.warning("dead link: %s has no heading with the anchor #%s", rel, anchor, location=where,
                       type="repo_links", subtype="anchor")


def resolve_repository_link(app, env, node, contnode):
    """missing-reference: a MyST link to an existing repository file or folder outside the site."""
    if not isinstance(contnode, nodes.Element) or "myst" not in contnode.get("classes", []):
        return None
    target = node.get("reftarget", "")
    path, anchor = _split(target)
    if not path or re.match(r"^[a-z][a-z0-9+.-]*:", path):
        return None
    refdoc = node.get("refdoc", env.docname)
    source_dir = os.path.dirname(env.doc2path(refdoc))
    file_path = os.path.normpath(os.path.join(source_dir, path))
    root = _repository_root(app)
    if not _inside(file_path, root) or not os.path.exists(file_path):
        return None  # MyST warns: reference target not found
    # A page of the site is MyST's to resolve; reaching here means its anchor is wrong (or it is excluded).
    if _inside(file_path, os.path.abspath(app.srcdir)) and env.path2doc(file_path) in env.found_docs:
        return None
    _check_anchor(file_path, anchor, node, app)
    relative = os.path.relpath(file_path, root).replace(os.sep, "/")
    if os.path.isdir(file_path):
        relative += "/"
    base = app.config.html_repository_url
    if base:
        uri = base.rstrip("/") + "/" + relative
    else:  # this checkout, from where the page is written
        page_dir = os.path.dirname(os.path.join(app.outdir, refdoc))
        uri = os.path.relpath(file_path, page_dir).replace(os.sep, "/")
        if os.path.isdir(file_path):
            uri += "/"
    if anchor:
        uri += "#" + anchor
    reference = nodes.reference("", "", internal=False, refuri=uri, classes=["repository-file"])
    if contnode.astext():
        reference += contnode
    else:  # [](path): the path is the text
        reference += nodes.literal(relative, relative)
    return reference


def check_markdown_files(app):
    """The relative links (and their anchors) of repo_links_check_files: files people read on GitHub."""
    from markdown_it import MarkdownIt

    root = _repository_root(app)
    md = MarkdownIt("commonmark")
    for name in app.config.repo_links_check_files:
        path = os.path.join(root, name)
        if not os.path.isfile(path):
            logger.warning("repo_links_check_files: %s does not exist", name, type="repo_links")
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        line_of = {}
        for token in md.parse(text):
            for child in [token] + list(token.children or []):
                if child.type in ("link_open", "image"):
                    attr = "href" if child.type == "link_open" else "src"
                    line_of.setdefault(child.attrGet(attr), (token.map or [0])[0] + 1)
        for target, line in line_of.items():
            if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue
            link_path, anchor = _split(target)
            full = os.path.normpath(os.path.join(os.path.dirname(path), link_path)) if link_path else path
            where = f"{name}:{line}"
            if not os.path.exists(full):
                logger.warning("dead link: %s -> %s (no such file)", where, target, type="repo_links")
            else:
                _check_anchor(full, anchor, f"{path}:{line}", app)


def setup(app):
    app.add_config_value("repo_links_root", "..", "env")
    app.add_config_value("repo_links_check_files", [], "env")
    app.add_config_value("html_repository_url", "", "html")
    app.connect("missing-reference", resolve_repository_link)
    app.connect("builder-inited", check_markdown_files)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
