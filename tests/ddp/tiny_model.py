"""A small model for profile_test.py: registration order differs from forward order, a tied
weight, a frozen bias, and one layer whose backward sleeps 50 ms (no CPU used)."""
import time

import torch


class SleepBackward(torch.autograd.Function):
    """Identity whose backward waits a set time without computing (GPU-like compute)."""

    @staticmethod
    def forward(ctx, x, seconds):
        ctx.seconds = seconds
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        time.sleep(ctx.seconds)
        return grad, None


class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.first = torch.nn.Linear(8, 8)
        self.second = torch.nn.Linear(8, 8)
        self.slow = torch.nn.Linear(8, 8)
        self.head = torch.nn.Linear(8, 8, bias=False)
        self.tied = torch.nn.Linear(8, 8, bias=False)
        self.tied.weight = self.head.weight
        self.first.bias.requires_grad_(False)

    def forward(self, x):
        x = self.first(self.second(x))
        x = SleepBackward.apply(self.slow(x), 0.05)
        return self.tied(self.head(x))

    def example_input(self, batch, device):
        return torch.randn(batch, 8, device=device)


def make():
    return Tiny()
