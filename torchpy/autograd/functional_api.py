"""torchpy.autograd.backward / grad, and the Tensor methods that start or observe backward."""

from __future__ import annotations

import sys
import weakref
from collections import OrderedDict
from typing import Any, Callable, Sequence

from .._aten.public import functions  # torchpy.<name>, made below the package root
from .._aten.fastcall import call_kw
from .._dispatch.ops import OpOverload, op_for
from .._tensor.enums import preserve_format
from .._tensor import torch_function as _torch_function
from .._tensor.tensor import Tensor
from ..utils._handles import RemovableHandle, add_hook
from . import grad_mode
from .engine import accumulate_into_grad, run_backward
from .graph import autograd_meta, grad_accumulator


def _as_tuple(x: Any) -> tuple:
    if x is None:
        return ()
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _ones_like() -> OpOverload:
    global _ONES_LIKE
    if _ONES_LIKE is None:
        _ONES_LIKE = op_for("aten::ones_like")
    return _ONES_LIKE


_ONES_LIKE: OpOverload | None = None


def _make_grads(outputs: Sequence[Tensor], grads: Sequence[Any]) -> list[Tensor]:
    saved_state = _torch_function.disable_for_internals()
    try:
        return _make_grads_below_torch_function(outputs, grads)
    finally:
        _torch_function.restore(saved_state)


def _make_grads_below_torch_function(outputs: Sequence[Tensor], grads: Sequence[Any]) -> list[Tensor]:
    result = []
    for i, (out, grad) in enumerate(zip(outputs, grads)):
        if grad is None:
            if out._requires_grad and out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not (out._dtype.is_floating_point or out._dtype.is_complex) and out._requires_grad:
                raise RuntimeError(
                    f"grad can be implicitly created only for real scalar outputs but got {out._dtype}"
                )
            # What torch.ones_like(out, memory_format=torch.preserve_format) dispatches, without
            # the Python-level parsing: a mode sees the same call.
            grad = call_kw(_ones_like(), out._keyset, (out,), {"pin_memory": False, "memory_format": preserve_format})
        elif not isinstance(grad, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(grad).__name__}")
        elif grad._shape != out._shape and out._requires_grad:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of torch.Size([{', '.join(map(str, grad._shape))}]) "
                f"and output[{i}] has a shape of torch.Size([{', '.join(map(str, out._shape))}])."
            )
        result.append(grad)
    return result


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: Any = None,
    inputs: Any = None,
) -> None:
    """Accumulate d(tensors)/d(leaf) into every leaf's .grad (or only into `inputs`)."""
    outputs = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors) or (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"grad_tensors should have the same length as tensors: {len(grads)} vs {len(outputs)}")
    if retain_graph is None:
        retain_graph = create_graph
    root_grads = _make_grads(outputs, grads)
    wanted = _as_tuple(inputs)
    if inputs is not None and not wanted:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    if not wanted:
        run_backward(outputs, root_grads, retain_graph, create_graph)
        return
    captured = run_backward(outputs, root_grads, retain_graph, create_graph, inputs=wanted, accumulate=False)
    with grad_mode.set_grad_enabled(create_graph):  # as inside the engine, where torch accumulates
        for i, t in enumerate(wanted):
            grad = captured[i]
            if grad is not None:
                # torch's use_count test: `captured`, this variable and getrefcount's argument
                unshared = sys.getrefcount(grad) <= 3
                accumulate_into_grad(t, grad, unshared)


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple[Tensor | None, ...]:
    """Gradients of `outputs` with respect to `inputs`, without touching any .grad."""
    outs = _as_tuple(outputs)
    wanted = _as_tuple(inputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and not allow_unused:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got: allow_unused=False.")
    for t in wanted:
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    grads = _as_tuple(grad_outputs) or (None,) * len(outs)
    if retain_graph is None:
        retain_graph = create_graph
    captured = run_backward(outs, _make_grads(outs, grads), retain_graph, create_graph,
                            inputs=wanted, accumulate=False)
    result = []
    for t, g in zip(wanted, captured):
        if g is None:
            if materialize_grads:
                g = functions.zeros_like(t)
            elif not allow_unused:
                raise RuntimeError(
                    "One of the differentiated Tensors appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior."
                )
        result.append(g)
    return tuple(result)


# --- Tensor methods ------------------------------------------------------------------------


def tensor_backward(self: Tensor, gradient: Any = None, retain_graph: bool | None = None,
                    create_graph: bool = False, inputs: Any = None) -> None:
    """Tensor.backward: a Python function in torch, so __torch_function__ sees the call itself."""
    if (type(self) is not Tensor or _torch_function.state.modes) and _torch_function.has_torch_function_unary(self):
        return _torch_function.handle_torch_function(
            Tensor.backward, (self,), self, gradient=gradient, retain_graph=retain_graph,
            create_graph=create_graph, inputs=inputs)
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def register_hook(self: Tensor, hook: Callable) -> RemovableHandle:
    """hook(grad) runs when the gradient for this tensor is computed; may return a new grad."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self._grad_fn is None:
        node, index = grad_accumulator(self), 0
    else:
        node, index = self._grad_fn, autograd_meta(self).output_nr
    return add_hook(node._hook_dict("_tensor_pre_hooks").setdefault(index, OrderedDict()), hook)


def retain_grad(self: Tensor) -> None:
    """Keep .grad for this non-leaf tensor after backward."""
    if not self._requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if self._grad_fn is None:
        return
    meta = autograd_meta(self)
    if meta.retains_grad:
        return
    meta.retains_grad = True
    ref = weakref.ref(self)

    def store(grad: Tensor | None) -> None:
        t = ref()
        if t is not None and grad is not None:
            t._grad = grad.detach() if t._grad is None else t._grad + grad.detach()

    self._grad_fn._hook_dict("_retain_grad_hooks")[meta.output_nr] = store


def retains_grad(self: Tensor) -> bool:
    meta = self._autograd_meta
    return meta is not None and meta.retains_grad


def register_post_accumulate_grad_hook(self: Tensor, hook: Callable) -> RemovableHandle:
    if self._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    return add_hook(autograd_meta(self).post_accumulate_hooks, hook)
