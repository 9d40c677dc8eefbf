"""copy.copy, copy.deepcopy and pickle of optimizers and LR schedulers.

They reduce, as everything else, to "construct, then set the state": an optimizer to its class
called on its param_groups (the very parameter objects, so a deepcopy or pickle that also holds
the model maps them to the model's copies through the memo) with the other arguments its
constructor was given, then load_state_dict(state_dict()); a scheduler to its class called on its
optimizer with its own arguments, then its state_dict. Constructing a scheduler writes the
optimizer's learning rates (PyTorch's initial step); the rebuilt scheduler puts back the group
options the optimizer had, so the copy continues exactly where the original was.
"""
import sys
import weakref

from .. import _C

# optimizer / scheduler object -> (bound class whose __init__ ran, args, kwargs), without the
# params / optimizer argument, which come from the object itself when reduced.
_recipes = weakref.WeakKeyDictionary()


def _record_init(cls, first):
    orig = cls.__init__

    def __init__(self, *args, **kwargs):
        orig(self, *args, **kwargs)
        rest = dict(kwargs)
        rest.pop(first, None)
        _recipes[self] = (cls, args[1:], rest)

    __init__.__doc__ = orig.__doc__
    __init__.__wrapped__ = orig
    cls.__init__ = __init__


def _recipe(obj):
    recipe = _recipes.get(obj)
    if recipe is None:
        raise TypeError(f"cannot pickle '{type(obj).__name__}' object: it was not constructed "
                        "from Python")
    return recipe


def _rebuild_optimizer(base, groups, args, kwargs):
    opt = base.__new__(base)
    base.__init__.__wrapped__(opt, groups, *args, **kwargs)
    _recipes[opt] = (base, args, kwargs)
    return opt


def _optimizer_reduce_ex(self, proto):
    base, args, kwargs = _recipe(self)
    groups = [dict(g) for g in self.param_groups]
    return (_rebuild_optimizer, (base, groups, args, kwargs), self.state_dict())


def _optimizer_setstate(self, state):
    self.load_state_dict(state)


def _rebuild_scheduler(base, optimizer, args, kwargs):
    # The constructor's initial step rewrites the groups' options: keep the optimizer's.
    saved = [{k: v for k, v in g.items() if k != "params"} for g in optimizer.param_groups]
    sched = base.__new__(base)
    base.__init__.__wrapped__(sched, optimizer, *args, **kwargs)
    for group, options in zip(optimizer.param_groups, saved):
        for k, v in options.items():
            group[k] = v
    _recipes[sched] = (base, args, kwargs)
    return sched


def _scheduler_reduce_ex(self, proto):
    base, args, kwargs = _recipe(self)
    return (_rebuild_scheduler, (base, self.optimizer, args, kwargs), self.state_dict())


def _scheduler_setstate(self, state):
    self.load_state_dict(state)


def _install():
    optim = _C._optim
    for obj in list(vars(optim).values()):
        if not isinstance(obj, type) or "__init__" not in vars(obj):
            continue
        if issubclass(obj, optim.Optimizer) and obj is not optim.Optimizer:
            _record_init(obj, "params")
        elif issubclass(obj, optim.LRScheduler) and obj is not optim.LRScheduler:
            _record_init(obj, "optimizer")
    optim.Optimizer.__reduce_ex__ = _optimizer_reduce_ex
    optim.Optimizer.__setstate__ = _optimizer_setstate
    optim.LRScheduler.__reduce_ex__ = _scheduler_reduce_ex
    optim.LRScheduler.__setstate__ = _scheduler_setstate


_install()
sys.modules.setdefault(_C._optim.__name__, _C._optim)  # pickle names the classes by module
