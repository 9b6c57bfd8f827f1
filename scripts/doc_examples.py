#!/usr/bin/env python3
"""scripts/doc_examples.py: runs every code example of README.md and docs/guide/*.md (issue 50), so the
docs cannot drift from the code. CTest runs it as `doc_examples` (tests/docs/), and so CI.

Fenced blocks, by the language of their info string:
  python          the page's blocks run in order in one Python process (one namespace, as a notebook),
                  with the built package (PYTHONPATH=<build>/python); tracebacks name the page's lines
  cpp             compiled into the build's doc_examples_cpp (tests/docs/: one translation unit per
                  page, written by --emit-cpp with `#line` directives, so a compile error names the
                  page and line) and run one program per process (under `mpirun -np 2` when marked
                  mpi). A program is a block with its `int main` (renamed; end it with `return`), or
                  blocks joined by `continue`; a block without main is declarations: compiled, counted
                  as run. The program run must be the page's as it is now (a digest of its text).
  sh, console     run by bash (-e -o pipefail) in the page's folder, the build's `batchode` and this
                  Python first on PATH (console: the `$ ` lines only)
  toml            a model file: `batchode check` must accept it
  cmake           not runnable here (tests/package/ builds a project the README's way)
Other languages (text, json, julia, ...) are output, data or other software: not counted.

A comment on the line before a fence (blank lines between allowed) sets a block's options:
  <!-- doc: gpu -->            needs a GPU: skipped unless --with gpu (cpp: still compiled)
  <!-- doc: mpi -->            needs an MPI launcher (and mpi4py): skipped unless --with mpi (cpp:
                               compiled where the build has batchode::mpi)
  <!-- doc: skip REASON -->    not runnable in CI (installs as root, long builds): always skipped
  <!-- doc: file=NAME -->      also written to the page's folder as NAME before the blocks after it
                               run (toml: a model the shell and Python blocks then use)
  <!-- doc: continue -->       cpp: the same program as the page's previous cpp block
  <!-- doc: small=OLD:NEW -->  in CI, the text OLD of the block is run as NEW (a 10^6-run sweep as
                               10^4; --full keeps OLD); repeat for more
  <!-- doc: exit=N -->         sh: the block must end with exit status N (an error shown on purpose)
Options combine: <!-- doc: gpu small=2**22:4096 -->.

Every page runs in its own folder under --work-dir, in which `examples` and `scripts` link to the
repository's and `build` to --build (so `examples/models/lorenz.toml` works as from the repository
root); files the examples write stay there. The first broken example stops the run, naming page and
line, with its output. Also checked, cheaply, before any example runs: relative links (and reference
links' definitions) and their #anchors resolve, README.md has at most 150 lines, and no line of those
pages is longer than 110 characters (but a link's definition, `[label]: target`).

Last line: "doc_examples: N run, N skipped (gpu: k, mpi: m, not runnable: j)"; exit status 0, or 1 at the
first failure, 2 on a usage error.

  scripts/doc_examples.py --build BUILD [--cpp-runner FILE] [--python-path DIR] [--cli FILE]
                          [--work-dir DIR] [--with gpu,mpi] [--full] [--jobs N] [--verbose]
                          [--skip-cpp] [--skip-text] [PAGE.md ...]
  scripts/doc_examples.py --emit-cpp PAGE.md OUT.cpp [--with mpi]   (tests/docs/CMakeLists.txt)
  scripts/doc_examples.py --list [PAGE.md ...]              (every block, what would happen to it)
--skip-cpp counts the C++ blocks as not runnable (no build of doc_examples_cpp at hand), --skip-text
leaves out the text checks: both for trying a page while writing it.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LANGUAGES = {"python": "python", "py": "python", "cpp": "cpp", "c++": "cpp", "sh": "sh", "bash": "sh",
             "shell": "sh", "console": "console", "toml": "toml", "cmake": "cmake"}
FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>```+|~~~+)\s*(?P<info>[^`]*)$")
DIRECTIVE = re.compile(r"^\s*<!--\s*doc:\s*(?P<body>.*?)\s*-->\s*$")
LINK = re.compile(r"(?<!\\)!?\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
DEFINITION = re.compile(r"^ {0,3}\[(?P<label>[^\]]+)\]:\s+(?P<target>\S+)\s*$")  # [label]: target
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
README_MAX_LINES = 150
MAX_LINE = 110
BLOCK_TIMEOUT = 300  # seconds for one page's Python session or one shell or C++ block


class Block:
    """One fenced code block: its page, the line of its opening fence, language, options and text."""

    def __init__(self, page, line, kind, info, text, options):
        self.page, self.line, self.kind, self.info, self.text, self.options = page, line, kind, info, text, options

    @property
    def where(self):
        return f"{self.page}:{self.line}"

    def needs(self):
        """'gpu', 'mpi', 'not runnable' or '' (runnable here)."""
        if "skip" in self.options or self.kind == "cmake":
            return "not runnable"
        if "gpu" in self.options:
            return "gpu"
        if "mpi" in self.options:
            return "mpi"
        return ""

    def source(self, full):
        """The text as run: with the `small=` replacements unless `full`."""
        text = self.text
        if not full:
            for old, new in self.options.get("small", []):
                if old not in text:
                    raise DocError(self, f"small={old}:{new}: the block has no text '{old}'")
                text = text.replace(old, new)
        return text


class DocError(Exception):
    def __init__(self, block, message):
        super().__init__(f"{block.where if block else ''}: {message}")
        self.block = block


def parse_options(body, page, line):
    options = {}
    for token in body.split():
        key, _, value = token.partition("=")
        if key in ("gpu", "mpi", "continue") and not value:
            options[key] = True
        elif key == "skip":
            options["skip"] = True  # the rest of the comment is the reason, for people
            break
        elif key == "file" and value:
            options["file"] = value
        elif key == "exit" and value.isdigit():
            options["exit"] = int(value)
        elif key == "small" and ":" in value:
            old, _, new = value.partition(":")
            options.setdefault("small", []).append((old, new))
        else:
            raise SystemExit(f"doc_examples: {page}:{line}: unknown option '{token}' in <!-- doc: ... -->")
    return options


def read_page(page):
    """The page's code blocks (Block) and its lines."""
    with open(os.path.join(ROOT, page), encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks, i, pending = [], 0, None
    while i < len(lines):
        line = lines[i]
        m = DIRECTIVE.match(line)
        if m:
            pending = (parse_options(m.group("body"), page, i + 1), i + 1)
            i += 1
            continue
        m = FENCE.match(line)
        if not m:
            if line.strip():
                pending = None  # a directive applies to the next fence only, across blank lines
            i += 1
            continue
        fence, indent, info = m.group("fence"), len(m.group("indent")), m.group("info").strip()
        start, body = i + 1, []
        i += 1
        while i < len(lines):
            close = re.match(r"^ {0,3}(```+|~~~+)\s*$", lines[i])
            if close and close.group(1)[0] == fence[0] and len(close.group(1)) >= len(fence):
                break
            text = lines[i]
            body.append(text[indent:] if text[:indent].strip() == "" else text.lstrip())
            i += 1
        else:
            raise SystemExit(f"doc_examples: {page}:{start}: a code fence that is never closed")
        i += 1
        language = info.split()[0].lower() if info else ""
        options = pending[0] if pending else {}
        pending = None
        kind = LANGUAGES.get(language)
        if kind is None:
            if options:
                raise SystemExit(f"doc_examples: {page}:{start}: <!-- doc: --> options on a '{language}' block, "
                                 "which is not run (python, cpp, sh, console, toml)")
            continue
        blocks.append(Block(page, start, kind, info, "\n".join(body) + "\n", options))
    return blocks, lines


def default_pages():
    guide = os.path.join(ROOT, "docs", "guide")
    pages = ["README.md"]
    if os.path.isdir(guide):
        pages += sorted(os.path.join("docs", "guide", f) for f in os.listdir(guide) if f.endswith(".md"))
    return pages


def relative_page(path):
    full = os.path.abspath(path if os.path.isabs(path) or os.path.exists(path) else os.path.join(ROOT, path))
    return os.path.relpath(full, ROOT).replace(os.sep, "/")


# ---------------------------------------------------------------------------------------------------
# C++: one translation unit per page (--emit-cpp), built into doc_examples_cpp by tests/docs/.

MAIN = re.compile(r"\bint\s+main\s*\(")
INCLUDE = re.compile(r"^\s*#\s*include\s*[<\"].*$")


def cpp_programs(blocks):
    """The page's cpp blocks grouped into programs: lists of blocks (`continue` joins the one before)."""
    programs = []
    for block in blocks:
        if block.kind != "cpp":
            continue
        if block.options.get("continue") and programs:
            programs[-1].append(block)
        elif block.options.get("continue"):
            raise DocError(block, "<!-- doc: continue --> on the page's first cpp block")
        else:
            programs.append([block])
    return programs


def program_key(program):
    return program[0].where


def program_digest(program):
    """What the built program must have been made from: a digest of its blocks' text."""
    return hashlib.sha256("\n".join(b.text for b in program).encode()).hexdigest()[:16]


def emit_cpp(page, out, with_):
    """Writes the page's C++ examples as one translation unit (see tests/docs/doc_examples_main.cpp):
    each program in a namespace of its own, its `int main` renamed doc_main and registered under the
    page and line of its first block, its #include lines hoisted to the top. Blocks marked skip are
    left out, and those marked mpi unless `with_` has mpi (the program then links batchode::mpi)."""
    blocks, _ = read_page(page)
    includes, seen, programs = [], set(), []
    for program in cpp_programs(blocks):
        needs = program[0].needs()
        if needs == "not runnable" or (needs == "mpi" and "mpi" not in with_):
            continue
        mains = [b for b in program if MAIN.search(b.text)]
        if len(mains) > 1:
            raise DocError(mains[1], f"a second int main() in the program that starts at {program_key(program)}")
        pieces = []
        for block in program:
            body = []
            for text in block.text.rstrip("\n").split("\n"):
                if INCLUDE.match(text):
                    if text.strip() not in seen:
                        seen.add(text.strip())
                        includes.append(text.strip())
                    text = ""  # keeps the line numbers
                body.append(MAIN.sub("int doc_main(", text))
            pieces.append((block, body))
        programs.append((program_key(program), program_digest(program), bool(mains), pieces))
    name = os.path.basename(out)
    lines = [f"// Generated by scripts/doc_examples.py --emit-cpp from {page}: do not edit.",
             '#include "doc_examples_registry.hpp"'] + includes + [""]
    for p, (key, digest, runs, pieces) in enumerate(programs):
        # An unnamed namespace around each: one page's Lorenz and another's are different types (no
        # clash at link time, no ODR violation between their solvers' instantiations).
        lines.append(f"namespace {{ namespace doc_program_{p} {{")
        for block, body in pieces:
            lines.append(f'#line {block.line + 1} "{block.page}"')
            lines.extend(body)
        lines.append(f'#line {len(lines) + 2} "{name}"')
        lines.append(f"}}  }}  // namespace doc_program_{p}")
        target = f"&doc_program_{p}::doc_main" if runs else "nullptr"
        lines.append(f'static const bool doc_registered_{p} = doc_examples::add("{key}", "{digest}", {target});')
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    old = None
    if os.path.exists(out):
        with open(out, encoding="utf-8") as f:
            old = f.read()
    if text != old:  # an unchanged page keeps its object file
        with open(out, "w", encoding="utf-8") as f:
            f.write(text)


# ---------------------------------------------------------------------------------------------------
# Checks of the pages' text: links and line lengths.

def github_slug(heading):
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text).strip().lower()
    text = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LNM")
    return text.replace(" ", "-")


_anchors = {}


def anchors_of(path):
    if path not in _anchors:
        found, seen, fenced = set(), {}, False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if FENCE.match(line.rstrip("\n")) or re.match(r"^ {0,3}(```|~~~)", line):
                    fenced = not fenced
                    continue
                m = None if fenced else HEADING.match(line)
                if m:
                    slug = github_slug(m.group(2))
                    n = seen.get(slug, 0)
                    seen[slug] = n + 1
                    found.add(slug if n == 0 else f"{slug}-{n}")
        _anchors[path] = found
    return _anchors[path]


def check_text(page, lines):
    """Problems of a page's text: dead relative links or anchors, long lines, a long README."""
    problems, fenced, labels, used, targets, paragraph = [], False, set(), [], [], []
    if page == "README.md" and len(lines) - (lines[-1] == "") > README_MAX_LINES:
        problems.append(f"{page}: {len(lines) - 1} lines; at most {README_MAX_LINES}")

    def links_of(paragraph):  # a link's text may run over two lines: each paragraph as a whole
        if not paragraph:
            return
        first, text = paragraph[0][0], "\n".join(re.sub(r"`[^`]*`", "", line) for _, line in paragraph)
        for m in LINK.finditer(text):
            targets.append((first + text.count("\n", 0, m.start()), m.group("target")))
        for m in re.finditer(r"\]\[([^\]]+)\]", text):
            used.append((first + text.count("\n", 0, m.start()), m.group(1).lower()))
        paragraph.clear()

    for n, line in enumerate(lines, 1):
        definition = None if fenced else DEFINITION.match(line)
        if len(line) > MAX_LINE and not definition:  # a link's definition may be long: one unbreakable URL
            problems.append(f"{page}:{n}: {len(line)} characters; at most {MAX_LINE}")
        if re.match(r"^ {0,3}(```|~~~)", line):
            links_of(paragraph)
            fenced = not fenced
        elif fenced:
            continue
        elif definition:
            targets.append((n, definition.group("target")))
            labels.add(definition.group("label").lower())
        elif line.strip():
            paragraph.append((n, line))
        else:
            links_of(paragraph)
    links_of(paragraph)
    for n, target in targets:
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            continue  # https:, mailto:
        path, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(ROOT, os.path.dirname(page), path)) if path else os.path.join(ROOT, page)
        if not os.path.exists(full):
            problems.append(f"{page}:{n}: dead link: {target}")
        elif anchor and full.endswith(".md") and anchor not in anchors_of(full):
            problems.append(f"{page}:{n}: dead link: {os.path.relpath(full, ROOT)} has no heading #{anchor}")
    problems += [f"{page}:{n}: no definition of the link [{label}]" for n, label in used if label not in labels]
    return problems


# ---------------------------------------------------------------------------------------------------
# Running.

class Runner:
    def __init__(self, args):
        self.args = args
        self.build = os.path.abspath(args.build) if args.build else None
        self.cli = args.cli or self._find_cli()
        if self.cli:  # (the blocks run in their page's folder: a relative path would not resolve there)
            self.cli = os.path.abspath(self.cli)
        self.cpp_runner = os.path.abspath(args.cpp_runner) if args.cpp_runner else None
        self.work = os.path.abspath(args.work_dir)
        self.with_ = set(w for w in (args.with_ or "").split(",") if w)
        self.stopping = False
        self.cpp_keys = None
        if self.cpp_runner:
            listed = subprocess.run([self.cpp_runner, "--list"], capture_output=True, text=True, check=True)
            self.cpp_keys = dict(line.split() for line in listed.stdout.splitlines() if line.strip())

    def _find_cli(self):
        if self.build:
            for candidate in ("cli/batchode", "bin/batchode"):
                path = os.path.join(self.build, candidate)
                if os.path.isfile(path):
                    return path
        return shutil.which("batchode")

    def environment(self, folder):
        env = dict(os.environ)
        tools = os.path.join(folder, ".bin")
        os.makedirs(tools, exist_ok=True)
        links = {"python3": sys.executable, "python": sys.executable}
        if self.cli:
            links["batchode"] = os.path.abspath(self.cli)
        for name, target in links.items():
            link = os.path.join(tools, name)
            if not os.path.lexists(link):
                # A script that runs the target, not a link to it: a virtual environment's python found
                # through a link elsewhere would not know its environment (its packages: matplotlib).
                with open(link, "w") as f:
                    f.write(f'#!/bin/sh\nexec "{target}" "$@"\n')
                os.chmod(link, 0o755)
        env["PATH"] = tools + os.pathsep + env.get("PATH", "")
        python = self.args.python_path or (os.path.join(self.build, "python") if self.build else None)
        if python:
            python = os.path.abspath(python)
            env["PYTHONPATH"] = python + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
        # The examples are written for the default level, and without a trace of every program
        for name in ("BATCHODE_VERBOSITY", "BATCHODE_TRACE"):
            env.pop(name, None)
        env["MPLBACKEND"] = "Agg"  # pictures to files, no display
        # mpirun as root in containers and CI, more processes than cores (as the MPI tests do)
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        env.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")
        env.setdefault("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
        return env

    def page_folder(self, page):
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", os.path.splitext(page)[0])
        folder = os.path.join(self.work, name)
        if os.path.isdir(folder):
            shutil.rmtree(folder)
        os.makedirs(folder)
        for link in ("examples", "scripts"):
            os.symlink(os.path.join(ROOT, link), os.path.join(folder, link))
        if self.build:  # `build/examples/lorenz_sweep` as from the repository root
            os.symlink(self.build, os.path.join(folder, "build"))
        return folder

    def run_page(self, page):
        """Runs one page; returns (counts, failure or None, seconds)."""
        start = time.monotonic()
        counts = {"run": 0, "gpu": 0, "mpi": 0, "not runnable": 0}
        blocks, _ = read_page(page)
        for program in cpp_programs(blocks):
            program[0].digest = program_digest(program)
        runnable = [b for b in blocks if not b.needs() or b.needs() in self.with_]
        for b in blocks:
            if b not in runnable:
                counts[b.needs()] += 1
        if self.args.skip_cpp:  # (while writing pages: no C++ build at hand)
            counts["not runnable"] += sum(1 for b in runnable if b.kind == "cpp")
            runnable = [b for b in runnable if b.kind != "cpp"]
        if not runnable:
            return counts, None, time.monotonic() - start
        folder = self.page_folder(page)
        env = self.environment(folder)
        try:
            # Python blocks: one session for the page, run in the order of the page among the others
            # (a model file a toml block writes is there before the Python that reads it).
            session = PythonSession(folder, env, self.args.full) if any(b.kind == "python" for b in runnable) else None
            try:
                for block in runnable:
                    if self.stopping:
                        break
                    if block.kind == "python":
                        session.run(block)
                    else:
                        self.run_block(block, folder, env)
                    counts["run"] += 1
                    if self.args.verbose:
                        print(f"doc_examples: ok {block.where} ({block.kind})", flush=True)
            finally:
                if session:
                    session.close()
        except DocError as e:
            return counts, e, time.monotonic() - start
        return counts, None, time.monotonic() - start

    def run_block(self, block, folder, env):
        text = block.source(self.args.full)
        if "file" in block.options:
            with open(os.path.join(folder, block.options["file"]), "w", encoding="utf-8") as f:
                f.write(text)
        if block.kind == "toml":
            if not self.cli:
                raise DocError(block, "no batchode command to check the model with (--build or --cli)")
            path = block.options.get("file")
            if path is None:
                path = os.path.join(folder, f".block_{block.line}.toml")
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
            self.command(block, [self.cli, "check", path], folder, env)
        elif block.kind in ("sh", "console"):
            script = text if block.kind == "sh" else console_commands(text)
            self.command(block, ["bash", "-e", "-o", "pipefail", "-c", script], folder, env,
                         expect=block.options.get("exit", 0))
        elif block.kind == "cpp":
            if self.cpp_keys is None:
                raise DocError(block, "a C++ example, and no --cpp-runner (the build's tests/docs/doc_examples_cpp) "
                                      "to run it")
            if block.options.get("continue"):
                return  # part of the program that starts at an earlier block: ran with it
            if self.cpp_keys.get(block.where) != block.digest:
                raise DocError(block, "this C++ example is not in --cpp-runner as the page has it: rebuild the "
                                      "target doc_examples_cpp after changing the page")
            launcher = ["mpirun", "-np", "2"] if "mpi" in block.options else []
            self.command(block, launcher + [self.cpp_runner, block.where], folder, env)

    def command(self, block, argv, folder, env, expect=0):
        try:
            done = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True, timeout=BLOCK_TIMEOUT)
        except subprocess.TimeoutExpired as e:
            raise DocError(block, f"still running after {BLOCK_TIMEOUT} s\n{output_of(e.stdout, e.stderr)}") from None
        if done.returncode != expect:
            raise DocError(block, f"exit status {done.returncode} (expected {expect})\n"
                                  f"{output_of(done.stdout, done.stderr)}")
        if self.args.verbose and (done.stdout or done.stderr):
            print(output_of(done.stdout, done.stderr), flush=True)


def console_commands(text):
    """The commands of a console block: its `$ ` lines (with their `\\` continuation lines)."""
    commands, continuing = [], False
    for line in text.split("\n"):
        if line.startswith("$ ") or continuing:
            commands.append(line[2:] if line.startswith("$ ") and not continuing else line)
            continuing = line.endswith("\\")
    return "\n".join(commands) + "\n"


def output_of(stdout, stderr, keep=60):
    def text(value):
        if isinstance(value, bytes):
            value = value.decode(errors="replace")
        return value or ""
    lines = (text(stdout) + text(stderr)).rstrip().split("\n")
    if len(lines) > keep:
        lines = [f"... ({len(lines) - keep} lines before)"] + lines[-keep:]
    return "\n".join("    " + line for line in lines)


# The page's Python blocks run in one child process: it reads (file, line, source) requests as JSON
# lines and answers each with one JSON line, so the blocks share one namespace as in a notebook.
SESSION = r"""
import json, os, sys, traceback
namespace = {"__name__": "__main__"}
out = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)  # the examples' own prints go to stderr, captured with it; answers to the saved stdout
sys.stdout = sys.stderr
for request in sys.stdin:
    page, line, source, path = json.loads(request)
    try:
        if path:
            with open(path, "w") as f:
                f.write(source)
        code = compile("\n" * line + source, page, "exec")  # tracebacks name the page's own lines
        exec(code, namespace)
        answer = {"ok": True}
    except BaseException:
        answer = {"ok": False, "traceback": traceback.format_exc()}
    sys.stderr.flush()
    out.write(json.dumps(answer) + "\n")
    out.flush()
"""


class PythonSession:
    def __init__(self, folder, env, full):
        self.full = full
        self.folder = folder
        self.log = open(os.path.join(folder, ".python_session.log"), "a+", encoding="utf-8")
        self.process = subprocess.Popen([sys.executable, "-c", SESSION], cwd=folder, env=env, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self.log, text=True)

    def run(self, block):
        path = block.options.get("file")
        request = [block.page, block.line, block.source(self.full),
                   os.path.join(self.folder, path) if path else None]
        self.log.write(f"--- {block.where}\n")
        self.log.flush()
        start = time.monotonic()
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise DocError(block, f"the Python process ended (exit status {self.process.wait()})\n{self.output()}")
        answer = json.loads(line)
        if time.monotonic() - start > BLOCK_TIMEOUT:
            raise DocError(block, f"took {time.monotonic() - start:.0f} s, over {BLOCK_TIMEOUT} s")
        if not answer["ok"]:
            raise DocError(block, f"raised\n{self.output()}\n" + "\n".join(
                "    " + t for t in answer["traceback"].rstrip().split("\n")))

    def output(self):
        self.log.flush()
        self.log.seek(0)
        text = self.log.read()
        self.log.seek(0, os.SEEK_END)
        return output_of(text, "", keep=40)

    def close(self):
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("pages", nargs="*", help="pages (default: README.md and docs/guide/*.md)")
    parser.add_argument("--build", help="the build folder: its python/ package and cli/batchode")
    parser.add_argument("--cli", help="the batchode command (default: the build's, else on PATH)")
    parser.add_argument("--python-path", help="the folder holding the batchode package (default: BUILD/python)")
    parser.add_argument("--cpp-runner", help="the build's doc_examples_cpp (tests/docs/)")
    parser.add_argument("--work-dir", default=os.path.join(os.getcwd(), "doc_examples_work"))
    parser.add_argument("--with", dest="with_", help="also run blocks marked gpu, mpi: --with gpu,mpi")
    parser.add_argument("--full", action="store_true", help="ignore small= (run the examples at full size)")
    parser.add_argument("--jobs", "-j", type=int, default=1, help="pages run side by side")
    parser.add_argument("--skip-text", action="store_true", help="no link and line-length checks")
    parser.add_argument("--skip-cpp", action="store_true", help="count C++ blocks as not runnable (no build)")
    parser.add_argument("--verbose", "-v", action="store_true")
    parser.add_argument("--emit-cpp", nargs=2, metavar=("PAGE", "OUT"))
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()

    if args.emit_cpp:
        try:
            emit_cpp(relative_page(args.emit_cpp[0]), args.emit_cpp[1], set((args.with_ or "").split(",")))
        except DocError as e:
            print(f"doc_examples: {e}", file=sys.stderr)
            return 1
        return 0
    pages = [relative_page(p) for p in args.pages] or default_pages()
    if args.list:
        for page in pages:
            for b in read_page(page)[0]:
                print(f"{b.where:40} {b.kind:8} {b.needs() or 'run'} {json.dumps(b.options) if b.options else ''}")
        return 0
    if args.with_ and not set(args.with_.split(",")) <= {"gpu", "mpi"}:
        parser.error("--with takes gpu, mpi or gpu,mpi")

    start = time.monotonic()
    problems = []
    for page in ([] if args.skip_text else pages):
        problems += check_text(page, read_page(page)[1])
    if problems:
        for p in problems:
            print(f"doc_examples: {p}", file=sys.stderr)
        print(f"doc_examples: FAILED: {len(problems)} problems in the pages' text", file=sys.stderr)
        return 1

    runner = Runner(args)
    totals = {"run": 0, "gpu": 0, "mpi": 0, "not runnable": 0}
    failure = None
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(runner.run_page, page): page for page in pages}
        for future in futures:  # in page order: the first broken page named is the first in the list
            counts, error, seconds = future.result()
            for k, v in counts.items():
                totals[k] += v
            if args.verbose or seconds > 20:
                print(f"doc_examples: {futures[future]}: {counts['run']} run in {seconds:.1f} s", flush=True)
            if error:
                failure = error
                runner.stopping = True  # pages under way stop at their next block
                for f in futures:
                    f.cancel()
                break
    skipped = totals["gpu"] + totals["mpi"] + totals["not runnable"]
    summary = (f"doc_examples: {totals['run']} run, {skipped} skipped (gpu: {totals['gpu']}, mpi: {totals['mpi']}, "
               f"not runnable: {totals['not runnable']}) in {time.monotonic() - start:.0f} s")
    if failure:
        print(f"doc_examples: FAILED at {failure}", file=sys.stderr)
        print(summary + ", stopped at the first failure")
        return 1
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
