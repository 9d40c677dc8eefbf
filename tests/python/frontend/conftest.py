import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.join(
    os.environ.get("EMBER_BUILD_DIR", str(Path(__file__).resolve().parents[3] / "build")), "python"))
