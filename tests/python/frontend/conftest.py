import os
import sys
from pathlib import Path

_build = Path(os.environ.get("EMBER_BUILD_DIR", Path(__file__).resolve().parents[3] / "build"))
sys.path.insert(0, str(_build / "python"))
