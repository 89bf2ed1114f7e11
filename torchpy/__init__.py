"""torchpy: PyTorch's runtime core, re-built in Python.

The dispatcher (keys, schemas, registry, torchpy.library, torchpy.ops, a
dispatch trace), the Tensor object model on NumPy, and the operator library
generated from native_functions/*.yaml.
"""

from . import _features  # noqa: F401
from ._dispatch.ops import ops  # noqa: F401
from ._dispatch.trace import dispatch_trace  # noqa: F401
from ._tensor.creation import as_tensor, from_numpy, is_tensor, tensor  # noqa: F401
from ._tensor.device import device  # noqa: F401
from ._tensor.dtype import (  # noqa: F401
    bfloat16, bool, cdouble, cfloat, chalf, complex32, complex64, complex128, double, dtype,
    float, float16, float32, float64, get_default_dtype, half, int, int8, int16, int32, int64,
    long, set_default_dtype, short, uint8,
)
from ._tensor.enums import (  # noqa: F401
    channels_last, channels_last_3d, contiguous_format, layout, memory_format, preserve_format, strided,
)
from ._tensor.finfo import finfo, iinfo  # noqa: F401
from ._tensor.printing import get_printoptions, set_printoptions  # noqa: F401
from ._tensor.promotion import can_cast, promote_types  # noqa: F401
from ._tensor.tensor import Size, Tensor, UntypedStorage  # noqa: F401
from . import _aten  # noqa: E402  (builds the op table onto Tensor and the public functions)

# torchpy.add, torchpy.zeros, ..., and the mode-checked tensor / as_tensor / can_cast / promote_types
globals().update(vars(_aten.public.functions))
from ._aten.kernels.random import (  # noqa: E402,F401
    Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state,
)
from ._typename import typename  # noqa: E402,F401
from . import linalg  # noqa: E402,F401

from . import autograd  # noqa: E402  (registers the Autograd kernel)
from ._tensor import members as _members  # noqa: E402

_members.install(Tensor)  # Tensor's method table: the op table's bindings and every declared member, once
from .autograd import (  # noqa: E402,F401
    enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled,
)
from . import func  # noqa: E402,F401  (torch.func.jvp)
from . import library, types  # noqa: E402,F401  (custom ops need Tensor and autograd.Function)
from .autograd.anomaly_mode import (  # noqa: E402,F401
    is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled,
)

from . import nn, optim  # noqa: E402,F401  (built on autograd)
from . import random, serialization  # noqa: E402,F401  (serialization rebuilds nn.Parameter)
from .serialization import load, save  # noqa: E402,F401
from . import _C  # noqa: E402  (torch._C's names, over every layer below)

__version__ = "0.0.1"
from . import overrides, utils, testing  # noqa: E402,F401  (torch imports these with itself)
import torchpy.utils._python_dispatch  # noqa: E402,F401
import torchpy.utils.data  # noqa: E402,F401  (torch imports torch.utils.data with itself)
import torchpy.utils.checkpoint  # noqa: E402,F401  (torch imports torch.utils.checkpoint with itself)
from . import accelerator, backends, cuda, onnx  # noqa: E402,F401  (torch imports or lazily loads these)
from ._determinism import (  # noqa: E402,F401
    are_deterministic_algorithms_enabled,
    get_deterministic_debug_mode,
    is_deterministic_algorithms_warn_only_enabled,
    set_deterministic_debug_mode,
    use_deterministic_algorithms,
)
_C._fill_variable_functions(globals())
