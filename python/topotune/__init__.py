"""topotune inside PyTorch: DDP communication hooks (topotune.ddp_hooks) and a gradient
profiler for `topotune plan --model` (python3 -m topotune.profile, code in topotune.profiler).
Standard library and torch
only. From a checkout: PYTHONPATH=<checkout>/python (docs/pytorch.md)."""
