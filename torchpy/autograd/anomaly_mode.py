"""Autograd anomaly mode: detect_anomaly, set_detect_anomaly and what they switch on.

While the mode is on, every Node records the Python stack that created it
(`metadata["traceback_"]`) and, when created by a node's backward (double
backward), that node as `metadata["parent_"]`. The engine then runs each node
through `call_node_with_anomaly_checks`: an error raised in a backward is
preceded by a warning naming the node and its forward call, and with check_nan
a backward that returns NaN raises. With the mode off the engine and Node pay
one flag read each (`state.enabled`).
"""

from __future__ import annotations

import os
import threading
import traceback
import warnings
from typing import Any, Callable

import numpy as np

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class _AnomalyState:
    """Process-wide, as PyTorch's AnomalyMode flags are."""

    __slots__ = ("enabled", "check_nan")

    def __init__(self) -> None:
        self.enabled = False
        self.check_nan = True


state = _AnomalyState()


class _Executing(threading.local):
    node: Any = None  # the node whose backward is running on this thread (a new node's parent)


_executing = _Executing()


def is_anomaly_enabled() -> bool:
    return state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    return state.check_nan


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    state.enabled = bool(enabled)
    state.check_nan = bool(check_nan)


class detect_anomaly:
    """Context manager that turns anomaly detection on (PyTorch's is not a decorator either)."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = state.enabled
        self.check_nan = check_nan
        self.prev_check_nan = state.check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should only "
            "be enabled for debugging.",
            stacklevel=2,
        )

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Sets anomaly detection on or off at once; as a context manager, restores it on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = state.enabled
        self.prev_check_nan = state.check_nan
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


# --- what the graph and the engine call while the mode is on -------------------------------------


def record_creation(node: Any) -> None:
    """Store the forward call's stack (torchpy's own frames dropped) and the parent node."""
    frames = traceback.extract_stack()
    # The innermost frames are torchpy's machinery (the op binding, the autograd kernel, this
    # function); PyTorch's stack ends at the user's call because those frames are C++.
    while frames and frames[-1].filename.startswith(_PACKAGE_DIR):
        frames.pop()
    node.metadata["traceback_"] = traceback.format_list(frames)
    parent = _executing.node
    if parent is not None:
        node.metadata["parent_"] = parent


def _forward_trace_warning(node: Any) -> None:
    trace = node.metadata.get("traceback_")
    if trace is None:
        warnings.warn(
            f"Error detected in {node.name()}. No forward pass information available. Enable detect "
            "anomaly during forward pass for more information.",
            stacklevel=3,
        )
        return
    warnings.warn(
        f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n{''.join(trace)}",
        stacklevel=3,
    )
    seen = {id(node)}
    parent = node.metadata.get("parent_")
    while parent is not None and id(parent) not in seen:
        seen.add(id(parent))
        parent_trace = parent.metadata.get("traceback_")
        if parent_trace is None:
            break
        warnings.warn(
            f"\n\nPrevious calculation was induced by {parent.name()}. Traceback of forward call that "
            f"induced the previous calculation:\n{''.join(parent_trace)}",
            stacklevel=3,
        )
        parent = parent.metadata.get("parent_")


def _has_nan(grad: Any) -> bool:
    data = getattr(grad, "_data", None)
    if data is None or not hasattr(data, "dtype") or data.dtype.kind not in "fc":
        return False
    return bool(np.isnan(data).any())


def call_node_with_anomaly_checks(call: Callable[[Any, list], list], node: Any, grads: list) -> list:
    """`call(node, grads)` with the node recorded as the parent of nodes its backward creates,
    a warning naming its forward call if it raises, and the NaN check on what it returns."""
    previous = _executing.node
    _executing.node = node
    try:
        outputs = call(node, grads)
        if state.check_nan:
            for index, grad in enumerate(outputs):
                # On the array: no op call, so nothing is recorded or dispatched for the check.
                if grad is not None and _has_nan(grad):
                    raise RuntimeError(f"Function '{node.name()}' returned nan values in its {index}th output.")
        return outputs
    except BaseException:
        _forward_trace_warning(node)
        raise
    finally:
        _executing.node = previous
