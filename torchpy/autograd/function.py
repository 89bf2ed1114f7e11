"""torchpy.autograd.Function: user-defined operations with their own backward.

As in PyTorch, `apply` runs `forward` with grad recording off, and the `ctx`
object forward sees is the backward node itself: `<Name>Backward`, holding
what `save_for_backward` saved and calling the class's `backward` (or `vjp`).
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from .._aten.public import functions  # torchpy.<name>, made below the package root
from .._tensor.tensor import Tensor
from . import grad_mode
from .forward_grad import get_tangent, suspended
from .forward_grad import state as forward_state
from .function_jvp import run_jvp
from .graph import Node, SavedTensor, autograd_meta, gradient_edge
from .node import sum_to_shape


class FunctionCtx:
    """What forward / setup_context can call on `ctx`."""

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"save_for_backward can only save variables, but argument {tensors.index(t)} "
                    f"is of type {type(t).__name__}"
                )
        self._to_save = tensors

    def save_for_forward(self, *tensors: Tensor | None) -> None:
        self.saved_for_forward = tensors

    def mark_dirty(self, *tensors: Tensor) -> None:
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value


def _expandable(shape: tuple, target: tuple) -> bool:
    """Whether `shape` broadcasts to `target`."""
    if len(shape) > len(target):
        return False
    for size, wanted in zip(reversed(shape), reversed(target)):
        if size != wanted and size != 1:
            return False
    return True


class BackwardCFunction(FunctionCtx, Node):
    """The node (and ctx) of one Function.apply call."""

    _forward_cls: type
    _input_meta: tuple = ()  # (shape, dtype) of each tensor input, when the graph is recorded

    def __init__(self) -> None:
        Node.__init__(self, ())
        self._to_save: tuple = ()
        self._saved: list[SavedTensor] | None = None
        self._dirty: tuple = ()
        self._non_differentiable: tuple = ()
        self.materialize_grads = True
        self.needs_input_grad: tuple[bool, ...] = ()
        self._input_is_tensor: tuple[bool, ...] = ()
        self._output_meta: list = []
        self._in_jvp = False

    @property
    def saved_tensors(self) -> tuple:
        if self._in_jvp:
            return tuple(getattr(self, "saved_for_forward", ()))
        if self._saved is None:
            return tuple(self._to_save)
        return tuple(s.unpack() for s in self._saved)

    def name(self) -> str:
        return self._name

    def apply(self, grad_outputs: list) -> list:
        if self.materialize_grads:
            grad_outputs = [
                g if g is not None or meta is None else functions.zeros(meta[0], dtype=meta[1])
                for g, meta in zip(grad_outputs, self._output_meta)
            ]
        cls = self._forward_cls
        backward = cls.vjp if cls.vjp is not Function.vjp else cls.backward
        result = backward(self, *grad_outputs)
        if not isinstance(result, tuple):
            result = (result,)
        expected = len(self._input_is_tensor)
        if len(result) > expected:
            if any(r is not None for r in result[expected:]):
                raise RuntimeError(
                    f"function {self._name} returned an incorrect number of gradients "
                    f"(expected {expected}, got {len(result)})"
                )
            result = result[:expected]
        elif len(result) < expected:
            raise RuntimeError(
                f"function {self._name} returned an incorrect number of gradients "
                f"(expected {expected}, got {len(result)})"
            )
        grads = []
        for position, (grad, is_tensor) in enumerate(zip(result, self._input_is_tensor)):
            if not is_tensor:
                if grad is not None:
                    raise RuntimeError(
                        f"function {self._name} returned a gradient different than None at position "
                        f"{position + 1}, but the corresponding forward input was not a Variable"
                    )
                continue
            grads.append(grad)
        return self._validated(grads)

    def _validated(self, grads: list) -> list:
        """The engine's check on a user's gradients: each has its input's shape (a gradient the
        input broadcasts to is summed down) and dtype (cast), else PyTorch's error."""
        for index, (grad, (shape, dtype)) in enumerate(zip(grads, self._input_meta)):
            if grad is None or not isinstance(grad, Tensor):
                continue
            if grad._shape != shape:
                if not _expandable(shape, grad._shape):
                    raise RuntimeError(
                        f"Function {self._name} returned an invalid gradient at index {index} - got "
                        f"{list(grad._shape)} but expected shape compatible with {list(shape)}")
                grad = sum_to_shape(grad, shape)
            if grad._dtype is not dtype:
                grad = grad.to(dtype)
            grads[index] = grad
        return grads

    def release_variables(self) -> None:
        if self._saved is not None:
            for s in self._saved:
                s.release()


class FunctionMeta(type):
    """Gives each Function subclass its node class, `<Name>Backward`."""

    def __init__(cls, name: str, bases: tuple, attrs: dict) -> None:
        backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls, "_name": name + "Backward"})
        cls._backward_cls = backward_cls
        super().__init__(name, bases, attrs)


class Function(FunctionCtx, metaclass=FunctionMeta):
    """Subclass with static `forward` (and `setup_context`) and `backward` methods."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use new-style "
            "autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function "
            "to use it with backward mode AD."
        )

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with forward mode AD."
        )

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise TypeError(f"{cls.__name__}.apply() does not take keyword arguments")
        ctx = cls._backward_cls()
        is_tensor = tuple(isinstance(a, Tensor) for a in args)
        ctx._input_is_tensor = is_tensor
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        separate_setup = cls.setup_context is not Function.setup_context
        # forward runs without forward AD: a tangent reaches outputs only through jvp
        tangents = [get_tangent(a) for a in args] if forward_state.active else None
        with grad_mode.no_grad(), suspended():
            if separate_setup:
                output = cls.forward(*args)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args)
        record = grad_mode.is_grad_enabled() and any(ctx.needs_input_grad)
        wrapped = _wrap_outputs(ctx, args, output, record)
        if tangents is not None and any(t is not None for t in tangents):
            run_jvp(cls, ctx, args, tangents, wrapped)
        return wrapped


def _wrap_outputs(ctx: BackwardCFunction, args: tuple, output: Any, record: bool) -> Any:
    outputs = output if isinstance(output, tuple) else (output,)
    if record:
        ctx._next_edges = tuple(gradient_edge(a) for a in args if isinstance(a, Tensor))
        ctx._input_meta = tuple((a._shape, a._dtype) for a in args if isinstance(a, Tensor))
    ctx._num_outputs = len(outputs)
    dirty = {id(t) for t in ctx._dirty}
    non_differentiable = {id(t) for t in ctx._non_differentiable}
    inputs = {id(a) for a in args if isinstance(a, Tensor)}
    wrapped = []
    for index, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            wrapped.append(out)
            ctx._output_meta.append(None)
            continue
        if record and id(out) in dirty and out._grad_fn is None and out._requires_grad:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        if id(out) in inputs and id(out) not in dirty:
            out = out.view_as(out)  # returning an input as-is: give the output its own identity
        ctx._output_meta.append((out._shape, out._dtype))
        differentiable = (out._dtype.is_floating_point or out._dtype.is_complex) and id(outputs[index]) not in non_differentiable
        if record and differentiable:
            out._grad_fn = ctx
            out._requires_grad = True
            autograd_meta(out).output_nr = index
        elif record and not differentiable:
            out._requires_grad = False
        wrapped.append(out)
    if record:
        ctx._saved = [SavedTensor(t, output_of=ctx if any(t is o for o in wrapped) else getattr(t, "_grad_fn", None))
                      if t is not None else SavedTensor(None) for t in ctx._to_save]
    return wrapped[0] if not isinstance(output, tuple) else tuple(wrapped)


def once_differentiable(fn: Callable) -> Callable:
    """Mark a backward as not differentiable itself: it runs without recording a graph."""

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode.is_grad_enabled():
            return outputs
        requires = any(isinstance(a, Tensor) and a._requires_grad for a in args)
        if not requires:
            return outputs
        tuple_out = outputs if isinstance(outputs, tuple) else (outputs,)
        edges = tuple(gradient_edge(a) for a in args if isinstance(a, Tensor))
        error = _DelayedError(
            "trying to differentiate twice a function that was marked with @once_differentiable", edges,
            len(tuple_out))
        for index, out in enumerate(tuple_out):
            if isinstance(out, Tensor) and (out._dtype.is_floating_point or out._dtype.is_complex):
                out._grad_fn = error
                out._requires_grad = True
                autograd_meta(out).output_nr = index
        return outputs

    return wrapper


class _DelayedError(Node):
    _name = "DelayedError"

    def __init__(self, message: str, edges: tuple, num_outputs: int) -> None:
        super().__init__(edges)
        self._message = message
        self._num_outputs = num_outputs

    def apply(self, grad_outputs: list) -> list:
        raise RuntimeError(self._message)
