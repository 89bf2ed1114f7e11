"""Meta rules live apart: the converted families' Meta kernels come from torchpy/_aten/meta/, and
their CPU kernels have no meta branch (a kernel that reads `_data is None` mixes the two)."""

import inspect

import torchpy  # noqa: F401 - loads the op table
from torchpy._aten import registry
from torchpy._aten.build import NATIVE_FUNCTIONS
from torchpy._aten.kernels import reduction as reduction_kernels
from torchpy._aten.meta import reduction as reduction_rules

REDUCTIONS = ("sum", "nansum", "prod", "mean", "count_nonzero", "any", "all")


def _defined_in(fn, module) -> bool:
    """Whether `fn` (or what it wraps: out= builders, the warning-free wrapper) comes from `module`."""
    while fn is not None:
        if getattr(fn, "__module__", None) == module.__name__:
            return True
        closure = getattr(fn, "__closure__", None) or ()
        inner = [c.cell_contents for c in closure if callable(c.cell_contents)]
        fn = getattr(fn, "__wrapped__", None) or (inner[0] if inner else None)
    return False


def test_reduction_meta_kernels_are_the_meta_rules():
    entries = [e for e in NATIVE_FUNCTIONS if e.schema.name.split("::")[1] in REDUCTIONS]
    assert len(entries) >= 25
    for entry in entries:
        meta, cpu = entry.dispatch["Meta"], entry.dispatch.get("CPU") or entry.dispatch["CompositeExplicitAutograd"]
        assert meta != cpu, f"{entry.qualified_name}: one kernel for CPU and Meta"
        assert _defined_in(registry.lookup(meta), reduction_rules) or meta.endswith("_out_meta"), entry.qualified_name


def test_reduction_kernels_have_no_meta_branch():
    assert "_data is None" not in inspect.getsource(reduction_kernels)
    assert "_data" not in inspect.getsource(reduction_rules)
