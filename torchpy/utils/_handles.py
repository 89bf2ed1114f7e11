"""RemovableHandle and add_hook: hooks kept in dicts (torch.utils.hooks' handles).

Every hook kind (tensor, autograd Node, post-accumulate-grad, module, global module,
optimizer) lives in an OrderedDict keyed by its handle's id, as in torch: removing twice
is a no-op, two registrations of one hook are two, and `prepend` can move a hook to the
front. A handle also removes the id from the flag dicts registered with it (with_kwargs,
always_call). Standard library only, so every layer can use it (autograd's graph does);
torchpy.utils.hooks re-exports both.
"""

from __future__ import annotations

import weakref
from typing import Any

__all__ = ["RemovableHandle", "add_hook"]


class RemovableHandle:
    """A handle whose `remove()` takes its hook out of the dict(s) it was registered in."""

    id: int
    next_id: int = 0

    def __init__(self, hooks_dict: Any, *, extra_dict: Any = None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        extras = extra_dict if isinstance(extra_dict, list) else ([] if extra_dict is None else [extra_dict])
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras)

    def remove(self) -> None:
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]
        for ref in self.extra_dict_ref:
            extra = ref()
            if extra is not None and self.id in extra:
                del extra[self.id]

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()



def add_hook(hooks: Any, hook: Any, *, prepend: bool = False, extra_dict: Any = None) -> RemovableHandle:
    """Register `hook` in the ordered dict `hooks` under a fresh handle id (first with
    `prepend`); the handle's remove() takes it out again, and out of `extra_dict`."""
    handle = RemovableHandle(hooks, extra_dict=extra_dict)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


RemovableHandle.__module__ = "torchpy.utils.hooks"  # its public home, as torch.utils.hooks (repr, pickling)
