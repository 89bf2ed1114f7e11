"""Derivatives of convolution and constant_pad_nd.

convolution's gradient is one aten::convolution_backward call with an output_mask of the inputs
that need one, as PyTorch's; its double backward is not implemented yet (convolution_backward says
no_formula). constant_pad_nd's is constant_pad_nd with the pads negated (a crop), as PyTorch's
constant_pad_nd_backward.
"""

from __future__ import annotations

from ..._dispatch.ops import ops

from . import formula
from ._common import zeros

_aten = ops.aten


@formula(inputs=("input", "weight", "bias"),
         save=("input", "weight", "bias.shape", "stride", "padding", "dilation", "transposed", "output_padding",
               "groups"))
def convolution_backward_formula(grad, input, weight, bias_shape, stride, padding, dilation, transposed,
                                 output_padding, groups, needs):
    bias_sizes = [0] if bias_shape is None else list(bias_shape)  # torch's sizes of an absent bias: [0]
    return _aten.convolution_backward.default(grad, input, weight, bias_sizes, list(stride), list(padding),
                                              list(dilation), transposed, list(output_padding), groups,
                                              [bool(n) for n in needs])


@formula(inputs=("self",), save=("pad",))
def constant_pad_nd_backward(grad, pad):
    return _aten.constant_pad_nd.default(grad, [-p for p in pad])


# --- reflection / replication padding: the gradient sums each output back onto its source ------


def _pad_formulas(name: str, spatial: int) -> None:
    forward = getattr(_aten, f"{name}_pad{spatial}d").default
    backward = getattr(_aten, f"{name}_pad{spatial}d_backward").default

    def pad_backward(grad, self, padding):
        return backward(grad, self, list(padding))

    def pad_double_backward(grad, padding, self, needs):
        # linear in grad_output; self gives only its sizes
        return (forward(grad, list(padding)) if needs[0] else None,
                zeros(self.shape, self) if needs[1] else None)

    formula(inputs=("self",), save=("self", "padding"), name=f"{name}_pad{spatial}d_backward_formula")(pad_backward)
    formula(inputs=("grad_output", "self"), save=("padding", "self"),
            name=f"{name}_pad{spatial}d_double_backward")(pad_double_backward)


for _name in ("reflection", "replication"):
    for _spatial in (1, 2, 3):
        _pad_formulas(_name, _spatial)
