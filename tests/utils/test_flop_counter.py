"""torchpy.utils.flop_counter against torch.utils.flop_counter: the same programs, the same counts and tables.

torch prints its table with tabulate (pinned to 0.9.0 in the test extras: 0.10 ignores
PRESERVE_WHITESPACE, which torch sets to keep the module nesting visible).
"""

import contextlib
import io

import pytest
import torch
import torch.utils.flop_counter as torch_flop_counter

import torchpy
import torchpy.utils.flop_counter as torchpy_flop_counter

LIBS = [(torch, torch_flop_counter), (torchpy, torchpy_flop_counter)]


def _matmul_chain(t):
    a = t.ones(3, 4, requires_grad=True)
    b = t.ones(4, 5, requires_grad=True)
    ((a @ b).relu() @ t.ones(5, 2)).sum().backward()


def _linear(t):
    weight = t.ones(7, 4, requires_grad=True)
    bias = t.ones(7, requires_grad=True)
    t.nn.functional.linear(t.ones(6, 4, requires_grad=True), weight, bias).sum().backward()


def _linear_3d_input(t):
    weight = t.ones(3, 4, requires_grad=True)
    t.nn.functional.linear(t.ones(2, 5, 4), weight, t.ones(3)).sum().backward()


def _batched(t):
    c = t.ones(2, 3, 4, requires_grad=True)
    (t.bmm(c, c.transpose(1, 2)).sum() + t.baddbmm(t.ones(2, 3, 3), c, c.transpose(1, 2)).sum()
     + (c @ t.ones(4, 2)).sum() + (c @ t.ones(2, 4, 5)).sum()).backward()


def _no_grad(t):
    with t.no_grad():
        t.mm(t.ones(2, 3), t.ones(3, 4)).addmm(t.ones(2, 4), t.ones(4, 4))


def _matrix_vector(t):
    # mv and dot have no formula in torch's registry: they count nothing, in both
    a = t.ones(3, 4, requires_grad=True)
    (t.mv(a, t.ones(4)).sum() + t.dot(t.ones(3), t.ones(3))).backward()


def _large(t):
    a = t.ones(300, 400, requires_grad=True)
    (a @ t.ones(400, 500)).sum().backward()


PROGRAMS = {"matmul_chain": _matmul_chain, "linear": _linear, "linear_3d_input": _linear_3d_input,
            "batched": _batched, "no_grad": _no_grad, "matrix_vector": _matrix_vector, "large": _large}


def _counts(counter):
    return counter.get_total_flops(), {name: {str(packet): n for packet, n in per_op.items()}
                                       for name, per_op in counter.get_flop_counts().items()}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_counts_match_torch(name):
    results = []
    for lib, module in LIBS:
        with module.FlopCounterMode(display=False) as counter:
            PROGRAMS[name](lib)
        results.append(_counts(counter))
    assert results[1] == results[0]


def test_counts_are_keyed_by_op_packet():
    with torchpy_flop_counter.FlopCounterMode(display=False) as counter:
        _matmul_chain(torchpy)
    assert set(counter.get_flop_counts()["Global"]) == {torchpy.ops.aten.mm}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_displayed_table_matches_torch(name):
    printed = []
    for lib, module in LIBS:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            with module.FlopCounterMode() as counter:
                PROGRAMS[name](lib)
        printed.append((out.getvalue(), counter.get_table(0), counter.get_table(5)))
    assert printed[1] == printed[0]


def test_empty_table_matches_torch():
    tables = []
    for lib, module in LIBS:
        with module.FlopCounterMode(display=False) as counter:
            lib.ones(2) + 1
        tables.append(counter.get_table())
    assert tables[1] == tables[0]


def test_custom_mapping_counts_as_torch():
    def mul_flop(a_shape, b_shape, *args, out_shape=None, **kwargs):
        return 3 * len(out_shape) + (a_shape[0] if len(a_shape) else 0)

    results = []
    for lib, module in LIBS:
        mapping = {lib.ops.aten.mul: mul_flop}
        with module.FlopCounterMode(display=False, custom_mapping=mapping) as counter:
            x = lib.ones(4, 2, requires_grad=True)
            (x * x).sum().backward()
        results.append(_counts(counter))
    assert results[1] == results[0]
    assert results[1][0] > 0


def test_register_flop_formula_for_a_library_op():
    results = []
    for lib, module in LIBS:
        library = lib.library.Library("flopdemo", "FRAGMENT")
        library.define("scaled(Tensor x) -> Tensor")
        library.impl("scaled", lambda x: x * 2, "CPU")

        def scaled_flop(x_shape, out_shape=None, **kwargs):
            return 10 * x_shape[0]

        registered = module.register_flop_formula(lib.ops.flopdemo.scaled)(scaled_flop)
        try:
            with module.FlopCounterMode(display=False) as counter:
                lib.ops.flopdemo.scaled(lib.ones(3, 2))
            with pytest.raises(RuntimeError) as duplicate:
                module.register_flop_formula(lib.ops.flopdemo.scaled)(scaled_flop)
            with pytest.raises(ValueError) as not_a_packet:
                module.register_flop_formula(lib.ops.flopdemo.scaled.default)(scaled_flop)
            results.append((_counts(counter), registered(lib.ones(4, 2)), str(duplicate.value),
                            str(not_a_packet.value).split(", got")[0]))
        finally:
            del module.flop_registry[lib.ops.flopdemo.scaled]
            library._destroy()
    assert results[1] == results[0]


def test_mods_argument_warns_as_torch():
    messages = []
    for lib, module in LIBS:
        with pytest.warns(UserWarning) as record:
            module.FlopCounterMode(mods=[], display=False)
        messages.append([str(w.message) for w in record])
    assert messages[1] == messages[0]


# --- per-module counts: need torchpy.nn.Module (global module hooks) -------------------------

def _mlp(t):
    t.manual_seed(0)
    return t.nn.Sequential(t.nn.Linear(8, 16), t.nn.ReLU(), t.nn.Sequential(t.nn.Linear(16, 4)))


def test_per_module_counts_match_torch():
    results = []
    for lib, module in LIBS:
        model = _mlp(lib)
        with module.FlopCounterMode(display=False) as counter:
            model(lib.ones(5, 8)).sum().backward()
        results.append(_counts(counter))
    assert results[1] == results[0]
    assert "Sequential.2.0" in results[1][1]


def test_per_module_table_matches_torch():
    tables = []
    for lib, module in LIBS:
        model = _mlp(lib)
        with module.FlopCounterMode(display=False, depth=3) as counter:
            model(lib.ones(5, 8)).sum().backward()
            lib.mm(lib.ones(2, 2), lib.ones(2, 2))  # outside every module: "Global" is shown
        tables.append([counter.get_table(d) for d in (1, 2, 3)])
    assert tables[1] == tables[0]
