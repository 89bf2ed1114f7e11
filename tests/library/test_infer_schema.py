"""torchpy.library.infer_schema against torch.library.infer_schema: schemas and errors.

Each case builds the same annotated function for both libraries (`t` is torch or
torchpy), so `t.Tensor`, `t.dtype`, ... are each library's own types.
"""

import typing
from collections.abc import Sequence as AbcSequence
from typing import List, Optional, Sequence

import pytest
import torch

import torchpy

from .helpers import normalize


def _sig_tensors(t):
    def f(x: t.Tensor, y: Optional[t.Tensor], z: list[t.Tensor], w: Sequence[Optional[t.Tensor]],
          v: List[t.Tensor], u: AbcSequence[t.Tensor], s: list[Optional[t.Tensor]]) -> t.Tensor:
        ...
    return f


def _sig_scalars(t):
    def f(x: t.Tensor, n: int, fl: float, b: bool, st: str, num: t.types.Number, d: t.dtype,
          dev: t.device, on: Optional[int], of: Optional[float], ob: Optional[bool], os: Optional[str],
          onum: Optional[t.types.Number], od: Optional[t.dtype], odev: Optional[t.device]) -> t.Tensor:
        ...
    return f


def _sig_lists(t):
    def f(x: t.Tensor, a: Sequence[int], b: list[float], c: List[bool], d: AbcSequence[int],
          e: Optional[list[int]], g: Optional[Sequence[float]], h: list[t.types.Number],
          i: typing.Optional[List[bool]]) -> t.Tensor:
        ...
    return f


def _sig_defaults(t):
    def f(x: t.Tensor, a: int = 3, b: float = -2.5, c: bool = False, d: str = "hi",
          e: Optional[t.Tensor] = None, g: t.dtype = t.float16, h: t.device = t.device("cpu"),
          i: float = 1.0, j: Optional[int] = None, k: t.dtype = t.int64) -> t.Tensor:
        ...
    return f


def _sig_kwarg_only(t):
    def f(x: t.Tensor, *, alpha: float = 1.0, n: int, name: str = "a") -> t.Tensor:
        ...
    return f


def _sig_returns_tuple(t):
    def f(x: t.Tensor) -> tuple[t.Tensor, int, list[t.Tensor], float, bool, t.types.Number]:
        ...
    return f


def _sig_returns_one_tuple(t):
    def f(x: t.Tensor) -> tuple[t.Tensor]:
        ...
    return f


def _sig_returns_list(t):
    def f(x: t.Tensor) -> List[t.Tensor]:
        ...
    return f


def _sig_returns_none(t):
    def f(x: t.Tensor, y: list[t.Tensor]) -> None:
        ...
    return f


def _sig_returns_int(t):
    def f(x: t.Tensor) -> int:
        ...
    return f


def _sig_no_tensors(t):
    def f(n: int, device: t.device) -> t.Tensor:
        ...
    return f


def _sig_string_annotations(t):
    def f(x: "Tensor", y: "list[Tensor]", z: "Optional[Tensor]") -> "Tensor":  # noqa: F821
        ...
    f.__globals__["Tensor"] = t.Tensor  # what `from torch import Tensor` at module scope gives
    return f


CASES = [
    (_sig_tensors, ()),
    (_sig_tensors, ("x", "z", "w")),
    (_sig_tensors, "unknown"),
    (_sig_scalars, ()),
    (_sig_scalars, "unknown"),
    (_sig_lists, ()),
    (_sig_defaults, ["x", "e"]),
    (_sig_kwarg_only, {"x"}),
    (_sig_returns_tuple, ()),
    (_sig_returns_one_tuple, ()),
    (_sig_returns_list, ()),
    (_sig_returns_none, ("y",)),
    (_sig_returns_int, ()),
    (_sig_no_tensors, ()),
    (_sig_string_annotations, ()),
]


@pytest.mark.parametrize("make, mutates_args", CASES,
                         ids=[f"{m.__name__[5:]}-{a}" for m, a in CASES])
def test_inferred_schema_equals_torch(make, mutates_args):
    theirs = torch.library.infer_schema(make(torch), mutates_args=mutates_args)
    ours = torchpy.library.infer_schema(make(torchpy), mutates_args=mutates_args)
    assert ours == theirs


def test_op_name_and_iterators_for_mutates_args():
    mutates = lambda: iter(["x"])  # noqa: E731  (any iterable, consumed once)
    theirs = torch.library.infer_schema(_sig_tensors(torch), mutates_args=mutates(), op_name="foo")
    ours = torchpy.library.infer_schema(_sig_tensors(torchpy), mutates_args=mutates(), op_name="foo")
    assert ours == theirs


def _bad_no_annotation(t):
    def f(x) -> t.Tensor:
        ...
    return f


def _bad_no_return(t):
    def f(x: t.Tensor):
        ...
    return f


def _bad_tuple_param(t):
    def f(x: t.Tensor, y: tuple[int, int]) -> t.Tensor:
        ...
    return f


def _bad_tuple_of_tensors(t):
    def f(x: t.Tensor, y: tuple[t.Tensor, ...]) -> t.Tensor:
        ...
    return f


def _bad_mixed_tuple(t):
    def f(x: t.Tensor, y: tuple[int, float]) -> t.Tensor:
        ...
    return f


def _bad_dict_param(t):
    def f(x: t.Tensor, y: dict) -> t.Tensor:
        ...
    return f


def _bad_return(t):
    def f(x: t.Tensor) -> dict:
        ...
    return f


def _bad_tuple_return(t):
    def f(x: t.Tensor) -> tuple[t.Tensor, str]:
        ...
    return f


def _bad_varargs(t):
    def f(x: t.Tensor, *args: int) -> t.Tensor:
        ...
    return f


def _bad_kwargs(t):
    def f(x: t.Tensor, **kwargs: int) -> t.Tensor:
        ...
    return f


def _bad_positional_only(t):
    def f(x: t.Tensor, /) -> t.Tensor:
        ...
    return f


def _bad_default(t):
    def f(x: t.Tensor, n: Sequence[int] = [1]) -> t.Tensor:  # noqa: B006
        ...
    return f


def _bad_unknown_name(t):
    def f(x: t.Tensor, y: "NotAType") -> t.Tensor:  # noqa: F821
        ...
    return f


BAD = [
    (_bad_no_annotation, ()),
    (_bad_no_return, ()),
    (_bad_tuple_param, ()),
    (_bad_tuple_of_tensors, ()),
    (_bad_mixed_tuple, ()),
    (_bad_dict_param, ()),
    (_bad_return, ()),
    (_bad_tuple_return, ()),
    (_bad_varargs, ()),
    (_bad_kwargs, ()),
    (_bad_positional_only, ()),
    (_bad_default, ()),
    (_bad_unknown_name, ()),
    (_sig_tensors, ("nope",)),
    (_sig_scalars, ("n",)),
    (_sig_tensors, "everything"),
]


@pytest.mark.parametrize("make, mutates_args", BAD, ids=[f"{m.__name__}-{a}" for m, a in BAD])
def test_errors_equal_torch(make, mutates_args):
    messages = []
    for lib in (torch, torchpy):
        with pytest.raises(ValueError) as info:
            lib.library.infer_schema(make(lib), mutates_args=mutates_args)
        messages.append(normalize(str(info.value)))
    assert messages[1] == messages[0]
