"""nn.init against torch.nn.init: same numbers from the same seed, fans, gains, errors."""

import math
import warnings

import numpy as np
import pytest

import torchpy
from tests.nn.helpers import check


@pytest.mark.parametrize("shape", [(4, 3), (5, 2, 3), (6, 3, 2, 2), (2, 3, 1, 2, 2)])
def test_fan_in_and_fan_out(shape):
    check(lambda lib: (lib.nn.init._calculate_fan_in_and_fan_out(lib.empty(shape)),
                       lib.nn.init._calculate_correct_fan(lib.empty(shape), "FAN_OUT")))


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.init._calculate_fan_in_and_fan_out(lib.empty(3)),
    lambda lib: lib.nn.init.xavier_uniform_(lib.empty(3)),
    lambda lib: lib.nn.init.kaiming_uniform_(lib.empty(3, 2), mode="fan_avg"),
    lambda lib: lib.nn.init.kaiming_normal_(lib.empty(3, 2), nonlinearity="gelu"),
    lambda lib: lib.nn.init.calculate_gain("leaky_relu", True),
    lambda lib: lib.nn.init.calculate_gain("leaky_relu", "0.2"),
    lambda lib: lib.nn.init.calculate_gain("swish"),
    lambda lib: lib.nn.init.eye_(lib.empty(2, 2, 2)),
])
def test_init_errors(call):
    check(call, expect_error=ValueError)


@pytest.mark.parametrize("name,param", [
    ("linear", None), ("conv1d", None), ("conv2d", None), ("conv3d", None), ("conv_transpose1d", None),
    ("conv_transpose2d", None), ("conv_transpose3d", None), ("sigmoid", None), ("tanh", None), ("relu", None),
    ("leaky_relu", None), ("leaky_relu", 0.2), ("leaky_relu", 3), ("selu", None),
])
def test_calculate_gain(name, param):
    check(lambda lib: lib.nn.init.calculate_gain(name, param))


@pytest.mark.parametrize("init", [
    lambda lib, t: lib.nn.init.uniform_(t),
    lambda lib, t: lib.nn.init.uniform_(t, -2.0, 3.0),
    lambda lib, t: lib.nn.init.normal_(t, 1.0, 0.5),
    lambda lib, t: lib.nn.init.constant_(t, 0.25),
    lambda lib, t: lib.nn.init.ones_(t),
    lambda lib, t: lib.nn.init.zeros_(t),
    lambda lib, t: lib.nn.init.xavier_uniform_(t, gain=2.0),
    lambda lib, t: lib.nn.init.xavier_normal_(t),
    lambda lib, t: lib.nn.init.kaiming_uniform_(t),
    lambda lib, t: lib.nn.init.kaiming_uniform_(t, a=0.1, mode="fan_out", nonlinearity="relu"),
    lambda lib, t: lib.nn.init.kaiming_normal_(t, mode="fan_out", nonlinearity="tanh"),
    lambda lib, t: lib.nn.init.uniform_(t, generator=lib.Generator().manual_seed(7)),
])
@pytest.mark.parametrize("shape", [(3, 4), (8, 4, 3)])
def test_initializers_give_torchs_numbers_in_place_without_grad(init, shape):
    def program(lib):
        t = lib.nn.Parameter(lib.empty(shape))
        out = init(lib, t)
        return out is t, t.requires_grad, t.grad_fn is None, t

    # float32 normals of 16+ elements can differ from torch's in the last bit (its SIMD log/sin/cos)
    check(program)


def test_eye_():
    check(lambda lib: lib.nn.init.eye_(lib.nn.Parameter(lib.empty(3, 5))))


def test_zero_element_tensors_warn_and_are_left_alone():
    def program(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t = lib.empty(0, 3)
            lib.nn.init.kaiming_uniform_(t)
            lib.nn.init.kaiming_normal_(t)
        return [str(w.message) for w in caught], tuple(t.shape)

    check(program)


def test_initializer_statistics():
    torchpy.manual_seed(3)
    w = torchpy.empty(400, 300)
    torchpy.nn.init.kaiming_uniform_(w, nonlinearity="relu")
    bound = math.sqrt(2.0) * math.sqrt(3.0 / 300)
    values = np.array(w.tolist())
    assert values.min() >= -bound and values.max() <= bound
    assert abs(values.std() - bound / math.sqrt(3)) < 0.01 * bound
    torchpy.nn.init.xavier_normal_(w)
    std = math.sqrt(2.0 / (400 + 300))
    assert abs(np.array(w.tolist()).std() - std) < 0.02 * std
    assert abs(np.array(w.tolist()).mean()) < 0.02 * std


def test_initializers_respect_torch_function_overrides():
    def program(lib):
        seen = []

        class Traced(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                seen.append(getattr(func, "__name__", str(func)))
                return super().__torch_function__(func, types, args, kwargs or {})

        t = lib.empty(2, 2).as_subclass(Traced)
        lib.nn.init.uniform_(t)
        lib.nn.init.normal_(t)
        lib.nn.init.constant_(t, 1.0)
        lib.nn.init.kaiming_uniform_(t)
        return seen

    check(program)
