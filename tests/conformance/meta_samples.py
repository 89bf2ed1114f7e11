"""Sample arguments for any aten op, built from its schema, for the meta conformance test.

An argument list is built from a few shared knobs (the shape every Tensor argument gets, the
dtype of data tensors, the dtype of out= tensors, the string choice); `candidates(entry)` yields
one argument list per combination, and the test takes the first one torch accepts on meta.
Arguments whose values must be related (sizes of a view, an index into a dim) come from
`OVERRIDES`. A `Spec` is library-neutral: `build(spec, lib, device)` makes that library's value.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any, Iterator

import numpy as np
import torch

import torchpy

SHAPES = ((3, 4), (4, 4), (2, 4, 4), (2, 3, 4), (4,), (), (2, 2, 3, 4))
DATA_DTYPES = ("float32", "int64", "bool")
OUT_DTYPES = (None, "int64", "bool", "float32")  # None: the data dtype
STRINGS = ("sum", "add", "mean", "trunc")
INDEX_NAMES = frozenset({"index", "indices"})
MASK_NAMES = frozenset({"mask", "condition"})


@dataclasses.dataclass(frozen=True)
class T:
    """A tensor argument: shape, dtype name, and whether its last two dims are transposed in memory."""

    shape: tuple[int, ...]
    dtype: str = "float32"
    transposed: bool = False

    def strides(self) -> tuple[int, ...]:
        shape = list(self.shape)
        if self.transposed:
            shape[-2:] = shape[-2:][::-1]
        strides, step = [], 1
        for size in reversed(shape):
            strides.append(step)
            step *= max(size, 1)
        strides.reverse()
        if self.transposed:
            strides[-2:] = strides[-2:][::-1]
        return tuple(strides)


def build(spec: Any, lib: Any, device: str, seed: int = 0) -> Any:
    """`spec` as `lib`'s argument on `device` (meta tensors have no values; CPU ones do)."""
    if isinstance(spec, T):
        dtype = getattr(lib, spec.dtype)
        if device == "meta":
            return lib.empty_strided(spec.shape, spec.strides(), dtype=dtype, device="meta")
        if 0 in spec.shape:  # an out= tensor: from lib.empty, whose storage can grow
            return lib.empty(spec.shape, dtype=dtype)
        shape = list(spec.shape)
        if spec.transposed:
            shape[-2:] = shape[-2:][::-1]
        rng = np.random.default_rng(seed)
        if spec.dtype == "int64":  # zeros: a valid index into any non-empty dim
            array = np.zeros(shape, np.int64)
        elif spec.dtype == "bool":
            array = rng.integers(0, 2, shape).astype(bool)
        else:
            array = rng.standard_normal(shape).astype(spec.dtype)
        if spec.transposed:
            array = array.swapaxes(-1, -2)
        return lib.from_numpy(array) if array.ndim else lib.tensor(array, dtype=dtype)
    if isinstance(spec, list):
        return [build(s, lib, device, seed + i + 1) for i, s in enumerate(spec)]
    if isinstance(spec, tuple) and spec and spec[0] == "dtype":
        return getattr(lib, spec[1])
    if spec == ("device",):  # a factory's device=: the device the sample runs on
        return device
    return spec


def transposed(spec: Any) -> Any:
    """`spec` with every tensor of 2+ dims laid out transposed."""
    if isinstance(spec, T) and len(spec.shape) >= 2:
        return dataclasses.replace(spec, transposed=True)
    if isinstance(spec, list):
        return [transposed(s) for s in spec]
    return spec


def has_transposable(specs: dict[str, Any]) -> bool:
    return any(transposed(s) != s for s in specs.values())


# Scalar-like arguments without a default: a value every op that takes them accepts.
_SMALL = {
    "num_samples": 2,
    "alpha": 1, "beta": 1, "other": 2, "exponent": 2, "min": -0.5, "max": 0.5, "s": 2, "self": 2,
    "start": 0, "end": 2, "step": 1, "threshold": 0.0, "value": 1, "weight": 0.5, "p": 2, "ord": 2,
    "decimals": 1, "dim0": 0, "dim1": 1, "dim2": -1, "dimension": 0, "from": 0, "to": 5, "offset": 0,
    "size": 2, "steps": 5, "k": 2, "split_size": 2, "index": 0, "mean": 0.0, "std": 1.0,
    "n": 5, "low": 0, "high": 5, "fill_value": 1.5, "m": 3,
}


def _value(arg: Any, shape: tuple[int, ...], data: str, out: str | None, string: str) -> Any:
    """One argument's sample under the knobs; `dataclasses.MISSING` when the arg is left out."""
    kind, name = str(arg.type), arg.name
    optional = kind.endswith("?")
    if kind.startswith("Tensor"):
        if arg.is_write and arg.kwarg_only:  # out= tensors: empty, so the op resizes them
            dtype = "int64" if name in INDEX_NAMES or name.endswith("indices") else (out or data)
            return T((0,), dtype)
        if kind == "Tensor[]":
            return [T(shape, data), T(shape, data)]
        if kind == "Tensor?[]":
            return [T((2,), "int64")]
        dtype = "int64" if name in INDEX_NAMES else "bool" if name in MASK_NAMES else data
        return T(shape, dtype)
    if name == "device" and kind == "Device?" and arg.kwarg_only:
        return ("device",)  # a tensor-less factory runs where device= says
    if arg.has_default_value():
        return dataclasses.MISSING  # the op's own default
    if optional:
        return None
    if kind == "int" and name == "dim":
        return 0
    if kind.startswith("int[") or kind.startswith("SymInt["):
        if name in ("dim", "dims"):
            return [0]
        if name == "output_size":
            return [2] * int(kind[kind.index("[") + 1:kind.index("]")] or 2)
        return list(shape)
    if kind == "ScalarType":
        return ("dtype", "float32")
    if kind == "str":
        return string
    if kind == "bool":
        return False
    if kind in ("int", "SymInt", "float", "Scalar"):
        return _SMALL[name]
    raise KeyError(f"no sample for {kind} {name}")


# Ops whose arguments must be related: argument name -> spec, over the knob-built ones.
S34, I64 = T((3, 4)), "int64"
OVERRIDES: dict[str, dict[str, Any]] = {
    "aten::mv": {"self": T((3, 4)), "vec": T((4,))},
    "aten::mv.out": {"self": T((3, 4)), "vec": T((4,))},
    "aten::addmv": {"self": T((3,)), "mat": T((3, 4)), "vec": T((4,))},
    "aten::addmv_": {"self": T((3,)), "mat": T((3, 4)), "vec": T((4,))},
    "aten::addmv.out": {"self": T((3,)), "mat": T((3, 4)), "vec": T((4,))},
    "aten::select_backward": {"grad_output": T((4,)), "input_sizes": [3, 4], "dim": 0, "index": 1},
    "aten::select_backward.out": {"grad_output": T((4,)), "input_sizes": [3, 4], "dim": 0, "index": 1},
    "aten::slice_backward": {"grad_output": T((2, 4)), "input_sizes": [3, 4], "dim": 0, "start": 0, "end": 2,
                             "step": 1},
    "aten::slice_backward.out": {"grad_output": T((2, 4)), "input_sizes": [3, 4], "dim": 0, "start": 0,
                                 "end": 2, "step": 1},
    "aten::diagonal_backward": {"grad_output": T((3,)), "input_sizes": [3, 4], "offset": 0, "dim1": 0, "dim2": 1},
    "aten::diagonal_backward.out": {"grad_output": T((3,)), "input_sizes": [3, 4], "offset": 0, "dim1": 0,
                                    "dim2": 1},
    "aten::unfold_backward": {"grad_in": T((3, 2, 2)), "input_sizes": [3, 4], "dim": 1, "size": 2, "step": 2},
    "aten::unfold_backward.out": {"grad_in": T((3, 2, 2)), "input_sizes": [3, 4], "dim": 1, "size": 2, "step": 2},
    "aten::view": {"size": [4, 3]},
    "aten::_unsafe_view": {"size": [2, 6]},
    "aten::_unsafe_view.out": {"size": [2, 6]},
    "aten::as_strided": {"size": [2, 2], "stride": [1, 2], "storage_offset": 1},
    "aten::unsafe_split_with_sizes": {"split_sizes": [1, 2]},
    "aten::unsafe_split_with_sizes.out": {"split_sizes": [1, 2]},
    "aten::index.Tensor": {"indices": [T((2,), I64), None]},
    "aten::index.Tensor_out": {"indices": [T((2,), I64), None]},
    "aten::index_put": {"indices": [T((2,), I64)], "values": T((4,))},
    "aten::index_put_": {"indices": [T((2,), I64)], "values": T((4,))},
    "aten::index_put.out": {"indices": [T((2,), I64)], "values": T((4,))},
    "aten::_index_put_impl_": {"indices": [T((2,), I64)], "values": T((4,))},
    "aten::index_select": {"index": T((2,), I64)},
    "aten::index_select.out": {"index": T((2,), I64)},
    "aten::clamp": {"min": -0.5},
    "aten::clamp_": {"min": -0.5},
    "aten::clamp.out": {"min": -0.5},
    # the output's size is the sum of the counts: no counts, and output_size to say so on meta
    "aten::repeat_interleave.Tensor": {"repeats": T((0,), I64), "output_size": 0},
    "aten::masked_scatter_backward": {"grad_output": S34, "mask": T((3, 4), "bool"), "sizes": [3, 4]},
    "aten::convolution": {"input": T((2, 4, 5, 6)), "weight": T((6, 2, 3, 2)), "bias": T((6,)), "stride": [2, 1],
                          "padding": [1, 0], "dilation": [1, 2], "transposed": False, "output_padding": [0, 0],
                          "groups": 2},
    "aten::convolution_backward": {"grad_output": T((2, 6, 3, 3)), "input": T((2, 4, 5, 6)), "weight": T((6, 2, 3, 2)),
                                   "bias_sizes": [6], "stride": [2, 1], "padding": [1, 0], "dilation": [1, 2],
                                   "transposed": False, "output_padding": [0, 0], "groups": 2,
                                   "output_mask": [True, True, True]},
    "aten::_convolution_mode": {"input": T((2, 4, 5, 6)), "weight": T((6, 4, 3, 2)), "bias": None, "stride": [1, 1],
                                "padding": "same", "dilation": [1, 1], "groups": 1},
    **{f"aten::conv{n}d{o}": {"input": T((2, 4) + (5,) * n), "weight": T((6, 4) + (3,) * n)}
       for n in (1, 2, 3) for o in ("", ".padding")},
    "aten::conv_transpose1d": {"input": T((2, 4, 5)), "weight": T((4, 3, 3))},
    **{f"aten::conv_transpose{n}d.input": {"input": T((2, 4) + (5,) * n), "weight": T((4, 3) + (3,) * n)}
       for n in (2, 3)},
    "aten::constant_pad_nd": {"pad": [1, -1, 2, 0]},
    **{f"aten::{name}_pad{n}d": {"self": T((2, 3, 4, 5, 6)[:n + 2]), "padding": [2, 1, 0, 3, 1, 2][:2 * n]}
       for name in ("reflection", "replication") for n in (1, 2, 3)},
    **{f"aten::{name}_pad{n}d_backward": {"grad_output": T((2, 3, 7, 8, 9)[:n + 2]), "self": T((2, 3, 4, 5, 6)[:n + 2]),
                                          "padding": [2, 1, 3, 0, 1, 2][:2 * n]}
       for name in ("reflection", "replication") for n in (1, 2, 3)},
    "aten::_pad_circular": {"self": T((2, 3, 4)), "pad": [1, 2]},
    "aten::pad": {"self": T((2, 3, 4)), "pad": [1, 2], "mode": "reflect"},
}


def candidates(entry: Any) -> Iterator[dict[str, Any]]:
    """Argument lists (name -> spec, positional order kept) for `entry`, most plausible first."""
    override = OVERRIDES.get(entry.qualified_name, {})
    args = entry.schema.arguments
    uses_strings = any(str(a.type).startswith("str") for a in args)
    uses_out = any(a.is_write and a.kwarg_only for a in args)
    seen = set()
    for shape, data, out, string in itertools.product(
            SHAPES, DATA_DTYPES, OUT_DTYPES if uses_out else (None,), STRINGS if uses_strings else ("",)):
        specs = {}
        for arg in args:
            value = override[arg.name] if arg.name in override else _value(arg, shape, data, out, string)
            if value is not dataclasses.MISSING:
                specs[arg.name] = value
        key = repr(specs)
        if key not in seen:
            seen.add(key)
            yield specs


def with_dims(specs: dict[str, Any], entry: Any) -> dict[str, Any] | None:
    """`specs` with every dim argument counted from the end (-1), or None if it has none."""
    changed = dict(specs)
    for arg in entry.schema.arguments:
        if arg.name in ("dim", "dims") and arg.name in specs and specs[arg.name] is not None:
            value = specs[arg.name]
            changed[arg.name] = [-1] * len(value) if isinstance(value, list) else -1
    return changed if changed != specs else None


def call(entry: Any, lib: Any, specs: dict[str, Any], device: str) -> tuple[Any, list[Any]]:
    """Run the op on `device` with `specs`: (result, the tensor arguments it may have written)."""
    name, _, overload = entry.qualified_name.removeprefix("aten::").partition(".")
    op = getattr(getattr(lib.ops.aten, name), overload or "default")
    positional, keywords, written = [], {}, []
    for i, arg in enumerate(entry.schema.arguments):
        if arg.name not in specs:
            continue
        value = build(specs[arg.name], lib, device, seed=i)
        if arg.is_write:
            written.append(value)
        if arg.kwarg_only:
            keywords[arg.name] = value
        else:
            positional.append(value)
    return op(*positional, **keywords), written


def metadata(value: Any) -> Any:
    """What the test compares: per tensor (sizes, strides, dtype, storage offset), recursively."""
    if isinstance(value, (torch.Tensor, torchpy.Tensor)):
        return (tuple(value.shape), tuple(value.stride()), str(value.dtype).split(".")[-1], value.storage_offset())
    if isinstance(value, (tuple, list)):
        return [metadata(v) for v in value]
    return value if value is None or isinstance(value, (bool, int, float)) else repr(value)
