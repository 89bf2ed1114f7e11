"""Functionality keys' kernels and fallbacks: one module per feature."""

from . import autograd_fallback, fallthroughs  # noqa: F401
