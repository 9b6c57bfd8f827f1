#!/usr/bin/env python3
"""NVRTC's compile time of a model's GPU program, on this machine (no GPU needed): the final-state batch
kernel of one method and precision, as RuntimeModel builds it (runtime_kernel_program's text around the
model's generated code, `batchode check`'s; sm_90 CUBIN), with NVRTC's phases (--time).

    python3 benchmarks/nvrtc_compile.py MODEL.toml|bruss:N [--method Rodas4] [--precision double] [--cli build/cli/batchode]

bruss:N is the BRUSS of benchmarks/stiff_models.py on N states (benchmarks/peers/cubie_bruss.py's equations).

The generated code is `batchode check`'s: CodegenOptions' defaults (models/codegen.hpp), which a
RuntimeModel takes too unless RuntimeModelOptions or $BATCHODE_SPARSE_LU_LOOPS_FROM /
$BATCHODE_SPARSE_LU_SOLVE_LOOPS_FROM say otherwise. Method names are the tableau types
(kernels/methods/method_registry.hpp: Rodas4, Rodas5p, Ros3p, Dopri5, ...)."""
import argparse
import ctypes
import os
import re
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def bruss_file(n, folder):
    """BRUSS on n states as a model file in `folder` (stiff_models.py's, from cubie_bruss.bruss_model)."""
    import sys
    sys.path.insert(0, os.path.join(ROOT, "benchmarks", "peers"))
    from cubie_bruss import bruss_model

    equations, states, c = bruss_model(n)
    path = os.path.join(folder, f"bruss{n}.toml")
    with open(path, "w") as fh:
        fh.write(f'name = "bruss{n}"\nequations = """\n{equations}\n"""\n[states]\n')
        fh.writelines(f"{k} = {v!r}\n" for k, v in states.items())
        fh.write(f"[parameters]\nA = 1.0\n[constants]\ncdiff = {c!r}\n")
    return path


def program(model, method, precision, cli):
    out = subprocess.run([cli, "check", model], capture_output=True, text=True, check=True).stdout
    src = out[out.index("// Generated"):]
    src = src[: src.rindex("\n};") + 4]
    name = re.search(r"^struct (\w+) \{", src, re.M).group(1)
    expr = f"batchode::kernels::integrate_chunk<batchode::tableau::{method}, false, {name}, {precision}, 0u>"
    text = ('#include "batchode/kernels/launch/batch_kernel.hpp"\n'
            '#include "batchode/kernels/methods/method_registry.hpp"\n'
            '#include "batchode/kernels/core/system.hpp"\n\n' + src + "\n\n"
            f"template __global__ void {expr}({name}, batchode::RunSettings<{precision}>, "
            f"batchode::kernels::DeviceInputs<{precision}>, batchode::kernels::DeviceOutputs<{precision}>);\n")
    return text, expr


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--method", default="Rodas4")
    ap.add_argument("--precision", default="double")
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "cli", "batchode"))
    ap.add_argument("--nvrtc", default="/usr/local/cuda/lib64/libnvrtc.so")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        model = bruss_file(int(args.model[6:]), folder) if args.model.startswith("bruss:") else args.model
        text, expr = program(model, args.method, args.precision, args.cli)
    lib = ctypes.CDLL(args.nvrtc)
    prog = ctypes.c_void_p()
    if lib.nvrtcCreateProgram(ctypes.byref(prog), text.encode(), b"model.cu", 0, None, None) != 0:
        raise SystemExit("nvrtcCreateProgram failed")
    lib.nvrtcAddNameExpression(prog, expr.encode())
    with tempfile.TemporaryDirectory() as tmp:
        phases = os.path.join(tmp, "phases.csv")
        options = ["--std=c++17", "-default-device", "-I" + os.path.join(ROOT, "kernels", "include"),
                   "--gpu-architecture=sm_90", "--time=" + phases]
        array = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
        start = time.perf_counter()
        rc = lib.nvrtcCompileProgram(prog, len(options), array)
        seconds = time.perf_counter() - start
        size = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetProgramLog(prog, log)
        if rc != 0:
            raise SystemExit(f"NVRTC failed ({rc}):\n{log.value.decode()[-4000:]}")
        cubin = ctypes.c_size_t()
        lib.nvrtcGetCUBINSize(prog, ctypes.byref(cubin))
        timing = ""
        if os.path.exists(phases):
            rows = [line.split(",") for line in open(phases).read().splitlines()[1:] if line.strip()]
            timing = ", ".join(f"{r[1].strip()} {float(r[2]) / 1e3:.2f} s" for r in rows if len(r) >= 3)
    print(f"nvrtc_compile model={os.path.basename(args.model)} method={args.method} precision={args.precision} "
          f"seconds={seconds:.2f} source_bytes={len(text)} cubin_bytes={cubin.value} ({timing})")


if __name__ == "__main__":
    main()
