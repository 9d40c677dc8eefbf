"""ember.optim.swa_utils (torch.optim.swa_utils of torch 1.13): stochastic weight averaging.

AveragedModel keeps a running average of a model's parameters (and, with use_buffers, of its
buffers); SWALR anneals each group's learning rate to a fixed SWA rate; update_bn recomputes the
batch-norm statistics of the averaged model from data. PyTorch writes them in Python over its
modules and schedulers, and so does ember, over its C++ modules and optimizers.

SWALR follows torch's _LRScheduler protocol (step, get_last_lr, get_lr, state_dict,
load_state_dict, last_epoch, base_lrs, _step_count, the "step before optimizer.step()"
warning). ember's LRScheduler base is C++ and cannot be subclassed from Python, so SWALR is not
an instance of it.
"""
import itertools
import math
import warnings
from copy import deepcopy

import ember
from ..nn import Module
from .._C import _nn as _cnn

__all__ = ["AveragedModel", "update_bn", "SWALR"]


def _default_avg_fn(averaged_param, model_param, num_averaged):
    return averaged_param + (model_param - averaged_param) / (num_averaged + 1)


class AveragedModel(Module):
    """A copy of `model` whose parameters are the average of those given to
    update_parameters(): the equal-weight running mean by default, or
    avg_fn(averaged, current, num_averaged). With use_buffers=True the buffers are averaged
    too (otherwise they are the copy's own, e.g. to be recomputed by update_bn)."""

    def __init__(self, model, device=None, avg_fn=None, use_buffers=False):
        super().__init__()
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", ember.tensor(0, dtype=ember.long, device=device))
        self.avg_fn = _default_avg_fn if avg_fn is None else avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        if self.use_buffers:
            mine = itertools.chain(self.module.parameters(), self.module.buffers())
            theirs = itertools.chain(model.parameters(), model.buffers())
        else:
            mine, theirs = self.parameters(), model.parameters()
        first = bool(self.n_averaged == 0)
        for p_avg, p_model in zip(mine, theirs):
            device = p_avg.device
            current = p_model.detach().to(device)
            if first:
                p_avg.detach().copy_(current)
            else:
                p_avg.detach().copy_(self.avg_fn(p_avg.detach(), current,
                                                 self.n_averaged.to(device)))
        self.n_averaged += 1


def update_bn(loader, model, device=None):
    """Recomputes the running statistics of every batch-norm layer of `model` with one pass
    over `loader` (the first element of a list / tuple batch is the input), as a cumulative
    average; the layers' momenta and the model's training mode are restored afterwards."""
    with ember.no_grad():
        momenta = {}
        for module in model.modules():
            if isinstance(module, _cnn._BatchNorm):
                module.running_mean = ember.zeros_like(module.running_mean)
                module.running_var = ember.ones_like(module.running_var)
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
            module.num_batches_tracked *= 0
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
        for module, momentum in momenta.items():
            module.momentum = momentum
        model.train(was_training)


_STEP_ORDER_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and "
    "later, you should call them in the opposite order: `optimizer.step()` before "
    "`lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first value "
    "of the learning rate schedule. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")

_EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where "
    "possible. Please use `scheduler.step()` to step the scheduler. During the deprecation, if "
    "epoch is different from None, the closed form is used instead of the new chainable form, "
    "where available. Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose.")


class SWALR:
    """Anneals each group's learning rate from its current value to swa_lr over
    anneal_epochs steps ("cos" or "linear"), then keeps swa_lr."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        if not isinstance(optimizer, ember.optim.Optimizer):
            raise TypeError("{} is not an Optimizer".format(type(optimizer).__name__))
        swa_lrs = self._format_param(optimizer, swa_lr)
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must by one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        if last_epoch != -1:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError("param 'initial_lr' is not specified in param_groups[{}] when "
                                   "resuming an optimizer".format(i))
        for lr, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = lr
        self.anneal_func = (self._cosine_anneal if anneal_strategy == "cos"
                            else self._linear_anneal)
        self.anneal_epochs = anneal_epochs
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self.verbose = False
        optimizer._step_count = 0
        self._step_count = 0
        self.step()

    @staticmethod
    def _format_param(optimizer, swa_lrs):
        if isinstance(swa_lrs, (list, tuple)):
            if len(swa_lrs) != len(optimizer.param_groups):
                raise ValueError("swa_lr must have the same length as optimizer.param_groups: "
                                 f"swa_lr has {len(swa_lrs)}, optimizer.param_groups has "
                                 f"{len(optimizer.param_groups)}")
            return swa_lrs
        return [swa_lrs] * len(optimizer.param_groups)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        # The rate before annealing, recovered from the current one (the chainable form).
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def step(self, epoch=None):
        if self._step_count == 1 and self.optimizer._step_count < 1:
            warnings.warn(_STEP_ORDER_WARNING, UserWarning)
        self._step_count += 1
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
            else:
                warnings.warn(_EPOCH_DEPRECATION_WARNING, UserWarning)
                self.last_epoch = epoch
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def get_last_lr(self):
        return self._last_lr

    def state_dict(self):
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
