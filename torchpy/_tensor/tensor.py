"""The Tensor object model: metadata, storage, NumPy interop, printing.

A CPU tensor holds `_data`, a NumPy array that views its storage with the
tensor's own sizes, strides and offset; views of a tensor are NumPy views of
the same memory and share its `UntypedStorage`. A meta tensor has no data:
`_data` is None and sizes, strides and offset are kept explicitly.

Strides and the storage offset of a CPU tensor are read off its array on
demand (most tensors never need them), so making a tensor from a kernel's
output costs a handful of attribute stores.

Operators are not defined here: Tensor's other members are declared where they are
written and installed once (members.py). The public members below start with a mode
guard (`if _function_modes and mode_on()`, function_modes.py): a TorchFunctionMode sees
plain tensors' calls to them, at one global read while no mode exists.
"""

from __future__ import annotations

import builtins
import copy
import copyreg
import math
from typing import Any, Iterator

import numpy as np

from . import dtype as _dt
from .device import CPU, CPU_KEYSET, META, META_KEYSET, device
from .dtype import dtype
from .enums import layout, strided
from .function_modes import call_mode, mode_on, track
from .members import MODES, tensor_member
from .printing import format_tensor


_function_modes = False  # whether any thread has a TorchFunctionMode (function_modes keeps it)
track(globals())


def set_requires_grad(t: "Tensor", value: bool) -> None:
    """The requires_grad setter (autograd/views.py declares the property)."""
    if value and not (t._dtype.is_floating_point or t._dtype.is_complex):
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    if not value and t._grad_fn is not None:
        raise RuntimeError(
            "you can only change requires_grad flags of leaf variables. If you want to use a "
            "computed variable in a subgraph that doesn't require differentiation use "
            "var_no_grad = var.detach()."
        )
    t._requires_grad = builtins.bool(value)


def grad_mode_enabled() -> bool:
    """Whether grad mode is on; torchpy.autograd (a layer above) replaces this at import.
    numpy() refuses a tensor that requires grad only while grad mode is on, as torch does."""
    return True


class Size(tuple):
    """torch.Size: a tuple of ints that prints as torch.Size([2, 3])."""

    __slots__ = ()  # no attributes of its own, as torch's (and `shape` hands out shared ones)

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(map(str, self))}])"

    __str__ = __repr__

    def numel(self) -> int:
        return math.prod(self)

    def __getitem__(self, index: Any) -> Any:
        result = tuple.__getitem__(self, index)
        return Size(result) if isinstance(index, slice) else result

    def __add__(self, other: Any) -> "Size":
        return Size(tuple(self) + tuple(other))

    def __reduce__(self) -> tuple:
        return (Size, (tuple(self),))


def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major strides in elements (a size-0 or size-1 dim still gets its running product)."""
    strides = []
    running = 1
    for size in reversed(shape):
        strides.append(running)
        running *= max(size, 1)
    return tuple(reversed(strides))


_CONTIGUOUS: dict[tuple, tuple] = {}


_SIZES: dict[tuple, Size] = {}


def _remembered(memo: dict, shape: tuple, make: Any) -> Any:
    """make(shape), kept in `memo` (cleared past 4096 shapes: some programs vary them without bound)."""
    value = memo.get(shape)
    if value is None:
        if len(memo) > 4096:
            memo.clear()
        value = memo[shape] = make(shape)
    return value


def size_of(shape: tuple) -> Size:
    """Size(shape), remembered: `x.shape` is read far more often than shapes change (a Size is
    immutable, so one object serves every tensor of that shape)."""
    return _remembered(_SIZES, shape, Size)


def contiguous_strides_of(shape: tuple) -> tuple[int, ...]:
    """contiguous_strides(shape), remembered: views, copies and wrapper subclasses ask for the
    same few shapes."""
    return _remembered(_CONTIGUOUS, shape, contiguous_strides)


_LAYOUTS: dict[tuple, tuple[tuple, tuple]] = {}


def _plain_layout(shape: tuple) -> tuple[tuple, tuple]:
    return tuple(shape), contiguous_strides(shape)


def contiguous_layout_of(shape: tuple) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(shape as a plain tuple, its contiguous strides), remembered: a wrapper subclass makes
    one tensor from `elem.shape` (a Size) per op."""
    return _remembered(_LAYOUTS, shape, _plain_layout)


def _address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


class UntypedStorage:
    """The memory behind a tensor and all its views: a byte buffer, or the NumPy array that owns
    the memory until flat bytes are asked for (view.storage_bytes); None on meta."""

    __slots__ = ("_buffer", "_nbytes", "device", "__weakref__")

    def __init__(self, buffer: np.ndarray | None, nbytes: int, device_: device) -> None:
        self._buffer = buffer
        self._nbytes = nbytes
        self.device = device_

    @staticmethod
    def of_array(array: np.ndarray) -> "UntypedStorage":
        """The storage of an array: the whole memory block its base chain owns."""
        root = array
        while isinstance(root.base, np.ndarray):
            root = root.base
        # the root array itself: viewed as flat bytes only when asked (view.storage_bytes)
        return UntypedStorage(root, root.nbytes, CPU)

    def nbytes(self) -> int:
        return self._nbytes

    def size(self) -> int:
        return self._nbytes

    def data_ptr(self) -> int:
        return 0 if self._buffer is None else _address(self._buffer)

    def __len__(self) -> int:
        return self._nbytes

    def __repr__(self) -> str:
        return f"torchpy.UntypedStorage(nbytes={self._nbytes}, device='{self.device}')"


def storage_of(t: "Tensor") -> UntypedStorage:
    """t.untyped_storage() for torchpy's own use: no TorchFunctionMode sees it."""
    if t._storage is None:
        if t._data is None:  # a wrapper subclass's tensor: an empty storage, made when asked
            t._storage = UntypedStorage(None, 0, t._device)
        else:
            t._storage = UntypedStorage.of_array(t._data)
    return t._storage


class Tensor:
    """A multi-dimensional array with PyTorch's semantics, dispatched by its key set."""

    __slots__ = (
        "_keyset",           # raw DispatchKeySet (int): what the dispatcher reads
        "_data",             # numpy array view of the storage (None on meta)
        "_shape",            # tuple of ints
        "_stride",           # tuple of ints, or None until asked (CPU)
        "_offset",           # storage offset in elements, or None until asked (CPU)
        "_dtype",
        "_device",
        "_storage",          # UntypedStorage, or None until asked (fresh CPU arrays)
        "_base",             # the tensor this one views, or None
        "_version_counter",  # [int] shared with views, or None until first bump
        "_requires_grad",
        "_grad",
        "_grad_fn",
        "_autograd_meta",    # autograd.graph.AutogradMeta (output_nr, hooks, ...), made on demand
        "_wrapped",          # the Python number a wrapped-number tensor came from, else None
        "__weakref__",
        "__dict__",          # attributes code sets on a tensor (torch tensors take any)
    )

    # --- metadata ----------------------------------------------------------------------

    @tensor_member(checks=MODES)
    @property
    def shape(self) -> Size:
        if _function_modes and mode_on():
            return call_mode(Tensor.shape.__get__, self)
        return _SIZES.get(self._shape) or size_of(self._shape)  # size_of's memo, read inline

    @tensor_member(checks=MODES)
    def size(self, dim: int | None = None) -> Any:
        if _function_modes and mode_on():
            return call_mode(Tensor.size, self) if dim is None else call_mode(Tensor.size, self, dim)
        if dim is None:
            return _SIZES.get(self._shape) or size_of(self._shape)
        return self._shape[_wrap_dim(dim, len(self._shape))]

    @tensor_member(checks=MODES)
    def stride(self, dim: int | None = None) -> Any:
        if _function_modes and mode_on():
            return call_mode(Tensor.stride, self) if dim is None else call_mode(Tensor.stride, self, dim)
        strides = self._stride
        if strides is None:
            itemsize = self._data.itemsize
            strides = self._stride = tuple([s // itemsize for s in self._data.strides])
        if dim is None:
            return strides
        return strides[_wrap_dim(dim, len(self._shape))]

    @tensor_member(checks=MODES)
    def storage_offset(self) -> int:
        if _function_modes and mode_on():
            return call_mode(Tensor.storage_offset, self)
        if self._offset is None:
            storage = storage_of(self)
            self._offset = (_address(self._data) - storage.data_ptr()) // self._data.itemsize
        return self._offset

    @tensor_member(checks=MODES)
    def untyped_storage(self) -> UntypedStorage:
        if _function_modes and mode_on():
            return call_mode(Tensor.untyped_storage, self)
        return storage_of(self)

    @tensor_member(checks=MODES)
    def data_ptr(self) -> int:
        if _function_modes and mode_on():
            return call_mode(Tensor.data_ptr, self)
        return 0 if self._data is None else _address(self._data)

    @tensor_member(checks=MODES)
    @property
    def dtype(self) -> dtype:
        """The tensor's dtype (torchpy.float32, ...)."""
        if _function_modes and mode_on():
            return call_mode(Tensor.dtype.__get__, self)
        return self._dtype

    @tensor_member(checks=MODES)
    @property
    def device(self) -> device:
        """The tensor's device (torchpy.device('cpu'), ...)."""
        if _function_modes and mode_on():
            return call_mode(Tensor.device.__get__, self)
        return self._device

    @tensor_member(checks=MODES)
    @property
    def layout(self) -> layout:
        if _function_modes and mode_on():
            return call_mode(Tensor.layout.__get__, self)
        return strided  # torchpy has dense tensors only

    @tensor_member(checks=MODES)
    @property
    def is_meta(self) -> bool:
        if _function_modes and mode_on():
            return call_mode(Tensor.is_meta.__get__, self)
        return self._device.type == "meta"

    @tensor_member(checks=MODES)
    @property
    def is_cpu(self) -> bool:
        if _function_modes and mode_on():
            return call_mode(Tensor.is_cpu.__get__, self)
        return self._device.type == "cpu"

    @tensor_member(checks=MODES)
    @property
    def is_cuda(self) -> bool:
        if _function_modes and mode_on():
            return call_mode(Tensor.is_cuda.__get__, self)
        return False

    @tensor_member(checks=MODES)
    @property
    def ndim(self) -> int:
        if _function_modes and mode_on():
            return call_mode(Tensor.ndim.__get__, self)
        return len(self._shape)

    @tensor_member(checks=MODES)
    def dim(self) -> int:
        if _function_modes and mode_on():
            return call_mode(Tensor.dim, self)
        return len(self._shape)

    ndimension = tensor_member("ndimension", checks=MODES)(dim)

    @tensor_member(checks=MODES)
    def numel(self) -> int:
        if _function_modes and mode_on():
            return call_mode(Tensor.numel, self)
        return math.prod(self._shape)

    nelement = tensor_member("nelement", checks=MODES)(numel)

    @tensor_member(checks=MODES)
    def element_size(self) -> int:
        if _function_modes and mode_on():
            return call_mode(Tensor.element_size, self)
        return self._dtype.itemsize

    @tensor_member(checks=MODES)
    @property
    def itemsize(self) -> int:
        if _function_modes and mode_on():
            return call_mode(Tensor.itemsize.__get__, self)
        return self._dtype.itemsize

    @tensor_member(checks=MODES)
    @property
    def nbytes(self) -> int:
        if _function_modes and mode_on():
            return call_mode(Tensor.nbytes.__get__, self)
        return self._dtype.itemsize * math.prod(self._shape)

    @tensor_member(checks=MODES)
    def is_floating_point(self) -> bool:
        if _function_modes and mode_on():
            return call_mode(Tensor.is_floating_point, self)
        return self._dtype.is_floating_point

    @tensor_member(checks=MODES)
    def is_complex(self) -> bool:
        if _function_modes and mode_on():
            return call_mode(Tensor.is_complex, self)
        return self._dtype.is_complex

    @tensor_member(checks=MODES)
    def is_signed(self) -> bool:
        if _function_modes and mode_on():
            return call_mode(Tensor.is_signed, self)
        return self._dtype.is_signed

    @tensor_member(checks=MODES)
    def is_contiguous(self, *, memory_format: Any = None) -> bool:
        if _function_modes and mode_on():
            return call_mode(Tensor.is_contiguous, self) if memory_format is None else call_mode(
                Tensor.is_contiguous, self, memory_format=memory_format)
        dims = _CHANNELS_LAST_DIMS.get(getattr(memory_format, "_name", None))
        if dims is not None:  # NHWC / NDHWC: dims innermost first are C, W, H, (D), N
            if len(self._shape) != len(dims):
                return False
            order = zip([self._shape[d] for d in dims], [self.stride()[d] for d in dims])
        elif 0 in self._shape:  # no elements: contiguous whatever the strides
            return True
        else:
            order = zip(reversed(self._shape), reversed(self.stride()))
        expected = 1
        for size, stride in order:
            if size != 1 and stride != expected:
                return False
            expected *= size
        return True

    @property
    def _version(self) -> int:
        counter = self._version_counter
        return 0 if counter is None else counter[0]

    def _bump_version(self) -> None:
        counter = self._version_counter
        if counter is None:
            counter = self._version_counter = [0]
        counter[0] += 1

    def _is_view(self) -> bool:
        return self._base is not None

    # --- autograd-facing state (the autograd layer fills these in) -----------------------

    # requires_grad, grad_fn and is_leaf: autograd/views.py (a view's are read off its base)

    @tensor_member(checks=MODES)
    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        if _function_modes and mode_on():
            return call_mode(Tensor.requires_grad_, self) if requires_grad is True else call_mode(
                Tensor.requires_grad_, self, requires_grad)
        self.requires_grad = requires_grad
        return self

    @property
    def grad(self) -> "Tensor | None":
        if _function_modes and mode_on():
            return call_mode(Tensor.grad.__get__, self)
        return self._grad

    @tensor_member(checks=MODES)  # (the setter's property: the one the class keeps)
    @grad.setter
    def grad(self, value: "Tensor | None") -> None:
        self._grad = value

    # --- Python protocols -------------------------------------------------------------------

    @tensor_member(checks=MODES)
    def __len__(self) -> int:
        if _function_modes and mode_on():
            return call_mode(Tensor.__len__, self)
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self) -> Iterator["Tensor"]:
        # No __torch_function__ of its own, as in torch (its dim() and unbind() have theirs,
        # so a subclass iterates over instances of itself)
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    @tensor_member(checks=MODES)
    def __contains__(self, element: Any, /) -> bool:
        if _function_modes and mode_on():
            return call_mode(Tensor.__contains__, self, element)
        if isinstance(element, (Tensor, builtins.bool, builtins.int, builtins.float, builtins.complex)):
            return builtins.bool((element == self).any().item())
        raise RuntimeError(
            f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}.")

    @tensor_member(checks=MODES)
    def __reversed__(self) -> "Tensor":
        """The tensor reversed along dim 0 (a tensor, as torch's, not an iterator)."""
        if _function_modes and mode_on():
            return call_mode(Tensor.__reversed__, self)
        return self if self.dim() == 0 else self.flip(0)

    @tensor_member(checks=MODES)
    def __bool__(self) -> bool:
        if _function_modes and mode_on():
            return call_mode(Tensor.__bool__, self)
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return builtins.bool(self.item())

    @tensor_member(checks=MODES)
    def __index__(self) -> int:
        if _function_modes and mode_on():
            return call_mode(Tensor.__index__, self)
        if self.numel() != 1 or self._dtype.is_floating_point or self._dtype.is_complex:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return builtins.int(self.item())

    @tensor_member(checks=MODES)
    def __int__(self) -> int:
        if _function_modes and mode_on():
            return call_mode(Tensor.__int__, self)
        return builtins.int(self._scalar("int"))

    @tensor_member(checks=MODES)
    def __float__(self) -> float:
        if _function_modes and mode_on():
            return call_mode(Tensor.__float__, self)
        return builtins.float(self._scalar("float"))

    def __complex__(self) -> complex:
        return builtins.complex(self._scalar("complex"))

    def _scalar(self, kind: str) -> Any:
        if self.numel() != 1:
            raise ValueError(f"only one element tensors can be converted to Python scalars")
        return self.item()

    __hash__ = object.__hash__  # by identity, as torch.Tensor

    @tensor_member(checks=MODES)
    def item(self) -> Any:
        if _function_modes and mode_on():
            return call_mode(Tensor.item, self)
        if self._data is None:
            raise RuntimeError(f"Tensor.item() cannot be called on {self._device.type} tensors")
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        return _to_python(self._data.reshape(-1)[0], self._dtype)

    @tensor_member(checks=MODES)
    def tolist(self) -> Any:
        if _function_modes and mode_on():
            return call_mode(Tensor.tolist, self)
        self._check_has_data("tolist")
        if self._dtype is _dt.bfloat16 or self._dtype is _dt.float16:
            return self._data.astype(np.float32).tolist()
        return self._data.tolist()

    @tensor_member(checks=MODES)
    def numpy(self, *, force: bool = False) -> np.ndarray:
        if _function_modes and mode_on():
            return call_mode(Tensor.numpy, self, force=True) if force else call_mode(Tensor.numpy, self)
        if self._requires_grad and not force and grad_mode_enabled():
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
            )
        if self._data is None:
            raise TypeError(
                f"can't convert {self._device.type} device type tensor to numpy. Use Tensor.cpu() "
                "to copy the tensor to host memory first."
            )
        if self._dtype is _dt.bfloat16:
            raise TypeError("Got unsupported ScalarType BFloat16")
        return self._data

    @tensor_member(checks=MODES)
    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if _function_modes and mode_on():
            return call_mode(Tensor.__array__, self) if dtype is None and copy is None else call_mode(
                Tensor.__array__, self, dtype, copy)
        array = self.numpy()
        return array if dtype is None else array.astype(dtype, copy=False)

    @tensor_member(checks=MODES)
    def __array_wrap__(self, array: np.ndarray) -> "Tensor":
        """A NumPy ufunc's result on tensors, as a tensor (np.sin(t) is a tensor). Torch's
        signature, one argument, so NumPy 2 warns here as it does for torch."""
        if _function_modes and mode_on():
            return call_mode(Tensor.__array_wrap__, self, array)
        from .creation import from_numpy  # creation imports this module: a cycle inside _tensor

        return from_numpy(array.astype("uint8") if array.dtype == builtins.bool else array)

    def _check_has_data(self, what: str) -> None:
        if self._data is None:
            raise NotImplementedError(
                f"Cannot copy out of meta tensor; no data! ({what} on a tensor of device "
                f"'{self._device}')"
            )

    @tensor_member(checks=MODES)
    def __repr__(self, *, tensor_contents: Any = None) -> str:
        # a view's may be stale: Tensor's own getter refreshes it (a subclass's would go
        # through its __torch_function__, whose logging may print this tensor)
        if _function_modes and mode_on():
            return call_mode(Tensor.__repr__, self) if tensor_contents is None else call_mode(
                Tensor.__repr__, self, tensor_contents=tensor_contents)
        grad_fn = self._grad_fn if self._base is None else Tensor.grad_fn.fget(self)
        meta = self._autograd_meta
        prefix = "tensor(" if type(self) is Tensor or type(self).__name__ == "Parameter" else f"{type(self).__name__}("
        return format_tensor(
            self._data,
            dtype_name=self._dtype._name,
            shape=self._shape,
            default_dtype_name=_dt.get_default_dtype()._name,
            device=str(self._device),
            requires_grad=self._requires_grad,
            # torch shows the short name: grad_fn=<CopyBackwards> for torch::autograd::CopyBackwards
            grad_fn_name=None if grad_fn is None else grad_fn.name().rsplit("::", 1)[-1],
            prefix=prefix,
            tensor_contents=tensor_contents,
            # a dual tensor's tangent (forward AD drops every tangent when its level exits)
            tangent=None if meta is None or not meta.fw_grads else repr(next(iter(meta.fw_grads.values()))),
        )

    __str__ = __repr__

    @tensor_member(checks=MODES)
    def __deepcopy__(self, memo: dict) -> "Tensor":
        """torch's checks, then a copy of every field and attribute (the memo keeps shared
        objects shared)."""
        if _function_modes and mode_on():
            return call_mode(Tensor.__deepcopy__, self, memo)
        if self._grad_fn is not None or (self._base is not None and self._base._requires_grad):
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at "
                "the moment.  If you were attempting to deepcopy a module, this may be because of a "
                "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001")
        if id(self) in memo:
            return memo[id(self)]
        if type(self) is not Tensor and self._data is not None and type(self.new_empty([])) is not type(self):
            raise RuntimeError(
                "The default implementation of __deepcopy__() for non-wrapper subclasses only works for "
                "subclass types that implement new_empty() and for which that function returns another instance "
                "of the same subclass. You should either properly implement new_empty() for your subclass or "
                "override __deepcopy__() if it is intended behavior for new_empty() to return an instance of a "
                "different type.")
        out = memo[id(self)] = _new(type(self))
        for name in copyreg._slotnames(type(self)):
            if name == "_data" or name == "_storage" or not hasattr(self, name):
                continue
            setattr(out, name, copy.deepcopy(getattr(self, name), memo))
        out._data, out._storage = _deepcopy_memory(self, memo)
        out.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return out

    @tensor_member(checks=MODES)
    def __format__(self, spec: str) -> str:
        # a number's formatting for a plain 0-dim tensor only: torch leaves subclasses to
        # object.__format__ (which refuses a format spec)
        if _function_modes and mode_on():
            return call_mode(Tensor.__format__, self, spec)
        if not self._shape and self._data is not None and type(self) is Tensor:
            return self.item().__format__(spec)
        return object.__format__(self, spec)


_CHANNELS_LAST_DIMS = {"channels_last": (1, 3, 2, 0), "channels_last_3d": (1, 4, 3, 2, 0)}


def _wrap_dim(dim: int, ndim: int) -> int:
    """A dim in range for `ndim` dims, with PyTorch's IndexError for one out of range."""
    rank = max(ndim, 1)  # a 0-dim tensor accepts dims -1 and 0
    if not -rank <= dim < rank:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {dim})"
        )
    return dim + rank if dim < 0 else dim


def _to_python(value: Any, d: dtype) -> Any:
    if d.is_floating_point:
        return builtins.float(value)
    if d.is_complex:
        return builtins.complex(value)
    if d is _dt.bool:
        return builtins.bool(value)
    return builtins.int(value)


# --- making tensors (used by kernels' adapters and factories) ------------------------------

_new = object.__new__


def _deepcopy_memory(t: Tensor, memo: dict) -> tuple[np.ndarray | None, UntypedStorage | None]:
    """A deep copy of t's array and storage: the memory block behind them copied once per
    deepcopy call (the memo), so that tensors sharing memory before share the copies after."""
    data = t._data
    if data is None:
        return None, copy.deepcopy(t._storage, memo)
    root = data
    while isinstance(root.base, np.ndarray):
        root = root.base
    new_root = memo.get(id(root))
    if new_root is None:
        new_root = memo[id(root)] = root.copy(order="K")
        memo.setdefault(id(memo), []).append(root)  # keep root alive while its id is a key (copy's rule)
    new_data = np.ndarray(data.shape, data.dtype, new_root, _address(data) - _address(root), data.strides)
    storage = t._storage
    if storage is None:
        return new_data, None
    new_storage = memo.get(id(storage))
    if new_storage is None:
        new_storage = memo[id(storage)] = UntypedStorage(new_root, storage._nbytes, storage.device)
    return new_data, new_storage


def init_fields(t: Tensor, keyset: int, data: np.ndarray | None, shape: tuple[int, ...],
                stride: tuple[int, ...] | None, offset: int | None, d: dtype, dev: device,
                storage: UntypedStorage | None, base: Tensor | None = None,
                version_counter: list[int] | None = None) -> Tensor:
    """Set every slot of a new (object.__new__) tensor: the one list of Tensor's fields.
    Autograd state starts empty. from_array spells this out inline (the hottest path);
    tests/tensor/test_tensor_fields.py checks the two agree."""
    t._keyset = keyset
    t._data = data
    t._shape = shape
    t._stride = stride
    t._offset = offset
    t._dtype = d
    t._device = dev
    t._storage = storage
    t._base = base
    t._version_counter = version_counter
    t._requires_grad = False
    t._grad = None
    t._grad_fn = None
    t._autograd_meta = None
    t._wrapped = None
    return t


def from_array(array: np.ndarray, d: dtype, cls: type = Tensor) -> Tensor:
    """A CPU tensor over a freshly computed array it owns (no copy)."""
    # init_fields(_new(cls), CPU_KEYSET, array, array.shape, stride, 0, d, CPU, None), inline:
    # every op result is made here and the call would cost ~0.03 us of a ~1 us op
    t = _new(cls)
    t._keyset = CPU_KEYSET
    t._data = array
    t._shape = array.shape
    # None: read off the array when asked. NumPy gives an empty array zero strides; a fresh
    # empty tensor's are contiguous, as torch's (view_of sets a view's own).
    t._stride = None if array.size else contiguous_strides(array.shape)
    t._offset = 0
    t._dtype = d
    t._device = CPU
    t._storage = None
    t._base = None
    t._version_counter = None
    t._requires_grad = False
    t._grad = None
    t._grad_fn = None
    t._autograd_meta = None
    t._wrapped = None
    return t


def view_of(base: Tensor, array: np.ndarray, stride: tuple[int, ...] | None = None,
            offset: int | None = None) -> Tensor:
    """A CPU tensor over `array`, a NumPy view into `base`'s memory: shares storage and version.
    `stride` / `offset` None: read off `array` when first asked."""
    t = from_array(array, base._dtype)
    t._stride = stride
    t._offset = offset
    storage = base._storage
    t._storage = storage if storage is not None else base.untyped_storage()
    root = t._base = base._base if base._base is not None else base
    counter = base._version_counter
    if counter is None:
        counter = base._version_counter = [0]
    t._version_counter = counter
    if not _view_grad_state.enabled and root._requires_grad:
        _on_no_grad_view(t, root)
    return t


class _GradOn:
    enabled = True


# torchpy.autograd.views replaces these: a view made with grad mode off of a tensor that
# requires grad is marked there (it requires grad, and may not be modified in place later).
_view_grad_state: Any = _GradOn()
_on_no_grad_view: Any = None
_on_multi_output_views: Any = None


def meta_tensor(shape: tuple[int, ...], d: dtype, stride: tuple[int, ...] | None = None,
                offset: int = 0, storage: UntypedStorage | None = None) -> Tensor:
    """A tensor on the meta device: sizes, strides and dtype, no data."""
    shape = tuple(shape)
    stride = contiguous_strides(shape) if stride is None else tuple(stride)
    if storage is None:
        extent = 1 + builtins.sum((s - 1) * st for s, st in zip(shape, stride)) if all(shape) else 0
        storage = UntypedStorage(None, (extent + offset) * d.itemsize, META)
    return init_fields(_new(Tensor), META_KEYSET, None, shape, stride, offset, d, META, storage)


def wrapped_number(value: Any) -> Tensor:
    """A 0-dim tensor for a Python number passed where a Tensor goes (PyTorch's "wrapped
    number"): it promotes like the number, and __torch_dispatch__ sees the number."""
    d = _dt.scalar_default_dtype(value)
    t = from_array(np.array(value, dtype=_dt.to_numpy_dtype(d)), d)
    t._wrapped = value
    return t
