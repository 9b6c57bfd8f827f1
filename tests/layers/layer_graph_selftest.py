#!/usr/bin/env python3
"""tests/layers/layer_graph_selftest.py: scripts/layer_graph.py run on small synthetic trees, so the
layer check cannot pass by finding nothing (a wrong root, a broken include pattern, a missed folder).
Usage: layer_graph_selftest.py [SCRIPT]  (default: scripts/layer_graph.py beside this checkout)."""

import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "layer_graph.py")


def write_tree(root, files):
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as stream:
            stream.write(text)


def header(comp, name, *includes):
    """A header of component comp (nested ones too: 'backends/cpu') and its path."""
    path = "{0}/include/batchode/{0}/{1}".format(comp, name)
    return path, "#pragma once\n" + "".join("#include {}\n".format(i) for i in includes)


class LayerGraphTest(unittest.TestCase):
    def run_script(self, files, *flags):
        with tempfile.TemporaryDirectory(prefix="layer_graph_") as root:
            write_tree(root, dict(files))
            done = subprocess.run([sys.executable, SCRIPT, "--root", root, *flags],
                                  capture_output=True, text=True, timeout=60)
        return done.returncode, done.stdout, done.stderr

    def test_clean_two_layers_pass_and_are_ordered(self):
        code, out, err = self.run_script([
            header("core", "math.hpp", "<vector>", "<fmt/format.h>"),
            header("app", "run.hpp", '"batchode/core/math.hpp"'),
            ("app/src/run.cpp", '#include "batchode/app/run.hpp"\n#include <batchode/core/math.hpp>\n'),
        ])
        self.assertEqual(code, 0, err)
        self.assertIn("app  -> core", out)
        self.assertIn("core -> (nothing)", out)
        self.assertIn("core x2, e.g. app/include/batchode/app/run.hpp:2", out)
        self.assertIn("  0: core\n  1: app\n", out)

    def test_cycle_fails_and_names_every_include_of_it(self):
        code, out, err = self.run_script([
            header("a", "x.hpp", '"batchode/b/y.hpp"'),
            header("b", "y.hpp"),
            ("b/src/y.cpp", '#include "batchode/b/y.hpp"\n#if defined(SOME_BACKEND)\n'
                            '#  include "batchode/a/x.hpp"\n#endif\n'),
        ])
        self.assertEqual(code, 1, out + err)
        self.assertIn("a -> b -> a", err)
        self.assertIn("a/include/batchode/a/x.hpp:2", err)
        self.assertIn("b/src/y.cpp:3", err)  # under #if: still counted
        self.assertIn("{a, b} (cycle)", out)

    def test_every_cycle_is_listed(self):
        code, _, err = self.run_script([
            header("a", "x.hpp", '"batchode/b/y.hpp"'),
            header("b", "y.hpp", '"batchode/a/x.hpp"', '"batchode/c/z.hpp"'),
            header("c", "z.hpp", '"batchode/b/y.hpp"'),
        ])
        self.assertEqual(code, 1)
        self.assertIn("2 include cycle(s)", err)
        self.assertIn("a -> b -> a", err)
        self.assertIn("b -> c -> b", err)

    def test_nested_components_and_umbrella_header_resolve_by_file(self):
        code, out, err = self.run_script([
            header("core", "math.hpp"),
            # core owns a file under batchode/backends/: the file on disk decides, not the spelling.
            ("core/include/batchode/backends/common.hpp", "#pragma once\n"),
            header("backends/cpu", "cpu.hpp", '"batchode/backends/common.hpp"', '"batchode/core/math.hpp"'),
            header("backends/gpu", "gpu.hpp", "<batchode/core/math.hpp>"),
            ("backends/cpu/src/cpu.cpp", '#include "batchode/backends/cpu/cpu.hpp"\n'),
            ("facade/include/batchode/batchode.hpp", '#include "batchode/backends/cpu/cpu.hpp"\n'
                                                     '#include "batchode/backends/gpu/gpu.hpp"\n'),
            ("tools/use.cpp", '#include "batchode/batchode.hpp"\n'),  # no include/batchode/: not scanned
            ("examples/include/batchode/examples/e.hpp", '#include "batchode/batchode.hpp"\n'),
            ("tests/include/batchode/tests/t.hpp", '#include "batchode/batchode.hpp"\n'),
            header("user", "u.hpp", '"batchode/batchode.hpp"'),
        ])
        self.assertEqual(code, 0, err)
        self.assertIn("backends/cpu -> core\n", out)
        self.assertIn("backends/gpu -> core\n", out)
        self.assertIn("facade       -> backends/cpu, backends/gpu\n", out)
        self.assertIn("user         -> facade\n", out)
        self.assertIn("5 components", out)  # not examples/ nor tests/
        self.assertIn("  0: core\n  1: backends/cpu, backends/gpu\n  2: facade\n  3: user\n", out)

    def test_rooms_of_a_folder_are_components_and_their_order_is_enforced(self):
        # kernels/: include/batchode/core/ holds rooms only (low/, high/), each a component sharing
        # core's include/ root; another folder's include is resolved to the room, not to core.
        files = [
            header("core", "low/math.hpp"),
            header("core", "high/step.hpp", '"batchode/core/low/math.hpp"'),
            header("app", "run.hpp", "<batchode/core/high/step.hpp>"),
        ]
        code, out, err = self.run_script(files, "--order", "core/low,core/high,app")
        self.assertEqual(code, 0, err)
        self.assertIn("core/high -> core/low", out)
        self.assertIn("app       -> core/high", out)
        self.assertIn("  0: core/low\n  1: core/high\n  2: app\n", out)
        files[0] = header("core", "low/math.hpp", '"batchode/core/high/step.hpp"')
        code, out, err = self.run_script(files, "--order", "core/low,core/high,app")
        self.assertEqual(code, 1, out + err)
        self.assertIn("core/high -> core/low -> core/high", err)
        # A folder's files outside its rooms (a facade) and its sources under src/<room>/.
        code, out, err = self.run_script(files + [
            header("core", "facade.hpp", '"batchode/core/high/step.hpp"'),
            ("core/src/low/math.cpp", '#include "batchode/core/low/math.hpp"\n#include "batchode/core/facade.hpp"\n'),
        ], "--order", "core/low,core/high,core,app")
        self.assertEqual(code, 1, out + err)
        self.assertNotIn("several components", err)
        self.assertIn("core      -> core/high", out)
        self.assertIn("core/low (layer 0) -> core (layer 2)", err)
        files[0] = header("core", "low/math.hpp")
        files.append(header("core", "high/tail.hpp"))
        files[1] = header("core", "high/step.hpp")
        files[0] = header("core", "low/math.hpp", "<batchode/core/high/tail.hpp>")
        code, out, err = self.run_script(files, "--order", "core/low,core/high,app")
        self.assertEqual(code, 1, out + err)
        self.assertIn("core/low (layer 0) -> core/high (layer 1)", err)

    def test_relative_include_is_resolved_beside_the_file(self):
        code, out, err = self.run_script([
            header("core", "math.hpp"),
            ("app/src/run.cpp", '#include "../../core/include/batchode/core/math.hpp"\n'),
            header("app", "run.hpp"),
        ])
        self.assertEqual(code, 0, err)
        self.assertIn("app  -> core", out)

    def test_order_violation_fails_without_a_cycle(self):
        files = [
            header("low", "l.hpp", '"batchode/high/h.hpp"'),
            header("high", "h.hpp"),
            header("other", "o.hpp", '"batchode/high/h.hpp"'),
        ]
        code, _, err = self.run_script(files)
        self.assertEqual(code, 0, err)
        code, _, err = self.run_script(files, "--order", "low,high")
        self.assertEqual(code, 1)
        self.assertIn("low (layer 0) -> high (layer 1)", err)
        self.assertIn("low/include/batchode/low/l.hpp:2", err)
        self.assertNotIn("other", err)  # not listed: only checked for cycles
        code, _, err = self.run_script(files, "--order", "high,low")
        self.assertEqual(code, 0, err)
        code, _, err = self.run_script(files, "--order", "low+high")  # peers in one layer
        self.assertEqual(code, 0, err)
        code, _, err = self.run_script(files, "--order", "high,low,backends/cpu")
        self.assertEqual(code, 0, err)
        self.assertIn("not in the tree: backends/cpu", err)

    def test_dot_output(self):
        code, out, _ = self.run_script([
            header("a", "x.hpp", '"batchode/b/y.hpp"'),
            header("b", "y.hpp", '"batchode/a/x.hpp"'),
        ], "--dot")
        self.assertEqual(code, 1)
        self.assertTrue(out.startswith("digraph"))
        self.assertIn('"a" -> "b" [label="1", color=red];', out)

    def test_usage_errors_exit_2(self):
        self.assertEqual(self.run_script([("empty/readme.txt", "")])[0], 2)  # no component
        self.assertEqual(self.run_script([header("a", "x.hpp")], "--no-such-flag")[0], 2)
        self.assertEqual(self.run_script([header("a", "x.hpp")], "--order", "a,a")[0], 2)


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        SCRIPT = sys.argv.pop(1)
    unittest.main(verbosity=2)
