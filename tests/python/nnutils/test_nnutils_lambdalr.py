"""LambdaLR.state_dict's lr_lambdas as torch 1.13's: None for a function, a copy of a callable
object's __dict__; load_state_dict updates the objects' state."""
import torch

import ember


class Factor:
    def __init__(self, a):
        self.a = a

    def __call__(self, epoch):
        return self.a * 0.5 ** epoch


def make(lib, lambdas):
    ws = [lib.zeros(1, requires_grad=True) for _ in lambdas]
    opt = lib.optim.SGD([{"params": [w]} for w in ws], lr=0.1)
    return lib.optim.lr_scheduler.LambdaLR(opt, lambdas)


def test_state_dict_matches_torch():
    ts = make(torch, [Factor(2), lambda e: 1.0])
    es = make(ember, [Factor(2), lambda e: 1.0])
    tsd, esd = ts.state_dict(), es.state_dict()
    assert list(esd) == list(tsd)
    assert esd["lr_lambdas"] == tsd["lr_lambdas"] == [{"a": 2}, None]
    single = make(ember, [lambda e: 1.0])
    assert single.state_dict()["lr_lambdas"] == [None]


def test_load_state_dict_restores_object_state():
    f = Factor(3)
    es = make(ember, [f])
    sd = es.state_dict()
    f.a = 7
    es.load_state_dict(sd)
    assert f.a == 3
    assert sd["lr_lambdas"] == [{"a": 3}]
