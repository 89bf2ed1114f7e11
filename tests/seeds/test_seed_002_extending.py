"""Seed 002 ("Extending PyTorch"): every example, run under torch 2.13 and under torchpy
with only the imports changed; what they print, raise and compute must agree."""

import pytest

from .harness import assert_same

LINEAR_FUNCTION = '''
import torch
from torch.autograd import Function

# Inherit from Function
class LinearFunction(Function):

    # Note that forward, setup_context, and backward are @staticmethods
    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    # inputs is a Tuple of all of the inputs passed to forward.
    # output is the output of the forward().
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)

    # This function has only a single output, so it gets only one gradient
    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None

        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)

        return grad_input, grad_weight, grad_bias
'''

LINEAR_WRAPPERS = '''
# Option 1: alias
linear = LinearFunction.apply

# Option 2: wrap in a function, to support default args and keyword args.
def linear(input, weight, bias=None):
    return LinearFunction.apply(input, weight, bias)
'''

# Exercises a definition-only example: forward, backward, gradients, grad_fn.
LINEAR_DRIVER = '''
x = torch.arange(6.0).view(2, 3).requires_grad_()
w = torch.tensor([[1.0, -1.0, 0.5], [0.0, 2.0, 1.0]], requires_grad=True)
b = torch.tensor([0.5, -0.5], requires_grad=True)
out = linear(x, w, b)
print(out)
out.sum().backward()
print(x.grad, w.grad, b.grad, sep="\\n")
print(linear(x.detach(), w.detach()))
'''


def test_linear_function_separate_setup_context():
    assert_same(LINEAR_FUNCTION + LINEAR_WRAPPERS + LINEAR_DRIVER)


MUL_CONSTANT = '''
import torch
from torch.autograd import Function

class MulConstant(Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        # ctx is a context object that can be used to stash information
        # for backward computation
        tensor, constant = inputs
        ctx.constant = constant

    @staticmethod
    def backward(ctx, grad_output):
        # We return as many input gradients as there were arguments.
        # Gradients of non-Tensor arguments to forward must be None.
        return grad_output * ctx.constant, None
'''

MUL_CONSTANT_NO_MATERIALIZE = '''
import torch
from torch.autograd import Function

class MulConstant(Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        tensor, constant = inputs
        ctx.set_materialize_grads(False)
        ctx.constant = constant

    @staticmethod
    def backward(ctx, grad_output):
        # Here we must handle None grad_output tensor. In this case we
        # can skip unnecessary computations and just return None.
        if grad_output is None:
            return None, None

        # We return as many input gradients as there were arguments.
        # Gradients of non-Tensor arguments to forward must be None.
        return grad_output * ctx.constant, None
'''

MUL_CONSTANT_DRIVER = '''
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = MulConstant.apply(a, 2.5)
print(y)
y.sum().backward()
print(a.grad)
'''


@pytest.mark.parametrize("example", [MUL_CONSTANT, MUL_CONSTANT_NO_MATERIALIZE], ids=["materialize", "no_materialize"])
def test_mul_constant(example):
    assert_same(example + MUL_CONSTANT_DRIVER)


MY_CUBE = '''
import torch

class MyCube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        # We wish to save dx for backward. In order to do so, it must
        # be returned as an output.
        dx = 3 * x ** 2
        result = x ** 3
        return result, dx

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        # In order for the autograd.Function to work with higher-order
        # gradients, we must add the gradient contribution of `dx`,
        # which is grad_dx * 6 * x.
        result = grad_output * dx + grad_dx * 6 * x
        return result

# Wrap MyCube in a function so that it is clearer what the output is
def my_cube(x):
    result, dx = MyCube.apply(x)
    return result
'''

MY_CUBE_DRIVER = '''
x = torch.tensor([1.0, 2.0, -3.0], requires_grad=True)
y = my_cube(x)
print(y)
(grad,) = torch.autograd.grad(y.sum(), x, create_graph=True)
print(grad)
(second,) = torch.autograd.grad(grad.sum(), x)
print(second)
'''


def test_my_cube_first_and_second_derivatives():
    assert_same(MY_CUBE + MY_CUBE_DRIVER)


GRADCHECK = '''
from torch.autograd import gradcheck

# gradcheck takes a tuple of tensors as input, check if your gradient
# evaluated with these tensors are close enough to numerical
# approximations and returns True if they all verify this condition.
input = (torch.randn(20,20,dtype=torch.double,requires_grad=True), torch.randn(30,20,dtype=torch.double,requires_grad=True))
test = gradcheck(linear, input, eps=1e-6, atol=1e-4)
print(test)
'''


def test_gradcheck_of_linear():
    assert_same(LINEAR_FUNCTION + LINEAR_WRAPPERS + GRADCHECK, seed=0)


LINEAR_COMBINED = '''
import torch
from torch.autograd import Function

class LinearFunction(Function):
    @staticmethod
    # ctx is the first argument to forward
    def forward(ctx, input, weight, bias=None):
        # The forward pass can use ctx.
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None

        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)

        return grad_input, grad_weight, grad_bias
'''


def test_linear_function_combined_forward_and_context():
    assert_same(LINEAR_COMBINED + LINEAR_WRAPPERS + LINEAR_DRIVER)


LINEAR_MODULE = '''
import torch
import torch.nn as nn

class Linear(nn.Module):
    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.input_features = input_features
        self.output_features = output_features

        # nn.Parameter is a special kind of Tensor, that will get
        # automatically registered as Module's parameter once it's assigned
        # as an attribute. Parameters and buffers need to be registered, or
        # they won't appear in .parameters() (doesn't apply to buffers), and
        # won't be converted when e.g. .cuda() is called. You can use
        # .register_buffer() to register buffers.
        # nn.Parameters require gradients by default.
        self.weight = nn.Parameter(torch.empty(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(torch.empty(output_features))
        else:
            # You should always register all possible parameters, but the
            # optional ones can be None if you want.
            self.register_parameter('bias', None)

        # Not a very smart way to initialize weights
        nn.init.uniform_(self.weight, -0.1, 0.1)
        if self.bias is not None:
            nn.init.uniform_(self.bias, -0.1, 0.1)

    def forward(self, input):
        # See the autograd section for explanation of what happens here.
        return LinearFunction.apply(input, self.weight, self.bias)

    def extra_repr(self):
        # (Optional)Set the extra information about this module. You can test
        # it by printing an object of this class.
        return 'input_features={}, output_features={}, bias={}'.format(
            self.input_features, self.output_features, self.bias is not None
        )
'''

LINEAR_MODULE_DRIVER = '''
module = Linear(3, 2)
print(module)
print([name for name, _ in module.named_parameters()])
out = module(torch.ones(4, 3))
out.sum().backward()
print(out, module.weight.grad, module.bias.grad, sep="\\n")
print(Linear(3, 2, bias=False))
'''


def test_linear_module():
    assert_same(LINEAR_FUNCTION + LINEAR_MODULE + LINEAR_MODULE_DRIVER, seed=0)


SCALAR_TENSOR_PLAIN = '''
import torch

class ScalarTensor(object):
   def __init__(self, N, value):
       self._N = N
       self._value = value

   def __repr__(self):
       return "ScalarTensor(N={}, value={})".format(self._N, self._value)

   def tensor(self):
       return self._value * torch.eye(self._N)

d = ScalarTensor(5, 2)
print(repr(d))
print(repr(d.tensor()))
torch.mean(d)
'''


def test_scalar_tensor_without_torch_function():
    assert_same(SCALAR_TENSOR_PLAIN, expect_error=TypeError)


SCALAR_TENSOR = '''
import torch
import functools

HANDLED_FUNCTIONS = {}
class ScalarTensor(object):
    def __init__(self, N, value):
        self._N = N
        self._value = value

    def __repr__(self):
        return "ScalarTensor(N={}, value={})".format(self._N, self._value)

    def tensor(self):
        return self._value * torch.eye(self._N)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        if func not in HANDLED_FUNCTIONS or not all(
            issubclass(t, (torch.Tensor, ScalarTensor))
            for t in types
        ):
            return NotImplemented
        return HANDLED_FUNCTIONS[func](*args, **kwargs)

def implements(torch_function):
    """Register a torch function override for ScalarTensor"""
    def decorator(func):
        functools.update_wrapper(func, torch_function)
        HANDLED_FUNCTIONS[torch_function] = func
        return func
    return decorator

@implements(torch.mean)
def mean(input):
    return float(input._value) / input._N

def ensure_tensor(data):
    if isinstance(data, ScalarTensor):
        return data.tensor()
    return torch.as_tensor(data)

@implements(torch.add)
def add(input, other):
   try:
       if input._N == other._N:
           return ScalarTensor(input._N, input._value + other._value)
       else:
           raise ValueError("Shape mismatch!")
   except AttributeError:
       return torch.add(ensure_tensor(input), ensure_tensor(other))

d = ScalarTensor(5, 2)
print(torch.mean(d))
s = ScalarTensor(2, 2)
print(repr(torch.add(s, s)))
t = torch.tensor([[1, 1,], [1, 1]])
print(repr(torch.add(s, t)))
'''


@pytest.mark.parametrize("tail", ["", "torch.add(s, s, alpha=2)\n", "torch.mul(s, 3)\n"],
                         ids=["handled", "alpha_not_accepted", "mul_not_handled"])
def test_scalar_tensor_with_torch_function(tail):
    assert_same(SCALAR_TENSOR + tail, expect_error=TypeError if tail else None)


SCALAR_TENSOR_FALLBACK = '''
@classmethod
def __torch_function__(cls, func, types, args=(), kwargs=None):
    if kwargs is None:
        kwargs = {}
    if func not in HANDLED_FUNCTIONS or not all(
            issubclass(t, (torch.Tensor, ScalarTensor))
            for t in types
        ):
        args = [a.tensor() if hasattr(a, 'tensor') else a for a in args]
        return func(*args, **kwargs)
    return HANDLED_FUNCTIONS[func](*args, **kwargs)

ScalarTensor.__torch_function__ = __torch_function__
s = ScalarTensor(2, 2)
print(repr(torch.mul(s, s)))
'''


def test_scalar_tensor_falling_back_to_tensors():
    assert_same(SCALAR_TENSOR + SCALAR_TENSOR_FALLBACK)


SUBCLASSES = '''
import torch

class SubTensor(torch.Tensor):
    pass
class SubTensor2(SubTensor):
    pass
class OtherSubTensor(torch.Tensor):
    pass

print(type(torch.add(SubTensor([0]), SubTensor([1]))).__name__)
print(type(torch.add(SubTensor([0]), torch.tensor([1]))).__name__)
print(type(torch.add(SubTensor2([0]), SubTensor([1]))).__name__)
print(type(torch.add(SubTensor2([0]), torch.tensor([1]))).__name__)
torch.add(SubTensor([0]), OtherSubTensor([1]))
'''


def test_subclasses_propagate_through_torch_functions():
    assert_same(SUBCLASSES, expect_error=TypeError)


LOGGING_TENSOR = '''
import logging
import torch

class LoggingTensor(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        # NOTE: Logging calls Tensor.__repr__, so we can't log __repr__ without infinite recursion
        if func is not torch.Tensor.__repr__:
            logging.info(f"func: {func.__name__}, args: {args!r}, kwargs: {kwargs!r}")
        if kwargs is None:
            kwargs = {}
        return super().__torch_function__(func, types, args, kwargs)
'''

LOGGING_TENSOR_DRIVER = '''
class _Collect(logging.Handler):
    def emit(self, record):
        print(record.getMessage())

_logger = logging.getLogger()
_handler = _Collect()
_level = _logger.level
_logger.addHandler(_handler)
_logger.setLevel(logging.INFO)
try:
    x = LoggingTensor([1.0, 2.0])
    y = (x + 1).sum()
    print(type(y).__name__, y)
    torch.mul(x, x)
finally:
    _logger.removeHandler(_handler)
    _logger.setLevel(_level)
'''


def test_logging_tensor_with_torch_function():
    assert_same(LOGGING_TENSOR + LOGGING_TENSOR_DRIVER)


METADATA_TENSOR = '''
import torch

class MetadataTensor(object):
    def __init__(self, data, metadata=None, **kwargs):
        self._t = torch.as_tensor(data, **kwargs)
        self._metadata = metadata

    def __repr__(self):
        return "Metadata:\\n{}\\n\\ndata:\\n{}".format(self._metadata, self._t)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        metadatas = tuple(a._metadata for a in args if hasattr(a, '_metadata'))
        args = [getattr(a, '_t', a) for a in args]
        assert len(metadatas) > 0
        ret = func(*args, **kwargs)
        return MetadataTensor(ret, metadata=metadatas[0])

metadata = {'owner': 'Ministry of Silly Walks'}
m = MetadataTensor([[1, 2], [3, 4]], metadata=metadata)
t = torch.tensor([[1, 2], [1, 2]])
print(repr(torch.add(t, m)))
print(repr(torch.mul(t, m)))
'''


def test_metadata_tensor():
    assert_same(METADATA_TENSOR)


OVERRIDABLE_FUNCTIONS = '''
import torch
from torch.overrides import get_overridable_functions
func_dict = get_overridable_functions()
nn_funcs = func_dict[torch.nn.functional]
print([f.__name__ for f in nn_funcs[:5]])
'''


def test_get_overridable_functions():
    # The seed's print line is missing its closing bracket; this is the line it means.
    assert_same(OVERRIDABLE_FUNCTIONS)


TESTING_OVERRIDES = '''
import inspect
import torch
from torch.overrides import get_testing_overrides
override_dict = get_testing_overrides()
dummy_add = override_dict[torch.add]
print(inspect.signature(dummy_add))
'''


def test_get_testing_overrides():
    assert_same(TESTING_OVERRIDES)


CALLING_CONVENTION = '''
import torch

class Recorder(torch.Tensor):
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        pass

x = torch.Tensor._make_subclass(Recorder, torch.ones(2))
print(torch.add(x, 2))
'''


def test_torch_dispatch_calling_convention():
    # The seed's handler body is `pass`: every op through it returns None.
    assert_same(CALLING_CONVENTION)


MODES = '''
import torch
from torch.overrides import TorchFunctionMode, resolve_name
from torch.utils._python_dispatch import TorchDispatchMode

class FunctionLog(TorchFunctionMode):
    def __torch_function__(self, func, types, args, kwargs=None):
        print(f"Function Log: {resolve_name(func)}(*{args}, **{kwargs})")
        return func(*args, **(kwargs or {}))

class DispatchLog(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args, kwargs=None):
        print(f"Dispatch Log: {func}(*{args}, **{kwargs})")
        return func(*args, **(kwargs or {}))

def f():
    a = torch.rand(10, requires_grad=True)
    b = a * 2
    b.sum().backward()

print("TorchFunctionMode logging:")
with FunctionLog():
    f()

print("TorchDispatchMode logging:")
with DispatchLog():
    f()
'''


def test_function_and_dispatch_mode_logging():
    # Seeded so both libraries draw the same random numbers (torchpy's generator is torch's).
    theirs = assert_same(MODES, seed=0)
    assert "Dispatch Log: aten.detach.default" in theirs.printed
