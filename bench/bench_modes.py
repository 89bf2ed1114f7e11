"""Python-level extension points against torch (issue 5): the C++/Python crossing torch pays
for each is what torchpy need not.

  (a) a pass-through TorchDispatchMode around `a + b`        target <= 0.5x torch
  (b) a wrapper subclass that unwraps with tree_map, calls func, rewraps   target <= 0.2x torch
  (c) a pass-through TorchFunctionMode around `torch.add(a, b)`   target <= 1x torch
  (d) a Tensor subclass that keeps Tensor's __torch_function__ (results converted by
      as_subclass)                                              no target: shown for reference
All on 4-element float32 tensors.
"""

from __future__ import annotations

import importlib

import torch

import torchpy

from common import interleaved_us, markdown_table


def _pass_through(mode_class, hook):
    """An instance of a `mode_class` subclass whose `hook` method just runs the function."""

    def handler(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))

    return type("PassThrough", (mode_class,), {hook: handler})()


def _under_mode(mode, op, lib):
    """Ten calls of `op(a, b)` inside one entry of `mode` (entering costs are amortized)."""
    a, b = lib.tensor([1.0, 2.0, 3.0, 4.0]), lib.tensor([4.0, 3.0, 2.0, 1.0])

    def case():
        with mode:
            for _ in range(10):
                op(a, b)

    return case, 10


def _dispatch_mode_case(lib):
    python_dispatch = importlib.import_module(lib.__name__ + ".utils._python_dispatch")
    mode = _pass_through(python_dispatch.TorchDispatchMode, "__torch_dispatch__")
    return _under_mode(mode, lambda a, b: a + b, lib)


def _wrapper_subclass_case(lib):
    pytree = importlib.import_module(lib.__name__ + ".utils._pytree")

    class Wrapper(lib.Tensor):
        @staticmethod
        def __new__(cls, elem):
            r = lib.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype, device=elem.device)
            r.elem = elem
            return r

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            unwrap = lambda x: x.elem if isinstance(x, Wrapper) else x  # noqa: E731
            wrap = lambda x: Wrapper(x) if isinstance(x, lib.Tensor) else x  # noqa: E731
            out = func(*pytree.tree_map(unwrap, args), **pytree.tree_map(unwrap, kwargs or {}))
            return pytree.tree_map(wrap, out)

    a, b = Wrapper(lib.tensor([1.0, 2.0, 3.0, 4.0])), Wrapper(lib.tensor([4.0, 3.0, 2.0, 1.0]))
    return (lambda: a + b), 1


def _default_subclass_case(lib):
    Plain = type("Plain", (lib.Tensor,), {})  # keeps Tensor's __torch_function__
    a = lib.tensor([1.0, 2.0, 3.0, 4.0]).as_subclass(Plain)
    b = lib.tensor([4.0, 3.0, 2.0, 1.0]).as_subclass(Plain)
    return (lambda: a + b), 1


def _function_mode_case(lib):
    overrides = importlib.import_module(lib.__name__ + ".overrides")
    mode = _pass_through(overrides.TorchFunctionMode, "__torch_function__")
    return _under_mode(mode, lib.add, lib)


def _time(make):
    """(torchpy µs, torch µs) per op; the two alternate, round by round (common.interleaved_us)."""
    try:
        (ours, per), (theirs, per_torch) = make(torchpy), make(torch)
        ours(), theirs()
        ours_us, theirs_us = interleaved_us([ours, theirs], number=1000, rounds=15)
        return ours_us / per, theirs_us / per_torch
    except Exception as error:  # a piece that does not exist yet: report it
        return f"n/a ({type(error).__name__})", "—"


def run() -> list[str]:
    rows = []
    for name, make, target in [("(a) pass-through TorchDispatchMode, `a + b`", _dispatch_mode_case, 0.5),
                               ("(b) wrapper subclass with tree_map, `a + b`", _wrapper_subclass_case, 0.2),
                               ("(c) pass-through TorchFunctionMode, `torch.add(a, b)`", _function_mode_case, 1.0),
                               ("(d) subclass keeping Tensor's `__torch_function__`, `a + b`",
                                _default_subclass_case, None)]:
        ours, theirs = _time(make)
        ratio = f"{ours / theirs:.2f}×" if isinstance(ours, float) and isinstance(theirs, float) else "—"
        fmt = lambda v: f"{v:.2f}" if isinstance(v, float) else v  # noqa: E731
        rows.append([name, fmt(ours), fmt(theirs), ratio, f"≤ {target}×" if target else "—"])
    return [
        "## Subclasses and modes (issue 5)",
        "",
        "µs per op, 4-element float32 tensors; torchpy and torch alternate over 15 rounds, best round each.",
        "",
        *markdown_table(["case", "torchpy µs", "torch µs", "torchpy / torch", "target"], rows),
        "",
    ]


if __name__ == "__main__":
    print("\n".join(run()))
