"""prepare / convert / quantize_dynamic / swap_module against torch 1.13's eager workflow: where
observers go (names and classes), what convert makes (types, reprs, state_dict keys and values),
hooks that fire when a C++ parent calls its child, custom classes in `mapping=`."""
import collections

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.ao.quantization as tq  # noqa: E402

import ember  # noqa: E402
import ember.ao.quantization as eq  # noqa: E402


@pytest.fixture(autouse=True)
def qnnpack():
    old_t, old_e = torch.backends.quantized.engine, ember.backends.quantized.engine
    torch.backends.quantized.engine = "qnnpack"
    ember.backends.quantized.engine = "qnnpack"
    yield
    torch.backends.quantized.engine = old_t
    ember.backends.quantized.engine = old_e


def build(lib, stubs):
    """The same small network in torch or ember: stubs, conv-bn-relu, a residual FloatFunctional,
    dropout, a nested Sequential with a Linear."""
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = stubs.QuantStub()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.relu = nn.ReLU()
            self.skip = nn.quantized.FloatFunctional()
            self.drop = nn.Dropout(0.5)
            self.head = nn.Sequential(nn.Flatten(), nn.Linear(4 * 6 * 6, 5), nn.ReLU6())
            self.dequant = stubs.DeQuantStub()

        def forward(self, x):
            x = self.quant(x)
            y = self.relu(self.bn(self.conv(x)))
            y = self.skip.add(y, y)
            y = self.drop(y)
            return self.dequant(self.head(y))

    return Net()


def copy_weights(tmodel, emodel):
    sd = collections.OrderedDict(
        (k, ember.from_numpy(v.detach().numpy().copy())) for k, v in tmodel.state_dict().items())
    emodel.load_state_dict(sd)


def observer_names(model):
    return [(n, type(m).__name__) for n, m in model.named_modules()
            if n.endswith("activation_post_process") and type(m).__name__ != "Identity"]


@pytest.fixture
def pair():
    torch.manual_seed(0)
    tmodel = build(torch, tq).eval()
    emodel = build(ember, eq).eval()
    copy_weights(tmodel, emodel)
    return tmodel, emodel


def same_data(n=3, seed=0):
    rng = np.random.default_rng(seed)
    xs = [rng.standard_normal((2, 3, 6, 6)).astype(np.float32) for _ in range(n)]
    return [torch.from_numpy(x) for x in xs], [ember.from_numpy(x.copy()) for x in xs]


def prepared_pair(pair):
    tmodel, emodel = pair
    tmodel.qconfig = tq.QConfig(activation=tq.default_observer, weight=tq.default_weight_observer)
    emodel.qconfig = eq.QConfig(activation=eq.default_observer, weight=eq.default_weight_observer)
    tp, ep = tq.prepare(tmodel), eq.prepare(emodel)
    txs, exs = same_data()
    with torch.no_grad():
        for tx, ex in zip(txs, exs):
            tp(tx)
            ep(ex)
    return tp, ep


def test_prepare_puts_observers_where_torch_does(pair):
    tp, ep = prepared_pair(pair)
    assert observer_names(ep) == observer_names(tp)
    # prepare made a copy: the original has no observer.
    assert observer_names(pair[1]) == []
    assert {n for n, _ in observer_names(tp)} >= {"quant.activation_post_process",
                                                  "conv.activation_post_process",
                                                  "skip.activation_post_process",
                                                  "head.1.activation_post_process"}


def test_calibration_records_the_same_ranges(pair):
    tp, ep = prepared_pair(pair)
    tobs = dict(tp.named_modules())
    for name, _ in observer_names(tp):
        t, e = tobs[name], dict(ep.named_modules())[name]
        assert float(e.min_val) == float(t.min_val), name
        assert float(e.max_val) == float(t.max_val), name


def test_convert_matches_torch(pair):
    tp, ep = prepared_pair(pair)
    tq_, eq_ = tq.convert(tp), eq.convert(ep)
    assert repr(eq_) == repr(tq_).replace("torch.", "ember.")
    tsd, esd = tq_.state_dict(), eq_.state_dict()
    assert list(esd) == list(tsd)
    for k in tsd:
        t, e = tsd[k], esd[k]
        if isinstance(t, torch.Tensor) and t.is_quantized:
            assert np.array_equal(e.int_repr().numpy(), t.int_repr().numpy()), k
        elif isinstance(t, torch.Tensor):
            assert np.array_equal(e.detach().numpy(), t.detach().numpy()), k
    tx, ex = same_data(1, seed=5)
    with torch.no_grad():
        assert np.array_equal(eq_(ex[0]).numpy(), tq_(tx[0]).numpy())
    # convert removed qconfigs, observers and observer hooks everywhere.
    assert all(not hasattr(m, "qconfig") for m in eq_.modules())
    assert observer_names(eq_) == []


def test_prepare_inplace_and_propagation(pair):
    _, emodel = pair
    emodel.qconfig = eq.default_qconfig
    emodel.head.qconfig = None  # a None qconfig leaves the subtree float
    out = eq.prepare(emodel, inplace=True)
    assert out is emodel
    assert emodel.conv.qconfig is eq.default_qconfig
    assert emodel.head[1].qconfig is None
    assert not hasattr(emodel.head[1], "activation_post_process")
    assert hasattr(emodel.conv, "activation_post_process")


def test_prepare_warns_without_qconfig(pair):
    with pytest.warns(UserWarning, match="None of the submodule got qconfig applied"):
        eq.prepare(pair[1])


def test_observers_fire_when_a_cpp_parent_calls_the_child():
    # ember.nn.Sequential is C++: its forward calls its children without Python.
    seq = ember.nn.Sequential(ember.nn.Conv2d(3, 4, 3), ember.nn.ReLU6(),
                              ember.nn.Sequential(ember.nn.Flatten(), ember.nn.Linear(16, 2)))
    seq.eval()
    seq.qconfig = eq.default_qconfig
    prepared = eq.prepare(seq)
    x = ember.rand(1, 3, 4, 4)
    prepared(x)
    conv_out = prepared[0](x)  # called from Python: the observer sees it again (same values)
    assert float(prepared[0].activation_post_process.min_val) == float(conv_out.min())
    assert float(prepared[0].activation_post_process.max_val) == float(conv_out.max())
    lin = prepared[2][1].activation_post_process
    assert float(lin.min_val) <= float(lin.max_val)  # the nested Linear observed its output


def test_conv_bn_fast_path_only_without_hooks():
    torch.manual_seed(1)
    conv, bn = ember.nn.Conv2d(3, 4, 3), ember.nn.BatchNorm2d(4)
    bn.running_mean.copy_(ember.rand(4))
    bn.running_var.copy_(ember.rand(4) + 0.5)
    seq = ember.nn.Sequential(conv, bn).eval()
    x = ember.rand(2, 3, 6, 6)
    plain = bn(conv(x))
    seq(x)  # the fused fast path (no hook anywhere)
    conv.qconfig = eq.default_qconfig
    eq.prepare(seq, inplace=True)
    out = seq(x)
    # The conv's observer ran, so the conv ran by itself (no fusion) and saw its own output.
    obs = conv.activation_post_process
    raw = ember.nn.functional.conv2d(x, conv.weight, conv.bias)
    assert float(obs.min_val) == float(raw.min())
    assert float(obs.max_val) == float(raw.max())
    assert np.array_equal(out.detach().numpy(), plain.detach().numpy())


def test_observer_hook_runs_before_user_hooks_and_user_hooks_survive_convert(pair):
    _, emodel = pair
    seen = []
    emodel.conv.register_forward_hook(lambda m, i, o: seen.append(m._get_name()))
    emodel.qconfig = eq.QConfig(activation=eq.default_observer, weight=eq.default_weight_observer)
    ep = eq.prepare(emodel)
    ep(same_data(1)[1][0])
    eq.convert(ep, inplace=True)
    ep(same_data(1)[1][0])
    assert seen == ["Conv2d", "QuantizedConv2d"]


class UserFloat(ember.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = ember.nn.Parameter(ember.ones(1))

    def forward(self, x):
        return x * self.w


class UserQuantized(ember.nn.Module):
    def __init__(self, scale, zero_point):
        super().__init__()
        self.scale, self.zero_point = scale, zero_point

    def forward(self, x):
        return x

    @classmethod
    def from_float(cls, mod):
        s, z = mod.activation_post_process.calculate_qparams()
        return cls(float(s), int(z))


def test_custom_python_classes_in_mapping_and_allow_list():
    model = ember.nn.Sequential(UserFloat(), ember.nn.Linear(2, 2))
    model.qconfig = eq.default_qconfig
    prepared = eq.prepare(model, allow_list={UserFloat})
    assert hasattr(prepared[0], "activation_post_process")
    assert not hasattr(prepared[1], "activation_post_process")
    prepared(ember.tensor([[1.0, 3.0]]))
    mapping = {UserFloat: UserQuantized}
    converted = eq.convert(prepared, mapping=mapping)
    assert type(converted[0]) is UserQuantized
    assert type(converted[1]) is ember.nn.Linear  # not in this mapping
    obs = tq.default_observer()
    obs(torch.tensor([[1.0, 3.0]]))
    ts, tz = obs.calculate_qparams()
    assert converted[0].scale == float(ts) and converted[0].zero_point == int(tz)


def test_quantize_dynamic_linear_matches_torch():
    torch.manual_seed(0)
    tmodel = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    emodel = ember.nn.Sequential(ember.nn.Linear(4, 3), ember.nn.ReLU(), ember.nn.Linear(3, 2))
    copy_weights(tmodel, emodel)
    tqm = tq.quantize_dynamic(tmodel, {torch.nn.Linear}, dtype=torch.qint8)
    eqm = eq.quantize_dynamic(emodel, {ember.nn.Linear}, dtype=ember.qint8)
    assert repr(eqm) == repr(tqm).replace("torch.", "ember.")
    x = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)
    assert np.array_equal(eqm(ember.from_numpy(x)).numpy(),
                          tqm(torch.from_numpy(x)).detach().numpy())
    # by name: only "2"
    eqm2 = eq.quantize_dynamic(emodel, {"2"}, dtype=ember.qint8)
    assert type(eqm2[0]) is ember.nn.Linear
    assert type(eqm2[2]).__name__ == "Linear" and "Dynamic" in eqm2[2]._get_name()


def test_swap_module_and_mappings_tables():
    assert eq.get_default_static_quant_module_mappings()[ember.nn.Conv2d] \
        is ember.ao.nn.quantized.Conv2d
    assert ember.nn.Sequential in eq.get_default_qconfig_propagation_list()
    assert ember.nn.ReLU not in eq.get_default_qconfig_propagation_list()
    lin = ember.nn.Linear(2, 2)
    assert eq.swap_module(lin, eq.get_default_static_quant_module_mappings(), {}) is lin


def test_from_float_assertion_texts():
    import ember.ao.nn.quantized as nnq
    import torch.ao.nn.quantized as tnnq
    lin = ember.nn.Linear(2, 2)
    lin.qconfig = eq.default_qconfig
    with pytest.raises(AssertionError) as e:
        nnq.Conv2d.from_float(lin)
    tlin = torch.nn.Linear(2, 2)
    tlin.qconfig = tq.default_qconfig
    with pytest.raises(AssertionError) as t:
        tnnq.Conv2d.from_float(tlin)
    # The same text, with ember's class for torch's ("<class 'torch.nn.modules.linear.Linear'>").
    assert str(e.value) == str(t.value).replace(str(type(tlin)), str(type(lin)))
    conv = ember.nn.Conv2d(1, 1, 1)
    with pytest.raises(AssertionError, match="Input float module must have qconfig defined."):
        nnq.Conv2d.from_float(conv)
    with pytest.raises(AssertionError,
                       match="QFunctional.from_float expects an instance of FloatFunctional"):
        nnq.QFunctional.from_float(lin)


def test_prepare_qat_requires_training_mode(pair):
    _, emodel = pair
    emodel.eval()
    emodel.qconfig = eq.get_default_qat_qconfig("qnnpack")
    with pytest.raises(AssertionError, match="prepare_qat only works on models in training mode"):
        eq.prepare_qat(emodel)


def test_is_reference_is_refused(pair):
    tp, ep = prepared_pair(pair)
    with pytest.raises(ValueError, match="is_reference"):
        eq.convert(ep, mapping={}, is_reference=True)


class FloatCustom(ember.nn.Module):
    def forward(self, x):
        return x + 1


class ObservedCustom(ember.nn.Module):
    made = []

    def forward(self, x):
        return x + 1

    @classmethod
    def from_float(cls, mod):
        cls.made.append(type(mod))
        observed = cls()
        observed.qconfig = mod.qconfig  # as torch's observed custom modules do
        return observed


class QuantizedCustom(ember.nn.Module):
    @classmethod
    def from_observed(cls, mod):
        assert hasattr(mod, "activation_post_process")
        return cls()


def test_custom_module_config_dicts():
    model = ember.nn.Sequential(FloatCustom(), ember.nn.Linear(2, 2))
    model.qconfig = eq.default_qconfig
    prepared = eq.prepare(model, prepare_custom_config_dict={
        "float_to_observed_custom_module_class": {FloatCustom: ObservedCustom}})
    assert type(prepared[0]) is ObservedCustom and ObservedCustom.made == [FloatCustom]
    assert hasattr(prepared[0], "activation_post_process")
    prepared(ember.rand(3, 2))
    converted = eq.convert(prepared, convert_custom_config_dict={
        "observed_to_quantized_custom_module_class": {ObservedCustom: QuantizedCustom}})
    assert type(converted[0]) is QuantizedCustom
    assert type(converted[1]).__module__.startswith("ember.ao.nn.quantized")


def test_quantize_one_call_and_observer_dict(pair):
    tmodel, emodel = pair
    emodel.qconfig = eq.QConfig(activation=eq.default_observer, weight=eq.default_weight_observer)
    tmodel.qconfig = tq.QConfig(activation=tq.default_observer, weight=tq.default_weight_observer)
    txs, exs = same_data()

    def ecal(m, xs):
        for x in xs:
            m(x)

    def tcal(m, xs):
        with torch.no_grad():
            for x in xs:
                m(x)

    eqm = eq.quantize(emodel, ecal, [exs])
    tqm = tq.quantize(tmodel, tcal, [txs])
    assert repr(eqm) == repr(tqm).replace("torch.", "ember.")
    assert not hasattr(emodel.conv, "activation_post_process")  # quantize copied the model
    prepared = eq.prepare(emodel)
    d = {}
    eq.get_observer_dict(prepared, d)
    assert "conv.activation_post_process" in d and "quant.activation_post_process" in d


def test_add_quant_dequant_wraps_leaves():
    model = ember.nn.Sequential(ember.nn.Linear(2, 2), ember.nn.ReLU())
    model[0].qconfig = eq.default_qconfig
    out = eq.add_quant_dequant(model)
    assert out is model
    assert type(model[0]).__name__ == "QuantWrapper"
    assert type(model[1]) is ember.nn.ReLU
    leaf = ember.nn.Linear(2, 2)
    leaf.qconfig = eq.default_qconfig
    assert type(eq.add_quant_dequant(leaf)).__name__ == "QuantWrapper"
