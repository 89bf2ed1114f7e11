"""Seed 003 ("What (and why) is __torch_dispatch__"): its runnable examples, with the
indentation the page lost restored. The `sin` overloads written as `Tensor[requires_grad=...]`,
`FlopTensor(Tensor)` and `ProxyTensor` annotations are labelled pseudocode by the page itself
and are not Python; the QuantTensor snippet is a fragment of a handler (it names a
`dequantize` it never defines)."""

from .harness import assert_same

DEVICE_DISPATCH = '''
import torch

def sin(x: Tensor):
    if x.device == 'cuda':
        return sin_cuda(x)
    else:
        return sin_cpu(x)
'''

# The names the pseudocode assumes: Tensor and one kernel per device.
DEVICE_DISPATCH_PRELUDE = '''
import torch
from torch import Tensor

def sin_cpu(x):
    print("sin_cpu on", x.device)
    return torch.sin(x)

def sin_cuda(x):
    print("sin_cuda on", x.device)
    return torch.sin(x)
'''

DEVICE_DISPATCH_DRIVER = '''
print(sin(torch.tensor([0.0, 1.0])))
print(sin(torch.ones(2, device="meta")))
'''


def test_device_dispatch_by_hand():
    assert_same(DEVICE_DISPATCH_PRELUDE + DEVICE_DISPATCH + DEVICE_DISPATCH_DRIVER)


FOO_TENSOR = '''
import torch
from torch import Tensor
from torch.utils._pytree import tree_map

class FooTensor(torch.Tensor):
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        # First, we must unwrap the wrapper tensors to get the inner tensor object
        def unwrap(x):
            return x.elem if isinstance(x, FooTensor) else x
        args = tree_map(unwrap, args)
        kwargs = tree_map(unwrap, kwargs)
        # Now, we check the function to determine how to handle it. If it's
        # aten.add, then we call aten.sub. Otherwise, we pass through to
        # the original function
        if func == torch.ops.aten.add:
            out = torch.ops.aten.sub(*args, **kwargs)
        else:
            out = func(*args, **kwargs)
        # Now, we want to continue propagating this tensor, so we rewrap Tensors in
        # our custom tensor subclass
        def wrap(x):
            return FooTensor(x) if isinstance(x, Tensor) else x
        return tree_map(wrap, out)
'''

# As written, a FooTensor never gets an `elem`: the handler fails on its first unwrap
# (a plain method, bound to the tensor argument it was looked up on).
FOO_AS_WRITTEN = '''
x = FooTensor(torch.tensor([1.0, 2.0]))
print(type(x).__name__, x.shape, x.dtype)
y = x + x
'''

# Giving it an `elem`: `func == torch.ops.aten.add` compares an overload with the packet,
# which is never equal, so add stays add; outputs are wrapped again.
FOO_WITH_ELEM = '''
x = FooTensor(torch.tensor([1.0, 2.0]))
x.elem = torch.tensor([10.0, 20.0])
y = x + x
print(type(y).__name__, y.shape, hasattr(y, "elem"))
print(torch.ops.aten.add.Tensor == torch.ops.aten.add, torch.ops.aten.sub(torch.ones(2), torch.ones(2), alpha=2))
'''


def test_foo_tensor_as_written():
    theirs = assert_same(FOO_TENSOR + FOO_AS_WRITTEN, expect_error=AttributeError)
    assert theirs.error == ("AttributeError", "'FooTensor' object has no attribute 'elem'")


def test_foo_tensor_with_an_elem():
    assert_same(FOO_TENSOR + FOO_WITH_ELEM)
