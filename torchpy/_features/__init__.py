"""Functionality keys' kernels and fallbacks: one module per feature."""

from . import fallthroughs, inplace_or_view, python_key  # noqa: F401
