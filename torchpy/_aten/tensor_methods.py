"""Tensor members that are Python conveniences over aten ops rather than ops themselves:
Tensor.to's argument forms, the dtype shorthands (float(), long(), ...), cpu(), type(),
new_tensor, the transposing properties T, mT, H, mH, and contiguous()'s "self when already contiguous".

`to` follows PyTorch's Python binding: it picks aten::to.dtype, to.device, to.other or
to.dtype_layout from the arguments' form (all CompositeImplicitAutograd, so a
TorchDispatchMode sees the `_to_copy` they decompose into, or nothing when the tensor is
returned as it is).
"""

from __future__ import annotations

from typing import Any, Callable

from .._tensor import dtype as _dt
from .._tensor.creation import tensor
from .._tensor.device import canonical_device, device as device_type
from .._tensor.enums import memory_format as memory_format_type
from .._tensor.enums import preserve_format, strided
from .._tensor.members import MODES, declare, declare_wrapper
from .._tensor.tensor import Tensor
from .._tensor.torch_function import dispatch_from_binding
from .._tensor.function_modes import call_mode, mode_on, track
from .fastcall import aten, call, call_kw
from .kernels.view import tensor_type_name

_function_modes = False  # whether any thread has a TorchFunctionMode (function_modes keeps it)
track(globals())



def _memory_format(value: Any) -> Any:
    return None if value is None or value is preserve_format else value


def _is_dtype(value: Any) -> bool:
    return type(value) is _dt.dtype or value in (float, int, bool, complex)


def _as_dtype(value: Any) -> _dt.dtype:
    return value if type(value) is _dt.dtype else _dt.from_python_type(value)


def _parse_to(args: tuple, kwargs: dict) -> tuple[Any, Any, Any, bool, bool]:
    """(other, device, dtype, non_blocking, copy) from Tensor.to's three call forms."""
    other = device = dtype = None
    rest: tuple = ()
    if args and isinstance(args[0], Tensor):
        other, rest = args[0], args[1:]
    elif args and _is_dtype(args[0]):
        dtype, rest = args[0], args[1:]
    elif args:
        device, rest = args[0], args[1:]
        if rest and (_is_dtype(rest[0]) or rest[0] is None):
            dtype, rest = rest[0], rest[1:]
    if len(rest) > 2:
        raise TypeError(f"to() received an invalid combination of arguments - got {len(args)} positional arguments")
    non_blocking = rest[0] if rest else kwargs.pop("non_blocking", False)
    copy = rest[1] if len(rest) > 1 else kwargs.pop("copy", False)
    other = kwargs.pop("other", other)
    device = kwargs.pop("device", device)
    dtype = kwargs.pop("dtype", dtype)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if device is not None and not isinstance(device, device_type):
        device = canonical_device(device)
    if dtype is not None:
        dtype = _as_dtype(dtype)
    return other, device, dtype, bool(non_blocking), bool(copy)


def to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    if _function_modes and mode_on():
        return dispatch_from_binding(to, (self, *args), kwargs)
    memory_format = _memory_format(kwargs.pop("memory_format", None))
    if memory_format is not None and not isinstance(memory_format, memory_format_type):
        raise TypeError(f"to(): argument 'memory_format' must be torch.memory_format, not {type(memory_format).__name__}")
    other, device, dtype, non_blocking, copy = _parse_to(args, kwargs)
    if other is not None:
        return aten("to.other")(self, other, non_blocking, copy, memory_format=memory_format)
    if device is None:
        if dtype is not None:
            if dtype is self._dtype and not copy and memory_format is None:
                return self  # what aten::to.dtype returns, without the trip through the dispatcher
            return aten("to.dtype")(self, dtype, non_blocking, copy, memory_format=memory_format)
        if not copy and memory_format is None:
            return self
        device = self._device
    if dtype is not None:
        return aten("to.device")(self, device, dtype, non_blocking, copy, memory_format=memory_format)
    return aten("to.dtype_layout")(self, dtype=self._dtype, layout=strided, device=device,
                                    non_blocking=non_blocking, copy=copy, memory_format=memory_format)


def _dtype_method(d: _dt.dtype, name: str) -> Any:
    def convert(self: Tensor, memory_format: Any = preserve_format) -> Tensor:
        if _function_modes and mode_on():
            return dispatch_from_binding(convert, (self, memory_format), {})
        memory_format = _memory_format(memory_format)
        if self._dtype is d and memory_format is None:
            return self
        if memory_format is None:
            return call(to_dtype, self._keyset, self, d)
        return call_kw(to_dtype, self._keyset, (self, d), {"memory_format": memory_format})

    to_dtype = aten("to.dtype")

    convert.__name__ = convert.__qualname__ = name
    return convert


_DTYPE_METHODS = {
    "float": _dt.float32, "double": _dt.float64, "half": _dt.float16, "bfloat16": _dt.bfloat16,
    "int": _dt.int32, "long": _dt.int64, "short": _dt.int16, "char": _dt.int8, "byte": _dt.uint8,
    "bool": _dt.bool, "cfloat": _dt.complex64, "cdouble": _dt.complex128,
}


def cpu(self: Tensor, memory_format: Any = preserve_format) -> Tensor:
    if _function_modes and mode_on():
        return dispatch_from_binding(cpu, (self, memory_format), {})
    return to(self, "cpu", memory_format=memory_format)


def cuda(self: Tensor, device: Any = None, non_blocking: bool = False, memory_format: Any = preserve_format) -> Tensor:
    """A copy on a CUDA device: refused where the device is resolved, as torch's CPU build does."""
    if _function_modes and mode_on():
        return dispatch_from_binding(cuda, (self, device, non_blocking, memory_format), {})
    if isinstance(device, int):  # torch resolves a bare index through the current accelerator
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return to(self, "cuda" if device is None else device, non_blocking=non_blocking, memory_format=memory_format)


_DTYPE_BY_TYPE_NAME = {f"torch.{d._c10_name}Tensor": d for d in _dt.all_dtypes}


def type_(self: Tensor, dtype: Any = None, non_blocking: bool = False, **kwargs: Any) -> Any:
    """x.type() -> 'torch.FloatTensor'; x.type(torch.float64) or x.type('torch.DoubleTensor') converts."""
    if _function_modes and mode_on():
        return dispatch_from_binding(type_, (self, dtype, non_blocking), kwargs)
    if dtype is None:
        return tensor_type_name(self)
    if isinstance(dtype, str):
        if dtype not in _DTYPE_BY_TYPE_NAME:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = _DTYPE_BY_TYPE_NAME[dtype]
    return to(self, _as_dtype(dtype), non_blocking)


def new_tensor(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """x.new_tensor(data): a copy of data with x's dtype and device unless given (a hand-written
    binding in torch, not one from the op table)."""
    if _function_modes and mode_on():
        return call_mode(Tensor.new_tensor, self, *args, **kwargs)
    return _new_tensor(self, *args, **kwargs)


def _new_tensor(self: Tensor, data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
                layout: Any = None, pin_memory: bool = False) -> Tensor:
    return tensor(data, dtype=dtype or self._dtype, device=device or self._device, requires_grad=requires_grad)


def _contiguous(generated: Callable) -> Callable:
    """Tensor.contiguous: `self` without dispatching when already contiguous, as PyTorch's
    Tensor::contiguous; else (and for other forms, or under a mode) the generated binding."""

    def contiguous(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        if not args and not kwargs and not (_function_modes and mode_on()):
            data = self._data  # NumPy's C-contiguity, like PyTorch's, ignores size-1 dims
            if data.flags.c_contiguous if data is not None else self.is_contiguous():
                return self
        return generated(self, *args, **kwargs)

    contiguous.__name__ = contiguous.__qualname__ = "contiguous"
    contiguous.__doc__ = getattr(generated, "__doc__", None)
    return contiguous


def declare_members() -> None:
    declare("new_tensor", new_tensor, checks=MODES)
    declare_wrapper("contiguous", _contiguous, checks=MODES)
    declare("to", to, checks=MODES, replaces_generated=True)  # torch's Python-level argument forms
    declare("cpu", cpu, checks=MODES)
    declare("cuda", cuda, checks=MODES)
    type_.__name__ = type_.__qualname__ = "type"
    declare("type", type_, checks=MODES)
    for name, d in _DTYPE_METHODS.items():
        declare(name, _dtype_method(d, name), checks=MODES)
    declare("T", _transposing_property("numpy_T", "The dims reversed (x.permute(n-1, ..., 0))."), checks=MODES)
    declare("mT", _transposing_property("mT", "The last two dims transposed."), checks=MODES)
    declare("H", _transposing_property("matrix_H", "The conjugate transpose of a matrix."), checks=MODES)
    declare("mH", _transposing_property("mH", "The last two dims conjugate-transposed."), checks=MODES)


def _transposing_property(op_name: str, doc: str) -> property:
    op = aten(op_name)

    def get(self: Tensor) -> Tensor:
        if _function_modes and mode_on():
            return dispatch_from_binding(get, (self,), {})
        return call(op, self._keyset, self)

    get.__name__ = get.__qualname__ = "__get__"  # what a TorchFunctionMode sees, as for torch's getters
    return property(get, doc=doc)
