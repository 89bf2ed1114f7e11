"""Keys that every operator skips unless it registers a kernel there.

As in PyTorch: BackendSelect and ADInplaceOrView are in every thread's
included set, so ops without a kernel at those keys must fall through them;
the Autocast and vmap-mode keys do nothing until their features register
kernels for specific ops.
"""

from .._dispatch.keys import DispatchKey
from .._dispatch.library import Library, fallthrough_kernel

FALLTHROUGH_KEYS = (
    DispatchKey.BackendSelect,
    DispatchKey.ADInplaceOrView,
    DispatchKey.AutocastCPU,
    DispatchKey.AutocastMTIA,
    DispatchKey.AutocastMAIA,
    DispatchKey.AutocastXPU,
    DispatchKey.AutocastMPS,
    DispatchKey.AutocastCUDA,
    DispatchKey.FuncTorchVmapMode,
    DispatchKey.VmapMode,
    # PyTorch snapshots the thread's key sets here for the Python key; torchpy's Python
    # key reads them directly, so the key only has to be carried, as in torch's key sets.
    DispatchKey.PythonTLSSnapshot,
)

_lib = Library("_", "IMPL")
for _key in FALLTHROUGH_KEYS:
    _lib.fallback(fallthrough_kernel, _key.name)
