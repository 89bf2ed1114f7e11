"""Seed 002, "Extending torch.nn": the LinearFunction autograd.Function and the Linear module
built on it, run as written with only `import torch` changed, against real torch."""

import textwrap

import numpy as np

# The seed's code, verbatim (LinearFunction from "Extending torch.autograd", the module from
# "Adding a Module"); the header only names what the document imports
# (as attributes: `from torch.autograd import ...` would find real torch under the name torch).
SEED = textwrap.dedent('''
    IMPORT_LINE
    nn = torch.nn
    Function = torch.autograd.Function

    # Inherit from Function
    class LinearFunction(Function):

        # Note that forward, setup_context, and backward are @staticmethods
        @staticmethod
        def forward(input, weight, bias):
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        # inputs is a Tuple of all of the inputs passed to forward.
        # output is the output of the forward().
        def setup_context(ctx, inputs, output):
            input, weight, bias = inputs
            ctx.save_for_backward(input, weight, bias)

        # This function has only a single output, so it gets only one gradient
        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None

            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)

            return grad_input, grad_weight, grad_bias

    class Linear(nn.Module):
        def __init__(self, input_features, output_features, bias=True):
            super().__init__()
            self.input_features = input_features
            self.output_features = output_features

            # nn.Parameter is a special kind of Tensor, that will get
            # automatically registered as Module's parameter once it's assigned
            # as an attribute. Parameters and buffers need to be registered, or
            # they won't appear in .parameters() (doesn't apply to buffers), and
            # won't be converted when e.g. .cuda() is called. You can use
            # .register_buffer() to register buffers.
            # nn.Parameters require gradients by default.
            self.weight = nn.Parameter(torch.empty(output_features, input_features))
            if bias:
                self.bias = nn.Parameter(torch.empty(output_features))
            else:
                # You should always register all possible parameters, but the
                # optional ones can be None if you want.
                self.register_parameter('bias', None)

            # Not a very smart way to initialize weights
            nn.init.uniform_(self.weight, -0.1, 0.1)
            if self.bias is not None:
                nn.init.uniform_(self.bias, -0.1, 0.1)

        def forward(self, input):
            # See the autograd section for explanation of what happens here.
            return LinearFunction.apply(input, self.weight, self.bias)

        def extra_repr(self):
            # (Optional)Set the extra information about this module. You can test
            # it by printing an object of this class.
            return 'input_features={}, output_features={}, bias={}'.format(
                self.input_features, self.output_features, self.bias is not None
            )
''')


def _run(import_line: str, bias: bool) -> dict:
    namespace: dict = {}
    exec(SEED.replace("IMPORT_LINE", import_line), namespace)
    torch = namespace["torch"]
    torch.manual_seed(0)
    module = namespace["Linear"](5, 3, bias=bias)
    x = torch.randn(4, 5, requires_grad=True)
    out = module(x)
    (out * out).sum().backward()
    values = {
        "repr": repr(module),
        "names": [n for n, _ in module.named_parameters()],
        "state_dict": list(module.state_dict()),
        "grad_fn": type(out.grad_fn).__name__,
        "out": out.detach().tolist(),
        "x.grad": x.grad.tolist(),
    }
    for name, p in module.named_parameters():
        values[name] = p.detach().tolist()
        values[name + ".grad"] = p.grad.tolist()
    return values


def test_seed_linear_module_matches_torch():
    for bias in (True, False):
        expected = _run("import torch", bias)
        actual = _run("import torchpy as torch", bias)
        assert list(actual) == list(expected)
        for key in ("repr", "names", "state_dict", "grad_fn"):
            assert actual[key] == expected[key], key
        for key in expected:
            if key not in ("repr", "names", "state_dict", "grad_fn"):
                np.testing.assert_allclose(actual[key], expected[key], rtol=1e-5, atol=1e-6, err_msg=key)
