"""Helpers for test_tutorials.py: the output comparator and the switch back to real PyTorch.

Comparator rules (``compare(expected, actual)`` returns a list of mismatch messages, empty when
the outputs agree):

1. ``torch.`` in the expected text is read as ``ember.`` (``torch.float64``, ``torch.Size``,
   ``'torch.mul'``); ``compare(..., module="torch")`` keeps it, for runs on real PyTorch.
2. Both texts are split into lines; the line counts must be equal and lines are paired in order.
3. Whitespace is normalised in both: runs collapse to one space, ends are stripped, and spaces
   just inside ``[``/``(`` and ``]``/``)`` are dropped. Tensor reprs pad columns to the widest
   printed element, which depends on the values (a sign, random weights).
4. Each line is cut into text and numbers. The text pieces must be equal; numbers must agree
   within ``2e-4 + 1e-3 * |expected|`` (tensor reprs print 4 decimals, so ``12.`` and
   ``12.0000`` agree and an extra float rounding step does not matter).
5. Placeholders in the expected text stand for values that differ on every run:
   - ``<id:NAME>`` matches an integer (an ``id()``);
   - ``<x:NAME>`` matches a number (a random weight);
   - ``<x:K*NAME>`` matches K times the number bound to NAME.
   The first match of a NAME binds it; every later use of the NAME must match the same value
   (within rule 4's tolerance for ``x``, exactly for ``id``). Different ``id`` NAMEs on one line
   must hold different values (objects alive together have different ids; ids of objects from
   different lines may be reused by CPython, so no rule across lines).
"""
import re

_NUM = r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)"
# A number not glued to a name (float64, t1, Backward0 are text) nor to a dot.
NUMBER = re.compile(r"(?<![\w.])" + _NUM)
PLACEHOLDER = re.compile(r"<(id|x):(?:([-+]?\d+(?:\.\d*)?)\*)?([A-Za-z_]\w*)>")
EXPECTED_TOKEN = re.compile(PLACEHOLDER.pattern + "|" + NUMBER.pattern)
ATOL, RTOL = 2e-4, 1e-3


def normalise(line):
    line = re.sub(r"\s+", " ", line).strip()
    return re.sub(r"(?<=[\[(]) | (?=[\])])", "", line)


def _close(actual, expected):
    return abs(actual - expected) <= ATOL + RTOL * abs(expected)


def _split(pattern, line):
    """(texts, matches): the text pieces between matches of pattern, and the matches."""
    texts, matches, pos = [], [], 0
    for m in pattern.finditer(line):
        texts.append(line[pos:m.start()])
        matches.append(m)
        pos = m.end()
    texts.append(line[pos:])
    return texts, matches


def compare(expected, actual, module="ember"):
    expected_lines = expected.replace("torch.", module + ".").splitlines()
    actual_lines = actual.splitlines()
    errors = []
    if len(expected_lines) != len(actual_lines):
        errors.append(f"{len(actual_lines)} lines printed, {len(expected_lines)} expected")
    bound = {}
    for n, (e_line, a_line) in enumerate(zip(expected_lines, actual_lines), 1):
        problem = _compare_line(normalise(e_line), normalise(a_line), bound)
        if problem:
            errors.append(f"line {n}: {problem}\n  expected: {e_line}\n  actual:   {a_line}")
    return errors


def _compare_line(e_line, a_line, bound):
    e_texts, e_tokens = _split(EXPECTED_TOKEN, e_line)
    a_texts, a_numbers = _split(NUMBER, a_line)
    if e_texts != a_texts:
        return "text differs"
    ids_on_line = {}
    for token, number in zip(e_tokens, a_numbers):
        value = float(number.group())
        kind, factor, name = token.group(1, 2, 3)
        if kind is None:
            if not _close(value, float(token.group())):
                return f"{number.group()} is not {token.group()}"
        elif kind == "id":
            if not number.group().isdigit():
                return f"<id:{name}> needs an integer, got {number.group()}"
            if bound.setdefault(("id", name), value) != value:
                return f"<id:{name}> was {bound['id', name]:.0f}, now {value:.0f}"
            for other, other_value in ids_on_line.items():
                if other != name and other_value == value:
                    return f"<id:{name}> and <id:{other}> are the same object"
            ids_on_line[name] = value
        else:
            scale = float(factor) if factor else 1.0
            if ("x", name) not in bound:
                bound["x", name] = value / scale
            elif not _close(value, scale * bound["x", name]):
                return f"{number.group()} is not {scale:g} * {bound['x', name]:g} (<x:{name}>)"
    return None


# Real PyTorch 1.13 for the sanity runs ----------------------------------------------------------

def to_torch_source(source):
    """The script as it reads in the tutorial: ember's imports turned back into torch's."""
    source = source.replace("import ember as torch", "import torch")
    source = re.sub(r"\b(from|import) ember\b", r"\1 torch", source)
    if "ember" in re.sub(r"#.*", "", source):
        raise ValueError("the script uses ember other than through its imports")
    return source


def backport_setup_context():
    """Give PyTorch 1.13's autograd.Function the 2.0 form ``forward(*args)`` + ``setup_context``.

    2.0 calls ``forward(*args)`` and then ``setup_context(ctx, inputs=args, output=out)``; 1.13
    only knows ``forward(ctx, *args)``. Classes that define ``setup_context`` get a combined
    forward doing exactly those two calls, so the note's separate-style code runs on 1.13.
    """
    import torch
    from torch.autograd.function import FunctionMeta

    if hasattr(torch.autograd.Function, "setup_context"):
        return
    plain_init = FunctionMeta.__init__

    def __init__(cls, name, bases, attrs):
        if "setup_context" in attrs:
            forward, setup_context = cls.forward, cls.setup_context

            def combined(ctx, *args):
                output = forward(*args)
                setup_context(ctx, args, output)
                return output

            cls.forward = staticmethod(combined)
        plain_init(cls, name, bases, attrs)

    FunctionMeta.__init__ = __init__


def run_with_torch(script):
    """Run an examples/python script on real PyTorch (its torch imports restored); returns the
    CompletedProcess. Its expected file is this run's stdout where 1.13 has every feature used."""
    import pathlib
    import subprocess
    import sys
    import tempfile

    script = pathlib.Path(script).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        copy = pathlib.Path(tmp) / script.name
        copy.write_text(to_torch_source(script.read_text()))
        launcher = (
            "import runpy, sys\n"
            f"sys.path.insert(0, {str(pathlib.Path(__file__).resolve().parent)!r})\n"
            "import tutorial_compare\n"
            "tutorial_compare.backport_setup_context()\n"
            "sys.argv = [sys.argv[1]]\n"
            "runpy.run_path(sys.argv[0], run_name='__main__')\n"
        )
        return subprocess.run([sys.executable, "-c", launcher, str(copy)], cwd=tmp,
                              capture_output=True, text=True, timeout=300)


if __name__ == "__main__":
    # Regenerate an expected file: python3 tests/python/frontend/tutorial_compare.py SCRIPT
    import sys

    done = run_with_torch(sys.argv[1])
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    sys.exit(done.returncode)
