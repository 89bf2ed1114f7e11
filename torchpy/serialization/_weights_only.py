"""The weights-only unpickler (torch.load's default, weights_only=True) and its allowlist.

It reads pickle opcodes itself and never imports anything: a GLOBAL resolves only to an object
of the allowlist (torch's names mapped to torchpy's, _names.TORCH_GLOBALS) or to one the user
marked safe (add_safe_globals / safe_globals); REDUCE, NEWOBJ and BUILD act only on those.
Anything else raises pickle.UnpicklingError with torch's wording, before it could run.
"""

from __future__ import annotations

import pickle
import struct
import warnings
from collections import Counter, OrderedDict
from typing import Any, Callable

from .._tensor.tensor import Tensor
from ..nn.parameter import Parameter
from ._names import TORCH_GLOBALS

UnpicklingError = pickle.UnpicklingError


class Refusal(UnpicklingError):
    """The pickle asks for something outside the allowlist (as opposed to bytes that are no pickle)."""

# never allowed, even if the user tries to allowlist something from them (as torch)
BLOCKED_MODULES = ("sys", "os", "posix", "nt")

_marked_safe: set[Any] = set()


def add_safe_globals(safe_globals: list[Callable | tuple[Callable, str]]) -> None:
    """Mark globals safe for weights_only loading: objects, or (object, "module.name") pairs."""
    global _marked_safe
    _marked_safe = _marked_safe | set(safe_globals)


def get_safe_globals() -> list[Callable | tuple[Callable, str]]:
    """The globals the user marked safe for weights_only loading."""
    return list(_marked_safe)


def clear_safe_globals() -> None:
    """Forget every global the user marked safe."""
    global _marked_safe
    _marked_safe = set()


def _remove_safe_globals(safe_globals: list[Any]) -> None:
    global _marked_safe
    _marked_safe = _marked_safe - set(safe_globals)


class safe_globals:
    """Context manager: the given globals are safe for weights_only loading inside it."""

    def __init__(self, safe_globals: list[Callable | tuple[Callable, str]]) -> None:
        self.safe_globals = safe_globals

    def __enter__(self) -> None:
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc: Any) -> None:
        _remove_safe_globals(self.safe_globals)


def user_allowed_globals() -> dict[str, Any]:
    """"module.qualname" -> object for the globals the user marked safe. A torchpy object is also
    reachable under torch's name for it, which is what a checkpoint says."""
    allowed: dict[str, Any] = {}
    for entry in _marked_safe:
        if isinstance(entry, tuple):
            if len(entry) != 2:
                raise ValueError(
                    "Expected tuple of length 2 (global, str of callable full path), but got tuple of "
                    f"length: {len(entry)}")
            if type(entry[1]) is not str:
                raise TypeError(
                    f"Expected second item in tuple to be str of callable full path, but got: {type(entry[1])}")
            allowed[entry[1]] = entry[0]
            continue
        module, name = entry.__module__, entry.__qualname__
        allowed[f"{module}.{name}"] = entry
        if module == "torchpy" or module.startswith("torchpy."):
            allowed[f"torch{module[len('torchpy'):]}.{name}"] = entry
    return allowed


def unsupported_global_message(full_path: str) -> str:
    if full_path.startswith("builtins"):  # torch shows builtins without their module
        rest = full_path[len("builtins"):]
        full_path = rest[1:] if rest.startswith(".") else "builtins" + rest
    return (
        f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. "
        f"Please use `torch.serialization.add_safe_globals([{full_path}])` or the "
        f"`torch.serialization.safe_globals([{full_path}])` context manager to allowlist this global "
        "if you trust this class/function.")


def _readline_global(readline: Callable) -> tuple[str, str]:
    module = readline()[:-1].decode("utf-8")
    name = readline()[:-1].decode("utf-8")
    # protocol 2 writes Python 2's names (`__builtin__ set`): read them as Python 3's, as torch does
    renamed = _PY2_NAMES.get((module, name))
    if renamed is not None:
        return renamed
    return _PY2_MODULES.get(module, module), name


# The Python 2 names torch's weights-only unpickler reads as Python 3's: the easy part of
# _compat_pickle's tables (torch leaves out the rest, so a checkpoint naming them is refused)
_PY2_MODULES = {
    "__builtin__": "builtins", "copy_reg": "copyreg", "Queue": "queue", "repr": "reprlib",
    "_abcoll": "collections.abc", "UserDict": "collections", "UserList": "collections",
    "UserString": "collections", "whichdb": "dbm", "StringIO": "io", "cStringIO": "io",
}
_PY2_NAMES = {
    ("__builtin__", "xrange"): ("builtins", "range"),
    ("__builtin__", "reduce"): ("functools", "reduce"),
    ("__builtin__", "intern"): ("sys", "intern"),
    ("__builtin__", "unichr"): ("builtins", "chr"),
    ("__builtin__", "unicode"): ("builtins", "str"),
    ("__builtin__", "long"): ("builtins", "int"),
    ("__builtin__", "basestring"): ("builtins", "str"),
    ("itertools", "izip"): ("builtins", "zip"),
    ("itertools", "imap"): ("builtins", "map"),
    ("itertools", "ifilter"): ("builtins", "filter"),
    ("itertools", "ifilterfalse"): ("itertools", "filterfalse"),
    ("itertools", "izip_longest"): ("itertools", "zip_longest"),
    ("UserDict", "IterableUserDict"): ("collections", "UserDict"),
    ("UserDict", "UserDict"): ("collections", "UserDict"),
    ("UserList", "UserList"): ("collections", "UserList"),
    ("UserString", "UserString"): ("collections", "UserString"),
    ("exceptions", "StandardError"): ("builtins", "Exception"),
}


class WeightsOnlyUnpickler:
    """pickle protocol <= 2 (what torch.save writes), restricted to data and allowlisted globals."""

    def __init__(self, file: Any, persistent_load: Callable[[Any], Any], encoding: str = "bytes") -> None:
        self.read = file.read
        self.readline = file.readline
        self.persistent_load = persistent_load
        self.encoding = encoding
        self.memo: dict[int, Any] = {}

    def load(self) -> Any:
        allowed = TORCH_GLOBALS
        user = user_allowed_globals()
        allowed_ids = {id(value) for value in allowed.values()} | {id(value) for value in user.values()}
        read = self.read
        stack: list[Any] = []
        metastack: list[list[Any]] = []
        memo = self.memo

        def known(obj: Any) -> bool:
            return id(obj) in allowed_ids

        while True:
            key = read(1)
            if not key:
                raise EOFError
            op = key[0]
            if op == pickle.GLOBAL[0]:
                module, name = _readline_global(self.readline)
                full_path = f"{module}.{name}"
                if module in BLOCKED_MODULES:
                    raise Refusal(
                        f"Trying to load unsupported GLOBAL {full_path} whose module {module} is blocked.")
                if full_path in allowed:
                    stack.append(allowed[full_path])
                elif full_path in user:
                    stack.append(user[full_path])
                else:
                    raise Refusal(unsupported_global_message(full_path))
            elif op == pickle.NEWOBJ[0]:
                args = stack.pop()
                cls = stack.pop()
                if cls is Parameter:
                    stack.append(Parameter(*args))
                elif known(cls):
                    stack.append(cls.__new__(cls, *args))
                else:
                    raise Refusal(
                        "Can only create new object for nn.Parameter or classes allowlisted "
                        f"via `add_safe_globals` but got {cls}")
            elif op == pickle.REDUCE[0]:
                args = stack.pop()
                func = stack[-1]
                if not known(func):
                    message = f"Trying to call reduce for unrecognized function {func}"
                    if hasattr(func, "__self__"):
                        message += f" which belongs to {func.__self__}"
                    raise Refusal(message)
                stack[-1] = func(*args)
            elif op == pickle.BUILD[0]:
                state = stack.pop()
                inst = stack[-1]
                if type(inst) is Parameter or type(inst) is OrderedDict:
                    inst.__dict__.update(state if not isinstance(state, tuple) else state[0] or {})
                elif type(inst) is Tensor or known(type(inst)):
                    if hasattr(inst, "__setstate__") and type(inst) is not Tensor:
                        inst.__setstate__(state)
                    else:
                        slots = None
                        if isinstance(state, tuple) and len(state) == 2:
                            state, slots = state
                        if state:
                            inst.__dict__.update(state)
                        for k, v in (slots or {}).items():
                            setattr(inst, k, v)
                else:
                    raise Refusal(
                        "Can only build Tensor, Parameter, OrderedDict or types allowlisted "
                        f"via `add_safe_globals`, but got {type(inst)}")
            elif op == pickle.APPEND[0]:
                item = stack.pop()
                if type(stack[-1]) is not list:
                    raise UnpicklingError(f"Can only append to lists, but got {type(stack[-1])}")
                stack[-1].append(item)
            elif op == pickle.APPENDS[0]:
                items = stack
                stack = metastack.pop()
                if type(stack[-1]) is not list:
                    raise UnpicklingError(f"Can only extend lists, but got {type(stack[-1])}")
                stack[-1].extend(items)
            elif op == pickle.SETITEM[0]:
                value, k = stack.pop(), stack.pop()
                self._check_dict(stack[-1], "SETITEM")
                stack[-1][k] = value
            elif op == pickle.SETITEMS[0]:
                items = stack
                stack = metastack.pop()
                self._check_dict(stack[-1], "SETITEMS")
                target = stack[-1]
                for i in range(0, len(items), 2):
                    target[items[i]] = items[i + 1]
            elif op == pickle.MARK[0]:
                metastack.append(stack)
                stack = []
            elif op == pickle.TUPLE[0]:
                items = stack
                stack = metastack.pop()
                stack.append(tuple(items))
            elif op == pickle.TUPLE1[0]:
                stack[-1] = (stack[-1],)
            elif op == pickle.TUPLE2[0]:
                stack[-2:] = [(stack[-2], stack[-1])]
            elif op == pickle.TUPLE3[0]:
                stack[-3:] = [(stack[-3], stack[-2], stack[-1])]
            elif op == pickle.NONE[0]:
                stack.append(None)
            elif op == pickle.NEWFALSE[0]:
                stack.append(False)
            elif op == pickle.NEWTRUE[0]:
                stack.append(True)
            elif op == pickle.EMPTY_TUPLE[0]:
                stack.append(())
            elif op == pickle.EMPTY_LIST[0]:
                stack.append([])
            elif op == pickle.EMPTY_DICT[0]:
                stack.append({})
            elif op == pickle.EMPTY_SET[0]:
                stack.append(set())
            elif op == pickle.BININT[0]:
                stack.append(struct.unpack("<i", read(4))[0])
            elif op == pickle.BININT1[0]:
                stack.append(read(1)[0])
            elif op == pickle.BININT2[0]:
                stack.append(struct.unpack("<H", read(2))[0])
            elif op == pickle.BINFLOAT[0]:
                stack.append(struct.unpack(">d", read(8))[0])
            elif op == pickle.BINUNICODE[0]:
                length = struct.unpack("<I", read(4))[0]
                stack.append(str(read(length), "utf-8", "surrogatepass"))
            elif op == pickle.SHORT_BINSTRING[0]:
                data = read(read(1)[0])
                stack.append(data.decode(self.encoding, "strict") if self.encoding != "bytes" else data)
            elif op == pickle.BINPERSID[0]:
                pid = stack.pop()
                if type(pid) is not tuple and type(pid) is not int:
                    raise Refusal(f"persistent_load id must be tuple or int, but got {type(pid)}")
                if type(pid) is tuple and len(pid) > 0 and _ascii(pid[0]) != "storage":
                    raise Refusal(f"Only persistent_load of storage is allowed, but got {type(pid[0])}")
                stack.append(self.persistent_load(pid))
            elif op == pickle.BINGET[0]:
                stack.append(memo[read(1)[0]])
            elif op == pickle.LONG_BINGET[0]:
                stack.append(memo[struct.unpack("<I", read(4))[0]])
            elif op == pickle.BINPUT[0]:
                memo[read(1)[0]] = stack[-1]
            elif op == pickle.LONG_BINPUT[0]:
                memo[struct.unpack("<I", read(4))[0]] = stack[-1]
            elif op == pickle.LONG1[0]:
                stack.append(pickle.decode_long(read(read(1)[0])))
            elif op == pickle.PROTO[0]:
                proto = read(1)[0]
                if proto != 2:
                    warnings.warn(
                        f"Detected pickle protocol {proto} in the checkpoint, which was "
                        "not the default pickle protocol used by `torch.load` (2). The weights_only "
                        "Unpickler might not support all instructions implemented by this protocol, "
                        "please file an issue for adding support if you encounter this.", stacklevel=2)
            elif op == pickle.STOP[0]:
                return stack.pop()
            else:
                raise UnpicklingError(f"Unsupported operand {op}")

    @staticmethod
    def _check_dict(target: Any, opcode: str) -> None:
        if type(target) not in (dict, OrderedDict, Counter):
            raise UnpicklingError(
                f"Can only {opcode} for dict, collections.OrderedDict, "
                f"collections.Counter, but got {type(target)}")


def _ascii(value: Any) -> Any:
    return value.decode("ascii") if isinstance(value, bytes) else value
