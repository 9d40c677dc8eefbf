"""`pip install .` works offline and gives a package importable from anywhere (issue 5).

Installs into a fresh virtual environment (with the system site packages, for numpy), reusing the
test build's CMake directory so that nothing is compiled twice (setup.py's EMBER_CMAKE_BUILD_DIR),
with --no-index so that pip cannot download anything."""
import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
BUILD = pathlib.Path(os.environ.get("EMBER_BUILD_DIR", REPO / "build"))


def test_pip_install_offline_into_a_venv(tmp_path):
    if not (BUILD / "CMakeCache.txt").exists():
        pytest.skip(f"no CMake build at {BUILD} (run `make test`, or set EMBER_BUILD_DIR)")
    cache_before = (BUILD / "CMakeCache.txt").read_text()
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    env = dict(os.environ, EMBER_CMAKE_BUILD_DIR=str(BUILD), PIP_NO_INDEX="1",
               PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)
    done = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-index", str(REPO)],
                          env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    # The test's build is reused as configured, never reconfigured for the venv's interpreter.
    assert (BUILD / "CMakeCache.txt").read_text() == cache_before
    probe = ("import ember, os; "
             "print(os.path.dirname(ember.__file__)); "
             "print(sorted(f for f in os.listdir(os.path.dirname(ember.__file__)) if '.so' in f)); "
             "print((ember.ones(2, 3) * 2).sum().item())")
    out = subprocess.run([str(venv / "bin" / "python"), "-c", probe], cwd=tmp_path, env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    where, libs, value = out.stdout.splitlines()
    assert pathlib.Path(where).is_relative_to(venv)
    assert libs == "['_C.cpython-311-x86_64-linux-gnu.so', 'libember.so.0']"
    assert value == "12.0"
