"""state_dict / load_state_dict hooks, extra state and _version, against torch 1.13 where it has
the API (register_state_dict_pre_hook, register_load_state_dict_pre_hook and
register_state_dict_post_hook are PyTorch 2.x's: their behaviour is checked directly)."""
import copy
import pickle
import warnings
from collections import OrderedDict

import pytest
import torch

import ember


def _pair(lib):
    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(2, 3)
            self.register_buffer("b", lib.zeros(2))

    return M


@pytest.mark.parametrize("lib", [ember, torch], ids=["ember", "torch"])
def test_private_state_dict_hook_sees_shared_destination_and_metadata(lib):
    m = _pair(lib)()
    log = []
    handle = m.lin._register_state_dict_hook(
        lambda mod, sd, prefix, md: log.append((mod is m.lin, prefix, sorted(sd), dict(md))))
    m.state_dict()
    # The child's hook runs after the child saved, on the parent's destination.
    assert log == [(True, "lin.", ["b", "lin.bias", "lin.weight"], {"version": 1})]
    handle.remove()
    log.clear()
    m.state_dict()
    assert log == []


@pytest.mark.parametrize("lib", [ember, torch], ids=["ember", "torch"])
def test_root_state_dict_hook_may_return_a_new_dict(lib):
    m = _pair(lib)()
    m._register_state_dict_hook(
        lambda mod, sd, prefix, md: OrderedDict((k.upper(), v) for k, v in sd.items()))
    assert list(m.state_dict()) == ["B", "LIN.WEIGHT", "LIN.BIAS"]
    m._state_dict_hooks.clear()  # the dict is the record, as in PyTorch
    assert list(m.state_dict()) == ["b", "lin.weight", "lin.bias"]


def test_state_dict_hook_edits_metadata_and_adds_entries():
    m = _pair(ember)()

    def hook(mod, sd, prefix, md):
        md["format"] = "mine"
        sd[prefix + "note"] = {"any": ["python", "object"]}

    m.lin._register_state_dict_hook(hook)
    sd = m.state_dict()
    assert sd._metadata["lin"] == {"version": 1, "format": "mine"}
    assert sd["lin.note"] == {"any": ["python", "object"]}


def test_public_post_hook_must_return_none_and_pre_hook_runs_first():
    m = _pair(ember)()
    log = []
    m.lin.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: log.append(("pre", prefix, keep_vars)))
    m.lin.register_state_dict_post_hook(lambda mod, sd, prefix, md: log.append(("post", prefix)))
    m.state_dict(keep_vars=True)
    assert log == [("pre", "lin.", True), ("post", "lin.")]
    m.register_state_dict_post_hook(lambda mod, sd, prefix, md: sd)
    with pytest.raises(RuntimeError, match="^state_dict post-hook must return None$"):
        m.state_dict()


@pytest.mark.parametrize("lib", [ember, torch], ids=["ember", "torch"])
def test_load_pre_hook_renames_keys_for_its_module(lib):
    src, dst = _pair(lib)(), _pair(lib)()
    seen = []

    def rename(sd, prefix, md, strict, missing, unexpected, errors):
        seen.append((prefix, dict(md), strict))
        if prefix + "W" in sd:
            sd[prefix + "weight"] = sd.pop(prefix + "W")

    dst.lin._register_load_state_dict_pre_hook(rename)
    sd = src.state_dict()
    sd["lin.W"] = sd.pop("lin.weight")
    assert str(dst.load_state_dict(sd, strict=False)) == "<All keys matched successfully>"
    # strict is always passed as True; the metadata is the saved one.
    assert seen == [("lin.", {"version": 1}, True)]
    assert lib.equal(dst.lin.weight, src.lin.weight)


@pytest.mark.parametrize("lib", [ember, torch], ids=["ember", "torch"])
def test_load_pre_hook_with_module_and_error_messages(lib):
    src, dst = _pair(lib)(), _pair(lib)()
    seen = []

    def hook(mod, sd, prefix, md, strict, missing, unexpected, errors):
        seen.append(mod)
        errors.append("custom complaint")

    dst._register_load_state_dict_pre_hook(hook, with_module=True)
    with pytest.raises(RuntimeError) as info:
        dst.load_state_dict(src.state_dict())
    assert str(info.value) == "Error(s) in loading state_dict for M:\n\tcustom complaint"
    assert seen == [dst]


def test_public_load_pre_hook_gets_the_module():
    src, dst = _pair(ember)(), _pair(ember)()
    seen = []
    dst.register_load_state_dict_pre_hook(
        lambda mod, sd, prefix, md, strict, missing, unexpected, errors: seen.append((mod, strict)))
    dst.load_state_dict(src.state_dict(), strict=False)
    assert seen == [(dst, True)]


@pytest.mark.parametrize("lib", [ember, torch], ids=["ember", "torch"])
def test_load_post_hook_clearing_keys_suppresses_the_strict_error(lib):
    src, dst = _pair(lib)(), _pair(lib)()
    got = []

    def hook(mod, keys):
        got.append((list(keys.missing_keys), list(keys.unexpected_keys)))
        keys.missing_keys.clear()
        keys.unexpected_keys.clear()

    dst.register_load_state_dict_post_hook(hook)
    sd = src.state_dict()
    del sd["b"]
    sd["zz"] = lib.ones(1)
    assert str(dst.load_state_dict(sd)) == "<All keys matched successfully>"
    assert got == [(["b"], ["zz"])]


@pytest.mark.parametrize("lib", [ember, torch], ids=["ember", "torch"])
def test_load_post_hook_returning_a_value_is_an_assertion_error(lib):
    src, dst = _pair(lib)(), _pair(lib)()
    dst.lin.register_load_state_dict_post_hook(lambda mod, keys: 5)
    with pytest.raises(AssertionError) as info:
        dst.load_state_dict(src.state_dict())
    assert str(info.value).startswith(
        "Hooks registered with ``register_load_state_dict_post_hook`` are notexpected")


def test_hooks_fire_inside_a_tree_built_in_cpp():
    model = ember.vision.models.resnet18()
    conv = model.layer1[0].conv1
    log = []
    conv._register_state_dict_hook(lambda mod, sd, prefix, md: log.append(prefix))
    conv.register_load_state_dict_post_hook(lambda mod, keys: log.append("loaded"))
    del conv  # the hooks stay with the module that C++ holds
    sd = model.state_dict()
    model.load_state_dict(sd)
    assert log == ["layer1.0.conv1.", "loaded"]


def _extra_state_class(lib):
    class E(lib.nn.Module):
        _version = 7

        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(1, 1)
            self.state = {"count": 3, "name": "x"}

        def get_extra_state(self):
            return self.state

        def set_extra_state(self, state):
            self.state = state

    return E


@pytest.mark.parametrize("lib", [ember, torch], ids=["ember", "torch"])
def test_extra_state_round_trip_and_version(lib):
    E = _extra_state_class(lib)
    e = E()
    sd = e.state_dict()
    assert list(sd) == ["_extra_state", "lin.weight", "lin.bias"]
    assert sd["_extra_state"] is e.state  # the object itself
    assert dict(sd._metadata) == {"": {"version": 7}, "lin": {"version": 1}}
    e2 = E()
    e2.state = None
    assert str(e2.load_state_dict(sd)) == "<All keys matched successfully>"
    assert e2.state == {"count": 3, "name": "x"}
    del sd["_extra_state"]
    with pytest.raises(RuntimeError) as info:
        e2.load_state_dict(sd)
    assert 'Missing key(s) in state_dict: "_extra_state". ' in str(info.value)


def test_extra_state_survives_save_and_load(tmp_path):
    E = _extra_state_class(ember)
    e = E()
    e.state = {"count": 11, "name": "saved"}
    path = tmp_path / "e.pt"
    ember.save(e.state_dict(), path)
    e2 = E()
    e2.load_state_dict(ember.load(path))
    assert e2.state == {"count": 11, "name": "saved"}


def test_extra_state_key_is_unexpected_without_set_extra_state():
    M = _pair(ember)
    sd = M().state_dict()
    sd["_extra_state"] = 1
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "_extra_state"'):
        M().load_state_dict(sd)


def test_base_extra_state_methods_raise():
    with pytest.raises(RuntimeError, match="Module.get_extra_state"):
        ember.nn.Module().get_extra_state()
    with pytest.raises(RuntimeError, match="Module.set_extra_state"):
        ember.nn.Module().set_extra_state(1)


@pytest.mark.parametrize("lib", [ember, torch], ids=["ember", "torch"])
def test_version_of_subclasses(lib):
    class BN(lib.nn.BatchNorm2d):
        pass

    class BN5(lib.nn.BatchNorm2d):
        _version = 5

    assert lib.nn.Module._version == 1
    assert BN(3).state_dict()._metadata[""] == {"version": 2}
    assert BN5(3).state_dict()._metadata[""] == {"version": 5}


def test_positional_state_dict_arguments_warn():
    m = _pair(ember)()
    dest = OrderedDict()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = m.state_dict(dest, "p.")
    assert out is dest and list(dest) == ["p.b", "p.lin.weight", "p.lin.bias"]
    assert [x.category for x in w] == [FutureWarning]
    assert str(w[0].message).startswith("Positional args are being deprecated, use kwargs instead.")


def test_hook_dicts_travel_with_deepcopy():
    m = _pair(ember)()
    log = []
    m.lin._register_state_dict_hook(lambda mod, sd, prefix, md: log.append(prefix))
    c = copy.deepcopy(m)
    c.state_dict()
    assert log == ["lin."]
    assert isinstance(c.lin._state_dict_hooks, OrderedDict) and len(c.lin._state_dict_hooks) == 1


def test_named_members():
    m = _pair(ember)()
    names = [n for n, _ in m._named_members(lambda mod: mod._parameters.items())]
    assert names == ["lin.weight", "lin.bias"]
    assert pickle.loads(pickle.dumps(ember.nn.Module.dump_patches)) is False


@pytest.mark.parametrize("lib", [ember, torch], ids=["ember", "torch"])
def test_a_childs_returned_state_dict_is_dropped(lib):
    m = _pair(lib)()
    m.lin._register_state_dict_hook(lambda mod, sd, prefix, md: OrderedDict(x=1))
    assert list(m.state_dict()) == ["b", "lin.weight", "lin.bias"]
    assert list(m.lin.state_dict()) == ["x"]
