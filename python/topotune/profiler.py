"""python3 -m topotune.profile MODEL --batch B --device cpu|cuda[:i] --out FILE.json

Measures a model's gradient profile for `topotune plan --model FILE.json`
(docs/model-profile.md, schema topotune.model_profile/1):

  MODEL  torchvision:NAME (e.g. torchvision:resnet50; a bare NAME is looked up in torchvision
         too) or package.module:factory (a callable returning an nn.Module; the input is
         module.example_input(batch, device) if the model has that method, else a float
         tensor of shape (B, *--input-shape)). package.module:factory IMPORTS AND RUNS CODE:
         the module is imported from sys.path (PYTHONPATH, the current directory) and the
         factory is called, exactly as `import package.module` would; give only modules
         you would import yourself.

--out is checked before profiling and written as topotune writes its files
(docs/output-files.md): a symbolic link, a directory, a device node or a FIFO is refused,
never replaced; the file appears complete or not at all. Errors are one line,
"topotune.profile: error: ...", exit status 2.

Layers are the modules that own parameters directly, in the order of their first forward call
(forward pre-hooks on a warm-up step); each parameter, in registration order
(model.named_parameters()), belongs to the first such layer in forward order that owns it.
The profile records the device it ran on ("measured_device": cpu or cuda, and its name):
`topotune plan` refuses CPU times for a GPU plan unless given --timing flops, which times the
layers from the per-layer "forward_flops" recorded here (convolutions and linear layers, from
their output shapes on the first step).

Timing, over --steps steps after --warmup: every parameter's gradient-ready time is taken by a
tensor hook (called when autograd has computed the gradient) relative to the start of
backward, a layer's by its last parameter; each layer's forward end by a forward hook, relative
to the start of forward. Per layer the median over steps is kept, then the monotone envelope in
the order the planner replays (backward: reverse forward order; forward: forward order), whose
differences are the per-layer backward_time_s / forward_time_s: the planner's gradient-ready
times are then the measured ones wherever backward reached the layers in reverse forward
order, and never earlier than measured otherwise. Computing after the last gradient (the
input's gradient) and after the last layer's forward (the loss) is not a layer's and is
reported as backward_tail_s / forward_tail_s. On CUDA every hook synchronizes the device, so
that times are those of the kernels, not of their launch (this serializes the host; the
per-layer sums are what the planner needs).
"""
from __future__ import annotations

import argparse
import importlib
import json
import statistics
import string
import sys
import time
from typing import Any, Callable, Dict, List, NoReturn, Optional, Sequence, Tuple

import torch

from topotune.output_file import OutputError, check_output_path, write_file_atomically


class ProfileError(Exception):
    """Bad input (a model that cannot be loaded or built): one line, exit status 2."""


def die(message: object) -> NoReturn:
    """topotune's shape of error: one line on stderr, exit status 2."""
    print(f"topotune.profile: error: {' '.join(str(message).split())}", file=sys.stderr)
    sys.exit(2)


def one_line(e: BaseException) -> str:
    return f"{type(e).__name__}: {' '.join(str(e).split())}"


def call_factory(factory: object, spec: str) -> torch.nn.Module:
    """The model the factory returns; any exception it raises is the input's fault."""
    if not callable(factory):
        raise ProfileError(f"{spec}: {type(factory).__name__} object is not callable")
    try:
        model = factory()
    except Exception as e:  # the user's code: every failure is reported the same way
        raise ProfileError(f"{spec}: the factory raised {one_line(e)}") from None
    if not isinstance(model, torch.nn.Module):
        raise ProfileError(f"{spec}: the factory returned {type(model).__name__}, "
                           "not a torch.nn.Module")
    return model


def load_model(spec: str) -> Tuple[torch.nn.Module, str]:
    """(model, description) for torchvision:NAME, NAME, or package.module:factory (which
    imports package.module and calls factory: it runs that code, as importing it would)."""
    if spec.startswith("torchvision:") or ":" not in spec:
        import torchvision
        name = spec.split(":", 1)[-1]
        factory = getattr(torchvision.models, name, None) if name else None
        if factory is None or not callable(factory) or name.startswith("_"):
            raise ProfileError(f"torchvision has no model '{name}'")
        return call_factory(factory, spec), f"torchvision {torchvision.__version__} models.{name}()"
    module_name, factory_name = spec.split(":", 1)
    if not module_name or not factory_name:
        raise ProfileError(f"'{spec}' is not package.module:factory")
    try:
        module = importlib.import_module(module_name)
    except Exception as e:  # ImportError, or whatever the module's own code raised
        raise ProfileError(f"cannot import {module_name} ({spec}): {one_line(e)}") from None
    factory = getattr(module, factory_name, None)
    if factory is None:
        raise ProfileError(f"{spec}: module {module_name} has no '{factory_name}'")
    return call_factory(factory, spec), f"{spec}()"


def make_input(model: torch.nn.Module, batch: int, device: str, shape: Sequence[int]) -> Any:
    if hasattr(model, "example_input"):  # the model's own input builder
        example_input: Callable[..., Any] = getattr(model, "example_input")
        return example_input(batch, device)
    return torch.randn(batch, *shape, device=device)


def scalar_loss(out: Any) -> Any:
    if isinstance(out, torch.Tensor):
        return out.float().mean()
    if isinstance(out, dict):
        out = list(out.values())
    return sum(scalar_loss(o) for o in out if isinstance(o, (torch.Tensor, list, tuple, dict)))


class Recorder:
    """Hooks that record forward order, forward ends and gradient-ready times."""

    def __init__(self, model: torch.nn.Module, device: str) -> None:
        self.cuda = torch.device(device).type == "cuda"
        self.owners = [(name, m) for name, m in model.named_modules()
                       if any(True for _ in m.parameters(recurse=False))]
        self.order: List[int] = []  # owner indices in first-call order
        self.fwd_end: Dict[int, float] = {}  # owner index -> time
        self.grad_ready: Dict[int, float] = {}  # parameter index -> time
        # owner index -> forward FLOPs of the whole batch (first call)
        self.flops: Dict[int, int] = {}
        self.t0 = 0.0
        for i, (_, m) in enumerate(self.owners):
            m.register_forward_pre_hook(self._pre(i))
            m.register_forward_hook(self._post(i))
        self.params = list(model.named_parameters())
        for k, (_, p) in enumerate(self.params):
            if p.requires_grad:
                p.register_hook(self._grad(k))

    def now(self) -> float:
        if self.cuda:
            torch.cuda.synchronize()
        return time.perf_counter() - self.t0

    def _pre(self, i: int) -> Callable[[torch.nn.Module, Any], None]:
        def hook(module: torch.nn.Module, inputs: Any) -> None:
            if i not in self.order:
                self.order.append(i)
        return hook

    def _post(self, i: int) -> Callable[[torch.nn.Module, Any, Any], None]:
        def hook(module: torch.nn.Module, inputs: Any, output: Any) -> None:
            self.fwd_end[i] = self.now()
            if i not in self.flops:
                self.flops[i] = module_flops(module, output)
        return hook

    def _grad(self, k: int) -> Callable[[torch.Tensor], None]:
        def hook(grad: torch.Tensor) -> None:
            self.grad_ready[k] = self.now()
        return hook

    def start(self) -> None:
        self.fwd_end, self.grad_ready = {}, {}
        if self.cuda:
            torch.cuda.synchronize()
        self.t0 = time.perf_counter()


def module_flops(module: torch.nn.Module, output: Any) -> int:
    """Forward FLOPs (2 x multiply-adds) of one call of a convolution or linear layer, for the
    whole batch, as docs/model-profile.md counts them; 0 for every other module (norms,
    embeddings: memory-bound, not counted). Attention matmuls own no parameter and are not
    seen here, so a transformer's count is low by their share."""
    if not isinstance(output, torch.Tensor):
        return 0
    if isinstance(module, torch.nn.modules.conv._ConvNd):
        k = 1
        for size in module.kernel_size:
            k *= size
        return 2 * output.numel() * (module.in_channels // module.groups) * k
    if isinstance(module, torch.nn.Linear):
        return 2 * output.numel() * module.in_features
    return 0


def device_name(device: str) -> str:
    """The accelerator's name where torch knows it ("NVIDIA H200"), else the device type."""
    dev = torch.device(device)
    if dev.type == "cuda":
        return torch.cuda.get_device_name(dev)
    return dev.type


def layer_of_params(rec: Recorder) -> List[int]:
    """For each parameter: the position (in forward order) of the first layer that owns it."""
    position = {owner: pos for pos, owner in enumerate(rec.order)}
    by_id: Dict[int, List[int]] = {}
    for i, (_, m) in enumerate(rec.owners):
        for p in m.parameters(recurse=False):
            by_id.setdefault(id(p), []).append(position.get(i, len(position) + i))
    return [min(by_id[id(p)]) for _, p in rec.params]


# progress(step, total, warm, forward_s, backward_s), called after each profiling step.
Progress = Callable[[int, int, bool, float, float], None]


def measure(model: torch.nn.Module, x: Any, rec: Recorder, steps: int, warmup: int,
            progress: Optional[Progress] = None) -> List[Dict[str, Any]]:
    """Per step: forward time, layer forward ends, parameter ready times, backward end.
    `progress(step, total, warm, forward_s, backward_s)` is called after each step."""
    runs = []
    for step in range(warmup + steps):
        model.zero_grad(set_to_none=True)
        rec.start()
        loss = scalar_loss(model(x))
        fwd = rec.now()
        fwd_end = dict(rec.fwd_end)
        rec.t0 += fwd  # backward times relative to the start of backward
        loss.backward()
        bwd = rec.now()
        if step >= warmup:
            runs.append({"forward": fwd, "fwd_end": fwd_end, "ready": dict(rec.grad_ready),
                         "backward": bwd})
        if progress:
            progress(step + 1, warmup + steps, step < warmup, fwd, bwd)
    return runs


def envelope(values: Sequence[float]) -> List[float]:
    """Running maximum: a non-decreasing sequence."""
    out: List[float] = []
    top = 0.0
    for v in values:
        top = max(top, v)
        out.append(top)
    return out


def build_profile(spec: str, batch: int, device: str, shape: Sequence[int], steps: int,
                  warmup: int, name: Optional[str] = None,
                  progress: Optional[Progress] = None) -> Dict[str, Any]:
    model, source = load_model(spec)
    try:
        model.to(device).train()
        rec = Recorder(model, device)
        x = make_input(model, batch, device, shape)
        runs = measure(model, x, rec, steps, warmup, progress)
    except Exception as e:  # the model's code, or an input it does not accept
        raise ProfileError(f"{spec}: running the model failed: {one_line(e)}") from None
    layer_pos = layer_of_params(rec)
    n_layers = max(layer_pos) + 1 if layer_pos else 0
    owner_at = {pos: owner for pos, owner in enumerate(rec.order)}
    med = statistics.median
    # Forward: layer ends in forward order -> per-layer forward times.
    fwd_end = [med(r["fwd_end"].get(owner_at.get(i), 0.0) for r in runs) for i in range(n_layers)]
    fwd_cum = envelope(fwd_end)
    fwd_times = [fwd_cum[0]] + [fwd_cum[i] - fwd_cum[i - 1] for i in range(1, n_layers)]
    # Backward: a layer's gradient is ready when its last parameter's is.
    ready = [0.0] * n_layers
    for k, pos in enumerate(layer_pos):
        if rec.params[k][1].requires_grad:
            ready[pos] = max(ready[pos], med(r["ready"].get(k, 0.0) for r in runs))
    bwd_cum = list(reversed(envelope(list(reversed(ready)))))
    bwd_times = [bwd_cum[i] - (bwd_cum[i + 1] if i + 1 < n_layers else 0.0)
                 for i in range(n_layers)]
    names = [rec.owners[owner_at[i]][0] if i in owner_at else f"unused.{i}"
             for i in range(n_layers)]
    flops = [rec.flops.get(owner_at[i], 0) if i in owner_at else 0 for i in range(n_layers)]
    forward_s = med(r["forward"] for r in runs)
    backward_s = med(r["backward"] for r in runs)
    params = []
    for (pname, p), pos in zip(rec.params, layer_pos):
        if p.numel() == 0:
            continue
        entry: Dict[str, Any] = {"name": pname, "numel": p.numel(), "layer": pos}
        if not p.requires_grad:
            entry["trainable"] = False
        params.append(entry)
    return {
        "schema": "topotune.model_profile/1",
        "name": name or spec.split(":")[-1],
        "description": f"measured by python -m topotune.profile {spec} --batch {batch} "
                       f"--device {device} (median of {steps} steps after {warmup} warm-up)",
        "source": f"{source}; torch {torch.__version__}",
        "input": f"{tuple(x.shape) if isinstance(x, torch.Tensor) else 'example_input'} "
                 f"on {device}",
        "flops_convention": "measured per-layer times; forward_flops: 2 x multiply-adds of "
                            "convolutions and linear layers only (attention matmuls, norms, "
                            "activations not counted), per sample",
        "measured_device": torch.device(device).type,
        "measured_cpu_threads": torch.get_num_threads(),
        "measured_device_name": device_name(device),
        "total_params": sum(e["numel"] for e in params),
        "measured_batch_per_gpu": batch,
        "forward_s": forward_s,
        "backward_s": backward_s,
        "forward_tail_s": max(0.0, forward_s - (fwd_cum[-1] if fwd_cum else 0.0)),
        "backward_tail_s": max(0.0, backward_s - (bwd_cum[0] if bwd_cum else 0.0)),
        "layers": [{"name": n, "forward_flops": fl / batch, "forward_time_s": f,
                    "backward_time_s": b}
                   for n, fl, f, b in zip(names, flops, fwd_times, bwd_times)],
        "params": params,
    }


NAME_CHARACTERS = frozenset(string.ascii_letters + string.digits + " ._-+:/(),")
MAX_NAME_LENGTH = 128


def name_problem(name: str) -> Optional[str]:
    """Why `name` cannot be a profile name (None when it can), as core/name_check.h rules."""
    shown = repr(name[:80])
    if not name:
        return "the profile name must not be empty"
    if len(name) > MAX_NAME_LENGTH:
        return f"the profile name {shown} is {len(name)} characters, more than {MAX_NAME_LENGTH}"
    for i, ch in enumerate(name):
        if ch not in NAME_CHARACTERS:
            return (f"the profile name {shown} has {ch!r} at position {i + 1}; a name may hold "
                    "letters, digits, space and . _ - + : / ( ) ,")
    return None


def progress_line(step: int, total: int, warm: bool, forward_s: float,
                  backward_s: float) -> None:
    """One line per step on stderr: a long profile says where it is."""
    kind = "warm-up" if warm else "measured"
    print(f"topotune.profile: step {step}/{total} ({kind}): forward {forward_s * 1e3:.1f} ms, "
          f"backward {backward_s * 1e3:.1f} ms", file=sys.stderr, flush=True)


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m topotune.profile", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", help="torchvision:NAME or package.module:factory (imports the "
                    "module and calls the factory: it runs their code)")
    ap.add_argument("--batch", type=int, required=True, help="samples per step (per GPU)")
    ap.add_argument("--device", default="cpu", help="cpu, cuda or cuda:i")
    ap.add_argument("--out", required=True, help="profile JSON to write")
    ap.add_argument("--steps", type=int, default=5, help="measured steps (median)")
    ap.add_argument("--warmup", type=int, default=1, help="steps not measured")
    ap.add_argument("--input-shape", default="3,224,224",
                    help="one sample's shape when the model has no example_input()")
    ap.add_argument("--name", help="profile name (default: the model name)")
    ap.add_argument("--threads", type=int,
                    help="CPU threads for PyTorch's operators (default: OMP_NUM_THREADS when set, "
                         "else PyTorch's own default, one per physical core); recorded in the "
                         "profile, since CPU times depend on it")
    ap.add_argument("--progress", choices=("auto", "always", "never"), default="auto",
                    help="a line per step on stderr (auto: when stderr is a terminal)")
    a = ap.parse_args(argv)
    # The name is written into plans and the launch files topotune emits: the same closed
    # character set as topotune's own check (core/name_check.h), checked before profiling.
    bad_name = name_problem(a.name if a.name is not None else a.model.split(":")[-1])
    if bad_name:
        die(f"--name: {bad_name}")
    if a.batch < 1 or a.steps < 1 or a.warmup < 0:
        die("--batch and --steps must be >= 1, --warmup >= 0")
    if a.threads is not None:
        if not 1 <= a.threads <= 4096:
            die(f"--threads must be in [1, 4096], not {a.threads}")
        torch.set_num_threads(a.threads)
    show = a.progress == "always" or (a.progress == "auto" and sys.stderr.isatty())
    try:
        shape = tuple(int(s) for s in a.input_shape.split(",") if s)
    except ValueError:
        die(f"--input-shape '{a.input_shape}' is not a comma list of integers")
    try:
        check_output_path(a.out)  # before the profiling run, not after it
        profile = build_profile(a.model, a.batch, a.device, shape, a.steps, a.warmup, a.name,
                                progress_line if show else None)
        write_file_atomically(a.out, json.dumps(profile, indent=1) + "\n")
    except OutputError as e:
        die(f"--out: {e}")
    except ProfileError as e:
        die(e)
    print(f"{a.out}: {profile['total_params']} parameters in {len(profile['params'])} tensors, "
          f"{len(profile['layers'])} layers; forward {profile['forward_s'] * 1e3:.1f} ms, "
          f"backward {profile['backward_s'] * 1e3:.1f} ms (batch {a.batch}, {a.device}, "
          f"{profile['measured_cpu_threads']} CPU threads)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
