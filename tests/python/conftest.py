import os
import pathlib
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def build_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("EMBER_BUILD_DIR", REPO / "build"))


# The ember package as the build assembles it (python/CMakeLists.txt): <build>/python/ember.
sys.path.insert(0, str(build_dir() / "python"))


@pytest.fixture(scope="session")
def ember_tool():
    """Path to a program in the build's tests/tools directory (skips when it was not built)."""

    def find(name: str) -> pathlib.Path:
        path = build_dir() / "tests" / "tools" / name
        if not path.exists():
            pytest.skip(f"{path} is not built (run `make test`, or set EMBER_BUILD_DIR)")
        return path

    return find


# ---- Note [Recording error texts] (include/ember/error.h): no error text names `torch.` ----
# Every ember::Error made in C++ is recorded (EMBER_RECORD_ERRORS, set here before ember is
# imported; EMBER_RECORD_ERRORS=0 turns it off), and so is every exception a `pytest.raises`
# block catches that was raised inside ember's Python package. After each test, the texts made
# during it are checked by tests/python/api/error_texts.py's rule; a leak fails the test (an
# error at its teardown) with the text. The texts in ember's Python sources are scanned whole by
# tests/python/api/test_error_texts.py.
import importlib.util  # noqa: E402

os.environ.setdefault("EMBER_RECORD_ERRORS", "1")
_spec = importlib.util.spec_from_file_location(
    "_ember_error_texts", pathlib.Path(__file__).resolve().parent / "api" / "error_texts.py")
_error_texts = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_error_texts)
_python_error_texts = []


def _raised_in_ember(tb) -> bool:
    ember_mod = sys.modules.get("ember")
    if ember_mod is None or tb is None:
        return False
    package = os.path.dirname(ember_mod.__file__) + os.sep
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_filename.startswith(package)


def _record_raises_exit(original):
    def __exit__(self, exc_type, exc_val, exc_tb):
        __tracebackhide__ = True
        if exc_val is not None and _raised_in_ember(exc_tb):
            _python_error_texts.append(str(exc_val))
        return original(self, exc_type, exc_val, exc_tb)
    return __exit__


try:
    from _pytest.python_api import RaisesContext as _RaisesContext
    _RaisesContext.__exit__ = _record_raises_exit(_RaisesContext.__exit__)
except ImportError:  # another pytest: the C++ texts are still checked
    pass


def _take_error_texts():
    texts = list(_python_error_texts)
    _python_error_texts.clear()
    c = sys.modules.get("ember._C")
    if c is not None and hasattr(c, "_take_recorded_errors"):
        texts += c._take_recorded_errors()
    return texts


@pytest.fixture(autouse=True)
def _no_torch_in_error_texts():
    yield
    bad = [t for t in _take_error_texts() if _error_texts.names_torch(t)]
    if bad:
        pytest.fail("error texts name `torch.` (ember says `ember.`):\n" +
                    "\n".join(f"  {t!r}" for t in bad[:10]), pytrace=False)
