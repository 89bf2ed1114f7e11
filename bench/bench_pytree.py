"""Pytree cost on the inputs a wrapper tensor subclass sees on every op: `(args, kwargs)`.

torchpy.utils._pytree against torch.utils._pytree (pure Python) and optree (C++, the
engine of torch.utils._cxx_pytree; "n/a" when it is not installed), each on its own
tensors. Operations: tree_map(lambda x: x, tree), tree_flatten(tree), and
tree_unflatten(leaves, spec) with the spec from a flatten done beforehand.
"""

from __future__ import annotations

from typing import Any, Callable

import torch
import torch.utils._pytree as torch_pytree

import torchpy
import torchpy.utils._pytree as torchpy_pytree

from common import markdown_table, per_call_us

try:
    import optree
except ImportError:  # the benchmark still runs; optree's column says n/a
    optree = None


def _inputs(t: Any) -> dict[str, Any]:
    return {
        "`((t, t), {})`": ((t, t), {}),
        "`((t, 2.0, t), {'alpha': 1})`": ((t, 2.0, t), {"alpha": 1}),
    }


def _ident(x: Any) -> Any:
    return x


def _python_cases(pytree: Any, tree: Any) -> dict[str, Callable[[], object]]:
    leaves, spec = pytree.tree_flatten(tree)
    return {
        "tree_map": lambda: pytree.tree_map(_ident, tree),
        "tree_flatten": lambda: pytree.tree_flatten(tree),
        "tree_unflatten": lambda: pytree.tree_unflatten(leaves, spec),
    }


def _optree_cases(tree: Any) -> dict[str, Callable[[], object]]:
    # none_is_leaf=True: None is a leaf, as in torch.utils._pytree
    leaves, spec = optree.tree_flatten(tree, none_is_leaf=True)
    return {
        "tree_map": lambda: optree.tree_map(_ident, tree, none_is_leaf=True),
        "tree_flatten": lambda: optree.tree_flatten(tree, none_is_leaf=True),
        "tree_unflatten": lambda: optree.tree_unflatten(spec, leaves),
    }


def _ratio(other: float | None, ours: float) -> str:
    return "n/a" if other is None else f"{other / ours:.1f}×"


def run() -> list[str]:
    ours_in, torch_in = _inputs(torchpy.ones(2)), _inputs(torch.ones(2))
    rows = []
    for name in ours_in:
        ours_cases = _python_cases(torchpy_pytree, ours_in[name])
        torch_cases = _python_cases(torch_pytree, torch_in[name])
        optree_cases = _optree_cases(torch_in[name]) if optree is not None else {}
        for op, fn in ours_cases.items():
            ours_us = per_call_us(fn, number=50_000)
            torch_us = per_call_us(torch_cases[op], number=10_000)
            optree_us = per_call_us(optree_cases[op], number=50_000) if optree_cases else None
            rows.append([
                f"{op} {name}", f"{ours_us:.2f}", f"{torch_us:.2f}",
                "n/a" if optree_us is None else f"{optree_us:.2f}",
                _ratio(torch_us, ours_us), _ratio(optree_us, ours_us),
            ])
    version = "not installed" if optree is None else optree.__version__
    return [
        "## Pytree on `(args, kwargs)` (issue 5)",
        "",
        "What a wrapper subclass's `__torch_dispatch__` does per op to unwrap and rewrap. "
        f"optree {version}, `none_is_leaf=True`.",
        "",
        *markdown_table(["case", "torchpy µs", "torch.utils._pytree µs", "optree µs",
                         "faster than torch", "faster than optree"], rows),
        "",
    ]


if __name__ == "__main__":
    print("\n".join(run()))
