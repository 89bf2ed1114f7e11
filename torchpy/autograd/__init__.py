"""torchpy.autograd: reverse-mode AD as a dispatch layer.

The Autograd key's kernel (kernel.py) records a backward node per op call from
the op's derivative (derivatives/); the engine (engine.py) runs the graph.
"""

from __future__ import annotations

from . import graph  # noqa: F401
from . import derivatives as _derivatives  # noqa: F401
from .derivatives import pointwise as _pointwise_formulas  # noqa: F401
from .derivatives import (  # noqa: F401  (each module declares its family's formulas)
    api_ops as _api_ops_formulas,
    convolution as _convolution_formulas,
    copy as _copy_formulas,
    indexing as _indexing_formulas,
    linalg as _linalg_formulas,
    optim_ops as _optim_ops_formulas,
    pooling as _pooling_formulas,
    reduction as _reduction_formulas,
    view as _view_formulas,
)
from .._aten.build import NATIVE_FUNCTIONS as _NATIVE_FUNCTIONS
from .derivatives.table import install as _install_formulas

_install_formulas(_NATIVE_FUNCTIONS)  # the YAML entries name their formulas; checked here
from . import anomaly_mode  # noqa: F401
from .anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: F401
from .function import Function, FunctionCtx, once_differentiable  # noqa: F401
from .functional_api import backward, grad  # noqa: F401
from .grad_mode import (  # noqa: F401
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from . import gradcheck as _gradcheck_module  # noqa: F401  (the module stays in sys.modules)
from .gradcheck import gradcheck, gradgradcheck  # noqa: F401,E402  (as in torch, the name is the function)
from .kernel import autograd_kernel  # noqa: F401  (registers the Autograd fallback)
from .variable import Variable  # noqa: F401
from . import tensor_methods as _tensor_methods  # noqa: F401  (declares backward, register_hook, .data, ...)

from . import forward_ad  # noqa: F401,E402  (after the kernel: forward_kernel imports it)
from .engine import is_checkpoint_valid as _is_checkpoint_valid  # noqa: F401,E402
