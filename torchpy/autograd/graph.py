"""The autograd graph: Nodes, edges, AccumulateGrad, saved tensors, hooks.

A tensor that requires grad points at the node that will receive its gradient:
its `grad_fn` (for a computed tensor, with `output_nr` saying which output of
the node it is), or, for a leaf, its AccumulateGrad node. A node's
`next_functions` are the edges to its inputs' nodes, `(node, input_nr)`, or
`(None, 0)` for an input that needs no gradient.
"""

from __future__ import annotations

import itertools
import re
import sys
import threading
import types
import weakref
from collections import OrderedDict
from typing import Any, Callable, Mapping

from .._tensor.subclassing import alias_as
from .._tensor.tensor import Tensor
from .._aten.fastcall import aten, call
from .._aten.kernels.view import type_string
from ..utils._handles import RemovableHandle, add_hook
from .anomaly_mode import record_creation, state as _anomaly_state
from .grad_mode import state as _grad_state

_sequence = itertools.count()
_NO_HOOKS: Mapping = types.MappingProxyType({})  # read-only: hooks go in a node's own dict


class AutogradMeta:
    """Per-tensor autograd state beyond requires_grad / grad / grad_fn (made on demand)."""

    __slots__ = ("output_nr", "grad_accumulator", "retains_grad", "post_accumulate_hooks", "fw_grads")

    def __init__(self) -> None:
        self.output_nr = 0
        self.grad_accumulator: AccumulateGrad | None = None  # shared by every use of the leaf
        self.retains_grad = False
        self.post_accumulate_hooks: OrderedDict[int, Callable] = OrderedDict()  # by RemovableHandle id
        self.fw_grads: dict[int, Tensor] | None = None  # forward-mode tangents by dual level


def autograd_meta(t: Tensor) -> AutogradMeta:
    meta = t._autograd_meta
    if meta is None:
        meta = t._autograd_meta = AutogradMeta()
    return meta


class Node:
    """A backward function: gradients of its outputs in, gradients of its inputs out."""

    _name = "Node"
    # Hooks are rare and a node is made per recorded op: the containers are shared empty
    # ones until a hook is registered (_hook_dict makes the node its own). Hooks are keyed
    # by their RemovableHandle's id, as in torch: two registrations of one hook are two.
    _pre_hooks: Mapping[int, Callable] = _NO_HOOKS
    _hooks: Mapping[int, Callable] = _NO_HOOKS
    _tensor_pre_hooks: Mapping[int, OrderedDict[int, Callable]] = _NO_HOOKS  # Tensor.register_hook, by output
    _retain_grad_hooks: Mapping[int, Callable] = _NO_HOOKS
    _metadata: dict | None = None
    _num_outputs = 1  # how many gradients the node takes in (its forward's outputs)

    def __init__(self, next_edges: tuple = ()) -> None:
        self._next_edges = next_edges         # ((node or None, input_nr), ...)
        self._sequence_nr = next(_sequence)   # later nodes run first among the ready ones
        self._num_outputs = 1
        if _anomaly_state.enabled:  # the forward call's stack, for backward's error reports
            record_creation(self)

    def _hook_dict(self, name: str) -> OrderedDict:
        hooks = self.__dict__.get(name)
        if hooks is None:
            hooks = OrderedDict()  # a RemovableHandle holds it by weak reference
            setattr(self, name, hooks)
        return hooks

    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    # What users see -------------------------------------------------------------------------

    def name(self) -> str:
        return self._name

    @property
    def next_functions(self) -> tuple:
        return self._next_edges

    def register_hook(self, fn: Callable) -> RemovableHandle:
        """fn(grad_inputs, grad_outputs) after the node runs; may return new grad_inputs."""
        return add_hook(self._hook_dict("_hooks"), fn)

    def register_prehook(self, fn: Callable) -> RemovableHandle:
        """fn(grad_outputs) before the node runs; may return new grad_outputs."""
        return add_hook(self._hook_dict("_pre_hooks"), fn)

    def __call__(self, *grads: Any) -> Any:
        result = self.apply(list(grads))
        return result[0] if len(result) == 1 else tuple(result)

    def __repr__(self) -> str:
        # torch prints the short name: <CopyBackwards ...> for torch::autograd::CopyBackwards
        return f"<{self.name().rsplit('::', 1)[-1]} object at {hex(id(self))}>"

    # What the engine calls --------------------------------------------------------------------

    def apply(self, grad_outputs: list) -> list:
        raise NotImplementedError

    def release_variables(self) -> None:
        """Free saved tensors after a backward pass that did not retain the graph."""


class AccumulateGrad(Node):
    """The node of a leaf: adds the incoming gradient into `variable.grad`."""

    _name = "torch::autograd::AccumulateGrad"

    def __init__(self, variable: Tensor) -> None:
        super().__init__(())
        self.variable = variable
        self._sequence_nr = 2**62  # accumulate as soon as the gradient is ready

    def apply(self, grad_outputs: list) -> list:
        grad = grad_outputs[0]
        if grad is not None:
            # torch takes the gradient over only when nothing else holds it (use_count): here
            # the engine's list, this local and getrefcount's argument are all there may be.
            unshared = sys.getrefcount(grad) <= _ENGINE_REFS
            _accumulate_into_grad(self.variable, grad, unshared)
        return []

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"


_ENGINE_REFS = 3


class _Pruning(threading.local):
    """Per running backward pass (innermost last): when only some inputs' gradients are wanted
    (autograd.grad, backward(inputs=)), the graph's nodes that are not on a path to one of
    them; None: every node is. Formulas skip the input gradients only such nodes would take,
    as torch's exec_info makes them (nodes outside the graph walk, e.g. inside CopySlices,
    are never skipped)."""

    def __init__(self) -> None:
        self.unwanted: list[set | None] = []


pruning = _Pruning()


def _accumulate_into_grad(variable: Tensor, grad: Tensor, unshared: bool) -> None:
    """engine.accumulate_into_grad, bound on first use (the engine imports this module)."""
    global _accumulate_into_grad
    from .engine import accumulate_into_grad  # the engine imports this module: a cycle inside autograd

    _accumulate_into_grad = accumulate_into_grad
    accumulate_into_grad(variable, grad, unshared)


def grad_accumulator(t: Tensor) -> AccumulateGrad:
    """The AccumulateGrad node of leaf `t`, shared by every use of it."""
    meta = autograd_meta(t)
    if meta.grad_accumulator is None:
        meta.grad_accumulator = AccumulateGrad(t)
    return meta.grad_accumulator


def gradient_edge(t: Tensor) -> tuple:
    """(node, input_nr) that receives t's gradient, or (None, 0) if t needs none."""
    if t._base is not None:  # a view's grad_fn is regenerated once its base changed in place
        from .views import refresh_view  # views imports this module: a cycle inside autograd

        refresh_view(t)
    if t._grad_fn is not None:
        meta = t._autograd_meta
        return (t._grad_fn, 0 if meta is None else meta.output_nr)
    if t._requires_grad:
        return (grad_accumulator(t), 0)
    return (None, 0)


# --- saved tensors ------------------------------------------------------------------------


class _SavedHooks(threading.local):
    stack: list = []


saved_hooks_state = _SavedHooks()


def _grad_enabled() -> bool:
    return _grad_state.enabled


_DETACH = aten("detach")


def _detach(t: Tensor) -> Tensor:
    """aten detach, straight to the dispatcher (what torch's C++ unpack calls)."""
    return call(_DETACH, t._keyset, t)


class SavedTensor:
    """A tensor saved for backward, checked against in-place changes when unpacked."""

    # `edge`: set only under hooks, for an input that requires grad: where its gradient goes
    # (torch's SavedVariable keeps the grad_fn, or the leaf's grad accumulator, likewise).
    __slots__ = ("tensor", "version", "packed", "unpack_hook", "released", "output_of", "output_nr", "edge")

    def __init__(self, tensor: Tensor | None, output_of: Node | None = None, output_nr: int = -1) -> None:
        self.released = False
        # >= 0: output `output_nr` of `output_of`, saved detached. The node owns this saved
        # tensor, so it is held weakly: a strong reference would make every node that saves
        # its result a reference cycle, freed only by the garbage collector (torch's
        # SavedVariable keeps no reference to its own grad_fn either).
        self.output_of = output_of if output_nr < 0 or output_of is None else weakref.ref(output_of)
        self.output_nr = output_nr
        if tensor is None:
            self.tensor, self.version, self.packed, self.unpack_hook = None, 0, None, None
            return
        self.version = tensor._version
        stack = saved_hooks_state.stack
        if stack:
            pack, unpack = stack[-1]
            self.edge = gradient_edge(tensor) if output_nr < 0 and tensor._requires_grad else None
            self.tensor, self.packed, self.unpack_hook = None, pack(tensor), unpack
        else:
            self.tensor, self.packed, self.unpack_hook = tensor, None, None

    def unpack(self) -> Tensor | None:
        t = self.tensor
        if t is not None and t._version == self.version:  # unchanged, not released, no hooks
            if self.output_nr < 0:
                return t  # the common case: an input saved as it is
            if not _grad_state.enabled and t._autograd_meta is None and (t._dtype.is_floating_point
                                                                         or t._dtype.is_complex):
                return call(_DETACH, t._keyset, t)  # a saved output, as the general path hands it back
        if self.released:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved "
                "tensors after they have already been freed). Saved intermediate values of the graph "
                "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
                "you need to backward through the graph a second time or if you need to access saved "
                "tensors after calling backward."
            )
        if self.unpack_hook is not None:
            return self._unpack_hooked()
        t = self.tensor
        if t is not None and t._version != self.version:
            # PyTorch names the node that produced the tensor's current value, without the
            # "Backward0" suffix ("output 0 of Mul").
            producer = t._grad_fn if t._grad_fn is not None else (self._producer() if self.output_nr >= 0 else None)
            who = producer.name() if producer is not None else None
            if who:
                who = re.sub(r"Backward\d*$", "", who.split("::")[-1])
            index = self.output_nr if self.output_nr >= 0 and t._grad_fn is None else (
                t._autograd_meta.output_nr if t._autograd_meta is not None else 0)
            where = f", which is output {index} of {who}," if who else ""
            dims = ", ".join(map(str, t._shape))
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{type_string(t)} [{dims}]]{where} is at version "
                f"{t._version}; expected version {self.version} instead. Hint: enable anomaly "
                "detection to find the operation that failed to compute its gradient, with "
                "torch.autograd.set_detect_anomaly(True, check_nan=False)."
            )
        if self.output_nr >= 0 and t is not None and not (t._dtype.is_floating_point or t._dtype.is_complex):
            pass  # an integer output (indices) has no history: PyTorch hands it back as saved
        elif self.output_nr >= 0 and t is not None and _grad_enabled():
            # Double backward differentiates through the saved output: hand back an alias
            # that carries its history again.
            t = alias_as(type(t), t)
            t._version_counter = self.tensor._version_counter
            t._grad_fn = self._producer()
            t._requires_grad = True
            autograd_meta(t).output_nr = self.output_nr
        elif self.output_nr >= 0 and t is not None:
            t = _detach(t)  # PyTorch unpacks a saved output as a fresh detached alias
        if self.output_nr >= 0 and t is not None and self.tensor._autograd_meta is not None:
            # forward over reverse: the output's tangent too (forward_grad imports this module: a cycle)
            from .forward_grad import copy_tangents

            copy_tangents(self.tensor, t)
        return t

    def _unpack_hooked(self) -> Tensor | None:
        """unpack_hook(packed), handed back as torch does: through an aten detach (a mode sees
        it), re-attached to the producing node when double backward differentiates through it."""
        t = self.unpack_hook(self.packed)
        if not isinstance(t, Tensor):
            raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got result of type {type(t).__name__}")
        original = t
        t = _detach(t)
        edge = self.edge
        if _grad_enabled() and self.output_nr < 0 and edge is not None:
            # double backward: the input's history again (its node, or its leaf's accumulator)
            node, input_nr = edge
            if isinstance(node, AccumulateGrad):
                autograd_meta(t).grad_accumulator = node
            else:
                t._grad_fn = node
                autograd_meta(t).output_nr = input_nr
            t._requires_grad = True
        elif _grad_enabled() and self.output_nr >= 0 and (t._dtype.is_floating_point or t._dtype.is_complex):
            producer = self._producer()
            if producer is not None:
                t._version_counter = original._version_counter
                t._grad_fn = producer
                t._requires_grad = True
                autograd_meta(t).output_nr = self.output_nr
        return t

    def _producer(self) -> Node | None:
        """The node this saved output came from (alive while its backward can run)."""
        ref = self.output_of
        return ref() if isinstance(ref, weakref.ref) else ref

    def release(self) -> None:
        self.released = True
        self.tensor = None
        self.packed = None


class saved_tensors_hooks:
    """Context manager: pack_hook(tensor) when saving, unpack_hook(packed) when unpacking."""

    def __init__(self, pack_hook: Callable, unpack_hook: Callable) -> None:
        self.hooks = (pack_hook, unpack_hook)

    def __enter__(self) -> None:
        saved_hooks_state.stack = saved_hooks_state.stack + [self.hooks]

    def __exit__(self, *exc: object) -> None:
        saved_hooks_state.stack = saved_hooks_state.stack[:-1]
