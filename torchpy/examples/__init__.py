"""Runnable examples: scripts written for torch that run on torchpy by changing one import."""
