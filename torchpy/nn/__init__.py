"""torchpy.nn: neural-network building blocks (for now the functional interface)."""

from . import functional  # noqa: F401
