"""torch.utils.checkpoint: activation checkpointing.

A checkpointed function runs its forward without keeping its intermediate activations and runs
again during backward to rebuild them. Two variants, as torch:

- use_reentrant=True: an autograd.Function whose forward runs the function under no_grad and
  whose backward re-runs it with grad on and calls backward on the re-run graph (a nested,
  "reentrant" backward pass). Incompatible with autograd.grad / backward(inputs=...).
- use_reentrant=False: the function runs with grad on, under saved-tensor hooks that keep a
  placeholder (a _Holder) for every tensor an op saves. The first unpack of a placeholder in a
  backward pass re-runs the function under a second set of hooks that fills the placeholders in
  order; the re-run stops as soon as the last one is filled (early stop), as torch's does, so a
  dispatch mode sees the same ops re-run.

torchpy has no accelerator, so only the CPU generator's state is stashed and restored.
"""

from __future__ import annotations

import contextlib
import itertools
import warnings
import weakref
from collections import defaultdict
from typing import Any, Callable, Iterable, Iterator

from .._aten.kernels.random import default_generator
from .._tensor.tensor import Tensor
from ..autograd import grad_mode
from ..autograd.engine import current_graph_task_id, is_checkpoint_valid
from ..autograd.function import Function
from ..autograd.functional_api import backward as _autograd_backward
from ..autograd.graph import SavedTensor, saved_tensors_hooks
from ..random import fork_rng
from ._python_dispatch import TorchDispatchMode

__all__ = [
    "checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
    "check_backward_validity", "detach_variable", "get_device_states", "set_device_states",
    "noop_context_fn", "set_checkpoint_early_stop", "DefaultDeviceType",
    "set_checkpoint_debug_enabled",
]

_DEFAULT_DETERMINISM_MODE = "default"
_checkpoint_debug_enabled: bool | None = None
_enable_checkpoint_early_stop: bool | None = None


class CheckpointError(RuntimeError):
    """A re-run saved different tensors than the original forward."""


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None) -> Iterator[None]:
    """Within the block, debug=True (or False) for every checkpoint call; None: each call's own."""
    global _checkpoint_debug_enabled
    previous, _checkpoint_debug_enabled = _checkpoint_debug_enabled, enabled
    try:
        yield
    finally:
        _checkpoint_debug_enabled = previous


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool) -> Iterator[None]:
    """Within the block, whether non-reentrant re-runs stop once every saved tensor is rebuilt."""
    global _enable_checkpoint_early_stop
    previous, _enable_checkpoint_early_stop = _enable_checkpoint_early_stop, enable
    try:
        yield
    finally:
        _enable_checkpoint_early_stop = previous


def detach_variable(inputs: tuple) -> tuple:
    """Each tensor of the tuple detached, keeping its requires_grad; other items as they are."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(
            f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for item in inputs:
        if isinstance(item, Tensor):
            detached = item.detach()
            detached.requires_grad = item.requires_grad
            item = detached
        out.append(item)
    return tuple(out)


def check_backward_validity(inputs: Iterable[Any]) -> None:
    if not any(t.requires_grad for t in inputs if isinstance(t, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


class DefaultDeviceType:
    """The device type whose RNG state checkpoint stashes when no input names one ("cpu" here)."""

    _default_device_type: str | None = None

    @staticmethod
    def set_device_type(device: str = "cuda") -> None:
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type() -> str:
        if not DefaultDeviceType._default_device_type:
            DefaultDeviceType._default_device_type = "cpu"  # no accelerator in torchpy
        return DefaultDeviceType._default_device_type


def get_device_states(*args: Any) -> tuple[list[int], list[Tensor]]:
    """Accelerator RNG states of the inputs' devices: none exist in torchpy."""
    return [], []


def set_device_states(devices: list, states: list, *, device_type: str | None = None) -> None:
    """Restore accelerator RNG states: nothing to restore without an accelerator."""
    if list(devices):
        raise AssertionError("Torch not compiled with CUDA enabled")


def noop_context_fn() -> tuple:
    return contextlib.nullcontext(), contextlib.nullcontext()


# --- use_reentrant=True ------------------------------------------------------------------------


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx: Any, run_function: Callable, preserve_rng_state: bool, *args: Any) -> Any:
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = default_generator.get_state()
        # Non-tensor arguments are kept on ctx; tensors are saved (checked for in-place changes).
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*(a for a in args if isinstance(a, Tensor)))
        with grad_mode.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple:
        if not is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible"
                " with .grad() or passing an `inputs` parameter to .backward()."
                " To resolve this error, you can either set use_reentrant=False,"
                " or call .backward() without passing the `inputs` argument."
            )
        inputs = list(ctx.inputs)
        for index, tensor in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[index] = tensor
        with fork_rng(enabled=ctx.preserve_rng_state):
            if ctx.preserve_rng_state:
                default_generator.set_state(ctx.fwd_cpu_state)
            detached = detach_variable(tuple(inputs))
            with grad_mode.enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(out, grads[i]) for i, out in enumerate(outputs)
                 if isinstance(out, Tensor) and out.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        _autograd_backward([o for o, _ in pairs], [g for _, g in pairs])
        grads_in = tuple(t.grad if isinstance(t, Tensor) else None for t in detached)
        for t in detached:  # the private copies let go, so the engine may take each grad as is
            if isinstance(t, Tensor):
                t.grad = None
        return (None, None) + grads_in


# --- use_reentrant=False -----------------------------------------------------------------------


class _Handle:
    """One re-run's claim on a placeholder: a key of the frame's weak `recomputed` table."""


class _Holder:
    """What the forward's pack hook saves instead of a tensor: graph task id -> its handle."""

    def __init__(self) -> None:
        self.handles: dict[int, _Handle | None] = {}


class _StopRecomputation(Exception):
    """Raised from the re-run's pack hook once every placeholder is filled (early stop)."""


_debug_tip = (
    "\nTip: To see a more detailed error message, either pass `debug=True` to\n"
    "`torch.utils.checkpoint.checkpoint(...)` or wrap the code block\n"
    "with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to\n"
    "enable checkpoint-debug mode globally.\n"
)


def _default_metadata(t: Tensor) -> dict:
    return {"shape": t.shape, "dtype": t.dtype, "device": t.device}


_determinism_checks: dict[str, Callable[[Tensor], Any]] = {
    _DEFAULT_DETERMINISM_MODE: _default_metadata,
    "none": lambda _: None,
}


class _Frame:
    """One checkpoint call's state: its inputs, placeholders, and what each backward re-ran."""

    def __init__(self, recompute: Callable, early_stop: bool, on_error: Callable | None,
                 metadata_fn: Callable) -> None:
        self.recompute = recompute
        self.early_stop = early_stop
        self.on_error = on_error
        self.metadata_fn = metadata_fn
        self.saved_args: list = []
        self.weak_holders: list = []
        self.metadata: list = []
        # Per graph task: the rebuilt tensors (held by handle, so a freed placeholder drops its
        # tensor), how many tensors its re-run saved, and whether it has re-run.
        self.recomputed: defaultdict = defaultdict(weakref.WeakKeyDictionary)
        self.recomp_counter: defaultdict = defaultdict(int)
        self.is_recomputed: defaultdict = defaultdict(bool)
        self.forward_completed = False
        self.ignore_saved_mismatch = False

    def save_inputs(self, args: tuple) -> None:
        self.saved_args = [SavedTensor(a) if isinstance(a, Tensor) else a for a in args]

    def inputs(self) -> list:
        return [a.unpack() if isinstance(a, SavedTensor) else a for a in self.saved_args]

    def check_recomputed(self, gid: int) -> None:
        if self.ignore_saved_mismatch:
            return
        if len(self.weak_holders) != self.recomp_counter[gid]:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved "
                "during the original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.weak_holders)}\n"
                f"Number of tensors saved during recomputation: {self.recomp_counter[gid]}.\n"
                f"{_debug_tip}")
        different = []
        for index, ref in enumerate(self.weak_holders):
            holder = ref()
            if holder is None:
                continue
            recomputed = self.recomputed[gid][holder.handles[gid]]
            now = self.metadata_fn(recomputed)
            if self.metadata[index] != now:
                different.append(f"tensor at position {index}:\nsaved metadata: {self.metadata[index]}\n"
                                 f"recomputed metadata: {now}\n")
        if different:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors "
                "have different metadata than during the forward pass.\n"
                f"{''.join(different)}.\n{_debug_tip}")


class _recomputation_hook(saved_tensors_hooks):
    """Hooks of a re-run: the n-th tensor saved fills the n-th placeholder of the forward."""

    def __init__(self, frame_ref: weakref.ref, gid: int) -> None:
        def pack(x: Tensor) -> Tensor:
            x = x.detach() if x.requires_grad else x
            frame = frame_ref()
            index = frame.recomp_counter[gid]
            frame.recomp_counter[gid] += 1
            if index >= len(frame.weak_holders):
                if not frame.forward_completed:
                    # backward inside the checkpointed function, without early stop
                    frame.ignore_saved_mismatch = True
                    return x
                raise CheckpointError(
                    "torch.utils.checkpoint: trying to save more tensors during "
                    f"recomputation than during the original forward pass.\n{_debug_tip}")
            holder = frame.weak_holders[index]()
            if holder is not None:  # None: freed by a backward that ran inside the forward
                handle = holder.handles[gid] = _Handle()
                frame.recomputed[gid][handle] = x
            if frame.early_stop and frame.recomp_counter[gid] == len(frame.weak_holders):
                raise _StopRecomputation
            return x

        super().__init__(pack, lambda x: x)


_outside_ids = itertools.count(1 << 62)  # ids for unpacks outside any backward pass


class _checkpoint_hook(saved_tensors_hooks):
    """Hooks of the checkpointed forward: placeholders out, re-run on the first unpack."""

    def __init__(self, frame: _Frame) -> None:
        def pack(x: Tensor) -> _Holder:
            holder = _Holder()
            frame.weak_holders.append(weakref.ref(holder))
            if frame.metadata_fn is not None:
                with grad_mode.no_grad():
                    frame.metadata.append(frame.metadata_fn(x))
            return holder

        def unpack(holder: _Holder) -> Tensor:
            gid = current_graph_task_id()
            if gid == -1:
                gid = next(_outside_ids)
            if not frame.is_recomputed[gid]:
                args = frame.inputs()
                try:
                    with _recomputation_hook(weakref.ref(frame), gid), grad_mode.enable_grad():
                        frame.recompute(*args)
                except _StopRecomputation:
                    pass
                frame.is_recomputed[gid] = True
                frame.check_recomputed(gid)
            if holder.handles.get(gid) is None:
                raise CheckpointError(
                    "torch.utils.checkpoint: Unpack is being triggered for a tensor that was already "
                    "unpacked once. If you are calling ctx.saved_tensors in backward, make sure "
                    "to do so only once. Otherwise please open an issue with details on your use case.")
            tensor = frame.recomputed[gid][holder.handles[gid]]
            holder.handles[gid] = None
            return tensor

        def unpack_reporting(holder: _Holder) -> Tensor:
            try:
                return unpack(holder)
            except CheckpointError as e:
                frame.on_error(e)
                raise

        super().__init__(pack, unpack if frame.on_error is None else unpack_reporting)


def _debug_context() -> tuple[Callable, Callable]:
    """context_fn and error callback of debug=True: both runs' aten calls, listed in the error."""
    logs: dict[str, list[str]] = {"forward": [], "recompute": []}

    class _Log(TorchDispatchMode):
        def __init__(self, into: list) -> None:
            super().__init__()
            self.into = into

        def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
            self.into.append(str(func))
            return func(*args, **(kwargs or {}))

    def context_fn() -> tuple:
        logs["forward"].clear()
        logs["recompute"].clear()
        return _Log(logs["forward"]), _Log(logs["recompute"])

    def on_error(e: CheckpointError) -> None:
        raise CheckpointError(
            "An error happened while unpacking tensors; dumping logs of latest computation\n"
            "because you passed `debug=True` to `torch.utils.checkpoint.checkpoint()`.\n\n"
            "Operations executed during the original forward:\n\n" + "\n".join(logs["forward"])
            + "\n\nOperations executed during recomputation:\n\n" + "\n".join(logs["recompute"])
            + "\n\n ERROR: Detected non-determinism while running activation checkpointing\n"
        ) from e

    return context_fn, on_error


def _checkpoint_without_reentrant(function: Callable, preserve_rng_state: bool, context_fn: Callable,
                                  determinism_check: str, debug: bool, early_stop: bool,
                                  args: tuple, kwargs: dict) -> Any:
    on_error = None
    if _checkpoint_debug_enabled if _checkpoint_debug_enabled is not None else debug:
        if context_fn is not noop_context_fn:
            raise ValueError("debug=True is incompatible with non-default context_fn")
        context_fn, on_error = _debug_context()
    if determinism_check not in _determinism_checks:
        raise ValueError(
            f"determinism_check should be one of {list(_determinism_checks)}, but got {determinism_check}")
    metadata_fn = _determinism_checks[determinism_check]
    forward_context, recompute_context = context_fn()
    fwd_cpu_state = default_generator.get_state() if preserve_rng_state else None

    def recompute(*inputs: Any) -> None:
        with fork_rng(enabled=preserve_rng_state):
            if preserve_rng_state:
                default_generator.set_state(fwd_cpu_state)
            with recompute_context:
                function(*inputs, **kwargs)

    frame = _Frame(recompute,
                   _enable_checkpoint_early_stop if _enable_checkpoint_early_stop is not None else early_stop,
                   on_error, metadata_fn)
    if not grad_mode.is_grad_enabled():
        return function(*args, **kwargs)  # nothing is saved: nothing to re-run
    frame.save_inputs(args)
    suppressed = True
    with _checkpoint_hook(frame), forward_context:
        result = function(*args, **kwargs)
        suppressed = False
    if suppressed:  # the forward raised and forward_context swallowed it
        raise RuntimeError(
            "torch.utils.checkpoint: the forward context provided by context_fn suppressed an "
            "exception raised during the checkpointed forward. This is not supported because "
            "checkpoint cannot return a value for a failed forward.")
    frame.forward_completed = True
    return result


# --- entry points ------------------------------------------------------------------------------


def checkpoint(function: Callable, *args: Any, use_reentrant: bool | None = None,
               context_fn: Callable = noop_context_fn, determinism_check: str = _DEFAULT_DETERMINISM_MODE,
               debug: bool = False, early_stop: bool = True, **kwargs: Any) -> Any:
    """Run function(*args, **kwargs) without keeping its activations; re-run it in backward."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be "
            "passed explicitly. Starting in PyTorch 2.9, calling checkpoint "
            "without use_reentrant will raise an exception. use_reentrant=False is "
            "recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.",
            stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check, debug,
                                         early_stop, args, kwargs)


def checkpoint_sequential(functions: Any, segments: int, input: Any, use_reentrant: bool | None = None,
                          **kwargs: Any) -> Any:
    """Run `functions` in order, checkpointing each of the first segments-1 chunks."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant "
            "parameter should be passed explicitly. "
            "In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is "
            "recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

    def chunk(start: int, end: int) -> Callable:
        def run(x: Any) -> Any:
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return run

    from ..nn.modules.container import Sequential  # deferred: nn imports torchpy.utils' helpers

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(chunk(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return chunk(end + 1, len(functions) - 1)(input)
