"""Autograd Functions that nn.Module's machinery puts into the graph."""

from __future__ import annotations

from typing import Any

from ...autograd.function import Function


class BackwardHookFunction(Function):
    """Identity on its tensor arguments; its node is where module backward hooks attach."""

    @staticmethod
    def forward(ctx: Any, *args: Any) -> tuple:
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx: Any, *args: Any) -> tuple:
        return args
