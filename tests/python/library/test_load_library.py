"""ember.ops.load_library: a shared library with EMBER_LIBRARY blocks, built here against the
build's headers and libember, registers its ops as it loads (torch.ops.load_library)."""
import os
import pathlib
import shutil
import subprocess

import pytest

import ember

REPO = pathlib.Path(__file__).resolve().parents[3]
SOURCE = r'''
#include <ember/ember.h>
#include <ember/library.h>

namespace {
ember::Tensor affine(const ember::Tensor& x, double a, double b) { return x * a + b; }
}
EMBER_LIBRARY(loadlib, m) { m.def("affine(Tensor x, float a=2, float b=1) -> Tensor"); }
EMBER_LIBRARY_IMPL(loadlib, CPU, m) { m.impl("affine", &affine); }
'''


def test_load_library(tmp_path):
    cxx = shutil.which("c++") or shutil.which("g++")
    build = pathlib.Path(os.environ.get("EMBER_BUILD_DIR", REPO / "build"))
    libember = build / "libember.so"
    if cxx is None or not libember.exists():
        pytest.skip("needs a C++ compiler and the build's libember.so")
    src = tmp_path / "loadlib.cpp"
    src.write_text(SOURCE)
    so = tmp_path / "libloadlib.so"
    subprocess.run([cxx, "-std=c++20", "-O0", "-shared", "-fPIC", f"-I{REPO / 'include'}", str(src),
                    f"-L{build}", "-lember", "-o", str(so)], check=True)
    with pytest.raises(AttributeError):
        ember.ops.loadlib.affine
    ember.ops.load_library(str(so))
    assert os.path.realpath(so) in ember.ops.loaded_libraries
    x = ember.tensor([1., 2.])
    assert ember.ops.loadlib.affine(x).tolist() == [3., 5.]
    assert ember.ops.loadlib.affine.default(x, 3.0, b=0.5).tolist() == [3.5, 6.5]
    assert str(ember.ops.loadlib.affine.default._schema) == \
        "loadlib::affine(Tensor x, float a=2, float b=1) -> Tensor"
