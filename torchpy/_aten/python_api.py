"""The public API generated from the op table: torchpy.<fn>, Tensor.<method>, dunders.

One `PythonOp` per public name holds that name's overloads in table order.
A call picks the first overload whose schema accepts the arguments, as
PyTorch's Python argument parser does, with its rule that a Python number
binds to a Tensor parameter only for a few arithmetic ops (add, sub, mul,
div, ...): elsewhere `x.max(0)` must pick max.dim, not max.other.
"""

from __future__ import annotations

import collections
from typing import Any, Callable

from .._dispatch.binding import BindError
from .._dispatch.ops import OpOverload
from .._dispatch.schema import ListType
from .._tensor.tensor import Tensor
from .._tensor.torch_function import dispatch_from_binding, needs_override
from .._tensor.device import CPU
from . import argument_errors

# PyTorch's should_allow_numbers_as_tensors (python_arg_parser.cpp), by base name.
NUMBERS_AS_TENSORS = frozenset({
    "add", "add_", "div", "div_", "divide", "divide_", "mul", "mul_", "multiply", "multiply_",
    "sub", "sub_", "subtract", "subtract_", "true_divide", "true_divide_", "floor_divide",
    "floor_divide_", "to", "_to_copy", "copy", "copy_", "_conj",
})

_NUMBER_TYPES = (bool, int, float, complex)


class _Candidate:
    """An overload and where its plain Tensor parameters sit (for the numbers rule)."""

    __slots__ = ("op", "tensor_positions", "tensor_names", "return_type", "varargs_at", "is_factory",
                 "option_defaults", "out_names", "aliases", "int_positions", "int_names",
                 "bool_positions", "bool_names", "max_positional", "names", "required_kwargs",
                 "sized_symint")

    def __init__(self, op: OpOverload, return_type: type | None, is_method: bool = False) -> None:
        schema = op._schema
        self.op = op
        plain_tensor = [
            (i, a.name) for i, a in enumerate(schema.arguments)
            if a.type.base_name == "Tensor" and not a.type.is_list
        ]
        self.tensor_positions = tuple(i for i, _ in plain_tensor)
        self.tensor_names = frozenset(name for _, name in plain_tensor)
        self.return_type = return_type
        # Python's varargs form of an int list: zeros(2, 3), x.view(2, 3), x.permute(1, 0).
        # Allowed, as in PyTorch's parser, when the int list is the only positional parameter,
        # a method's self not counted (x.sum(0, True) is dim=0, keepdim=True, not dim=[0, 1];
        # torch.permute(x, 1, 0) is an error, and _nn.adaptive_avg_pool2d(x, 2) means [2, 2]).
        self.varargs_at = -1
        positional = [a for a in schema.arguments if not a.kwarg_only]
        leading_self = positional and positional[0].type.base_name == "Tensor" and not positional[0].type.is_list
        start = 1 if is_method and leading_self else 0
        if len(positional) == start + 1:
            arg = positional[start]
            if arg.type.is_list and arg.type.base_name in ("int", "SymInt"):
                self.varargs_at = start
        # Factories take requires_grad= in Python though their schemas do not.
        names = {a.name for a in schema.arguments}
        self.is_factory = "device" in names and "requires_grad" not in names
        # PyTorch's bindings build TensorOptions for factories: pin_memory is always a bool and a
        # factory without tensor arguments always names a device (the default one), so
        # __torch_dispatch__ sees device=cpu, pin_memory=False there.
        defaults: list[tuple[str, Any]] = []
        if self.is_factory and "pin_memory" in names:
            if not any(a.type.base_name == "Tensor" for a in schema.arguments):
                defaults.append(("device", CPU))
            defaults.append(("pin_memory", False))
        self.option_defaults = tuple(defaults)
        # For a cheap first look in overload resolution (a failed bind costs an error message).
        self.max_positional = len(positional)
        self.names = frozenset(names)
        self.required_kwargs = tuple(a.name for a in schema.arguments if a.kwarg_only and not a.has_default)
        # Python passes several out= tensors as one tuple: torch.max(x, 0, out=(values, indices)).
        outs = tuple(a.name for a in schema.arguments if a.kwarg_only and a.is_write)
        self.out_names = outs if len(outs) > 1 else ()
        # int and int-list parameters, where PyTorch's parser refuses a bool (x.std(True) is
        # std(unbiased=True), not std(dim=[1])).
        ints = [(i, a.name) for i, a in enumerate(schema.arguments) if a.type.base_name in ("int", "SymInt")]
        self.int_positions = tuple(i for i, _ in ints)
        self.int_names = frozenset(name for _, name in ints)
        # bool parameters, where it takes nothing but a bool (x.sum(0, 1) is a TypeError), or
        # None for an optional one.
        bools = [(i, a) for i, a in enumerate(schema.arguments) if str(a.type) in ("bool", "bool?")]
        self.bool_positions = tuple((i, a.type.is_optional) for i, a in bools)
        self.bool_names = {a.name: a.type.is_optional for _, a in bools}
        # NumPy's names, which PyTorch's parser accepts too: x.sum(axis=0, keepdims=True).
        self.aliases = tuple((alias, name) for alias, name in (("axis", "dim"), ("keepdims", "keepdim"))
                             if name in names)
        # Python's parser takes one int for a SymInt[N] as N copies (adaptive_avg_pool2d(x, 2)),
        # as it does for int[N]; torch.ops does not, so the binder leaves SymInt[N] alone.
        self.sized_symint = tuple((i, a.name, a.type.size) for i, a in enumerate(schema.arguments)
                                  if isinstance(a.type, ListType) and a.type.size and str(a.type.elem) == "SymInt")

    def normalize_python_call(self, args: tuple, kwargs: dict) -> tuple[tuple, dict, bool]:
        """(args, kwargs, requires_grad) with Python-only conveniences folded in."""
        at = self.varargs_at
        if at >= 0 and len(args) > at and all(isinstance(a, int) or hasattr(a, "__index__") for a in args[at:]):
            args = args[:at] + (list(args[at:]),)
        if self.out_names and isinstance(kwargs.get("out"), (tuple, list)):
            kwargs = dict(kwargs)
            kwargs.update(zip(self.out_names, kwargs.pop("out")))
        if self.sized_symint:
            args, kwargs = self._broadcast_symint(args, kwargs)
        if self.aliases and kwargs:
            for alias, name in self.aliases:
                if alias in kwargs:
                    kwargs = dict(kwargs)
                    kwargs[name] = kwargs.pop(alias)
        requires_grad = False
        if self.is_factory and ("requires_grad" in kwargs or self.option_defaults):
            kwargs = dict(kwargs)
            requires_grad = kwargs.pop("requires_grad", False)
            if requires_grad is None:
                requires_grad = False
            elif type(requires_grad) is not bool:
                raise TypeError(f"{self.op._schema.name.split('::')[-1]}(): argument 'requires_grad' must be bool, "
                                f"not {type(requires_grad).__name__}")
            for name, value in self.option_defaults:
                if kwargs.get(name) is None:
                    kwargs[name] = value
        return args, kwargs, requires_grad

    def _broadcast_symint(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        for i, name, size in self.sized_symint:
            if i < len(args) and type(args[i]) is int:
                args = args[:i] + ([args[i]] * size,) + args[i + 1:]
            elif type(kwargs.get(name)) is int:
                kwargs = {**kwargs, name: [kwargs[name]] * size}
        return args, kwargs

    def may_fit(self, args: tuple, kwargs: dict) -> bool:
        """False when the call cannot bind: too many positional arguments, an unknown keyword,
        or a required keyword-only argument missing (rand(2) is not rand.generator)."""
        if len(args) > self.max_positional:
            return False
        names = self.names
        for name in kwargs:
            if name not in names:
                return False
        for name in self.required_kwargs:
            if name not in kwargs:
                return False
        return True

    def takes_number_as_tensor(self, args: tuple, kwargs: dict) -> bool:
        n = len(args)
        for i in self.tensor_positions:
            if i < n and isinstance(args[i], _NUMBER_TYPES):
                return True
        for name, value in kwargs.items():
            if name in self.tensor_names and isinstance(value, _NUMBER_TYPES):
                return True
        return False

    def takes_bool_as_int(self, args: tuple, kwargs: dict) -> bool:
        n = len(args)
        for i in self.int_positions:
            if i < n and _is_bool_or_bools(args[i]):
                return True
        for name, value in kwargs.items():
            if name in self.int_names and _is_bool_or_bools(value):
                return True
        return False

    def takes_other_as_bool(self, args: tuple, kwargs: dict) -> bool:
        n = len(args)
        for i, optional in self.bool_positions:
            if i < n and not _is_bool(args[i], optional):
                return True
        for name, value in kwargs.items():
            optional = self.bool_names.get(name)
            if optional is not None and not _is_bool(value, optional):
                return True
        return False


def _is_bool(value: Any, optional: bool) -> bool:
    return type(value) is bool or (optional and value is None)


def _is_bool_or_bools(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return any(type(v) is bool for v in value)
    return type(value) is bool


class PythonOp:
    """The callable behind one public name (torchpy.sum, Tensor.sum)."""

    def __init__(self, name: str, ops: list[OpOverload], is_method: bool = False) -> None:
        self.name = name
        self.is_method = is_method
        self.allow_numbers = name in NUMBERS_AS_TENSORS
        self.candidates = [_Candidate(op, _return_type(name, op), is_method) for op in ops]
        # Which overload a call shape (argument types, keyword names and their value types) picked
        # last time. Overload resolution depends on types only, except for the contents of lists
        # (a bool in an int list), so calls with a list or tuple argument are not cached.
        self._plans: dict[tuple, _Candidate] = {}

    def add_overload(self, op: OpOverload) -> None:
        self.candidates.append(_Candidate(op, _return_type(self.name, op), self.is_method))
        self._plans.clear()

    def __call__(self, args: tuple, kwargs: dict) -> Any:
        shape = (*map(type, args), *kwargs, *map(type, kwargs.values())) if kwargs else tuple(map(type, args))
        candidate = self._plans.get(shape)
        if candidate is not None:
            op = candidate.op
            if not kwargs and len(args) == op.n_fast:
                result = op(*args)  # already normalized: the dispatcher's own fast path
            else:
                try:
                    bound_args, bound_kwargs = op.binder.bind(args, kwargs)
                except BindError:  # a value this overload refuses: resolve from the start
                    return self._resolve(args, kwargs, None)
                result = op.call_normalized(bound_args, bound_kwargs)
            if candidate.return_type is not None:
                return candidate.return_type(*result)
            return result
        return self._resolve(args, kwargs, shape)

    def _resolve(self, args: tuple, kwargs: dict, shape: tuple | None) -> Any:
        """Try the overloads in order, as PyTorch's parser does; remember the winner for `shape`."""
        choice = self.choose(args, kwargs)
        if not isinstance(choice, tuple):
            raise TypeError(self._no_match_message(args, kwargs, choice))
        candidate, call_args, call_kwargs, requires_grad, bound_args, bound_kwargs = choice
        # Cached only when the Python conveniences (varargs, out tuples, NumPy's names,
        # factory options) changed nothing, so the plan is: bind as given.
        if (shape is not None and call_args is args and call_kwargs is kwargs
                and not any(t is list or t is tuple for t in shape)):
            self._plans[shape] = candidate
        result = candidate.op.call_normalized(bound_args, bound_kwargs)
        if requires_grad:
            result.requires_grad_(True)
        if candidate.return_type is not None:
            return candidate.return_type(*result)
        return result

    def choose(self, args: tuple, kwargs: dict) -> tuple | BindError | None:
        """The parser's choice for a call: (candidate, its args and kwargs after the Python
        conveniences, requires_grad, bound args, bound kwargs) of the first overload that takes
        it; else the first binding error (None if no overload came as far as binding)."""
        first_error: BindError | None = None
        for candidate in self.candidates:
            call_args, call_kwargs, requires_grad = candidate.normalize_python_call(args, kwargs)
            if not candidate.may_fit(call_args, call_kwargs):
                continue
            # After folding varargs: zeros(2, 3, out=t) has no number where out goes.
            if not self.allow_numbers and candidate.takes_number_as_tensor(call_args, call_kwargs):
                continue
            if candidate.int_positions and candidate.takes_bool_as_int(call_args, call_kwargs):
                continue
            if candidate.bool_positions and candidate.takes_other_as_bool(call_args, call_kwargs):
                continue
            try:
                bound_args, bound_kwargs = candidate.op.binder.bind(call_args, call_kwargs)
            except BindError as error:
                first_error = first_error or error
                continue
            return candidate, call_args, call_kwargs, requires_grad, bound_args, bound_kwargs
        return first_error

    def _no_match_message(self, args: tuple, kwargs: dict, error: BindError | None) -> str:
        """torch's wording (argument_errors.py): the problem with the one signature that takes
        this many arguments, else what was given and what is expected."""
        given = args[1:] if self.is_method else args  # torch does not count a method's self
        signatures = self._python_signatures()
        if self.is_method and all(not params for _, params in signatures):
            return argument_errors.no_arguments_message(self.name, given, kwargs)
        count = len(given) + len(kwargs)
        # (a name with one signature is parsed with it directly: its error whatever the count)
        plausible = signatures if len(signatures) == 1 else [
            (candidate, params) for candidate, params in signatures
            if sum(1 for p in params if not p.optional) <= count <= len(params)]
        if len(plausible) == 1:
            candidate, params = plausible[0]
            specific = argument_errors.single_signature_message(
                self.name, params, given, kwargs, varargs=candidate.varargs_at >= 0)
            if specific is not None:
                return specific
        listed = "\n".join(f" * {c.op._schema}" for c in self.candidates)
        return (
            f"{self.name}() received an invalid combination of arguments - got "
            f"({argument_errors.got_list(given, kwargs)}), but expected one of:\n{listed}"
        )

    def _python_signatures(self) -> list[tuple[_Candidate, list]]:
        """The overloads as torch's Python signatures: out= overloads folded into their
        functional ones."""
        out_variants = [c for c in self.candidates if any(a.kwarg_only and a.is_write for a in c.op._schema.arguments)]
        signatures = []
        for candidate in self.candidates:
            if candidate in out_variants:
                continue
            names = [a.name for a in candidate.op._schema.arguments]
            has_out = any([a.name for a in o.op._schema.arguments if not (a.kwarg_only and a.is_write)] == names
                          for o in out_variants)
            params = argument_errors.python_params(candidate.op._schema, self.is_method, has_out, candidate.is_factory)
            signatures.append((candidate, params))
        return signatures


# --- named-tuple returns (torch.return_types) -----------------------------------------------


def _tuple_of(*items: Any) -> tuple:
    return items


return_types: dict[str, type] = {}


def _return_type(name: str, op: OpOverload) -> type | None:
    """torch.return_types.<name> for overloads whose returns are named (max.dim -> values, indices);
    a tuple maker for a Tensor[] return (x.split(2), x.unbind(): PyTorch's bindings give tuples)."""
    returns = op._schema.returns
    if len(returns) == 1 and returns[0].type.is_list:
        return _tuple_of
    if len(returns) < 2 or not all(r.name for r in returns):
        return None
    fields = tuple(r.name for r in returns)
    key = name.rstrip("_")
    existing = return_types.get(key)
    if existing is not None and existing._fields == fields:
        return existing
    cls = collections.namedtuple(key, fields)
    cls.__module__ = "torch.return_types"
    cls.__repr__ = lambda self: f"torch.return_types.{key}(\n" + ",\n".join(
        f"{f}={v!r}" for f, v in zip(self._fields, self)) + ")"
    return_types[key] = cls
    return cls


# --- making the public callables -------------------------------------------------------------


def make_function(python_op: PythonOp) -> Callable:
    def function(*args: Any, **kwargs: Any) -> Any:
        if needs_override(args, kwargs):
            return dispatch_from_binding(function, args, kwargs)
        return python_op(args, kwargs)

    function.__name__ = python_op.name
    function.__qualname__ = f"_VariableFunctionsClass.{python_op.name}"  # torch's functions' qualname
    function._python_op = python_op  # type: ignore[attr-defined]
    return function


def make_method(python_op: PythonOp) -> Callable:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        if needs_override((self,) + args, kwargs):
            return dispatch_from_binding(method, (self,) + args, kwargs)
        return python_op((self,) + args, kwargs)

    method.__name__ = method.__qualname__ = python_op.name
    method._python_op = python_op  # type: ignore[attr-defined]
    method._is_method = True  # type: ignore[attr-defined]
    return method
