"""torchpy.utils: torch.utils' runtime helpers (`_pytree`, ...)."""
