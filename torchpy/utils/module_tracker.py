"""torch.utils.module_tracker: which nn.Modules are running, forward and backward.

`ModuleTracker().parents` is the set of fully qualified names of the modules whose
forward (or backward) is running, always with "Global". It listens through the global
module hooks of `torchpy.nn.modules.module`; without torchpy.nn.Module the set stays
{"Global"} (nothing can run inside a module then).
"""

from __future__ import annotations

import logging
import weakref
from typing import Any, Callable

from .._tensor.tensor import Tensor
from ..autograd.engine import current_graph_task_id, queue_callback
from ._pytree import tree_flatten

__all__ = ["ModuleTracker"]

logger = logging.getLogger(__name__)


def _module_hooks() -> Any:
    try:
        from ..nn.modules import module  # optional: without nn the tracker sees no modules
    except ImportError:
        return None
    if not hasattr(module, "register_module_forward_pre_hook"):
        return None
    return module


class _MultiGradHook:
    """Calls fn once the gradients of all `tensors` have been computed in a backward pass
    (torch.autograd.graph.register_multi_grad_hook with mode="all", for this tracker's use)."""

    def __init__(self, tensors: list[Tensor], fn: Callable[[], None]) -> None:
        self._pending = len(tensors)
        self._count = 0
        self._fn = fn
        self._handles = [t.register_hook(self._on_grad) for t in tensors]

    def _on_grad(self, grad: Tensor) -> None:
        self._count += 1
        if self._count == self._pending:
            self._count = 0
            self._fn()

    def remove(self) -> None:
        for handle in self._handles:
            handle.remove()


class ModuleTracker:
    """Context manager: `parents` holds the names of the modules running now."""

    parents: set[str]

    def __init__(self) -> None:
        self.parents = {"Global"}
        self._known_modules: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._seen_modules: weakref.WeakSet = weakref.WeakSet()
        self._hooks: list[Any] = []
        self._handles: list[Any] = []
        self._has_callback = False

    def _maybe_set_engine_callback(self) -> None:
        # When the backward pass ends every module it entered is done: back to just "Global"
        # (a module whose inputs need no grad is never left by a gradient hook).
        if self._has_callback:
            return

        def callback() -> None:
            self.parents = {"Global"}
            self._has_callback = False

        queue_callback(callback)
        self._has_callback = True

    @property
    def is_bw(self) -> bool:
        return current_graph_task_id() != -1

    def _get_mod_name(self, mod: Any) -> str:
        if mod not in self._known_modules:
            self._known_modules[mod] = type(mod).__name__
        name = self._known_modules[mod]
        if mod not in self._seen_modules:
            for child_name, child in mod.named_children():
                self._known_modules[child] = f"{name}.{child_name}"
                self._get_mod_name(child)
            self._seen_modules.add(mod)
        return name

    def _enter(self, name: str, is_bw: bool) -> Callable[..., None]:
        def fn(*_: Any) -> None:
            if is_bw:
                self._maybe_set_engine_callback()
            if name in self.parents:
                logger.info("The module hierarchy tracking seems to be broken as this Module was already "
                            "entered. %s during %s", name, "backward" if is_bw else "forward")
            self.parents.add(name)
        return fn

    def _leave(self, name: str, is_bw: bool) -> Callable[..., None]:
        def fn(*_: Any) -> None:
            if name in self.parents:
                self.parents.remove(name)
            else:
                logger.info("The Module hierarchy tracking is confused as we're exiting a Module that was "
                            "never entered. %s during %s", name, "backward" if is_bw else "forward")
        return fn

    @staticmethod
    def _grad_tensors(values: Any) -> list[Tensor]:
        flat, _ = tree_flatten(values)
        return [v for v in flat if isinstance(v, Tensor) and v.requires_grad]

    def _fw_pre_hook(self, mod: Any, inputs: Any) -> None:
        name = self._get_mod_name(mod)
        self._enter(name, False)()
        tensors = self._grad_tensors(inputs)
        if tensors:  # the inputs' gradients are the last thing this module's backward computes
            self._hooks.append(_MultiGradHook(tensors, self._leave(name, True)))

    def _fw_post_hook(self, mod: Any, inputs: Any, output: Any) -> None:
        name = self._get_mod_name(mod)
        self._leave(name, False)()
        tensors = self._grad_tensors(output)
        if tensors:  # the outputs' gradients arriving start this module's backward
            self._hooks.append(_MultiGradHook(tensors, self._enter(name, True)))

    def __enter__(self) -> "ModuleTracker":
        module = _module_hooks()
        if module is not None:
            self._handles = [module.register_module_forward_pre_hook(self._fw_pre_hook),
                             module.register_module_forward_hook(self._fw_post_hook)]
        return self

    def __exit__(self, *args: Any) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles = []
        for hook in self._hooks:
            hook.remove()
        self._hooks.clear()
