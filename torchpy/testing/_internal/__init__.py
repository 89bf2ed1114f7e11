"""torch.testing._internal: test utilities that code written for torch imports."""
