import os
import sys
from pathlib import Path

_build = os.environ.get("EMBER_BUILD_DIR", str(Path(__file__).resolve().parents[3] / "build"))
sys.path.insert(0, str(Path(_build) / "python"))
