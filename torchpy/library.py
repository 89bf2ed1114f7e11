"""torchpy.library: torch.library's API over torchpy's dispatcher."""

from ._dispatch.library import (  # noqa: F401
    Library,
    define,
    fallthrough_kernel,
    impl,
    register_kernel,
)

__all__ = ["Library", "define", "fallthrough_kernel", "impl", "register_kernel"]
