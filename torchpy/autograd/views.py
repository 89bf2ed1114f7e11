"""Differentiable views and in-place ops on them (PyTorch's view + in-place semantics).

A view op's output shares its input's storage and version counter and points at the root
tensor it views (`_base`, set by the view kernels). When autograd records a view op, the
view also gets a `ViewAutogradMeta`: the version its grad_fn was computed at and how the
view was created (torch's CreationMeta). Three things follow, as in PyTorch:

* An in-place op on a view rewrites the *base's* history: the base's grad_fn becomes a
  `CopySlices` node that hands the gradient of the view's elements through the in-place
  op's node and the rest of the gradient through unchanged (`rebase_history`).
* A view whose version moved on (the base or another view of it was modified in place)
  gets a fresh grad_fn on the next read: `AsStridedBackward0` from the base's current
  history to the view's geometry (`refresh_view`). The views are never tracked; the shared
  version counter tells each one it is stale.
* Views that must not be rebased raise PyTorch's errors: views of a leaf that requires
  grad, outputs of multi-view ops (unbind, split, chunk), views made in no_grad or
  inference mode.

The hot path pays nothing here: only views (`_base is not None`) reach this module.
"""

from __future__ import annotations

import re
from typing import Any

from .._aten.fastcall import aten, call, call_kw
from .._tensor import tensor as _tensor_module
from .._tensor.enums import contiguous_format
from .._tensor.function_modes import call_mode, mode_on, track
from .._tensor.members import MODES, tensor_member
from .._tensor.tensor import Tensor, set_requires_grad
from . import grad_mode
from .derivatives import FORMULAS
from .graph import AutogradMeta, Node, gradient_edge
from .node import OpNode, input_info

# torch's CreationMeta: how a view was made, which decides whether it may be rebased.
DEFAULT, MULTI_OUTPUT_NODE, NO_GRAD_MODE, INFERENCE_MODE = range(4)


class ViewAutogradMeta(AutogradMeta):
    """AutogradMeta of a differentiable view: the version its grad_fn is valid for, and how
    the view was created."""

    __slots__ = ("attr_version", "creation")

    def __init__(self, attr_version: int, creation: int) -> None:
        super().__init__()
        self.attr_version = attr_version
        self.creation = creation


def _view_meta(t: Tensor, attr_version: int, creation: int) -> ViewAutogradMeta:
    """t's ViewAutogradMeta, made (keeping hooks already registered on t) if it has none."""
    old = t._autograd_meta
    if isinstance(old, ViewAutogradMeta):
        return old
    meta = ViewAutogradMeta(attr_version, creation)
    if old is not None:
        for name in AutogradMeta.__slots__:
            setattr(meta, name, getattr(old, name))
    t._autograd_meta = meta
    return meta


def _creation(t: Tensor) -> int:
    meta = t._autograd_meta
    return meta.creation if isinstance(meta, ViewAutogradMeta) else DEFAULT


def _propagate(previous: int, new: int) -> int:
    """A view of a view keeps its base view's restriction (torch's propagate_creation_meta)."""
    if new == DEFAULT:
        return previous
    return previous if previous == INFERENCE_MODE else new


# --- views made by a recorded view op, or with grad mode off --------------------------------


def mark_views(self: Tensor, outputs: Any, multi_output: bool) -> None:
    """Called by the Autograd kernel after a view op ran: the outputs are differentiable views."""
    previous = _creation(self) if self._base is not None else DEFAULT
    creation = _propagate(previous, MULTI_OUTPUT_NODE if multi_output else DEFAULT)
    for out in outputs:
        if isinstance(out, Tensor) and out._base is not None:
            _view_meta(out, out._version, creation)


def _no_grad_view(t: Tensor, root: Tensor) -> None:
    """A view made with grad mode off of a tensor that requires grad: it requires grad too,
    but may not be modified in place once grad mode is back (torch's NO_GRAD_MODE)."""
    creation = INFERENCE_MODE if grad_mode.state.inference else NO_GRAD_MODE
    t._autograd_meta = ViewAutogradMeta(t._version, creation)
    t._requires_grad = True


def _multi_output_views(pieces: list[Tensor]) -> None:
    """unbind / split pieces: the Autograd kernel may not record the call (the input needs no
    grad), yet the pieces may never be rebased. A piece made with grad mode off keeps that mark."""
    creation = MULTI_OUTPUT_NODE if grad_mode.state.enabled else NO_GRAD_MODE
    for piece in pieces:
        if piece._autograd_meta is None:
            piece._autograd_meta = ViewAutogradMeta(piece._version, creation)


# The view kernels sit below autograd: they get the grad-mode state and these hooks, so a
# view costs one attribute check more.
_tensor_module._view_grad_state = grad_mode.state
_tensor_module._on_no_grad_view = _no_grad_view
_tensor_module._on_multi_output_views = _multi_output_views


# --- errors ---------------------------------------------------------------------------------


def _short_name(node: Node) -> str:
    return re.sub(r"Backward\d*$", "", node.name().rsplit("::", 1)[-1])


_SUFFIX = {
    MULTI_OUTPUT_NODE: (
        " This view is the output of a function that returns multiple views. Such functions do not "
        "allow the output views to be modified inplace. You should replace the inplace operation by an "
        "out-of-place one."),
    NO_GRAD_MODE: (
        " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
        "code by moving both the view and the inplace either both inside the no_grad block (if you don't "
        "want the inplace to be tracked) or both outside (if you want the inplace to be tracked)."),
    INFERENCE_MODE: (
        " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
        "code by moving both the view and the inplace either both inside the inference_mode block (if you "
        "don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked)."),
}


def _rebase_error(t: Tensor, meta: ViewAutogradMeta, indirect: bool) -> RuntimeError:
    modified = "its base or another view of its base has been" if indirect else "is being"
    grad_fn = t._grad_fn
    creation = meta.creation
    if creation in (NO_GRAD_MODE, INFERENCE_MODE) or grad_fn is None:
        if grad_fn is not None:
            prefix = f"Output {meta.output_nr} of {_short_name(grad_fn)} is a view of a view which was created in"
        else:
            prefix = "A view was created in"
        if creation == INFERENCE_MODE:
            message = f"{prefix} inference mode and {modified} modified inplace in normal mode."
        else:
            message = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        message = f"Output {meta.output_nr} of {_short_name(grad_fn)} is a view and {modified} modified inplace."
    return RuntimeError(message + _SUFFIX[creation])


def check_inplace(t: Tensor) -> None:
    """Before a recorded in-place op on view `t`: the errors PyTorch raises (check_inplace)."""
    meta = t._autograd_meta
    if isinstance(meta, ViewAutogradMeta) and meta.creation != DEFAULT:
        raise _rebase_error(t, meta, indirect=False)
    base = t._base
    if base._grad_fn is None and (t._requires_grad or base._requires_grad):
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")


# --- keeping a view's grad_fn current ---------------------------------------------------------


def refresh_view(t: Tensor) -> None:
    """Bring view t's grad_fn and requires_grad up to date (torch's grad_fn getter)."""
    base = t._base
    meta = t._autograd_meta
    if not isinstance(meta, ViewAutogradMeta):
        # Made outside recording (its base did not require grad then). Once the base has
        # history, it came from an in-place op, so the view is stale.
        if t._grad_fn is not None or base._grad_fn is None:
            if base._requires_grad:
                t._requires_grad = True
            return
        meta = _view_meta(t, -1, DEFAULT)
    if t._grad_fn is None and not base._requires_grad:
        return
    if meta.attr_version == t._version:
        if base._requires_grad:
            t._requires_grad = True
        return
    if meta.creation != DEFAULT:
        raise _rebase_error(t, meta, indirect=True)
    old = t._grad_fn
    node = _as_strided_node(t, base)
    _move_retain_grad(meta, old, node)
    t._grad_fn = node
    t._requires_grad = True
    meta.output_nr = 0
    meta.attr_version = t._version


def _as_strided_node(t: Tensor, base: Tensor) -> OpNode:
    """AsStridedBackward0 from the base's current history to t's geometry."""
    node = OpNode(FORMULAS["aten::as_strided"], (gradient_edge(base),), [input_info(base)], 1)
    node._output_meta = [(t._shape, t._dtype)]
    node._saved = {
        "self_shape": base._shape, "self_stride": base.stride(), "self_offset": base.storage_offset(),
        "size": list(t._shape), "stride": list(t.stride()), "storage_offset": t.storage_offset(),
    }
    return node


def _move_retain_grad(meta: AutogradMeta | None, old: Node | None, new: Node) -> None:
    """retain_grad() follows the tensor to its new grad_fn, as in torch."""
    if meta is None or not meta.retains_grad or old is None:
        return
    hook = old._hook_dict("_retain_grad_hooks").pop(meta.output_nr, None)
    if hook is not None:
        new._hook_dict("_retain_grad_hooks")[0] = hook


# --- in-place on a view: the base's history is rewritten ------------------------------------


def rebase_history(view: Tensor, fn: Node) -> None:
    """After the in-place op recorded as `fn` modified `view`: base.grad_fn = CopySlices(fn)."""
    base = view._base
    old = base._grad_fn
    copy_slices = CopySlices(base, view, fn)
    base._grad_fn = copy_slices
    base._requires_grad = True
    base_meta = base._autograd_meta
    _move_retain_grad(base_meta, old, copy_slices)
    if base_meta is not None:
        base_meta.output_nr = 0
    meta = _view_meta(view, -1, DEFAULT)
    meta.attr_version = -1  # regenerate the view's grad_fn from the base's new history
    refresh_view(view)


_BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


class CopySlices(Node):
    """grad(base) = grad with the view's elements replaced by fn's gradient for them.

    fn is the in-place op's node; its first input was the view, whose history the base's
    history contains, so that edge goes to the base instead; fn's other edges are kept.
    """

    _name = "torch::autograd::CopySlices"

    def __init__(self, base: Tensor, view: Tensor, fn: Node) -> None:
        super().__init__((gradient_edge(base),) + tuple(fn._next_edges[1:]))
        self._base_geometry = (list(base._shape), list(base.stride()), base.storage_offset())
        self._view_geometry = (list(view._shape), list(view.stride()), view.storage_offset())
        self._fn: Node | None = fn

    def apply(self, grad_outputs: list) -> list:
        grad = grad_outputs[0]
        count = len(self._next_edges)
        if grad is None:
            return [None] * count
        fn = self._fn
        if fn is None:
            raise RuntimeError(_BACKWARD_TWICE)
        base_size, base_stride, base_offset = self._base_geometry
        size, stride, offset = self._view_geometry
        ks = grad._keyset
        result = call(aten("new_empty_strided"), ks, grad, base_size, base_stride)
        call(aten("copy_"), ks, result, grad)
        grad_slice = call(aten("as_strided"), ks, result, size, stride, offset - base_offset)
        # fn may save its input for double backward, and grad_slice is written below: a copy.
        fn_input = call_kw(aten("clone"), ks, (grad_slice,), {"memory_format": contiguous_format})
        res = fn.apply([fn_input])
        grads: list = [None] * count
        for i, g in enumerate(res):
            if g is None or self._next_edges[i][0] is None:
                continue
            if i == 0:
                call(aten("copy_"), ks | g._keyset, grad_slice, g)
                grads[0] = result
            else:
                grads[i] = g
        return grads

    def release_variables(self) -> None:
        if self._fn is not None:
            self._fn.release_variables()
            self._fn = None

    @property
    def _saved_fn(self) -> Node | None:
        return self._fn


# --- Tensor properties that read a view's history ---------------------------------------------

_function_modes = False  # whether any thread has a TorchFunctionMode (function_modes keeps it)
track(globals())


def _grad_fn(self: Tensor) -> Any:
    if self._base is not None:
        refresh_view(self)
    return self._grad_fn


@tensor_member("grad_fn", checks=MODES)
@property
def grad_fn(self: Tensor) -> Any:
    if _function_modes and mode_on():
        return call_mode(Tensor.grad_fn.__get__, self)
    if self._base is not None:
        refresh_view(self)
    return self._grad_fn


def _requires_grad(self: Tensor) -> bool:
    if _function_modes and mode_on():
        return call_mode(Tensor.requires_grad.__get__, self)
    if self._base is not None:
        refresh_view(self)
    return self._requires_grad


requires_grad = tensor_member("requires_grad", checks=MODES)(property(_requires_grad, set_requires_grad))


@tensor_member("is_leaf", checks=MODES)
@property
def is_leaf(self: Tensor) -> bool:
    if _function_modes and mode_on():
        return call_mode(Tensor.is_leaf.__get__, self)
    return _grad_fn(self) is None


def refresh_inputs(values: dict[str, Any]) -> None:
    """Before recording an op: its view inputs' grad_fns brought up to date."""
    for value in values.values():
        if isinstance(value, Tensor):
            if value._base is not None:
                refresh_view(value)
        elif isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, Tensor) and item._base is not None:
                    refresh_view(item)


def mark_current(t: Tensor) -> None:
    """After a recorded in-place view op (t_, squeeze_, ...) on view t: its grad_fn is current."""
    _view_meta(t, t._version, DEFAULT).attr_version = t._version
