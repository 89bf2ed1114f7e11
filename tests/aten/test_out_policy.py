"""out= and in-place kernels come from one builder (torchpy/_aten/out_policy.py), by the policy
the YAML entry names: the loader refuses unknown policies, build.py refuses an out= kernel it
cannot make, no kernel module builds them by hand, and each policy words its errors as torch."""

from __future__ import annotations

import glob
import os
import textwrap
import warnings

import pytest

import torchpy
from torchpy._aten import build, out_policy, registry
from torchpy._aten.build import NATIVE_FUNCTIONS
from torchpy._aten.loader import NativeFunctionsError, load_all, load_file
from tests.oracle import EXACT, check

KERNELS_DIR = os.path.join(os.path.dirname(torchpy.__file__), "_aten", "kernels")


def _write(tmp_path, text: str, name: str = "ops.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


# --- the loader and build.py --------------------------------------------------------------------------

def test_an_unknown_policy_fails_with_file_line(tmp_path):
    path = _write(tmp_path, """\
        - func: relu(Tensor self) -> Tensor
          dispatch:
            CPU: relu
          backward: not_differentiable

        - func: relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
          dispatch:
            CPU: relu_out
          policy: exactly
        """)
    with pytest.raises(NativeFunctionsError, match=r"ops\.yaml:6: unknown out policy 'exactly' .*known: castable"):
        load_file(str(path))


def test_an_inplace_policy_name_is_not_an_out_one(tmp_path):
    path = _write(tmp_path, """\
        - func: relu_(Tensor(a!) self) -> Tensor(a!)
          dispatch:
            CPU: relu_
          policy: like_self
        """)
    with pytest.raises(NativeFunctionsError, match=r"ops\.yaml:1: unknown inplace policy 'like_self'"):
        load_file(str(path))


@pytest.mark.parametrize("fields, message", [
    ("policy: exact", "not an out= or in-place overload"),
    ("out_error: 'no'", "not an out= or in-place overload"),
])
def test_a_policy_on_a_functional_op_fails(tmp_path, fields, message):
    path = _write(tmp_path, "- func: relu(Tensor self) -> Tensor\n  dispatch:\n    CPU: relu\n  " + fields + "\n")
    with pytest.raises(NativeFunctionsError, match=r"ops\.yaml:1: .*" + message):
        load_file(str(path))


@pytest.mark.parametrize("fields", ["policy: like_self", "policy: exact\n  out_error: 'mismatch'"])
def test_like_self_and_out_error_go_together(tmp_path, fields):
    path = _write(tmp_path, "- func: relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  dispatch:\n"
                            "    CPU: relu_out\n  " + fields + "\n")
    with pytest.raises(NativeFunctionsError, match=r"ops\.yaml:1: .*like_self needs an out_error"):
        load_file(str(path))


def test_an_out_overload_without_a_functional_kernel_fails_with_file_line(tmp_path):
    _write(tmp_path, """\
        - func: frobnicate.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
          dispatch:
            CPU: frobnicate_out
        """)
    (entry,) = load_all(str(tmp_path))
    with pytest.raises(NativeFunctionsError, match=r"ops\.yaml:1: aten::frobnicate\.out: no kernel named "
                                                   r"'frobnicate_out' is registered \(for CPU\), nor its "
                                                   r"functional kernel 'frobnicate'"):
        build._kernel(entry, "CPU", "frobnicate_out")


def test_a_policy_on_a_modules_own_kernel_fails(tmp_path):
    _write(tmp_path, """\
        - func: nonzero.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
          dispatch:
            CPU: nonzero_out
          policy: exact
        """)
    (entry,) = load_all(str(tmp_path))
    with pytest.raises(NativeFunctionsError, match=r"ops\.yaml:1: aten::nonzero\.out names policy 'exact', but "
                                                   r"kernel 'nonzero_out' is a module's own"):
        build._kernel(entry, "CPU", "nonzero_out")


def test_entries_sharing_a_made_kernel_agree_on_its_policy(tmp_path):
    _write(tmp_path, """\
        - func: relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
          dispatch:
            CPU: relu_out
          policy: exact
        """)
    (entry,) = load_all(str(tmp_path))
    assert registry.lookup("relu_out").policy == "generated"  # native_functions' relu.out
    with pytest.raises(NativeFunctionsError, match=r"ops\.yaml:1: .*kernel 'relu_out' is made with policy "
                                                   r"'generated' for another entry, and 'exact' here"):
        build._kernel(entry, "CPU", "relu_out")


def test_functional_kernel_names():
    name = out_policy.functional_kernel_name
    assert [name(n) for n in ("add_out", "add_", "clamp_out_meta", "clamp__meta", "meta_pow_out", "add")] == [
        "add", "add", "clamp_meta", "clamp_meta", "meta_pow", None]


# --- no hand builders left ----------------------------------------------------------------------------

# out= / in-place kernels a module registers itself, and why no policy makes them. A new one
# belongs here only when no policy fits: most entries need no more than their name.
OWN_KERNELS = {
    # they call another overload (its out= / in-place form), as PyTorch's composite kernels do
    "forwards": {
        "api_alias_arccosh_", "api_alias_arcsinh_", "api_alias_arctanh_",  # acosh_ / asinh_ / atanh_
        "add_Scalar_", "sub_Scalar_", "mul_Scalar_", "div_Scalar_", "div_Scalar_mode_", "floor_divide_Scalar_",
        "remainder_Scalar_", "remainder_Scalar_out", "fmod_Scalar_", "fmod_Scalar_out",
        "bitwise_and_Scalar_", "bitwise_and_Scalar_out", "bitwise_or_Scalar_", "bitwise_or_Scalar_out",
        "bitwise_xor_Scalar_", "bitwise_xor_Scalar_out", "bitwise_left_shift_Tensor_Scalar_",
        "bitwise_left_shift_Tensor_Scalar_out", "bitwise_right_shift_Tensor_Scalar_",
        "bitwise_right_shift_Tensor_Scalar_out", "dunder_and_", "dunder_and_Scalar_", "dunder_or_",
        "dunder_or_Scalar_", "dunder_xor_", "dunder_xor_Scalar_", "max_other_out", "min_other_out",
        "softmax_out", "log_softmax_out", "concat_out", "take_along_dim_out", "matmul_out", "outer_out",
        "linear_out", "argsort_stable_out", "var_dim_unbiased_out", "std_dim_unbiased_out",
        "cat_out", "stack_out", "flip_out", "repeat_out",
    },
    # several out= tensors
    "several outputs": {
        "aminmax_out", "aminmax_out_meta", "max_dim_max", "max_dim_max_meta", "min_dim_min", "min_dim_min_meta",
        "sort_values", "sort_values_stable", "sort_values_stable_meta", "topk_values", "topk_values_meta",
        "adaptive_max_pool2d_out", "adaptive_max_pool2d_out_meta", "adaptive_max_pool3d_out",
        "adaptive_max_pool3d_out_meta",
        "var_mean_out", "var_mean_out_meta", "std_mean_out", "std_mean_out_meta",
    },
    # in place by nature: they write into self rather than compute a result to copy
    "writes into self": {
        "copy_", "copy__meta", "fill_", "fill__meta", "fill__tensor", "fill__tensor_meta", "zero_", "zero__meta",
        "uniform_", "normal_", "random_", "random_from", "random_to", "index_put_", "_index_put_impl_",
        "index_add_", "index_copy_", "index_fill_int_Scalar_", "index_fill_int_Tensor_", "masked_scatter_",
        "put_", "scatter_src_", "scatter_value_", "scatter_reduce_", "scatter_value_reduce_", "scatter_add_",
        "scatter_reduce_two_", "masked_fill_", "masked_fill_Scalar_", "masked_fill__meta",
        "masked_fill_Scalar__meta", "nan_to_num_", "nan_to_num__meta", "squeeze_", "squeeze__meta",
        "squeeze__dim", "squeeze__dim_meta", "squeeze__dims", "squeeze__dims_meta", "t_", "t__meta",
        "transpose_", "transpose__meta", "unsqueeze_", "unsqueeze__meta",
        # their Meta kernels: meta/indexing.py's and meta/random.py's rules, checks only
        "_index_put_impl__meta", "index_add__meta", "index_copy__meta", "index_fill_int_Scalar__meta",
        "index_fill_int_Tensor__meta", "masked_scatter__meta", "put__meta", "scatter_src__meta",
        "scatter_value__meta", "scatter_reduce__meta", "scatter_value_reduce__meta", "scatter_add__meta",
        "scatter_reduce_two__meta", "uniform__meta", "normal__meta", "random__meta", "random_from_meta",
        "random_to_meta", "exponential_", "exponential__meta",
        "swapaxes_",  # a view op in place: self's sizes and strides change
    },
    # an op-specific rule for out's dtype or size, with its own wording
    "op-specific rule": {
        "abs_", "abs_out",  # complex abs writes into real dtypes
        "clamp_", "clamp__meta", "clamp_min_", "clamp_min__meta", "clamp_max_", "clamp_max__meta",  # CPU / meta word it apart
        "nansum_out", "nansum_out_meta", "mean_dim_out", "mean_dim_out_meta",
        "any_out", "any_out_meta", "any_dim_out", "any_dim_out_meta", "any_dims_out", "any_dims_out_meta",
        "all_out", "all_out_meta", "all_dim_out", "all_dim_out_meta", "all_dims_out", "all_dims_out_meta",
        "max_all_out", "max_all_out_meta", "min_all_out", "min_all_out_meta", "logsumexp_out", "logsumexp_out_meta",
        "nonzero_out", "where_out", "where_out_meta", "nan_to_num_out", "nan_to_num_out_meta",
        "arange_out", "arange_start_out", "linspace_out", "empty_out",
        "nonzero_out_meta", "arange_out_meta", "arange_start_out_meta", "linspace_out_meta",
        "multinomial_out", "multinomial_out_meta",  # out must be Long, in multinomial's words
        "logspace_out", "logspace_out_meta",  # as linspace's
        "float_power__scalar", "float_power__tensor",  # self must be double (complex double)
    },
}


def _variant_kernels() -> dict[str, object]:
    kernels = {}
    for entry in NATIVE_FUNCTIONS:
        if entry.schema.kind.name in ("out", "inplace"):
            for name in entry.dispatch.values():
                kernels[name] = registry.lookup(name)
    return kernels


def test_every_out_and_inplace_kernel_is_made_by_a_policy_or_listed():
    own = {name for name, kernel in _variant_kernels().items() if getattr(kernel, "policy", None) is None}
    listed = set().union(*OWN_KERNELS.values())
    # the alias ops (square_, divide.out, ...) forward to their targets' overloads
    own_unlisted = {name for name in own - listed if not name.startswith("alias_")}
    assert own_unlisted == set(), "out= / in-place kernels a module builds itself: give them a policy"
    assert listed - own == set(), "listed as a module's own, but a policy makes them now: unlist them"


def test_policy_kernels_follow_their_entries():
    for entry in NATIVE_FUNCTIONS:
        if entry.schema.kind.name not in ("out", "inplace"):
            continue
        for name in entry.dispatch.values():
            kernel = registry.lookup(name)
            if getattr(kernel, "policy", None) is not None:
                assert kernel.policy == (entry.policy or out_policy.DEFAULT_POLICY), entry.location


def test_kernel_modules_build_no_variants():
    # the builders modules had before out_policy.py: none may come back
    removed = ("out_variant", "inplace_variant", "register_variants", "out_of(", "inplace_of(", "exact_out_of",
               "same_dtype_out_of", "_dot_out_of", "factory_out", "generated_out", "out_kernel(functional", "_out_kernel",
               "_grad_input_out")
    found = []
    for path in sorted(glob.glob(os.path.join(KERNELS_DIR, "*.py"))):
        with open(path) as f:
            text = f.read()
        found += [f"{os.path.basename(path)}: {name}" for name in removed if name in text]
    assert found == []


# --- each policy's errors, as torch words them ----------------------------------------------------------

@pytest.mark.parametrize("fn", [
    # castable (TensorIterator): "result type Float can't be cast to the desired output type Long"
    lambda t: t.add(t.ones(3), t.ones(3), out=t.empty(3, dtype=t.int64)),
    lambda t: t.exp(t.ones(3), out=t.empty(3, dtype=t.int32)),
    # same: "Found dtype Long but expected Float"
    lambda t: t.neg(t.ones(3), out=t.empty(3, dtype=t.int64)),
    lambda t: t.floor(t.ones(3), out=t.empty(3, dtype=t.float64)),
    # exact (structured): "Expected out tensor to have dtype ..."
    lambda t: t.argmax(t.ones(3), out=t.empty((), dtype=t.float32)),
    lambda t: t.linalg.vector_norm(t.ones(3), out=t.empty((), dtype=t.float64)),
    # generated: computed first, then exact
    lambda t: t.mm(t.ones(2, 2), t.ones(2, 2), out=t.empty(2, 2, dtype=t.float64)),
    lambda t: t.gather(t.ones(2, 2), 0, t.zeros(2, 2, dtype=t.int64), out=t.empty(2, 2, dtype=t.int64)),
    # from_out: a dtype= must equal out's
    lambda t: t.cumsum(t.ones(3), 0, dtype=t.float64, out=t.empty(3)),
    lambda t: t.sum(t.ones(2, 3), 0, dtype=t.float64, out=t.empty(3)),
    # like_self: the op's own words
    lambda t: t.index_select(t.ones(3), 0, t.tensor([0]), out=t.empty(1, dtype=t.float64)),
    lambda t: t.dot(t.ones(2, dtype=t.int64), t.ones(2), out=t.empty((), dtype=t.float64)),
    lambda t: t.amax(t.ones(2, 3), 0, out=t.empty(3, dtype=t.float64)),
    # in-place castable / from_self / structured
    lambda t: t.ones(3, dtype=t.int64).add_(t.ones(3)),
    lambda t: t.ones(3, dtype=t.int64).mul_(1.5),
    lambda t: t.ones(3).cumsum_(0, dtype=t.float64),
    lambda t: t.ones(1, 3).addmm_(t.ones(2, 2), t.ones(2, 3)),
], ids=["castable", "castable-unary", "same", "same-float", "exact", "exact-norm", "generated", "generated-gather",
        "from_out", "from_out-sum", "like_self", "like_self-dot", "like_self-amax", "inplace-castable",
        "inplace-scalar", "inplace-from_self", "inplace-structured"])
def test_policy_errors_match_torch(fn):
    check(fn, expect_error=RuntimeError)


def test_factory_out_takes_outs_dtype_and_resizes_silently():
    def zeros_into_int(t):
        out = t.ones(5, dtype=t.int32)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return t.zeros(2, 3, out=out)

    check(zeros_into_int, policy=EXACT)


def test_out_resize_warns_as_torch():
    import torch

    for lib in (torch, torchpy):  # matmul's out= warns too (it resized silently before its policy)
        with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
            lib.mm(lib.ones(2, 2), lib.ones(2, 2), out=lib.empty(3))
    check(lambda t: t.mm(t.ones(2, 2), t.ones(2, 2), out=t.empty(0)), policy=EXACT)
