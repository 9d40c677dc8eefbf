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
