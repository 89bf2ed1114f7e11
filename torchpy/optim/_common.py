"""What every optimizer shares: hyper-parameter checks, scalar state, the capturable / fused device rules."""

from __future__ import annotations

from typing import Any, Callable

from .._tensor import dtype as _dt
from .._tensor.tensor import Tensor
from ..autograd import grad_mode

# torch lists the devices with capturable / fused kernels; CPU has fused kernels but no capturable ones
_CAPTURABLE_DEVICES = ["cuda", "xpu", "hpu", "privateuseone"]
_FUSED_DEVICES = ["mps", "cuda", "xpu", "hpu", "cpu", "privateuseone"]


def to_scalar(x: Any) -> Any:
    """A 1-element tensor hyper-parameter acts as a 0-d one; anything else is kept."""
    return x.squeeze() if isinstance(x, Tensor) and x.dim() != 0 else x


def item(x: Any) -> Any:
    return x.item() if isinstance(x, Tensor) else x


def scalar_dtype(is_fused: bool | None = None) -> _dt.dtype:
    """The dtype of scalar state ('step', 'mu_product', ...): float64 only under a float64 default."""
    if is_fused:
        return _dt.float32
    return _dt.float64 if _dt.get_default_dtype() is _dt.float64 else _dt.float32


def check_lr(lr: Any, message: str = "Invalid learning rate: {}") -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(message.format(lr))


def check_nonnegative(value: Any, what: str) -> None:
    if not 0.0 <= value:
        raise ValueError(f"Invalid {what}: {value}")


def check_betas(betas: Any) -> None:
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")


def check_capturable(capturable: bool, params: list[Tensor], what: str = "params and state_steps",
                     supports_xla: bool = True) -> None:
    """capturable=True needs an accelerator (torch raises this AssertionError at the first step on CPU)."""
    if capturable and params:
        devices = _CAPTURABLE_DEVICES + (["xla"] if supports_xla else [])
        raise AssertionError(f"If capturable=True, {what} must be on supported devices: {devices}.")


def check_fused_device(p: Tensor) -> None:
    if not (p.device.type in _FUSED_DEVICES and p.is_floating_point()):
        raise RuntimeError(
            "`fused=True` requires all the params to be floating point Tensors of "
            f"supported devices: {_FUSED_DEVICES} but {p.dtype} and {p.device.type}"
        )


def check_fused_options(fused: bool | None, foreach: bool | None, differentiable: bool) -> None:
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def run_closure(closure: Callable[[], Any] | None) -> Any:
    if closure is None:
        return None
    with grad_mode.enable_grad():
        return closure()


def no_sparse(p: Tensor, name: str) -> None:
    if getattr(p.grad, "is_sparse", False):
        raise RuntimeError(f"{name} does not support sparse gradients")


def grads_of(group: dict[str, Any], complex_checked: bool = False) -> list[Tensor]:
    """The group's parameters that have a gradient. torch steps a complex parameter through
    view_as_real, which torchpy lacks: refuse it rather than compute something else
    (`complex_checked`: the caller raises torch's own refusal)."""
    params = [p for p in group["params"] if p.grad is not None]
    if not complex_checked:
        for p in params:
            if p.is_complex():
                raise NotImplementedError("torchpy's optimizers do not support complex parameters yet "
                                          "(torch steps them through view_as_real)")
    return params
