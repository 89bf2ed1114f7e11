"""The YAML entry is an op's one home: the loader and the formula table refuse what is missing."""

from __future__ import annotations

import textwrap

import pytest

from torchpy._aten.loader import NativeFunctionsError, load_all, load_file
from torchpy.autograd.derivatives import derivative
from torchpy.autograd.derivatives.table import resolve, unused
from torchpy._aten.build import NATIVE_FUNCTIONS


def _write(tmp_path, text: str, name: str = "ops.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_a_formula_no_module_declares_fails_with_file_line_and_op(tmp_path):
    path = _write(tmp_path, """\
        - func: relu(Tensor self) -> Tensor
          dispatch:
            CPU: relu
          backward: relu_backwrd
          forward: auto_element_wise
        """)
    with pytest.raises(NativeFunctionsError, match=r"ops\.yaml:1: aten::relu names backward formula 'relu_backwrd'"):
        resolve(load_file(str(path)))


def test_a_jvp_no_module_declares_fails(tmp_path):
    path = _write(tmp_path, """\
        - func: relu(Tensor self) -> Tensor
          dispatch:
            CPU: relu
          backward: relu_backward
          forward: relu_jvp
        """)
    with pytest.raises(NativeFunctionsError, match=r"ops\.yaml:1: aten::relu names forward rule 'relu_jvp'"):
        resolve(load_file(str(path)))


def test_a_differentiable_op_without_a_backward_is_reported(tmp_path):
    _write(tmp_path, """\
        - func: relu(Tensor self) -> Tensor
          dispatch:
            CPU: relu

        - func: relu_(Tensor(a!) self) -> Tensor(a!)
          dispatch:
            CPU: relu_
        """)
    with pytest.raises(NativeFunctionsError, match=r"ops\.yaml:1: aten::relu is differentiable but names no backward"):
        load_all(str(tmp_path))


def test_an_inplace_op_uses_its_functional_ops_statement(tmp_path):
    _write(tmp_path, """\
        - func: relu(Tensor self) -> Tensor
          dispatch:
            CPU: relu
          backward: relu_backward
          forward: auto_element_wise

        - func: relu_(Tensor(a!) self) -> Tensor(a!)
          dispatch:
            CPU: relu_

        - func: relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
          dispatch:
            CPU: relu_out

        - func: argsort(Tensor self) -> Tensor
          dispatch:
            CompositeImplicitAutograd: argsort

        - func: zeros(int[] size) -> Tensor
          dispatch:
            CPU: zeros
        """)
    entries = load_all(str(tmp_path))  # out=, composite and factory ops need nothing
    formulas, forward = resolve(entries)
    assert set(formulas) == set(forward) == {"aten::relu"}
    assert formulas["aten::relu"].node_name == "ReluBackward0"


@pytest.mark.parametrize("fields, message", [
    ("backward: relu_backward", "needs a forward rule"),
    ("forward: auto_linear", "a forward rule needs a backward formula"),
    ("backward: not_differentiable\n  forward: auto_linear", "a forward rule needs a backward formula"),
    ("backward: no_formula\n  grad_fn: ReluBackward0", "grad_fn without a backward formula"),
    ("backward: relu backward", "backward must be a Python name"),
    ("backwards: relu_backward", r"unknown field\(s\) \['backwards'\]"),
])
def test_malformed_autograd_fields_fail_with_file_line(tmp_path, fields, message):
    path = _write(tmp_path, "- func: relu(Tensor self) -> Tensor\n  dispatch:\n    CPU: relu\n  " + fields + "\n")
    with pytest.raises(NativeFunctionsError, match=r"ops\.yaml:1: .*" + message):
        load_file(str(path))


def test_a_backward_on_an_op_autograd_never_meets_is_an_error(tmp_path):
    _write(tmp_path, """\
        - func: relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
          dispatch:
            CPU: relu_out
          backward: not_differentiable
        """)
    with pytest.raises(NativeFunctionsError, match=r"ops\.yaml:1: aten::relu\.out names a backward but autograd never"):
        load_all(str(tmp_path))


def test_a_formula_saving_what_the_op_lacks_is_an_error(tmp_path):
    # mul_backward saves self and other; this schema has no `other`
    path = _write(tmp_path, """\
        - func: square(Tensor self) -> Tensor
          dispatch:
            CPU: square
          backward: mul_backward
          forward: auto_element_wise
        """)
    with pytest.raises(NativeFunctionsError, match=r"ops\.yaml:1: aten::square: .* differentiates 'other'"):
        resolve(load_file(str(path)))


def test_node_names_default_to_torchs_convention_and_grad_fn_overrides(tmp_path):
    by_name = {entry.qualified_name: entry for entry in NATIVE_FUNCTIONS}
    assert by_name["aten::_adaptive_avg_pool2d"].node_name == "AdaptiveAvgPool2DBackward0"
    assert by_name["aten::mul.Scalar"].node_name == "MulBackward1"  # grad_fn: MulBackward1
    assert by_name["aten::copy_"].node_name == "torch::autograd::CopyBackwards"


def test_every_declared_formula_is_named_by_some_entry():
    assert unused(NATIVE_FUNCTIONS) == []


def test_aten_formulas_are_not_registered_beside_the_yaml():
    with pytest.raises(RuntimeError, match="native_functions"):
        derivative("aten::relu", "ReluBackward0", inputs=("self",))
