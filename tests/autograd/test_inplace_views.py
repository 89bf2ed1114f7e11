"""In-place ops on views (CopySlices), regenerated view grad_fns and the view+inplace errors,
each program run in torch and torchpy and compared: gradients, grad_fn names, _is_view,
versions, error texts, and what a TorchDispatchMode sees."""

import numpy as np
import pytest
import torch

import torchpy
from tests.oracle import assert_values, scaled

from ..conformance.dispatch_log import dispatch_log

LIBS = (torch, torchpy)

def _f64(lib, data, requires_grad=False):
    return lib.tensor(data, dtype=lib.float64, requires_grad=requires_grad)


A = np.arange(12.0).reshape(3, 4) - 5.0
X = np.arange(9.0).reshape(3, 3) / 7.0 + 0.5
Y = np.array([2.0, -3.0, 0.25, 4.0])


def _name(t):
    fn = t.grad_fn
    return None if fn is None else (type(fn).__name__, fn.name())


def _observe(program, lib):
    """Run program(lib, a, x, y) -> (loss, tensors to inspect); backward; record everything."""
    a, x, y = _f64(lib, A, True), _f64(lib, X, True), _f64(lib, Y, True)
    loss, watched = program(lib, a, x, y)
    seen = [(_name(t), t._is_view(), t._version, t.requires_grad, t.is_leaf) for t in watched]
    edges = [None if t.grad_fn is None else [None if n is None else type(n).__name__
                                             for n, _ in t.grad_fn.next_functions] for t in watched]
    loss.backward()
    grads = [None if t.grad is None else np.array(t.grad.tolist()) for t in (a, x, y)]
    return seen, edges, grads


def _same(program):
    expected = _observe(program, torch)
    actual = _observe(program, torchpy)
    assert actual[0] == expected[0]
    assert actual[1] == expected[1]
    for theirs, ours in zip(expected[2], actual[2]):
        if theirs is None:
            assert ours is None
        else:
            assert_values(ours, theirs, scaled(rtol=1e-12))


def p_select_mul(t, a, x, y):
    b = a.clone()
    v = b[0]
    v.mul_(2)
    return (b * b).sum(), [b, v]


def p_slice_add_operand(t, a, x, y):
    b = a.clone()
    w = b[:, 1:]
    w.add_(x)
    return (b * b).sum(), [b, w]


def p_setitem_select_of_view(t, a, x, y):
    b = a.clone()
    b.view(-1)[2] = y[1]
    return (b * b).sum(), [b]


def p_setitem_index_put(t, a, x, y):
    b = a.clone()
    b[t.tensor([0, 2])] = y
    return (b * b).sum(), [b]


def p_setitem_index_put_on_view(t, a, x, y):
    b = a.clone()
    b[1, t.tensor([0, 3])] = y[:2]
    return (b * b).sum(), [b]


def p_setitem_slice_copy(t, a, x, y):
    b = a.clone()
    b[1:, :3] = x[:2] * 3
    return (b * b).sum(), [b]


def p_transposed(t, a, x, y):
    b = a.clone()
    v = b.t()
    v[1:].mul_(y.unsqueeze(1)[1:, :])
    return (b * b).sum(), [b, v]


def p_diagonal(t, a, x, y):
    b = a.clone()
    d = b.diagonal()
    d.mul_(x[0])
    return (b * b).sum(), [b, d]


def p_unsqueezed(t, a, x, y):
    b = a.clone()
    u = b.unsqueeze(0)
    u.add_(y)
    return (b * b).sum(), [b, u]


def p_chain_of_views(t, a, x, y):
    b = a.clone()
    c = b[1:].t()[2]
    c.mul_(y[:2])
    return (b * b).sum(), [b, c]


def p_old_view_reused(t, a, x, y):
    b = a.clone()
    v = b[0]
    w = b[:, 0]
    v.mul_(3)
    return (v[:3] * w).sum() + (b * 2).sum(), [b, v, w]


def p_base_modified_then_view_used(t, a, x, y):
    b = a.clone()
    v = b.view(-1)
    b.mul_(y)
    return (v * v).sum(), [b, v]


def p_two_inplace_on_view(t, a, x, y):
    b = a.clone()
    v = b[2]
    v.mul_(y)
    v.add_(y * y)
    return (b * b).sum(), [b, v]


def p_leaf_without_grad(t, a, x, y):
    base = t.zeros(3, 4, dtype=t.float64)
    view = base[1]
    other = base[:, 2]
    view.add_(y)
    return (base * a).sum() + (other * 5).sum(), [base, view, other]


def p_inplace_view_op_on_view(t, a, x, y):
    b = a.clone()
    v = b[:2, :2]
    v.t_()
    v.mul_(y[:2].unsqueeze(1))
    v.unsqueeze_(0)
    return (b * b).sum() + (v * y[2:]).sum(), [b, v]


def p_copy_and_zero_on_views(t, a, x, y):
    b = a.clone()
    b[0].copy_(a[1] * 3)
    b[2].zero_()
    return (b * b).sum(), [b]


PROGRAMS = [p_select_mul, p_slice_add_operand, p_setitem_select_of_view, p_setitem_index_put,
            p_setitem_index_put_on_view, p_setitem_slice_copy, p_transposed, p_diagonal, p_unsqueezed,
            p_chain_of_views, p_old_view_reused, p_base_modified_then_view_used, p_two_inplace_on_view,
            p_leaf_without_grad, p_inplace_view_op_on_view, p_copy_and_zero_on_views]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__[2:])
def test_gradients_names_and_versions_match_torch(program):
    _same(program)


def test_view_records_its_base():
    for lib in LIBS:
        a = _f64(lib, A, True)
        b = a.clone()
        v = b[1:].t()
        assert v._is_view() and v._base is b
        assert not b._is_view() and b._base is None


def test_detach_is_not_a_differentiable_view():
    results = []
    for lib in LIBS:
        a = _f64(lib, A, True)
        b = a.clone()
        d = b.detach()
        d.mul_(2)  # not recorded, but seen through b and its version counter
        results.append((d._is_view(), d._base is None, b._version, d._version, _name(b), d.requires_grad,
                        b.tolist()))
    assert results[0] == results[1]


def test_backward_through_copy_slices_twice_needs_retain_graph():
    messages = []
    for lib in LIBS:
        a = _f64(lib, A, True)
        b = a.clone()
        b[0].add_(1)
        loss = b.sum()
        loss.backward()
        with pytest.raises(RuntimeError) as info:
            loss.backward()
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_retained_graph_backward_twice_accumulates():
    grads = []
    for lib in LIBS:
        a, y = _f64(lib, A, True), _f64(lib, Y, True)
        b = a.clone()
        b[1].mul_(y)
        loss = (b * b).sum()
        loss.backward(retain_graph=True)
        loss.backward()
        grads.append((a.grad.tolist(), y.grad.tolist()))
    assert grads[0] == grads[1]


# --- errors ---------------------------------------------------------------------------------


def _leaf_view(t):
    a = _f64(t, A, True)
    a[0].mul_(2)


def _unbind(t):
    b = _f64(t, A, True).clone()
    p, q, r = b.unbind()
    p.mul_(2)


def _split(t):
    b = _f64(t, Y, True).clone()
    p, q = b.split(2)
    q.mul_(2)


def _split_with_sizes(t):
    b = _f64(t, Y, True).clone()
    p, q = b.split([1, 3])
    q.mul_(2)


def _chunk(t):
    b = _f64(t, Y, True).clone()
    p, q = b.chunk(2)
    q.add_(1)


def _iterate(t):
    b = _f64(t, A, True).clone()
    for row in b:
        row.mul_(2)


def _unbind_then_base_modified(t):
    b = _f64(t, A, True).clone()
    p, q, r = b.unbind()
    b.mul_(2)
    return p * 2


def _view_of_unbind_piece(t):
    b = _f64(t, A, True).clone()
    p = b.unbind()[1]
    p[:2].mul_(2)


def _unbind_of_base_without_grad(t):
    y = _f64(t, Y, True)
    p, q, r = t.zeros(3, 4, dtype=t.float64).unbind()
    p.add_(y)


def _no_grad_view(t):
    b = _f64(t, A, True).clone()
    with t.no_grad():
        v = b[:2]
    v.mul_(2)


def _no_grad_view_then_base_modified(t):
    b = _f64(t, A, True).clone()
    with t.no_grad():
        v = b[:2]
    b.mul_(2)
    return v.grad_fn


def _view_of_no_grad_view(t):
    b = _f64(t, A, True).clone()
    with t.no_grad():
        w = b[:2]
    w[0].mul_(_f64(t, Y, True))


def _inference_mode_view(t):
    b = _f64(t, A, True).clone()
    with t.inference_mode():
        v = b[:2]
    v.mul_(2)


@pytest.mark.parametrize("program", [
    _leaf_view, _unbind, _split, _split_with_sizes, _chunk, _iterate, _unbind_then_base_modified,
    _view_of_unbind_piece, _unbind_of_base_without_grad, _no_grad_view, _no_grad_view_then_base_modified,
    _view_of_no_grad_view, _inference_mode_view,
], ids=lambda p: p.__name__.strip("_"))
def test_errors_match_torch(program):
    errors = []
    for lib in LIBS:
        with pytest.raises(Exception) as info:
            program(lib)
        errors.append((type(info.value), str(info.value)))
    assert errors[0][0] is RuntimeError
    assert errors[1] == errors[0]


def test_rejected_inplace_leaves_no_state_behind():
    states = []
    for lib in LIBS:
        b = _f64(lib, A, True).clone()
        p, q, r = b.unbind()
        with pytest.raises(RuntimeError):
            p.mul_(2)
        states.append((b._version, p._version, _name(b), _name(p), b.tolist()))
    assert states[0] == states[1]


def test_no_grad_views_require_grad_like_their_base():
    seen = []
    for lib in LIBS:
        a = _f64(lib, A, True)
        b = a.clone()
        with lib.no_grad():
            v = b[1]
            w = a[0]
        seen.append((v.requires_grad, v.grad_fn, v.is_leaf, w.requires_grad, w._is_view()))
    assert seen[0] == seen[1]


def test_inplace_on_leaf_view_under_no_grad_is_allowed_and_regenerates():
    seen = []
    for lib in LIBS:
        a = _f64(lib, A, True)
        v = a[0]
        with lib.no_grad():
            v.mul_(2)
        seen.append((_name(v), a._version, a.tolist(), a.is_leaf))
    assert seen[0] == seen[1]


# --- what a TorchDispatchMode sees --------------------------------------------------------------


def _slice_add_program(lib, a, x, g):
    b = a.clone()
    b[:, 1:].add_(x)
    (b * b).sum().backward(g)


def _setitem_program(lib, a, x, g):
    b = a.clone()
    b[1] = x
    (b * 3).sum().backward(g)


def _view_reuse_program(lib, a, x, g):
    b = a.clone()
    v = b[0]
    v.add_(x)
    (v * 3).sum().backward(g)


@pytest.mark.parametrize("program", [_slice_add_program, _setitem_program, _view_reuse_program],
                         ids=lambda p: p.__name__.strip("_"))
def test_dispatch_log_matches_torch(program):
    logs = []
    for lib in LIBS:
        a = _f64(lib, A, True)
        x = _f64(lib, X if program is _slice_add_program else Y, True)
        g = _f64(lib, 1.0)  # made outside the mode: the root gradient is not part of the log
        logs.append(dispatch_log(lib, lambda t, *args: program(t, *args), a, x, g))
    assert logs[1] == logs[0]
    assert any(op == "aten.new_empty_strided.default" for op, _, _ in logs[1])


# --- double backward, retain_grad, hooks, printing ------------------------------------------


def test_double_backward_through_copy_slices():
    results = []
    for lib in LIBS:
        a = _f64(lib, [[1.0, 2.0], [3.0, 4.0]], True)
        y = _f64(lib, [0.5, -2.0], True)
        b = a * a
        b[0].mul_(y)
        ga, gy = lib.autograd.grad((b * b).sum(), (a, y), create_graph=True)
        (ga.sum() + gy.sum()).backward()
        results.append((ga.tolist(), gy.tolist(), a.grad.tolist(), y.grad.tolist()))
    assert results[0] == results[1]


def test_retain_grad_and_hooks_follow_torch():
    results = []
    for lib in LIBS:
        a, y = _f64(lib, [[1.0, 2.0], [3.0, 4.0]], True), _f64(lib, [0.5, -2.0], True)
        b = a * 1
        b.retain_grad()
        seen = []
        b.register_hook(lambda g: seen.append(g.tolist()))
        v = b[1]
        v.retain_grad()
        v.add_(y)
        (b * b).sum().backward()
        results.append((b.grad.tolist(), v.grad, a.grad.tolist(), seen))
    assert results[0] == results[1]


def test_stale_view_prints_its_regenerated_grad_fn():
    printed = []
    for lib in LIBS:
        b = _f64(lib, A, True).clone()
        v = b[1]
        b.mul_(2)
        printed.append(repr(v))
    assert printed[0] == printed[1]
    assert "AsStridedBackward0" in printed[1]
