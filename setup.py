"""`pip install .`: builds ember (libember and the ember._C module) with CMake and installs the
`ember` package with both libraries inside it (_C finds libember next to itself: RPATH $ORIGIN).

Works offline with Debian's packages (cmake, ninja-build, g++, python3-dev, pybind11-dev,
python3-setuptools, python3-wheel and ember's C++ dependencies, which `scripts/setup.sh`
installs): there is no pyproject.toml, so pip runs this file with the system's setuptools instead
of downloading build requirements into an isolated environment.
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
# One version: CMake's project(VERSION), which ember.__version__ reports too.
VERSION = re.search(r"project\(ember VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)


class CMakeBuild(build_ext):
    """Configures and builds the `ember_py` target, then copies the assembled package."""

    def build_extension(self, ext):
        # EMBER_CMAKE_BUILD_DIR reuses a configured build (the test suite's), else a fresh one.
        build_dir = pathlib.Path(os.environ.get("EMBER_CMAKE_BUILD_DIR") or
                                 pathlib.Path(self.build_temp).resolve() / "cmake").resolve()
        build_dir.mkdir(parents=True, exist_ok=True)
        if not (build_dir / "CMakeCache.txt").exists() or "EMBER_CMAKE_BUILD_DIR" not in os.environ:
            # A build dir given by EMBER_CMAKE_BUILD_DIR is used as configured: reconfiguring it
            # for this interpreter (a venv's) would change someone else's build.
            subprocess.check_call([
                "cmake", "-S", str(ROOT), "-B", str(build_dir), "-G", "Ninja",
                "-DCMAKE_BUILD_TYPE=Release", "-DEMBER_BUILD_TESTS=OFF",
                "-DEMBER_BUILD_BENCHMARKS=OFF", f"-DPython_EXECUTABLE={sys.executable}",
            ])
        jobs = os.environ.get("EMBER_BUILD_JOBS", str(os.cpu_count() or 2))
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "ember_py",
                               "-j", jobs])
        package = build_dir / "python" / "ember"
        target = pathlib.Path(self.build_lib).resolve() / "ember"
        if target.exists():
            shutil.rmtree(target)
        # Symlinks to libember become real files: the installed package stands alone.
        shutil.copytree(package, target, symlinks=False,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        # Keep only the file _C loads, by its soname (libember.so.0).
        for extra in target.glob("libember.so*"):
            if extra.name != "libember.so.0":
                extra.unlink()


setup(
    name="ember",
    version=VERSION,
    description="PyTorch's extension points on a small C++20 core (`import ember as torch`)",
    python_requires=">=3.11",
    packages=[],
    ext_modules=[Extension("ember._C", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
