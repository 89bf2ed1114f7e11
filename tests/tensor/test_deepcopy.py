"""copy.deepcopy of tensors against torch: values and attributes copied, leaves only, the
subclass check, memory shared before shared after, and a mode seeing the call."""

import copy
import importlib

import torch

import torchpy

LIBS = (torch, torchpy)


def _facts(lib):
    out = []
    x = lib.tensor([1.0, 2.0])
    x.tag = [1]
    d = copy.deepcopy(x)
    d.add_(1)
    out.append((x.tolist(), d.tolist(), d.tag, d.tag is not x.tag, type(d).__name__))
    w = lib.tensor([1.0], requires_grad=True)
    w.grad = lib.tensor([5.0])
    dw = copy.deepcopy(w)
    out.append((dw.requires_grad, dw.grad.tolist(), dw.is_leaf, dw.grad is not w.grad))

    def error(fn):
        try:
            fn()
        except RuntimeError as e:
            return str(e)
        return None

    out.append(error(lambda: copy.deepcopy(w * 2)))
    out.append(error(lambda: copy.deepcopy(x.as_subclass(type("Sub", (lib.Tensor,), {})))))

    class Own(lib.Tensor):
        def new_empty(self, *args, **kwargs):
            return super().new_empty(*args, **kwargs).as_subclass(Own)

    own = copy.deepcopy(lib.tensor([3.0]).as_subclass(Own))
    out.append((type(own).__name__, own.tolist()))
    out.append(type(copy.deepcopy(lib.nn.Parameter(lib.tensor([1.0])))).__name__)
    base = lib.tensor([1.0, 2.0, 3.0])
    pair = copy.deepcopy([base, base[1:]])
    pair[0].add_(10)
    out.append((pair[1].tolist(), base.tolist()))
    overrides = importlib.import_module(lib.__name__ + ".overrides")
    seen = []

    class Recording(overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return func(*args, **(kwargs or {}))

    with Recording():
        copy.deepcopy(x)
    out.append(seen)
    return out


def test_deepcopy_as_torch():
    assert _facts(torchpy) == _facts(torch)
