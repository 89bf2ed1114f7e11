"""torchpy.nn.Parameter: the Tensor subclass that Module registers as a parameter."""

from __future__ import annotations

from typing import Any

from .._aten.public import functions  # torchpy.<name>, made below the package root
from .._tensor.torch_function import _disabled_torch_function_impl
from .._tensor.tensor import Tensor

__all__ = ["Parameter"]


class _ParameterMeta(type(Tensor)):  # type: ignore[misc]
    def __instancecheck__(cls, instance: Any) -> bool:
        # a tensor subclass made into a parameter keeps its own type and carries `_is_param`
        if cls is Parameter and isinstance(instance, Tensor) and getattr(instance, "_is_param", False):
            return True
        return super().__instancecheck__(instance)


class Parameter(Tensor, metaclass=_ParameterMeta):
    """A Tensor that a Module registers as a parameter when assigned as an attribute."""

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> "Parameter":
        if data is None:
            data = functions.empty(0)
        if type(data) is Tensor or type(data) is Parameter:
            return Tensor._make_subclass(cls, data, requires_grad)
        t = data.detach().requires_grad_(requires_grad)
        if type(t) is not type(data):
            raise RuntimeError(
                f"Creating a Parameter from an instance of type {type(data).__name__} "
                "requires that detach() returns an instance of the same type, but return "
                f"type {type(t).__name__} was found instead. To use the type as a "
                "Parameter, please correct the detach() semantics defined by "
                "its __torch_dispatch__() implementation."
            )
        t._is_param = True
        return t

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass  # everything happens in __new__

    def __deepcopy__(self, memo: dict) -> "Parameter":
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __str__(self) -> str:
        return self.__repr__()

    # ops on a Parameter give plain Tensors, as in torch
    __torch_function__ = _disabled_torch_function_impl
