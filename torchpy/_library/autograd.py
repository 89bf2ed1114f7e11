"""The Autograd kernel of an operator whose backward is written in Python.

As torch's custom ops do, the kernel wraps the call in a generated
autograd.Function, `GeneratedBackwardFor_<ns>_<name>_<overload>`: its forward
runs the op below autograd and calls the user's setup_context(ctx, inputs,
output); its backward calls the user's backward(ctx, *grads), or raises when
none was registered (so a forward with inputs that require grad works and
records a node; only backward through it fails). Tensor-list arguments and
returns are flattened so each tensor gets its own gradient edge.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

from .._dispatch import keys as K
from .._dispatch import tls
from .._tensor.tensor import Tensor
from ..autograd import grad_mode
from ..autograd.function import Function
from ..autograd.kernel import BELOW_AUTOGRAD
from ..utils._pytree import tree_flatten, tree_unflatten


class AutogradInfo(Protocol):
    _backward_fn: Callable | None
    _setup_context_fn: Callable | None


class Info:
    """The backward and setup_context of an op registered with the free register_autograd."""

    def __init__(self, backward: Callable | None, setup_context: Callable | None) -> None:
        self._backward_fn = backward
        self._setup_context_fn = setup_context


class _Metadata:
    """The last (non-tensor) argument of the generated Function: what forward needs besides
    the positional arguments."""

    __slots__ = ("keyset", "kwargs", "input_spec", "output_spec", "result_is_tuple")

    def __init__(self, keyset: int, kwargs: dict) -> None:
        self.keyset = keyset
        self.kwargs = kwargs
        self.input_spec: Any = None   # pytree specs, for Tensor[] arguments and returns
        self.output_spec: Any = None
        self.result_is_tuple = False


def run_below_autograd(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    """Redispatch with the autograd keys excluded (torch's AutoDispatchBelowAutograd):
    only autograd, so ADInplaceOrView still counts in-place ops the kernel makes."""
    local = tls.local
    previous = local.excluded
    local.excluded = previous | K.AUTOGRAD_BITS
    try:
        return op.redispatch_raw(ks, args, kwargs)
    finally:
        local.excluded = previous


def fill_defaults(schema: Any, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """Every argument, defaults included: positional ones in args, keyword-only in kwargs."""
    new_args, new_kwargs = [], {}
    for i, arg in enumerate(schema.arguments):
        if arg.kwarg_only:
            new_kwargs[arg.name] = kwargs.get(arg.name, arg.default_value)
        else:
            new_args.append(args[i] if i < len(args) else arg.default_value)
    return tuple(new_args), new_kwargs


def _not_list_of_tensor(tree: Any) -> bool:
    """pytree leaves for the inputs and outputs: a list is flattened only if it holds only Tensors."""
    if isinstance(tree, tuple):
        return False
    if isinstance(tree, list):
        return any(not isinstance(v, Tensor) for v in tree)
    return True


def _not_list_of_optional_tensor(tree: Any) -> bool:
    """pytree leaves for the gradients: a Tensor[] input's gradient list may hold Nones."""
    if isinstance(tree, tuple):
        return False
    if isinstance(tree, list):
        return any(v is not None and not isinstance(v, Tensor) for v in tree)
    return True


def _any_requires_grad(args: tuple) -> bool:
    for a in args:
        if isinstance(a, Tensor):
            if a._requires_grad:
                return True
        elif isinstance(a, (list, tuple)) and any(isinstance(v, Tensor) and v._requires_grad for v in a):
            return True
    return False


def make_autograd_impl(op: Any, info: AutogradInfo) -> Callable:
    """A RAW kernel (op, keyset, args, kwargs) for the op's Autograd key."""
    schema = op._schema
    has_kwarg_only = any(a.kwarg_only for a in schema.arguments)
    has_lists = any(
        a.type.base_name == "Tensor" and a.type.is_list for a in (*schema.arguments, *schema.returns)
    )

    def call_setup_context(ctx: Any, args: tuple, kwargs: dict, result: Any) -> None:
        # The dispatcher dropped arguments equal to their defaults; setup_context sees them all.
        args, kwargs = fill_defaults(schema, args, kwargs)
        if has_kwarg_only:
            info._setup_context_fn(ctx=ctx, inputs=args, keyword_only_inputs=kwargs, output=result)
        else:
            info._setup_context_fn(ctx=ctx, inputs=args, output=result)

    def forward(ctx: Any, *args: Any) -> Any:
        meta = args[-1]
        if has_lists:  # the flattened inputs end with the metadata too (see autograd_impl)
            args = tuple(tree_unflatten(list(args[:-1]), meta.input_spec)[:-1])
        else:
            args = args[:-1]
        result = run_below_autograd(op, meta.keyset, args, meta.kwargs)
        if info._setup_context_fn:
            call_setup_context(ctx, args, meta.kwargs, result)
        if not has_lists:
            return result
        meta.result_is_tuple = isinstance(result, tuple)
        flat, meta.output_spec = tree_flatten(result if meta.result_is_tuple else (result,), _not_list_of_tensor)
        ctx._pt_metadata = meta
        return tuple(flat)

    def user_backward(ctx: Any, grads: tuple, needs_input_grad: Any) -> Any:
        if not info._backward_fn:
            raise RuntimeError(
                f"Trying to backward through {op} but no autograd formula was registered. "
                "Please use register_autograd to add one."
            )
        previous = ctx.needs_input_grad
        ctx.needs_input_grad = needs_input_grad
        try:
            return info._backward_fn(ctx, *grads)
        finally:
            ctx.needs_input_grad = previous

    def backward(ctx: Any, *grads: Any) -> Any:
        if not has_lists:
            result = user_backward(ctx, grads, ctx.needs_input_grad[:-1])
            return (*result, None) if isinstance(result, tuple) else (result, None)
        meta = ctx._pt_metadata
        grads = tree_unflatten(list(grads), meta.output_spec)
        needs = tree_unflatten(list(ctx.needs_input_grad[:-1]), meta.input_spec)[:-1]
        result = user_backward(ctx, grads, needs)
        result = (*result, None) if isinstance(result, tuple) else (result, None)
        flat, spec = tree_flatten(result, _not_list_of_optional_tensor)
        if spec != meta.input_spec:
            raise RuntimeError(
                "Expected the return from backward to be of the same structure as the inputs. "
                f"Got: {spec} (return from backward), {meta.input_spec} (inputs)"
            )
        return (*flat, None)

    name = f"GeneratedBackwardFor_{op.namespace}_{op._opname}_{op._overloadname}"
    generated = type(name, (Function,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})
    grad_state = grad_mode.state

    def autograd_impl(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
        below = ks & BELOW_AUTOGRAD
        if not (grad_state.enabled and _any_requires_grad(args)):
            return run_below_autograd(op, below, args, kwargs)
        meta = _Metadata(below, kwargs)
        if not has_lists:
            return generated.apply(*args, meta)
        # As torch: every tensor of a Tensor[] gets its own edge. The metadata is a leaf of
        # the flattened inputs and, again, the Function's last argument.
        flat, meta.input_spec = tree_flatten((*args, meta), _not_list_of_tensor)
        result = tree_unflatten(list(generated.apply(*flat, meta)), meta.output_spec)
        return result if meta.result_is_tuple else result[0]

    return autograd_impl
