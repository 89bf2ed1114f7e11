"""nn.Sequential: modules run one after another."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Iterator

from .module import Module

__all__ = ["Sequential"]


class Sequential(Module):
    """Sequential(m0, m1, ...) or Sequential(OrderedDict(name=module)); forward chains them."""

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for index, module in enumerate(args):
                self.add_module(str(index), module)

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[index]))
        modules = list(self._modules.values())
        size = len(modules)
        if not -size <= index < size:
            raise IndexError(f"index {index} is out of range")
        return modules[index]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> "Sequential":
        self.add_module(str(len(self)), module)
        return self

    def forward(self, input: Any) -> Any:
        for module in self._modules.values():
            input = module(input)
        return input
