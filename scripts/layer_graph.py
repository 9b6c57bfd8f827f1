#!/usr/bin/env python3
"""scripts/layer_graph.py: the folder dependency graph of batchode's library components (issue 19,
"one-way layers"). Run by CTest (tests/layers/) and so by CI.

A component is any folder that holds an include/batchode/ tree (arrays, solver, backends/cpu, ...),
or a room of a folder cut into rooms: kernels/include/batchode/kernels/core/ is the component
kernels/core (rooms_of).
Every #include "..." and #include <batchode/...> in a component's files is resolved to the component
that holds the included file; includes under #if count too, since some build compiles that branch.
Prints one line per component with what it includes, and the layers, lowest first; with --dot,
prints Graphviz instead.

Exit status: 0 no cycle and no --order violation; 1 a cycle between components, or an include that
goes from a lower layer of --order to a higher one; 2 usage error (bad flag, root without components).

  scripts/layer_graph.py [--root DIR] [--order kernels,gpu,timing,arrays,backends/cpu,solver] [--dot]
"""

import argparse
import collections
import os
import re
import sys

# Folders that are not library code: tests and examples may include anything, builds hold copies.
SKIPPED_DIR_NAMES = {"tests", "benchmarks", "examples", "scripts", "cmake"}
SOURCE_SUFFIXES = (".hpp", ".h", ".hh", ".hxx", ".inl", ".ipp", ".tpp", ".cpp", ".cc", ".cxx", ".c",
                   ".cu", ".cuh", ".hip", ".hpp.in", ".h.in")
INCLUDE_LINE = re.compile(r'^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>)')
# Past this many, the list would only bury the edges to cut; they all show in the SCC line anyway.
MAX_CYCLES_LISTED = 50
MAX_LINES_PER_EDGE = 20

Include = collections.namedtuple("Include", "file line text")  # file relative to root, 1-based line


def is_skipped_dir(name):
    return name in SKIPPED_DIR_NAMES or name.startswith(".") or name.startswith("build")


def rooms_of(root, comp):
    """A folder cut into rooms (kernels/, solver/): each folder under its include/batchode/<its name>/
    is a component of its own, "<comp>/<room>" (kernels/core, solver/setup, ...), sharing the folder's
    include/ root, and owns the sources under <comp>/src/<room>/ too. {room component: the include
    prefix of its headers}; empty if the folder has no rooms. What is not in a room stays the
    folder's (solver/'s facade)."""
    leaf = os.path.join(root, comp, "include", "batchode", os.path.basename(comp))
    if comp == "." or not os.path.isdir(leaf):
        return {}
    return {comp + "/" + room: "batchode/{}/{}/".format(os.path.basename(comp), room)
            for room in sorted(os.listdir(leaf)) if os.path.isdir(os.path.join(leaf, room))}


def find_components(root):
    """Relative paths (with /) of the folders that hold include/batchode/, and each source file's
    owner: the deepest component above it, so backends/cpu's files are not counted as backends'.
    A folder cut into rooms (rooms_of) is replaced by its rooms. Returns (components, owner of each
    file, {room: (its folder, its include prefix)})."""
    components = []
    owner_of_file = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not is_skipped_dir(d))
        rel = os.path.relpath(dirpath, root).replace(os.sep, "/")
        if os.path.isdir(os.path.join(dirpath, "include", "batchode")):
            components.append(rel)
        owner = deepest_component_above(rel, components)
        if owner is None:
            continue
        for name in sorted(filenames):
            if name.endswith(SOURCE_SUFFIXES):
                path = name if rel == "." else rel + "/" + name
                owner_of_file[path] = owner
    rooms = {}
    for comp in list(components):
        for room, prefix in rooms_of(root, comp).items():
            rooms[room] = (comp, prefix)
            components.append(room)
            owned = (comp + "/include/" + prefix, comp + "/src/" + room[len(comp) + 1:] + "/")
            for path in owner_of_file:
                if owner_of_file[path] == comp and path.startswith(owned):
                    owner_of_file[path] = room
        if any(folder == comp for folder, _ in rooms.values()) and comp not in owner_of_file.values():
            components.remove(comp)
    return sorted(components), owner_of_file, rooms


def deepest_component_above(rel, components):
    best = None
    for comp in components:
        if comp == "." or rel == comp or rel.startswith(comp + "/"):
            if best is None or best == "." or len(comp) > len(best):
                best = comp
    return best


class IncludeResolver:
    """Maps an include string to the component that provides the file, the way the compiler would
    find it on the components' include paths."""

    def __init__(self, root, components, owner_of_file, rooms=None):
        self.root = root
        self.components = components
        self.owner_of_file = owner_of_file
        self.rooms = rooms or {}
        self.warnings = []

    def include_dir(self, comp):
        folder = self.rooms[comp][0] if comp in self.rooms else comp
        return os.path.join(self.root, folder, "include")

    def holds(self, comp, spelled):
        """Whether spelled (relative to comp's include/) is comp's: a room holds only its prefix, the
        folder of rooms all but theirs."""
        path = spelled.rstrip("/") + "/"
        if comp in self.rooms:
            return path.startswith(self.rooms[comp][1])
        return not any(folder == comp and path.startswith(prefix) for folder, prefix in self.rooms.values())

    def resolve(self, including_file, spelled, quoted):
        if quoted:
            # "..." is looked up beside the including file first (a relative include may cross folders).
            beside = os.path.normpath(os.path.join(os.path.dirname(including_file), spelled))
            beside = beside.replace(os.sep, "/")
            if beside in self.owner_of_file:
                return [self.owner_of_file[beside]]
        providers = [c for c in self.components
                     if self.holds(c, spelled) and os.path.isfile(os.path.join(self.include_dir(c), spelled))]
        if len(providers) > 1:
            self.warnings.append("{}: '{}' is provided by several components ({}); counted for the "
                                 "longest, {}".format(including_file, spelled, ", ".join(providers),
                                                      max(providers, key=len)))
            return [max(providers, key=len)]
        if providers:
            return providers
        if not spelled.startswith("batchode/"):
            return []  # a third-party or system header spelled with quotes
        # Not on disk (a generated header, or a typo): fall back on the folder that would hold it.
        folder = os.path.dirname(spelled)
        while folder not in ("", "batchode"):
            holders = [c for c in self.components
                       if self.holds(c, folder) and os.path.isdir(os.path.join(self.include_dir(c), folder))]
            if holders:
                return [max(holders, key=len)]
            folder = os.path.dirname(folder)
        self.warnings.append("{}: '{}' is in no component; not counted".format(including_file, spelled))
        return []


def scan_includes(root, components, owner_of_file, rooms=None):
    """edges[(from, to)] = [Include, ...] for every include that crosses components."""
    resolver = IncludeResolver(root, components, owner_of_file, rooms)
    edges = collections.defaultdict(list)
    for path in sorted(owner_of_file):
        source = owner_of_file[path]
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as stream:
            for number, line in enumerate(stream, start=1):
                match = INCLUDE_LINE.match(line)
                if not match:
                    continue
                quoted, angled = match.groups()
                if angled is not None and not angled.startswith("batchode/"):
                    continue  # <vector>, <fmt/format.h>, <hip/hip_runtime.h>
                for target in resolver.resolve(path, quoted or angled, quoted is not None):
                    if target != source:
                        edges[(source, target)].append(Include(path, number, line.strip()))
    return edges, resolver.warnings


def successors(components, edges):
    graph = {c: set() for c in components}
    for source, target in edges:
        graph[source].add(target)
    return graph


def strongly_connected(graph):
    """Tarjan's algorithm; a group of more than one component is a knot of cycles."""
    index, low, on_stack, stack, groups = {}, {}, set(), [], []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def elementary_cycles(graph):
    """Every simple cycle once, started at its smallest component (a handful of folders, so a plain
    depth-first search is enough)."""
    cycles = []
    for start in sorted(graph):
        path = [start]

        def extend(node):
            for succ in sorted(graph[node]):
                if succ == start:
                    cycles.append(path + [start])
                elif succ > start and succ not in path:
                    path.append(succ)
                    extend(succ)
                    path.pop()

        extend(start)
    return cycles


def layers_lowest_first(graph, groups):
    """Layer 0 depends on nothing; each other group sits one above the highest group it includes."""
    group_of = {member: i for i, group in enumerate(groups) for member in group}
    level = {}

    def level_of(i):
        if i not in level:
            level[i] = 0  # a group never reaches itself again, so this guard only ends recursion
            deps = {group_of[s] for m in groups[i] for s in graph[m]} - {i}
            level[i] = 1 + max((level_of(d) for d in deps), default=-1)
        return level[i]

    layers = collections.defaultdict(list)
    for i in range(len(groups)):
        layers[level_of(i)].append(groups[i])
    return [sorted(layers[k]) for k in sorted(layers)]


def parse_order(text):
    """'a,b+c,d' -> {a: 0, b: 1, c: 1, d: 2}; '+' puts peers in one layer."""
    rank = {}
    for position, entry in enumerate(text.split(",")):
        for comp in entry.split("+"):
            comp = comp.strip().strip("/")
            if not comp:
                raise ValueError("empty component name in --order '{}'".format(text))
            if comp in rank:
                raise ValueError("'{}' is listed twice in --order".format(comp))
            rank[comp] = position
    return rank


def order_violations(edges, rank):
    return sorted((s, t) for (s, t) in edges if s in rank and t in rank and rank[s] < rank[t])


def describe_lines(includes, indent):
    shown = ["{}{}:{}  {}".format(indent, i.file, i.line, i.text) for i in includes[:MAX_LINES_PER_EDGE]]
    if len(includes) > MAX_LINES_PER_EDGE:
        shown.append("{}... and {} more".format(indent, len(includes) - MAX_LINES_PER_EDGE))
    return shown


def print_text(root, components, graph, edges, layers, out):
    total = sum(len(v) for v in edges.values())
    print("batchode layer graph: {} components, {} includes between them (root {})".format(
        len(components), total, root), file=out)
    width = max(len(c) for c in components)
    for comp in components:
        targets = sorted(graph[comp])
        print("{:<{}} -> {}".format(comp, width, ", ".join(targets) if targets else "(nothing)"), file=out)
        for target in targets:
            includes = edges[(comp, target)]
            first = includes[0]
            print("{:<{}}      {} x{}, e.g. {}:{}".format("", width, target, len(includes), first.file,
                                                        first.line), file=out)
    print("layers, lowest first:", file=out)
    for level, groups in enumerate(layers):
        names = [g[0] if len(g) == 1 else "{" + ", ".join(g) + "} (cycle)" for g in groups]
        print("  {}: {}".format(level, ", ".join(names)), file=out)


def print_dot(components, edges, bad_edges, out):
    print("digraph batchode_layers {", file=out)
    print("  rankdir=BT;  // lower layers at the bottom", file=out)
    for comp in components:
        print('  "{}";'.format(comp), file=out)
    for (source, target), includes in sorted(edges.items()):
        style = ', color=red' if (source, target) in bad_edges else ''
        print('  "{}" -> "{}" [label="{}"{}];'.format(source, target, len(includes), style), file=out)
    print("}", file=out)


def main(argv=None):
    default_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=default_root, help="the repository root (default: %(default)s)")
    parser.add_argument("--order", help="declared layers, lowest first, comma-separated; a+b puts a and b "
                        "in one layer. A listed component may not include a later one; components not "
                        "listed are only checked for cycles")
    parser.add_argument("--dot", action="store_true", help="print the graph as Graphviz instead of text")
    args = parser.parse_args(argv)

    root = os.path.abspath(args.root)
    if not os.path.isdir(root):
        parser.error("--root {} is not a folder".format(root))
    rank = {}
    if args.order:
        try:
            rank = parse_order(args.order)
        except ValueError as error:
            parser.error(str(error))

    components, owner_of_file, rooms = find_components(root)
    if not components:
        parser.error("no component (a folder with include/batchode/) under {}".format(root))
    edges, warnings = scan_includes(root, components, owner_of_file, rooms)
    graph = successors(components, edges)
    groups = strongly_connected(graph)
    cycles = elementary_cycles(graph)
    violations = order_violations(edges, rank)

    cycle_edges = {(c[i], c[i + 1]) for c in cycles for i in range(len(c) - 1)}
    if args.dot:
        print_dot(components, edges, cycle_edges | set(violations), sys.stdout)
    else:
        print_text(root, components, graph, edges, layers_lowest_first(graph, groups), sys.stdout)
    sys.stdout.flush()

    for warning in warnings:
        print("layer_graph: warning: " + warning, file=sys.stderr)
    missing = sorted(set(rank) - set(components))
    if missing:
        # Expected while the tree is being moved towards the declared order, so a note, not a failure.
        print("layer_graph: note: --order names components not in the tree: " + ", ".join(missing),
              file=sys.stderr)

    if cycles:
        print("layer_graph: error: {} include cycle(s) between components:".format(len(cycles)),
              file=sys.stderr)
        for cycle in cycles[:MAX_CYCLES_LISTED]:
            print("  " + " -> ".join(cycle), file=sys.stderr)
            for source, target in zip(cycle, cycle[1:]):
                print("    {} -> {}:".format(source, target), file=sys.stderr)
                print("\n".join(describe_lines(edges[(source, target)], "      ")), file=sys.stderr)
        if len(cycles) > MAX_CYCLES_LISTED:
            print("  ... and {} more cycles".format(len(cycles) - MAX_CYCLES_LISTED), file=sys.stderr)
    if violations:
        print("layer_graph: error: {} include(s) from a lower layer to a higher one (--order {}):".format(
            len(violations), args.order), file=sys.stderr)
        for source, target in violations:
            print("  {} (layer {}) -> {} (layer {}):".format(source, rank[source], target, rank[target]),
                  file=sys.stderr)
            print("\n".join(describe_lines(edges[(source, target)], "    ")), file=sys.stderr)
    return 1 if cycles or violations else 0


if __name__ == "__main__":
    sys.exit(main())
