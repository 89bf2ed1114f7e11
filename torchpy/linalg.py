"""torchpy.linalg: the functions the op table puts in torch.linalg (python_module: linalg)."""

from . import _aten

globals().update(_aten.public_functions("linalg"))
