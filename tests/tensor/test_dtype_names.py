"""The names PyTorch's messages give dtypes (c10 "Long", TypeMeta "long int", C++ "int64_t"),
all read from the one table in _tensor/dtype.py, against torch."""

import warnings

import pytest

from tests.oracle import check, check_error

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
         "complex64", "complex128"]


@pytest.mark.parametrize("name", NAMES)
def test_type_meta_names_in_dtype_mismatch_messages(name):
    other = "float32" if name == "float64" else "float64"
    check_error(lambda lib: lib.mm(lib.ones(2, 2, dtype=getattr(lib, name)), lib.ones(2, 2, dtype=getattr(lib, other))))


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64", "float32", "complex64"])
def test_cpp_type_names_in_scalar_overflow_messages(name):
    value = 2 ** 62 if name in ("uint8", "int8", "int16", "int32") else 1e300
    check_error(lambda lib: lib.zeros(1, dtype=getattr(lib, name)).fill_(value))


@pytest.mark.parametrize("name", NAMES)
def test_legacy_tensor_type_names(name):
    check(lambda lib: (lib.ones(1, dtype=getattr(lib, name)).type(),
                       lib.ones(1, dtype=getattr(lib, name), device="meta").type()))


@pytest.mark.parametrize("name", ["bool", "bfloat16", "complex64", "float32", "int64"])
@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_type_string_in_messages_keeps_torchs_legacy_rewrite_to_the_classic_cpu_types(name, device):
    # torch rewrites "CPUFloatType" as "torch.FloatTensor" for its eight classic types only
    check_error(lambda lib: lib.ones(2, 3, dtype=getattr(lib, name), device=device).expand(3))


@pytest.mark.parametrize("name", ["int64", "complex64"])
def test_version_counter_message_names_the_saved_tensors_type(name):
    def program(lib):
        x = lib.ones(3, requires_grad=True, dtype=lib.complex64 if name == "complex64" else lib.float32)
        if name == "int64":
            saved = lib.tensor([0, 1])
            y = x.gather(0, saved)
        else:
            saved = x * 1
            y = saved.sin()
        saved.add_(1)
        y.sum().abs().backward()

    check_error(program)


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "float64"])
def test_random_bounds_warning_names_the_cpp_type(name):
    top = {"float16": 2 ** 15, "bfloat16": 2 ** 20, "float32": 2 ** 30, "float64": 2 ** 60}[name]

    def program(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.empty(3, dtype=getattr(lib, name)).random_(0, top)
        return [str(w.message).split(" (Triggered internally")[0] for w in caught]

    check(program)


def test_legacy_constructor_takes_a_tensor_of_any_dtype():
    check(lambda lib: lib.Tensor(lib.ones(2, dtype=lib.int8)))
