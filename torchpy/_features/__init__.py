"""Functionality keys' kernels and fallbacks: one module per feature."""

from . import fallthroughs, inplace_or_view  # noqa: F401
