"""batchode's PEP 517 build backend: `pip install .` without anything from PyPI.

pip builds in an isolated environment holding only what [build-system] requires, and batchode
requires nothing: this module uses the standard library alone. build_wheel configures the CMake
project with the Python package on (python/CMakeLists.txt) for the interpreter running this backend,
builds the extension target, and packs a wheel from:
  batchode/*.py and batchode/_batchode*.so   (the build folder's python/batchode/)
  batchode/include/batchode/...               (the headers a runtime model's generated code includes:
                                               kernels/, arrays/, backends/cpu/; the package points
                                               BATCHODE_INCLUDE_DIR at them on import)
Settings (config_settings of `pip install . --config-settings KEY=VALUE`, else the environment):
  build-dir  / BATCHODE_PYTHON_BUILD_DIR  the CMake build folder (default <repo>/build-python, kept,
                                          so a second install rebuilds only what changed)
  gpu        / BATCHODE_GPU               auto (default) | hip | cuda | off
  cmake-args / BATCHODE_CMAKE_ARGS        more CMake arguments, split like a shell would
"""

import base64
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAME = "batchode"
HEADER_TREES = ("kernels", "arrays", os.path.join("backends", "cpu"))


def _project():
    """Name, version, summary, requires-python and dependencies from pyproject.toml's [project]."""
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    try:
        import tomllib  # Python 3.11+
        project = tomllib.loads(text)["project"]
    except ImportError:  # an older Python: the few plain keys this file uses
        project = {}
        section = text.split("[project]", 1)[1]
        for key in ("name", "version", "description", "requires-python"):
            m = re.search(r'^%s\s*=\s*"([^"]*)"' % re.escape(key), section, re.M)
            if m:
                project[key] = m.group(1)
        m = re.search(r"^dependencies\s*=\s*\[([^\]]*)\]", section, re.M)
        project["dependencies"] = re.findall(r'"([^"]+)"', m.group(1)) if m else []
    return project


def _setting(config_settings, key, env, default):
    if config_settings and config_settings.get(key):
        return config_settings[key]
    return os.environ.get(env) or default


def _tag():
    """cpXY-cpXY-<platform>: the wheel holds an extension for this interpreter only."""
    interpreter = "cp%d%d" % sys.version_info[:2]
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "%s-%s-%s" % (interpreter, interpreter, platform)


def _metadata():
    p = _project()
    lines = ["Metadata-Version: 2.1", "Name: " + p["name"], "Version: " + p["version"],
             "Summary: " + p.get("description", ""), "Requires-Python: " + p.get("requires-python", ">=3.9")]
    lines += ["Requires-Dist: " + d for d in p.get("dependencies", [])]
    return "\n".join(lines) + "\n"


def _dist_info():
    p = _project()
    return "%s-%s.dist-info" % (p["name"], p["version"])


def _run(command):
    print("batchode_build: " + " ".join(shlex.quote(c) for c in command), flush=True)
    subprocess.run(command, check=True)


def _build(config_settings):
    """Configures and builds the extension; returns the folder holding the package (batchode/)."""
    cmake = shutil.which("cmake")
    if cmake is None:
        raise RuntimeError("batchode needs CMake to build: run scripts/install_deps.sh (Debian) first")
    build_dir = os.path.abspath(_setting(config_settings, "build-dir", "BATCHODE_PYTHON_BUILD_DIR",
                                         os.path.join(ROOT, "build-python")))
    configure = [cmake, "-S", ROOT, "-B", build_dir]
    if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")) and shutil.which("ninja"):
        configure += ["-G", "Ninja"]
    configure += [
        "-DCMAKE_BUILD_TYPE=Release",
        "-DPython_EXECUTABLE=" + sys.executable,
        "-DBATCHODE_BUILD_PYTHON=ON",
        "-DBATCHODE_GPU=" + _setting(config_settings, "gpu", "BATCHODE_GPU", "auto"),
        "-DBATCHODE_BUILD_TESTS=OFF", "-DBATCHODE_BUILD_EXAMPLES=OFF", "-DBATCHODE_BUILD_BENCHMARKS=OFF",
        "-DBATCHODE_BUILD_CLI=OFF", "-DBATCHODE_CHECK_HEADERS=OFF",
    ]
    configure += shlex.split(_setting(config_settings, "cmake-args", "BATCHODE_CMAKE_ARGS", ""))
    _run(configure)
    jobs = os.environ.get("BATCHODE_JOBS") or str(os.cpu_count() or 2)
    _run([cmake, "--build", build_dir, "--target", "batchode_python", "--parallel", jobs])
    return os.path.join(build_dir, "python")


def _wheel_files(package_parent):
    """(path in the wheel, file on disk) for every file the wheel holds besides its dist-info."""
    # The extension built for this interpreter (a kept build folder may hold others'), and the .py
    # files of the source tree (not copies a kept build folder may still hold of deleted ones).
    module = "_batchode" + sysconfig.get_config_var("EXT_SUFFIX")
    files = [(NAME + "/" + module, os.path.join(package_parent, NAME, module))]
    source = os.path.join(ROOT, "python", NAME)
    for name in sorted(os.listdir(source)):
        if name.endswith(".py"):
            files.append((NAME + "/" + name, os.path.join(source, name)))
    for tree in HEADER_TREES:
        top = os.path.join(ROOT, tree, "include")
        for folder, _, names in os.walk(top):
            for name in sorted(names):
                path = os.path.join(folder, name)
                files.append((NAME + "/include/" + os.path.relpath(path, top).replace(os.sep, "/"), path))
    return files


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (arcname, digest, len(data))


# --- PEP 517 hooks -------------------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    folder = os.path.join(metadata_directory, _dist_info())
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    return _dist_info()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    package_parent = _build(config_settings)
    p = _project()
    wheel_name = "%s-%s-%s.whl" % (p["name"], p["version"], _tag())
    dist_info = _dist_info()
    record = []
    path = os.path.join(wheel_directory, wheel_name)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as wheel:
        def add(arcname, data):
            wheel.writestr(arcname, data)
            record.append(_record_line(arcname, data))

        for arcname, source in _wheel_files(package_parent):
            with open(source, "rb") as f:
                add(arcname, f.read())
        add(dist_info + "/METADATA", _metadata().encode())
        add(dist_info + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: batchode_build\nRoot-Is-Purelib: false\n"
                                   "Tag: %s\n" % _tag()).encode())
        record.append(dist_info + "/RECORD,,")
        wheel.writestr(dist_info + "/RECORD", "\n".join(record) + "\n")
    print("batchode_build: wrote " + path, flush=True)
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    """The tracked sources (git ls-files when this is a checkout, else everything but build folders)."""
    p = _project()
    base = "%s-%s" % (p["name"], p["version"])
    try:
        listed = subprocess.run(["git", "-C", ROOT, "ls-files"], check=True, capture_output=True, text=True)
        files = [f for f in listed.stdout.splitlines() if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for folder, dirs, names in os.walk(ROOT):
            dirs[:] = [d for d in dirs if not d.startswith(("build", "."))]
            files += [os.path.relpath(os.path.join(folder, n), ROOT) for n in names]
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as tar:
        for f in files:
            if os.path.exists(os.path.join(ROOT, f)):  # a tracked file deleted in the working tree is left out
                tar.add(os.path.join(ROOT, f), arcname=base + "/" + f)
        info = tarfile.TarInfo(base + "/PKG-INFO")
        data = _metadata().encode()
        info.size = len(data)
        import io
        tar.addfile(info, io.BytesIO(data))
    return name
