"""torchpy.device: where a tensor lives ('cpu' or 'meta' today), and its dispatch keys."""

from __future__ import annotations

from typing import Any

from .._dispatch.keys import DispatchKey, DispatchKeySet

_KNOWN_TYPES = ("cpu", "meta", "cuda")


class device:
    """A device type with an optional index, as torch.device."""

    __slots__ = ("type", "index")

    def __new__(cls, type_or_str: Any, index: int | None = None) -> "device":
        if isinstance(type_or_str, device):
            if index is not None:
                raise RuntimeError("device(): cannot give an index with a device object")
            return type_or_str
        if isinstance(type_or_str, int) and not isinstance(type_or_str, bool):
            raise RuntimeError("device(): CUDA ordinals need a CUDA build; torchpy has none")
        if not isinstance(type_or_str, str):
            raise TypeError(f"device() received an invalid combination of arguments - got ({type(type_or_str).__name__})")
        text = type_or_str
        if ":" in text:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {text}")
            text, _, index_text = text.partition(":")
            if not index_text.isdigit():
                raise RuntimeError(f"Invalid device string: '{type_or_str}'")
            index = int(index_text)
        if text not in _KNOWN_TYPES:
            raise RuntimeError(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, "
                "maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start "
                f"of device string: {type_or_str}"
            )
        obj = object.__new__(cls)
        object.__setattr__(obj, "type", text)
        object.__setattr__(obj, "index", index)
        return obj

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"attribute '{name}' of 'torch.device' objects is not writable")

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self) -> tuple:
        return (device, (self.type, self.index))


CPU = device("cpu")
META = device("meta")

# The dispatch keys a plain tensor on each device carries (PyTorch's, per
# torch._C._dispatch_keys): the backend, ADInplaceOrView, the backend's autograd key,
# and, for CPU, its autocast key.
_DEVICE_KEYSETS = {
    "cpu": DispatchKeySet([DispatchKey.CPU, DispatchKey.ADInplaceOrView, DispatchKey.AutogradCPU,
                           DispatchKey.AutocastCPU]).raw_repr(),
    "meta": DispatchKeySet([DispatchKey.Meta, DispatchKey.ADInplaceOrView,
                            DispatchKey.AutogradMeta]).raw_repr(),
}
CPU_KEYSET = _DEVICE_KEYSETS["cpu"]
META_KEYSET = _DEVICE_KEYSETS["meta"]


def canonical_device(d: Any) -> device:
    """A supported device object from a device, a string or None (cpu)."""
    if d is None:
        return CPU
    d = device(d)
    if d.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    if d.type == "cpu":
        return CPU
    return META if d.index is None else d


def keyset_for(d: device) -> int:
    return _DEVICE_KEYSETS[d.type]
