"""Hook handles: one RemovableHandle (torch.utils.hooks') for every kind of hook, with torch's
semantics: hooks kept by handle id, so removing twice is a no-op and two registrations are two."""

from collections import OrderedDict

import torch

import torchpy
from tests.oracle import check


def test_removing_one_of_two_registrations_of_a_tensor_hook_twice_keeps_the_other():
    # issue 15's bug: the list-based handle removed by equality, so the second remove() took
    # out the other registration and the hook never ran
    def program(lib):
        calls = []
        x = lib.ones(2, requires_grad=True)
        y = x * 2

        def hook(grad):
            calls.append(grad.tolist())

        first = y.register_hook(hook)
        y.register_hook(hook)
        first.remove()
        first.remove()
        y.sum().backward()
        return calls

    assert check(program) == [[1.0, 1.0]]


def test_node_and_post_accumulate_hooks_registered_twice_and_removed_twice():
    def program(lib):
        calls = []
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        node = y.grad_fn
        post = lambda grad_inputs, grad_outputs: calls.append("post")  # noqa: E731
        pre = lambda grad_outputs: calls.append("pre")  # noqa: E731
        accumulated = lambda t: calls.append("accumulated")  # noqa: E731
        leaf = lambda grad: calls.append("leaf")  # noqa: E731
        handles = []
        for _ in range(2):  # the same function objects twice: two registrations each
            handles.append(node.register_hook(post))
            handles.append(node.register_prehook(pre))
            handles.append(x.register_post_accumulate_grad_hook(accumulated))
            handles.append(x.register_hook(leaf))
        for handle in handles[:4]:
            handle.remove()
            handle.remove()
        y.sum().backward()
        return calls

    check(program)


def test_hooks_on_a_nodes_output_run_before_the_nodes_prehooks():
    # torch's engine: tensor hooks, then retain_grad, then the node's pre-hooks
    def program(lib):
        calls = []
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.grad_fn.register_prehook(lambda grad_outputs: (calls.append("pre"), (grad_outputs[0] * 10,))[1])
        y.register_hook(lambda grad: (calls.append("tensor"), grad * 3)[1])
        y.sum().backward()
        return calls, y.grad, x.grad

    check(program)


def test_every_hook_registration_returns_the_one_handle_class():
    x = torchpy.ones(2, requires_grad=True)
    y = x * 2
    module = torchpy.nn.Linear(2, 2)
    optimizer = torchpy.optim.SGD(module.parameters(), lr=0.1)
    handles = [
        y.register_hook(lambda grad: None),
        x.register_post_accumulate_grad_hook(lambda t: None),
        y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: None),
        y.grad_fn.register_prehook(lambda grad_outputs: None),
        module.register_forward_hook(lambda *args: None),
        torchpy.nn.modules.module.register_module_forward_hook(lambda *args: None),
        optimizer.register_step_pre_hook(lambda *args: None),
    ]
    for handle in handles:
        assert type(handle) is torchpy.utils.hooks.RemovableHandle
        handle.remove()
    assert torchpy.utils.hooks.RemovableHandle.__module__ == "torchpy.utils.hooks"


def test_handle_ids_increase_and_remove_is_idempotent_as_in_torch():
    def program(lib):
        hooks = OrderedDict()
        first = lib.utils.hooks.RemovableHandle(hooks)
        hooks[first.id] = "a"
        second = lib.utils.hooks.RemovableHandle(hooks)
        hooks[second.id] = "a"
        first.remove()
        first.remove()
        return second.id > first.id, list(hooks.values())

    import torch.utils.hooks  # noqa: F401 - torch imports it lazily
    import torchpy.utils.hooks  # noqa: F401
    check(program)
