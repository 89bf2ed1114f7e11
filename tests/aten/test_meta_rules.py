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


# --- the view family: kernels/view.py's CPU kernels, meta/view.py's rules and Meta kernels -------

from torchpy._aten.kernels import view as view_kernels  # noqa: E402
from torchpy._aten.meta import view as view_rules  # noqa: E402

VIEWS = ("view", "_unsafe_view", "alias", "detach", "t", "t_", "transpose", "transpose_", "permute", "expand",
         "squeeze", "squeeze_", "unsqueeze", "unsqueeze_", "select", "slice", "diagonal", "as_strided", "unfold",
         "unbind", "split", "split_with_sizes", "unsafe_split", "unsafe_split_with_sizes")


def test_view_meta_kernels_are_the_meta_rules():
    # split.sizes is a CompositeImplicitAutograd decomposition: it has no kernel of its own
    entries = [e for e in NATIVE_FUNCTIONS
               if e.schema.name.split("::")[1] in VIEWS and e.qualified_name != "aten::split.sizes"]
    assert len(entries) == 29
    for entry in entries:
        meta, cpu = entry.dispatch["Meta"], entry.dispatch.get("CPU") or entry.dispatch["CompositeExplicitAutograd"]
        assert meta != cpu, f"{entry.qualified_name}: one kernel for CPU and Meta"
        assert _defined_in(registry.lookup(meta), view_rules), entry.qualified_name
        assert _defined_in(registry.lookup(cpu), view_kernels), entry.qualified_name


def test_view_kernels_have_no_meta_branch():
    assert "_data is None" not in inspect.getsource(view_kernels)
    assert "_data" not in inspect.getsource(view_rules)


# --- the copies: kernels/copy.py's clone / _to_copy / copy_ / copy / fill / zero, meta/copy.py ----

from torchpy._aten.kernels import copy as copy_kernels  # noqa: E402
from torchpy._aten.meta import copy as copy_rules  # noqa: E402

COPIES = ("clone", "_to_copy", "copy_", "copy", "fill_", "fill", "zero_", "zero", "cat", "stack", "flip", "repeat")


def test_copy_meta_kernels_are_the_meta_rules():
    entries = [e for e in NATIVE_FUNCTIONS if e.schema.name.split("::")[1] in COPIES]
    assert len(entries) == 18
    for entry in entries:
        others = [k for k in entry.dispatch if k != "Meta"]
        meta, cpu = entry.dispatch["Meta"], entry.dispatch[others[0]]
        assert meta != cpu, f"{entry.qualified_name}: one kernel for CPU and Meta"
        assert _defined_in(registry.lookup(meta), copy_rules), entry.qualified_name
        assert _defined_in(registry.lookup(cpu), copy_kernels), entry.qualified_name


def test_copy_kernels_have_no_meta_branch():
    assert "_data" not in inspect.getsource(copy_rules)
    source = inspect.getsource(copy_kernels)
    assert "_data is None" not in source and "_data is not None" not in source
    assert 'type == "meta"' not in source.replace('device.type == "meta":  # to the meta device', "")


def test_copy_kernels_join_flip_and_tile_through_array_code():
    # cat / stack / flip / repeat: thin adapters over array code taking the array module
    for fn in (copy_kernels.joined_values, copy_kernels.flipped_values, copy_kernels.repeated_values):
        assert next(iter(inspect.signature(fn).parameters)) == "xp", fn.__name__
    for kernel in (copy_kernels.cat, copy_kernels.stack, copy_kernels.flip, copy_kernels.repeat):
        source = inspect.getsource(kernel)
        assert "np.concatenate" not in source and "np.flip" not in source and "np.tile" not in source


# --- the selecting pointwise ops: kernels/pointwise_select.py's CPU kernels, meta/pointwise_select.py --

from torchpy._aten.kernels import pointwise_select as select_kernels  # noqa: E402
from torchpy._aten.meta import pointwise_select as select_rules  # noqa: E402

SELECTS = ("clamp", "clamp_", "clamp_min", "clamp_min_", "clamp_max", "clamp_max_", "lerp", "lerp_", "where",
           "masked_fill", "masked_fill_", "nan_to_num", "nan_to_num_")


def test_select_meta_kernels_are_the_meta_rules():
    # where's Scalar overloads and where(condition) are CompositeImplicitAutograd: no kernel of their own
    entries = [e for e in NATIVE_FUNCTIONS if e.schema.name.split("::")[1] in SELECTS and "Meta" in e.dispatch]
    assert len(entries) == 35
    for entry in entries:
        meta, cpu = entry.dispatch["Meta"], entry.dispatch.get("CPU") or entry.dispatch["CompositeExplicitAutograd"]
        assert meta == cpu + "_meta", entry.qualified_name
        assert _defined_in(registry.lookup(meta), select_rules), entry.qualified_name
        assert _defined_in(registry.lookup(cpu), select_kernels), entry.qualified_name


def test_select_rules_read_no_data():
    assert "_data" not in inspect.getsource(select_rules)
    source = inspect.getsource(select_kernels)
    converted = source[source.index("# --- clamp"):source.index("# --- isfinite")]
    assert "_data is None" not in converted and "_data is not None" not in converted


# --- the view backward ops: kernels/view_backward.py's CPU kernels, meta/view.py's rules ---------

from torchpy._aten.kernels import shape as shape_composites  # noqa: E402
from torchpy._aten.kernels import view_backward as view_backward_kernels  # noqa: E402

VIEW_BACKWARDS = ("select_backward", "slice_backward", "diagonal_backward", "unfold_backward",
                  "masked_scatter_backward")


def test_view_backward_meta_kernels_are_the_meta_rules():
    entries = [e for e in NATIVE_FUNCTIONS if e.schema.name.split("::")[1] in VIEW_BACKWARDS]
    assert len(entries) == 9
    for entry in entries:
        others = [k for k in entry.dispatch if k != "Meta"]
        meta, cpu = entry.dispatch["Meta"], entry.dispatch[others[0]]
        assert meta != cpu, f"{entry.qualified_name}: one kernel for CPU and Meta"
        assert _defined_in(registry.lookup(meta), view_rules), entry.qualified_name
        assert _defined_in(registry.lookup(cpu), view_backward_kernels), entry.qualified_name


def test_view_backward_kernels_have_no_meta_branch():
    assert "_data is None" not in inspect.getsource(view_backward_kernels)


def test_shape_composites_read_no_data():
    # the composites decide view-or-copy from sizes and strides alone, as on every device
    assert "_data" not in inspect.getsource(shape_composites)


EXTREMA = ("amax", "amin", "aminmax", "max", "min", "argmax", "argmin")


def test_extrema_meta_kernels_are_the_meta_rules():
    from torchpy._aten.meta import extrema as extrema_rules

    entries = [e for e in NATIVE_FUNCTIONS if e.schema.name.split("::")[1] in EXTREMA and "Meta" in e.dispatch]
    assert len(entries) >= 18
    for entry in entries:
        meta, cpu = entry.dispatch["Meta"], entry.dispatch["CPU"]
        assert meta != cpu, f"{entry.qualified_name}: one kernel for CPU and Meta"
        assert _defined_in(registry.lookup(meta), extrema_rules), entry.qualified_name


def test_extrema_kernels_have_no_meta_branch():
    from torchpy._aten.kernels import extrema as extrema_kernels
    from torchpy._aten.meta import extrema as extrema_rules

    assert "_data is None" not in inspect.getsource(extrema_kernels)
    assert "_data" not in inspect.getsource(extrema_rules)


STATISTICS = ("var", "std", "var_mean", "std_mean", "logsumexp")


def test_statistics_meta_kernels_are_the_meta_rules():
    from torchpy._aten.meta import statistics as statistics_rules

    entries = [e for e in NATIVE_FUNCTIONS if e.schema.name.split("::")[1] in STATISTICS and "Meta" in e.dispatch]
    assert len(entries) >= 10
    for entry in entries:
        meta = entry.dispatch["Meta"]
        cpu = next(k for key, k in entry.dispatch.items() if key != "Meta")
        assert meta != cpu, f"{entry.qualified_name}: one kernel for CPU and Meta"
        assert _defined_in(registry.lookup(meta), statistics_rules), entry.qualified_name


def test_statistics_kernels_have_no_meta_branch():
    from torchpy._aten.kernels import statistics as statistics_kernels
    from torchpy._aten.meta import statistics as statistics_rules

    assert "_data is None" not in inspect.getsource(statistics_kernels)
    assert "_data" not in inspect.getsource(statistics_rules)


# --- the matrix products: kernels/linalg.py's CPU kernels, meta/linalg.py's rules and Meta kernels --

LINALG = ("mm", "bmm", "addmm", "addmm_", "baddbmm", "baddbmm_", "addmv", "addmv_", "mv", "dot", "vdot")


def test_linalg_meta_kernels_are_the_meta_rules():
    from torchpy._aten.kernels import linalg as linalg_kernels
    from torchpy._aten.meta import linalg as linalg_rules

    entries = [e for e in NATIVE_FUNCTIONS if e.schema.name.split("::")[1] in LINALG]
    assert len(entries) == 19
    for entry in entries:
        meta = entry.dispatch["Meta"]
        cpu = next(k for key, k in entry.dispatch.items() if key != "Meta")
        assert meta == cpu + "_meta", entry.qualified_name
        assert _defined_in(registry.lookup(meta), linalg_rules), entry.qualified_name
        assert _defined_in(registry.lookup(cpu), linalg_kernels), entry.qualified_name


def test_linalg_kernels_have_no_meta_branch():
    from torchpy._aten.kernels import linalg as linalg_kernels
    from torchpy._aten.meta import linalg as linalg_rules

    # (the in-place policy that words its error apart on Meta lives in out_policy.py)
    assert "_data is None" not in inspect.getsource(linalg_kernels)
    assert "_data" not in inspect.getsource(linalg_rules)


# --- the random ops: kernels/random.py's CPU kernels draw, meta/random.py's Meta kernels do not ----

RANDOM = ("uniform_", "normal_", "random_", "rand", "randn", "randint", "randperm", "normal")


def test_random_meta_kernels_are_the_meta_rules():
    from torchpy._aten.kernels import random as random_kernels
    from torchpy._aten.meta import random as random_rules

    entries = [e for e in NATIVE_FUNCTIONS if e.schema.name.split("::")[1] in RANDOM]
    assert len(entries) == 29
    for entry in entries:
        meta = entry.dispatch["Meta"]
        cpu = entry.dispatch.get("CPU") or entry.dispatch["CompositeExplicitAutograd"]
        assert meta == cpu + "_meta", entry.qualified_name
        assert _defined_in(registry.lookup(meta), random_rules), entry.qualified_name
        assert _defined_in(registry.lookup(cpu), random_kernels), entry.qualified_name


def test_random_kernels_have_no_meta_branch():
    from torchpy._aten.kernels import random as random_kernels
    from torchpy._aten.meta import random as random_rules

    source = inspect.getsource(random_kernels)
    assert "_data is None" not in source and "_data is not None" not in source and "is_meta" not in source
    assert "_data" not in inspect.getsource(random_rules)


# --- the tensor-less factories: kernels/factory.py's CPU kernels fill, meta/factory.py's describe ----

FACTORIES = ("empty", "empty_strided", "zeros", "ones", "full", "scalar_tensor", "arange", "linspace", "eye")


def test_factory_meta_kernels_are_the_meta_rules():
    from torchpy._aten.kernels import factory as factory_kernels
    from torchpy._aten.meta import factory as factory_rules

    entries = [e for e in NATIVE_FUNCTIONS
               if e.schema.name.split("::")[1] in FACTORIES and e.qualified_name != "aten::empty.out"]
    assert len(entries) == 21
    for entry in entries:
        meta = entry.dispatch["Meta"]
        cpu = entry.dispatch.get("CPU") or entry.dispatch["CompositeExplicitAutograd"]
        assert meta == cpu + "_meta", entry.qualified_name
        assert _defined_in(registry.lookup(meta), factory_rules), entry.qualified_name
        assert _defined_in(registry.lookup(cpu), factory_kernels), entry.qualified_name


def test_factory_kernels_have_no_meta_branch():
    from torchpy._aten.kernels import factory as factory_kernels
    from torchpy._aten.meta import factory as factory_rules

    for name in ("empty", "empty_strided", "zeros", "ones", "full", "scalar_tensor", "arange_start_step",
                 "arange_start_out", "linspace", "eye_m"):
        source = inspect.getsource(getattr(factory_kernels, name))
        assert "is_meta" not in source and "_data is" not in source and "device)" not in source, name
    assert "_data" not in inspect.getsource(factory_rules)


# --- adaptive pooling: kernels/adaptive_pool(_backward).py's CPU kernels, meta/adaptive_pool.py ------

POOLS = ("_adaptive_avg_pool2d", "_adaptive_avg_pool3d", "adaptive_max_pool2d", "adaptive_max_pool3d",
         "_adaptive_avg_pool2d_backward", "_adaptive_avg_pool3d_backward", "adaptive_max_pool2d_backward",
         "adaptive_max_pool3d_backward")


def test_adaptive_pool_meta_kernels_are_the_meta_rules():
    from torchpy._aten.kernels import adaptive_pool as pool_kernels
    from torchpy._aten.kernels import adaptive_pool_backward as pool_backward_kernels
    from torchpy._aten.meta import adaptive_pool as pool_rules

    entries = [e for e in NATIVE_FUNCTIONS if e.schema.name.split("::")[1] in POOLS and "Meta" in e.dispatch]
    assert len(entries) == 15
    for entry in entries:
        meta = entry.dispatch["Meta"]
        cpu = entry.dispatch.get("CPU") or entry.dispatch["CompositeExplicitAutograd"]
        assert meta == cpu + "_meta", entry.qualified_name
        assert _defined_in(registry.lookup(meta), pool_rules), entry.qualified_name
        assert (_defined_in(registry.lookup(cpu), pool_kernels)
                or _defined_in(registry.lookup(cpu), pool_backward_kernels)), entry.qualified_name


def test_adaptive_pool_kernels_have_no_meta_branch():
    from torchpy._aten.kernels import adaptive_pool as pool_kernels
    from torchpy._aten.kernels import adaptive_pool_backward as pool_backward_kernels
    from torchpy._aten.kernels import adaptive_pool_composite
    from torchpy._aten.meta import adaptive_pool as pool_rules

    for module in (pool_kernels, pool_backward_kernels, adaptive_pool_composite):
        source = inspect.getsource(module)
        assert "_data is None" not in source and "_data is not None" not in source, module.__name__
    assert "_data" not in inspect.getsource(pool_rules)


# --- norms, scans, softmax: kernels/{norm,cumulative,softmax,softmax_backward}.py, meta/ rules ---------

SPLIT_FAMILIES = {
    "norm": (("linalg_vector_norm", "norm"), ("norm",), 10),
    "cumulative": (("cumsum", "cumsum_", "cumprod", "cumprod_"), ("cumulative",), 6),
    "softmax": (("_softmax", "_log_softmax", "_softmax_backward_data", "_log_softmax_backward_data"),
                ("softmax", "softmax_backward"), 8),
}


def test_split_families_meta_kernels_are_the_meta_rules():
    import importlib

    for family, (names, kernel_modules, count) in SPLIT_FAMILIES.items():
        rules = importlib.import_module(f"torchpy._aten.meta.{family}")
        kernels = [importlib.import_module(f"torchpy._aten.kernels.{m}") for m in kernel_modules]
        entries = [e for e in NATIVE_FUNCTIONS if e.schema.name.split("::")[1] in names]
        assert len(entries) == count, family
        for entry in entries:
            meta = entry.dispatch["Meta"]
            cpu = entry.dispatch.get("CPU") or entry.dispatch["CompositeExplicitAutograd"]
            assert meta == cpu + "_meta", entry.qualified_name
            assert _defined_in(registry.lookup(meta), rules), entry.qualified_name
            assert any(_defined_in(registry.lookup(cpu), k) for k in kernels), entry.qualified_name


def test_split_families_have_no_meta_branch():
    import importlib

    for family, (_, kernel_modules, _) in SPLIT_FAMILIES.items():
        assert "._data" not in inspect.getsource(importlib.import_module(f"torchpy._aten.meta.{family}"))
        for name in kernel_modules:
            source = inspect.getsource(importlib.import_module(f"torchpy._aten.kernels.{name}"))
            assert "_data is None" not in source and "_data is not None" not in source, name


# --- sorting: kernels/sorting.py's CPU kernels, meta/sorting.py's rules and Meta kernels ----------

SORTING_KERNELS = ("aten::sort.stable", "aten::sort.values_stable", "aten::topk", "aten::topk.values")


def test_sorting_meta_kernels_are_the_meta_rules():
    from torchpy._aten.kernels import sorting as sorting_kernels
    from torchpy._aten.meta import sorting as sorting_rules

    entries = [e for e in NATIVE_FUNCTIONS if e.qualified_name in SORTING_KERNELS]
    assert len(entries) == 4
    for entry in entries:
        meta, cpu = entry.dispatch["Meta"], entry.dispatch["CPU"]
        assert meta == cpu + "_meta", entry.qualified_name
        assert _defined_in(registry.lookup(meta), sorting_rules), entry.qualified_name
        assert _defined_in(registry.lookup(cpu), sorting_kernels), entry.qualified_name


def test_sorting_kernels_have_no_meta_branch():
    from torchpy._aten.kernels import sorting as sorting_kernels
    from torchpy._aten.meta import sorting as sorting_rules

    source = inspect.getsource(sorting_kernels)
    assert "_data is None" not in source and "_data is not None" not in source
    assert "_data" not in inspect.getsource(sorting_rules)
    # the array code takes `xp`: only the adapters (and _unique) read a Tensor's array
    array_code = source[source.index("# --- array code"):source.index("# --- CPU kernels: the adapters")]
    assert "_data" not in array_code and "np." not in array_code


# --- indexing: kernels/indexing.py's CPU kernels, meta/indexing.py's rules and Meta kernels --------

INDEXING = ("index", "_index_put_impl_", "index_put", "gather", "scatter", "scatter_", "scatter_add",
            "scatter_add_", "scatter_reduce", "scatter_reduce_", "index_select", "index_add", "index_add_",
            "nonzero", "masked_scatter", "masked_scatter_", "index_fill", "index_fill_", "index_copy",
            "index_copy_", "take", "put_")


def test_indexing_meta_kernels_are_the_meta_rules():
    from torchpy._aten.kernels import indexing as indexing_kernels
    from torchpy._aten.meta import indexing as indexing_rules

    # index_put_ (CompositeExplicitAutograd, no copy) is one kernel on every device
    entries = [e for e in NATIVE_FUNCTIONS if e.schema.name.split("::")[1] in INDEXING
               and "Meta" in e.dispatch and e.qualified_name != "aten::index_put_"]
    assert len(entries) == 46
    for entry in entries:
        meta = entry.dispatch["Meta"]
        cpu = next(k for key, k in entry.dispatch.items() if key != "Meta")
        assert meta == cpu + "_meta", entry.qualified_name
        assert _defined_in(registry.lookup(meta), indexing_rules), entry.qualified_name
        assert _defined_in(registry.lookup(cpu), indexing_kernels), entry.qualified_name


def test_indexing_kernels_have_no_meta_branch():
    from torchpy._aten.kernels import indexing as indexing_kernels
    from torchpy._aten.meta import indexing as indexing_rules

    source = inspect.getsource(indexing_kernels)
    assert "_data is None" not in source and "_data is not None" not in source
    assert "meta_tensor" not in source
    assert "_data" not in inspect.getsource(indexing_rules)


def test_meta_index_with_a_cpu_mask_runs_its_nonzero():
    # PyTorch's meta index computes a CPU mask's nonzero (only a meta mask's is unknowable)
    import torch
    import torchpy

    x = torchpy.empty((3, 4), device="meta")
    mask = torchpy.tensor([True, False, True])
    assert x[mask].shape == torch.empty((3, 4), device="meta")[torch.tensor([True, False, True])].shape == (2, 4)


# --- multinomial / exponential_: kernels/multinomial.py's CPU kernels, meta/multinomial.py's rules --

def test_multinomial_meta_kernels_are_the_meta_rules():
    from torchpy._aten.kernels import multinomial as multinomial_kernels
    from torchpy._aten.meta import multinomial as multinomial_rules

    names = ("aten::multinomial", "aten::multinomial.out", "aten::exponential_")
    entries = [e for e in NATIVE_FUNCTIONS if e.qualified_name in names]
    assert len(entries) == 3
    for entry in entries:
        meta, cpu = entry.dispatch["Meta"], entry.dispatch["CPU"]
        assert meta == cpu + "_meta", entry.qualified_name
        assert _defined_in(registry.lookup(meta), multinomial_rules), entry.qualified_name
        assert _defined_in(registry.lookup(cpu), multinomial_kernels), entry.qualified_name
    source = inspect.getsource(multinomial_kernels)
    assert "_data is None" not in source and "meta_tensor" not in source
