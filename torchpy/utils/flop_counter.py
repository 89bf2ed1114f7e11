"""torch.utils.flop_counter: count the FLOPs of the aten ops a program runs, forward and backward.

`FlopCounterMode` is a context manager around a TorchDispatchMode: every op whose
overload packet has a formula in the registry adds its FLOPs to "Global" and to every
nn.Module running at the time (tracked by `ModuleTracker`). Formulas get the arguments'
shapes (and the output's as `out_shape=`), or the raw values when registered with
`get_raw=True`.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from functools import wraps
from typing import Any, Callable

from .._dispatch.ops import OpOverloadPacket, ops
from .._tensor.tensor import Tensor
from ._python_dispatch import TorchDispatchMode
from ._pytree import tree_map, tree_map_
from .module_tracker import ModuleTracker

__all__ = ["FlopCounterMode", "register_flop_formula"]

aten = ops.aten

flop_registry: dict[Any, Callable[..., int]] = {}


def get_shape(value: Any) -> Any:
    return value.shape if isinstance(value, Tensor) else value


def shape_wrapper(formula: Callable[..., int]) -> Callable[..., int]:
    """A formula over shapes, callable with the op's values and `out_val=`."""
    @wraps(formula)
    def with_shapes(*args: Any, out_val: Any = None, **kwargs: Any) -> int:
        args, kwargs, out_shape = tree_map(get_shape, (args, kwargs, out_val))
        return formula(*args, out_shape=out_shape, **kwargs)
    return with_shapes


def register_flop_formula(targets: Any, get_raw: bool = False) -> Callable[[Callable[..., int]], Callable[..., int]]:
    """Decorator: the formula counts FLOPs for each op packet in `targets` (one or a list)."""

    def register_fun(flop_formula: Callable[..., int]) -> Callable[..., int]:
        if not get_raw:
            flop_formula = shape_wrapper(flop_formula)

        def register(target: Any) -> None:
            if not isinstance(target, OpOverloadPacket):
                raise ValueError(
                    f"register_flop_formula(targets): expected each target to be "
                    f"OpOverloadPacket (i.e. torch.ops.mylib.foo), JitFunction, "
                    f"or HigherOrderOperator, got {target} which is of type {type(target)}")
            if target in flop_registry:
                raise RuntimeError(f"duplicate registrations for {target}")
            flop_registry[target] = flop_formula

        tree_map_(register, targets)
        return flop_formula

    return register_fun


# --- formulas (a multiply-add counts as two FLOPs) ----------------------------------------------


@register_flop_formula(aten.mm)
def mm_flop(a_shape: Any, b_shape: Any, *args: Any, out_shape: Any = None, **kwargs: Any) -> int:
    m, k = a_shape
    k2, n = b_shape
    if k != k2:
        raise AssertionError(f"matmul: inner dimensions must match (k == k2), got {k} and {k2}")
    return m * n * 2 * k


@register_flop_formula(aten.addmm)
def addmm_flop(self_shape: Any, a_shape: Any, b_shape: Any, out_shape: Any = None, **kwargs: Any) -> int:
    return mm_flop(a_shape, b_shape)  # the bias add is not counted


@register_flop_formula(aten.bmm)
def bmm_flop(a_shape: Any, b_shape: Any, out_shape: Any = None, **kwargs: Any) -> int:
    b, m, k = a_shape
    b2, k2, n = b_shape
    if b != b2:
        raise AssertionError(f"bmm: batch dimensions must match (b == b2), got {b} and {b2}")
    if k != k2:
        raise AssertionError(f"bmm: inner dimensions must match (k == k2), got {k} and {k2}")
    return b * m * n * 2 * k


@register_flop_formula(aten.baddbmm)
def baddbmm_flop(self_shape: Any, a_shape: Any, b_shape: Any, out_shape: Any = None, **kwargs: Any) -> int:
    return bmm_flop(a_shape, b_shape)


# --- the table ---------------------------------------------------------------------------------

suffixes = ["", "K", "M", "B", "T"]


def get_suffix_str(number: int) -> str:
    # one suffix for the whole table, chosen by the total's digit count (1001M, not 1.001B)
    index = max(0, min(len(suffixes) - 1, (len(str(number)) - 2) // 3))
    return suffixes[index]


def convert_num_with_suffix(number: int, suffix: str) -> str:
    index = suffixes.index(suffix)
    return f"{number / 1000 ** index:.3f}{suffixes[index]}"


def convert_to_percent_str(num: int, denom: int) -> str:
    if denom == 0:
        return "0%"
    return f"{num / denom:.2%}"


def _as_number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _format_column(cells: list[str]) -> list[str]:
    """A column whose cells all read as numbers is printed as numbers, as tabulate does:
    integers as they are, others with format 'g' ("360.000" -> "360")."""
    numbers = [_as_number(c) for c in cells]
    if any(n is None for n in numbers):
        return cells
    if all(c.lstrip("-").isdigit() for c in cells):
        return [str(int(c)) for c in cells]
    return [format(n, "g") for n in numbers]


def format_table(rows: list[list[str]], headers: list[str], colalign: tuple[str, ...]) -> str:
    """tabulate's "simple" table: headers, a dashed rule, two spaces between columns.
    Leading spaces of cells are kept (the module nesting)."""
    columns = [_format_column([row[i] for row in rows]) for i in range(len(headers))]
    widths = [max([len(h) + 2] + [len(c) for c in col]) for h, col in zip(headers, columns)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if a == "left" else c.rjust(w) for c, w, a in zip(cells, widths, colalign))

    body = [line([col[r] for col in columns]) for r in range(len(rows))]
    return "\n".join([line(headers), "  ".join("-" * w for w in widths), *body])


class FlopCounterMode:
    """Counts FLOPs inside its block; prints the table on exit when `display`.

        with FlopCounterMode() as counter:
            model(x).sum().backward()
        counter.get_total_flops()
    """

    def __init__(self, mods: Any = None, depth: int = 2, display: bool = True,
                 custom_mapping: dict[Any, Any] | None = None) -> None:
        self.flop_counts: dict[str, dict[Any, int]] = defaultdict(lambda: defaultdict(int))
        self.depth = depth
        self.display = display
        self.mode: _FlopCounterMode | None = None
        if custom_mapping is None:
            custom_mapping = {}
        if mods is not None:
            warnings.warn("mods argument is not needed anymore, you can stop passing it", stacklevel=2)
        self.flop_registry = {
            **flop_registry,
            **{k: v if getattr(v, "_get_raw", False) else shape_wrapper(v) for k, v in custom_mapping.items()},
        }
        self.mod_tracker = ModuleTracker()

    def get_total_flops(self) -> int:
        return sum(self.flop_counts["Global"].values())

    def get_flop_counts(self) -> dict[str, dict[Any, int]]:
        """{module name: {op packet: FLOPs}}, with "Global" for everything."""
        return {k: dict(v) for k, v in self.flop_counts.items()}

    def get_table(self, depth: int | None = None) -> str:
        if depth is None:
            depth = self.depth
        if depth is None:
            depth = 999999
        global_flops = self.get_total_flops()
        global_suffix = get_suffix_str(global_flops)
        is_global_subsumed = False

        def process_mod(mod_name: str, indent: int) -> list[list[str]]:
            nonlocal is_global_subsumed
            total = sum(self.flop_counts[mod_name].values())
            is_global_subsumed |= total >= global_flops
            padding = " " * indent
            rows = [[padding + mod_name, convert_num_with_suffix(total, global_suffix),
                     convert_to_percent_str(total, global_flops)]]
            for packet, count in self.flop_counts[mod_name].items():
                rows.append([padding + " - " + str(packet), convert_num_with_suffix(count, global_suffix),
                             convert_to_percent_str(count, global_flops)])
            return rows

        values: list[list[str]] = []
        for mod in sorted(self.flop_counts.keys()):
            if mod == "Global":
                continue
            mod_depth = mod.count(".") + 1
            if mod_depth > depth:
                continue
            values.extend(process_mod(mod, mod_depth - 1))

        # "Global" is shown only when some FLOPs ran outside every module.
        if "Global" in self.flop_counts and not is_global_subsumed:
            for row in values:
                row[0] = " " + row[0]
            values = process_mod("Global", 0) + values
        if not values:
            values = [["Global", "0", "0%"]]
        return format_table(values, ["Module", "FLOP", "% Total"], ("left", "right", "right"))

    # not re-entrant, as torch's
    def __enter__(self) -> "FlopCounterMode":
        self.flop_counts.clear()
        self.mod_tracker.__enter__()
        self.mode = _FlopCounterMode(self)
        self.mode.__enter__()
        return self

    def __exit__(self, *args: Any) -> Any:
        if self.mode is None:
            raise AssertionError("Internal error: FlopCounter.__exit__ called but mode is None")
        result = self.mode.__exit__(*args)
        self.mode = None  # break the cycle mode -> counter -> mode
        self.mod_tracker.__exit__()
        if self.display:
            print(self.get_table(self.depth))
        return result

    def _count_flops(self, func_packet: Any, out: Any, args: tuple, kwargs: dict) -> Any:
        formula = self.flop_registry.get(func_packet)
        if formula is not None:
            flops = formula(*args, **kwargs, out_val=out)
            for parent in set(self.mod_tracker.parents):
                self.flop_counts[parent][func_packet] += flops
        return out


def _metadata_ops() -> frozenset:
    """Ops a mode sees only for tensors with Python-level sizes/strides (torch skips them)."""
    names = ["sym_is_contiguous.default", "is_contiguous.default", "is_contiguous.memory_format",
             "is_strides_like_format.default", "is_non_overlapping_and_dense.default", "size.default",
             "sym_size.default", "stride.default", "sym_stride.default", "storage_offset.default",
             "sym_storage_offset.default", "numel.default", "sym_numel.default", "dim.default"]
    found = []
    for name in names:
        packet, overload = name.split(".")
        try:
            found.append(getattr(getattr(aten, packet), overload))
        except (AttributeError, RuntimeError):
            continue  # not an op torchpy defines
    return frozenset(found)


class _FlopCounterMode(TorchDispatchMode):
    _skipped: frozenset | None = None

    def __init__(self, counter: FlopCounterMode) -> None:
        super().__init__()
        self.counter = counter

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs if kwargs else {}
        if _FlopCounterMode._skipped is None:
            _FlopCounterMode._skipped = _metadata_ops()
        if func in _FlopCounterMode._skipped:
            return NotImplemented
        packet = func._overloadpacket
        if packet not in self.counter.flop_registry:
            # an op with a decomposition is counted by the ops it decomposes into
            with self:
                result = func.decompose(*args, **kwargs)
                if result is not NotImplemented:
                    return result
        out = func(*args, **kwargs)
        return self.counter._count_flops(packet, out, args, kwargs)
