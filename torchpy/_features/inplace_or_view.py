"""The ADInplaceOrView key: version counters for in-place and out= ops.

Every operator that writes into an argument (`Tensor(a!)` in its schema) gets
a kernel at ADInplaceOrView that runs the op below the key and then bumps the
version counter of each written tensor (shared with its views), which is how
saved tensors notice they were modified. Other ops fall through this key.
"""

from __future__ import annotations

from typing import Any

from .._dispatch import keys as K
from .._dispatch import tls
from .._dispatch.dispatcher import RAW, Kernel, OperatorEntry, RegistrationHandle, dispatcher
from .._dispatch.keys import DispatchKey

BELOW = K.full_after(DispatchKey.ADInplaceOrView)
_BELOW_EXCLUDED = K.AUTOGRAD_BITS | K.key_bits(DispatchKey.ADInplaceOrView)


_below_salt = tls.excluding(_BELOW_EXCLUDED)  # this thread's salt, this key and autograd excluded
_below_salts = _below_salt.salts


def _written_arguments(schema: Any) -> tuple[tuple[int, str], ...]:
    return tuple(
        (i, a.name) for i, a in enumerate(schema.arguments)
        if a.alias_info is not None and a.alias_info.is_write and a.type.base_name == "Tensor"
    )


def _make_kernel(written: tuple[tuple[int, str], ...]) -> Any:
    def inplace_or_view(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
        # Ops the kernel itself calls run below this key (and autograd), as under PyTorch's
        # AutoDispatchBelowADInplaceOrView: only this op bumps the versions.
        state = tls.local.__dict__  # the thread's TLS as a dict (see tls._LocalDispatchKeys)
        salt = state["salt"]
        state["salt"] = _below_salts.get(salt) or _below_salt(salt)
        try:
            result = op.redispatch_raw(ks & BELOW, args, kwargs)
        finally:
            state["salt"] = salt
        n = len(args)
        for position, name in written:
            target = args[position] if position < n else kwargs.get(name)
            if isinstance(target, (list, tuple)):
                for t in target:
                    t._bump_version()
            elif target is not None:
                target._bump_version()
        return result

    return inplace_or_view


def _on_define(entry: OperatorEntry) -> RegistrationHandle | None:
    written = _written_arguments(entry.schema)
    if not written:
        return None
    kernel = Kernel(_make_kernel(written), RAW, f"registered at {__file__}:{_make_kernel.__code__.co_firstlineno}")
    return dispatcher.register_kernel(entry.qualified_name, DispatchKey.ADInplaceOrView, kernel)


dispatcher.on_define.append(_on_define)
for _entry in list(dispatcher.entries.values()):  # ops defined before this module loaded
    if _entry.schema is not None:
        _on_define(_entry)
