"""nn.AdaptiveAvgPool1d/2d/3d and nn.AdaptiveMaxPool1d/2d/3d: repr, outputs and gradients against torch."""

from __future__ import annotations

import pytest

from tests.nn.helpers import check

MODULES = [
    ("AdaptiveAvgPool1d", (3,), (2, 3, 7)),
    ("AdaptiveAvgPool2d", ((3, None),), (2, 3, 7, 5)),
    ("AdaptiveAvgPool2d", (1,), (3, 7, 5)),
    ("AdaptiveAvgPool3d", ((2, 3, 2),), (2, 2, 5, 4, 3)),
    ("AdaptiveMaxPool1d", (4,), (3, 7)),
    ("AdaptiveMaxPool1d", (4, True), (2, 3, 7)),
    ("AdaptiveMaxPool2d", ((3, 2),), (2, 3, 7, 5)),
    ("AdaptiveMaxPool2d", ((None, 2), True), (3, 7, 5)),
    ("AdaptiveMaxPool3d", (2, True), (2, 2, 5, 4, 3)),
]


@pytest.mark.parametrize("name, args, shape", MODULES, ids=[f"{n}{a}" for n, a, _ in MODULES])
def test_module(name, args, shape):
    def program(lib):
        module = getattr(lib.nn, name)(*args)
        x = lib.randn(*shape, requires_grad=True)
        out = module(x)
        values = out[0] if isinstance(out, tuple) else out
        values.sum().backward()
        return repr(module), out, x.grad, type(module).__constants__

    check(program)
