"""torchpy.optim.SparseAdam: Adam for sparse gradients. torchpy has no sparse tensors yet, so a
step refuses dense gradients with torch's message; construction checks as torch does."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from .._tensor.tensor import Tensor
from . import _common as C
from .optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float | Tensor = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, maximize: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        C.check_betas(betas)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize})
        complex_params = [[i, j] for i, group in enumerate(self.param_groups)
                          for j, p in enumerate(group["params"]) if p.is_complex()]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: "
                             "SparseAdam does not support complex parameters")

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = C.run_closure(closure)
        for group in self.param_groups:
            for p in C.grads_of(group):
                if not getattr(p.grad, "is_sparse", False):
                    raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
        return loss
