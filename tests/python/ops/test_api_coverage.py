"""The public-API coverage tests of issue 16 (the walk itself is api_coverage.py).

torch 1.13's overridable functions (`torch.overrides.get_testing_overrides()`: torch.*, Tensor.*,
nn.functional, linalg, fft, special, nn.init) and its `torch.nn.modules.__all__` classes are tried on
ember with a small call torch accepts, and the results compared. `api_coverage_not_yet.txt` lists
what ember does not have (or computes differently) yet; `EXCLUDED` in api_coverage.py what it
leaves out on purpose, each with its reason. The list may only shrink: a name failing outside it is
a regression, and a name on it that now passes must be deleted from it.
"""
import api_coverage


def test_every_public_name_is_covered_or_listed():
    results = api_coverage.outcomes()
    not_yet = api_coverage.read_not_yet()
    regressed = sorted(f"{q}: {why}" for q, why in results.items() if why and q not in not_yet)
    arrived = sorted(q for q in not_yet if q in results and not results[q])
    unknown = sorted(q for q in not_yet if q not in results)
    assert not regressed, "ember lost or broke these names:\n" + "\n".join(regressed)
    assert not arrived, "these names work now; delete them from api_coverage_not_yet.txt:\n" + "\n".join(arrived)
    assert not unknown, "not names of torch's surface: " + ", ".join(unknown)


def test_exclusions_are_few_and_explained():
    assert all(reason.strip() for reason in api_coverage.EXCLUDED.values())
    surface = {q for q, *_ in api_coverage.surface()}
    assert set(api_coverage.EXCLUDED) <= surface | {f"nn.{n}" for n in __import__("torch").nn.modules.__all__}


def test_the_walk_catches_a_wrong_result(monkeypatch):
    # The comparison must be able to fail: ember's abs replaced by neg is reported.
    import ember
    monkeypatch.setattr(ember, "abs", ember.neg)
    row = next(r for r in api_coverage.surface() if r[0] == "torch.abs")
    assert api_coverage.check(*row).startswith("differs")
