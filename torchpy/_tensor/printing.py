"""Tensor printing, character for character as PyTorch prints.

The formatter works over plain data (a NumPy array plus metadata) so that it
does not depend on the Tensor class. The layout rules it reproduces:

* Floating values share one style per tensor, chosen from the nonzero finite
  values: *integer* style (``1.``, ``-3.``) when all are whole numbers,
  *scientific* style (``1.0000e-08``) when max/min > 1000, max > 1e8 or
  min < 1e-4, and *fixed* style (``1.5000``) otherwise. Every element is
  right-aligned to the widest nonzero finite element.
* Complex values use one such style for the real parts and another for the
  imaginary parts.
* Above ``threshold`` elements only ``edgeitems`` leading and trailing entries
  of each dimension are shown, separated by ``...``; the style and width are
  computed from the shown entries only.
* Rows wrap at ``linewidth``; trailing ``key=value`` suffixes wrap too.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

__all__ = [
    "PrintOptions",
    "format_tensor",
    "get_printoptions",
    "printoptions",
    "set_printoptions",
]


@dataclasses.dataclass
class PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


_OPTS = PrintOptions()

_PROFILES: dict[str, dict[str, Any]] = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set the options used to print tensors (same semantics as torch).

    A ``profile`` ("default", "short", "full") is applied first and the explicit
    options override it; an unknown profile is ignored. As in torch,
    ``sci_mode`` is always assigned, so omitting it resets it to automatic.
    """
    if profile is not None and profile in _PROFILES:
        for name, value in _PROFILES[profile].items():
            setattr(_OPTS, name, value)
    if precision is not None:
        _OPTS.precision = precision
    if threshold is not None:
        _OPTS.threshold = threshold
    if edgeitems is not None:
        _OPTS.edgeitems = edgeitems
    if linewidth is not None:
        _OPTS.linewidth = linewidth
    _OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current print options, as keyword arguments for set_printoptions."""
    return dataclasses.asdict(_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Temporarily change the print options (same arguments as set_printoptions)."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


# ---------------------------------------------------------------------------
# Per-element formatting
# ---------------------------------------------------------------------------

_COMPLEX_NAMES = frozenset({"complex32", "complex64", "complex128"})


def _is_floating_name(dtype_name: str) -> bool:
    # float16/32/64, bfloat16 and the float8 family.
    return dtype_name.startswith(("float", "bfloat"))


def _float_cells(values: list[float], opts: PrintOptions) -> tuple[list[str], int]:
    """Format floats in the tensor-wide style, right-aligned; returns cells and width."""
    finite_nonzero = [v for v in values if v != 0.0 and math.isfinite(v)]
    if not finite_nonzero:
        # Nothing to choose a style from: zeros print as "0.", others as nan/inf.
        return [_whole_str(v) for v in values], 1

    magnitudes = [abs(v) for v in finite_nonzero]
    largest, smallest = max(magnitudes), min(magnitudes)
    use_sci = (
        largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
        if opts.sci_mode is None
        else opts.sci_mode
    )
    if use_sci:
        spec = f".{opts.precision}e"
        strings = [format(v, spec) for v in values]
    elif all(v == math.ceil(v) for v in finite_nonzero):
        strings = [_whole_str(v) for v in values]
    else:
        spec = f".{opts.precision}f"
        strings = [format(v, spec) for v in values]
    width = _style_width(values, strings)
    return _right_align(strings, width), width


def _whole_str(value: float) -> str:
    # The trailing dot marks a whole-number float as floating point.
    text = f"{value:.0f}"
    return text + "." if math.isfinite(value) else text


def _style_width(values: list[float], strings: list[str]) -> int:
    # Only nonzero finite values set the width; zeros, nan and inf do not.
    width = 1
    for value, text in zip(values, strings):
        if value != 0.0 and math.isfinite(value) and len(text) > width:
            width = len(text)
    return width


def _right_align(strings: list[str], width: int) -> list[str]:
    return [s if len(s) >= width else " " * (width - len(s)) + s for s in strings]


def _plain_cells(values: list[Any]) -> tuple[list[str], int]:
    """Integers and bools: str() of each value, right-aligned to the widest."""
    strings = [str(v) for v in values]
    width = max(1, max(map(len, strings), default=1))
    return _right_align(strings, width), width


def _complex_cells(flat: np.ndarray, opts: PrintOptions) -> tuple[list[str], int]:
    """Complex elements as 'real+imagj' and the nominal element width for wrapping."""
    reals, real_width = _float_cells(flat.real.astype(np.float64).tolist(), opts)
    imags, imag_width = _float_cells(flat.imag.astype(np.float64).tolist(), opts)
    cells = []
    for real, imag in zip(reals, imags):
        imag = imag.lstrip() + "j"
        # The imaginary part carries its own '-'; a '+' is added otherwise.
        cells.append(real + imag if imag[0] == "-" else real + "+" + imag)
    # Wrapping counts the padded imaginary width plus the 'j', not its actual length.
    return cells, real_width + imag_width + 1


def _format_cells(
    flat: np.ndarray, dtype_name: str, opts: PrintOptions
) -> tuple[list[str], int]:
    """Format a flat array of shown elements; returns cells and element width."""
    if dtype_name in _COMPLEX_NAMES:
        return _complex_cells(flat, opts)
    if _is_floating_name(dtype_name):
        return _float_cells(flat.astype(np.float64).tolist(), opts)
    return _plain_cells(flat.tolist())


# ---------------------------------------------------------------------------
# Layout
# ---------------------------------------------------------------------------


def _shown_part(
    values: np.ndarray, summarize: bool, edgeitems: int
) -> tuple[np.ndarray, list[bool]]:
    """The elements that are printed, and per dimension whether it was elided."""
    cut = [False] * values.ndim
    if not summarize:
        return values, cut
    for axis, size in enumerate(values.shape):
        if size > 2 * edgeitems:
            keep = np.r_[0:edgeitems, size - edgeitems : size]
            values = np.take(values, keep, axis=axis)
            cut[axis] = True
    return values, cut


def _vector_str(
    cells: list[str], cut: bool, indent: int, element_width: int, opts: PrintOptions
) -> str:
    items = cells
    if cut:
        half = len(cells) // 2
        items = cells[:half] + [" ..."] + cells[half:]
    # Each element is followed by ", "; at least one element goes on each line.
    per_line = max(1, math.floor((opts.linewidth - indent) / (element_width + 2)))
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(
    cells: list[str],
    shape: tuple[int, ...],
    cut: list[bool],
    indent: int,
    element_width: int,
    opts: PrintOptions,
) -> str:
    if len(shape) == 1:
        return _vector_str(cells, cut[0], indent, element_width, opts)
    inner = len(cells) // shape[0]
    slices = [
        _nested_str(
            cells[i * inner : (i + 1) * inner], shape[1:], cut[1:], indent + 1, element_width, opts
        )
        for i in range(shape[0])
    ]
    if cut[0]:
        slices.insert(shape[0] // 2, "...")
    # Blocks of a k-dim tensor are separated by k-1 newlines.
    separator = "," + "\n" * (len(shape) - 1) + " " * (indent + 1)
    return "[" + separator.join(slices) + "]"


def _body_str(values: np.ndarray, dtype_name: str, indent: int, opts: PrintOptions) -> str:
    """The bracketed data of a non-empty tensor."""
    summarize = values.size > opts.threshold
    if summarize and not opts.edgeitems and values.ndim > 0:
        return "[...]"
    shown, cut = _shown_part(values, summarize, opts.edgeitems)
    cells, element_width = _format_cells(shown.reshape(-1), dtype_name, opts)
    if shown.ndim == 0:
        return cells[0]
    return _nested_str(cells, shown.shape, cut, indent, element_width, opts)


def _with_suffixes(text: str, suffixes: list[str], indent: int, linewidth: int) -> str:
    """Append ', key=value' suffixes, wrapping to a new line when too long."""
    parts = [text]
    # torch counts the current line two characters longer than it is.
    line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if line_len + len(suffix) + 2 > linewidth:
            parts.append(",\n" + " " * indent + suffix)
            line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def _default_complex_name(default_dtype_name: str) -> str:
    return "complex128" if default_dtype_name == "float64" else "complex64"


def format_tensor(
    values: np.ndarray | None,
    *,
    dtype_name: str,
    shape: tuple[int, ...] | None = None,
    default_dtype_name: str = "float32",
    device: str = "cpu",
    requires_grad: bool = False,
    grad_fn_name: str | None = None,
    prefix: str = "tensor(",
    tensor_contents: str | None = None,
    tangent: str | None = None,
) -> str:
    """repr() of a tensor, as torch prints it.

    values: the tensor's elements in its logical shape (any strides); None for
        tensors without data (meta), which print as ``tensor(..., size=...)``.
        bfloat16 / float8 data are ml_dtypes arrays.
    dtype_name: torch's dtype name without the ``torch.`` prefix ("float32").
    shape: required when ``values`` is None; defaults to ``values.shape``.
    default_dtype_name: torch.get_default_dtype()'s name; decides when
        ``dtype=`` is shown.
    device: str(tensor.device); shown unless its type is "cpu".
    grad_fn_name: the grad_fn class name; shown instead of requires_grad.
    prefix: "tensor(" for plain tensors, "<SubclassName>(" for subclasses.
    tensor_contents: replaces the bracketed data (as torch's tensor_contents=).
    tangent: repr() of a dual tensor's forward-AD tangent, shown last.
    """
    if shape is None:
        if values is None:
            raise ValueError("format_tensor: shape is required when values is None")
        shape = values.shape
    shape = tuple(int(d) for d in shape)  # numpy ints would print as np.int64(2)
    indent = len(prefix)
    suffixes = []
    if device.split(":", 1)[0] != "cpu":
        suffixes.append(f"device='{device}'")
    # A wrapper subclass has no values of its own but prints its tensor_contents as data.
    is_meta = device.split(":", 1)[0] == "meta"
    if (values is None and tensor_contents is None) or math.prod(shape) == 0:
        body = "..." if values is None else "[]"
        suffixes += _dataless_suffixes(is_meta or values is None, shape, dtype_name, default_dtype_name)
    else:
        if not _OPTS.edgeitems:
            suffixes.append(f"size={tuple(shape)}")
        implied = (default_dtype_name, _default_complex_name(default_dtype_name), "int64", "bool")
        if dtype_name not in implied:
            suffixes.append(f"dtype=torch.{dtype_name}")
        if tensor_contents is None:
            body = _body_str(values, dtype_name, indent, _OPTS)
    if tensor_contents is not None:
        body = tensor_contents
    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    if tangent is not None:
        suffixes.append(f"tangent={tangent}")
    return _with_suffixes(prefix + body, suffixes, indent, _OPTS.linewidth)


def _dataless_suffixes(
    is_meta: bool, shape: tuple[int, ...], dtype_name: str, default_dtype_name: str
) -> list[str]:
    """size= and dtype= for meta and empty tensors, which show no elements."""
    suffixes = []
    # Meta tensors always give their size; empty ones unless it is (0,), like NumPy.
    if is_meta or len(shape) != 1:
        suffixes.append(f"size={tuple(shape)}")
    # With no elements to infer the dtype from, only the default float dtype is implied.
    if dtype_name != default_dtype_name:
        suffixes.append(f"dtype=torch.{dtype_name}")
    return suffixes
