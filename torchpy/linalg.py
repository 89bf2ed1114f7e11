"""torchpy.linalg: the functions the op table puts in torch.linalg (python_module: linalg)."""

from ._aten import public as _public

globals().update(vars(_public.linalg))
