"""Functionality keys' kernels and fallbacks: one module per feature."""

from . import fallthroughs  # noqa: F401
