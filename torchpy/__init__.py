"""torchpy: PyTorch's runtime core, re-built in Python.

What exists today is the dispatcher layer: dispatch keys and key sets,
operator schemas, the operator registry with PyTorch's computed tables,
torchpy.library, torchpy.ops and a dispatch trace.
"""

from . import _C, _features, library  # noqa: F401
from ._dispatch.ops import ops  # noqa: F401
from ._dispatch.trace import dispatch_trace  # noqa: F401

__version__ = "0.0.1"
