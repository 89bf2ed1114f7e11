"""torch.testing._internal.logging_tensor: log every aten call as one line of text.

A `LoggingTensor` wraps a plain tensor (`elem`) and logs each op that reaches its
`__torch_dispatch__`; `LoggingTensorMode` logs every op run inside it. Both send a
record to the "LoggingTensor" logger; `capture_logs()` installs a handler that turns
each record into a line such as

    $1: f32[2] = torch._ops.aten.mul.Tensor($0, $0)

where `$n` names a tensor by the order the handler first saw it. The lines are
torch's, character for character, so expected logs written against torch hold here.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import logging
import sys
import weakref
from typing import Any, Iterator

from ..._tensor.tensor import Tensor
from ..._tensor.torch_function import enable_reentrant_dispatch
from ...utils._dtype_abbrs import dtype_abbrs
from ...utils._python_dispatch import TorchDispatchMode
from ...utils._pytree import tree_map

__all__ = [
    "LoggingTensor", "LoggingTensorMode", "LoggingTensorReentrant", "LoggingTensorHandler",
    "GatherTraceback", "capture_logs", "capture_logs_with_logging_tensor_mode", "log_input",
]

logger = logging.getLogger("LoggingTensor")


def _op_name(func: Any) -> str:
    # torch's OpOverload lives in the `torch._ops.<namespace>` module; logs name it so.
    return f"torch._ops.{func.namespace}.{func.__name__}"


def _log_call(func: Any, args: Any, kwargs: Any, result: Any) -> None:
    logger.info(_op_name(func), args, kwargs, result)


class LoggingTensor(Tensor):
    """A wrapper subclass: metadata of `elem`, no storage of its own, every op logged.

    It can take part in autograd in one of two ways (never both in one program): the
    wrapper requires grad (`LoggingTensor(t, requires_grad=True)`, `elem` detached), or
    `elem` itself requires grad and autograd runs inside the handler.
    """

    elem: Tensor
    __slots__ = ["elem"]

    # What the handler's own call runs under (LoggingTensorReentrant re-enters autograd).
    context = contextlib.nullcontext

    @staticmethod
    def __new__(cls, elem: Tensor, *args: Any, **kwargs: Any) -> "LoggingTensor":
        wrapper = Tensor._make_wrapper_subclass(
            cls, elem.size(), strides=elem.stride(), storage_offset=elem.storage_offset(),
            dtype=elem.dtype, layout=elem.layout, device=elem.device,
            requires_grad=kwargs.get("requires_grad", False),
        )
        wrapper.elem = elem.detach() if wrapper.requires_grad else elem
        return wrapper

    def __repr__(self) -> str:
        return super().__repr__(tensor_contents=f"{self.elem}")

    @classmethod
    def __torch_dispatch__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        def unwrap(value: Any) -> Any:
            return value.elem if isinstance(value, cls) else value

        def wrap(value: Any) -> Any:
            return cls(value) if isinstance(value, Tensor) else value

        with cls.context():
            result = func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs))
            result = tree_map(wrap, result)
        _log_call(func, args, kwargs, result)
        return result


class LoggingTensorMode(TorchDispatchMode):
    """Logs every aten op run inside it, factories included; tensors are plain."""

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        result = func(*args, **kwargs)
        _log_call(func, args, kwargs, result)
        return result


class LoggingTensorReentrant(LoggingTensor):
    context = enable_reentrant_dispatch


class _TensorIds:
    """Tensor -> small int by identity, forgetting tensors that die (Tensor `==` is elementwise,
    so a WeakKeyDictionary cannot hold them)."""

    def __init__(self) -> None:
        self._ids: dict[int, tuple[weakref.ref, int]] = {}
        self._next = 0

    def __call__(self, t: Tensor) -> int:
        key = id(t)
        entry = self._ids.get(key)
        if entry is not None and entry[0]() is t:
            return entry[1]
        ids = self._ids
        number = self._next
        self._next += 1
        ids[key] = (weakref.ref(t, lambda _, key=key: ids.pop(key, None)), number)
        return number


class LoggingTensorHandler(logging.Handler):
    """Formats LoggingTensor records into `log_list` (and their tracebacks, if gathered)."""

    def __init__(self, log_list: list[str], use_shortid_for_all_tensors: bool,
                 with_type: bool, tracebacks_list: list | None) -> None:
        super().__init__()
        self.log_list = log_list
        self.use_shortid_for_all_tensors = use_shortid_for_all_tensors
        self.tracebacks_list = tracebacks_list
        self.with_type = with_type
        self._shortid = _TensorIds()

    def _fmt(self, value: object, with_type: bool = False) -> str:
        named = Tensor if self.use_shortid_for_all_tensors else LoggingTensor
        if not isinstance(value, named):
            return repr(value)
        text = f"${self._shortid(value)}"
        if with_type and self.with_type:
            text += f": {dtype_abbrs[value.dtype]}[{', '.join(map(str, value.shape))}]"
        return text

    def emit(self, record: logging.LogRecord) -> None:
        args, kwargs, result = record.args
        arguments = ", ".join(itertools.chain(
            (str(tree_map(self._fmt, a)) for a in args),
            (f"{k}={tree_map(self._fmt, v)}" for k, v in kwargs.items()),
        ))
        results = tree_map(functools.partial(self._fmt, with_type=True), result)
        self.log_list.append(f"{results} = {record.msg}({arguments})")
        if self.tracebacks_list is not None:
            self.tracebacks_list.append(record.traceback)


def log_input(name: str, var: object) -> None:
    """Log `var` as an input: `$0: f32[2] = input('x')`."""
    logger.info("input", (name,), {}, var)


class GatherTraceback(logging.Filter):
    """Attaches the Python stack of each record as [{'name', 'filename', 'line'}, ...],
    innermost last. (TorchScript and C++ frames do not exist in torchpy.)"""

    def __init__(self, python: bool = True, script: bool = True, cpp: bool = False) -> None:
        super().__init__()
        self.python = python
        self.script = script
        self.cpp = cpp

    def filter(self, record: logging.LogRecord) -> bool:
        frames = []
        if self.python:
            frame = sys._getframe(1)
            while frame is not None:
                frames.append({"name": frame.f_code.co_name, "filename": frame.f_code.co_filename,
                               "line": frame.f_lineno})
                frame = frame.f_back
            frames.reverse()
        record.traceback = frames
        return True


@contextlib.contextmanager
def capture_logs(is_mode: bool = False, python_tb: bool = False, script_tb: bool = False,
                 cpp_tb: bool = False) -> Iterator[Any]:
    """Collect formatted log lines (and tracebacks when asked) while the block runs.

    `is_mode=True` names every tensor (a mode's tensors are plain), otherwise only
    LoggingTensors are named and other values are shown by repr.
    """
    collect_traceback = python_tb or script_tb or cpp_tb
    log_list: list[str] = []
    tracebacks_list: list = []
    handler = LoggingTensorHandler(log_list, with_type=True, use_shortid_for_all_tensors=is_mode,
                                   tracebacks_list=tracebacks_list if collect_traceback else None)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    gather = GatherTraceback(python=python_tb, script=script_tb, cpp=cpp_tb) if collect_traceback else None
    if gather is not None:
        logger.addFilter(gather)
    try:
        yield (log_list, tracebacks_list) if collect_traceback else log_list
    finally:
        logger.removeHandler(handler)
        if gather is not None:
            logger.removeFilter(gather)


@contextlib.contextmanager
def capture_logs_with_logging_tensor_mode(python_tb: bool = False, script_tb: bool = False,
                                          cpp_tb: bool = False) -> Iterator[Any]:
    with LoggingTensorMode(), capture_logs(True, python_tb, script_tb, cpp_tb) as logs:
        yield logs
