"""examples/python/char_transformer.py, briefly: 40 training steps on ember must print a falling
loss (the full run is test_tutorials' and make demo's)."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


def test_char_transformer_loss_falls(tmp_path):
    build = Path(os.environ.get("EMBER_BUILD_DIR", REPO / "build"))
    if not (build / "python" / "ember").is_dir():
        pytest.skip("ember is not built")
    env = dict(os.environ, PYTHONPATH=str(build / "python"))
    done = subprocess.run(
        [sys.executable, str(REPO / "examples" / "python" / "char_transformer.py"), "--steps", "40",
         "--print-every", "10"], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr + done.stdout
    losses = [float(m) for m in re.findall(r"^step\s+\d+\s+loss ([\d.]+)$", done.stdout, re.M)]
    assert len(losses) == 5
    assert losses[-1] < losses[0] - 0.5, losses
    assert "loss fell from" in done.stdout
