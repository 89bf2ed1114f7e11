"""torchpy.testing: torch.testing's helpers (`_internal.logging_tensor`, ...)."""
