"""nn.Parameter against torch.nn.Parameter."""

import copy

from tests.nn.helpers import check


def test_parameter_basics_and_repr():
    def program(lib):
        p = lib.nn.Parameter(lib.arange(4.0).reshape(2, 2))
        q = lib.nn.Parameter(lib.ones(2), requires_grad=False)
        e = lib.nn.Parameter()
        return {
            "repr": repr(p), "str": str(p), "repr_no_grad": repr(q), "empty": (repr(e), tuple(e.shape)),
            "requires_grad": (p.requires_grad, q.requires_grad, e.requires_grad),
            "leaf": (p.is_leaf, p.grad_fn is None),
            "isinstance": (isinstance(p, lib.Tensor), isinstance(p, lib.nn.Parameter),
                           isinstance(lib.ones(1), lib.nn.Parameter)),
            "type_name": type(p).__name__,
        }

    check(program)


def test_ops_on_parameters_return_plain_tensors():
    def program(lib):
        p = lib.nn.Parameter(lib.ones(3))
        results = [p * 2, p + p, p.sum(), p[0], p.view(3), lib.exp(p), p.detach(), p.data, p.clone()]
        return [(type(r).__name__, r.requires_grad, r.grad_fn is None) for r in results]

    check(program)


def test_parameter_shares_memory_with_its_data():
    def program(lib):
        base = lib.zeros(3)
        p = lib.nn.Parameter(base)
        with lib.no_grad():
            p.add_(1)
        p2 = lib.nn.Parameter(p)  # from a Parameter: a new Parameter over the same memory
        return base, type(p2).__name__, p2.requires_grad, p2 is p

    check(program)


def test_parameter_deepcopy_is_independent():
    def program(lib):
        p = lib.nn.Parameter(lib.ones(2), requires_grad=False)
        memo = {}
        c = copy.deepcopy(p, memo)
        again = copy.deepcopy(p, memo)
        c.data.add_(1)
        return type(c).__name__, c.requires_grad, p, c, again is c

    check(program)


def test_parameter_gradients_accumulate():
    def program(lib):
        p = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
        (p * p).sum().backward()
        (p * 3).sum().backward()
        return p.grad

    check(program)


def test_parameter_from_subclass_keeps_type_and_is_a_parameter():
    def program(lib):
        Sub = type("Sub", (lib.Tensor,), {})
        s = lib.ones(2).as_subclass(Sub)
        p = lib.nn.Parameter(s)
        return type(p).__name__, isinstance(p, lib.nn.Parameter), p.requires_grad

    check(program)
