"""GPU Advisor: which GPUs, how many, and what they cost."""

__version__ = "0.1.0"
