"""A BERT-large-shaped model whose compute is set sleeps (GPU-like: the CPU stays free).

The parameter tensors are those of transformers' BertModel (bert-large-uncased config: 24
layers, vocabulary 30522, 512 positions, 2 token types, intermediate = 4 x hidden, with the
pooler), in the same registration order, with the hidden size scaled from 1024 to HIDDEN (128
by default: 8.7 M parameters, 35 MB of fp32 gradients, 2.2 s for a ring allreduce over 4 ranks
at an emulated 200 Mbit/s). Each module's backward sleeps BACKWARD_S x its share of the
encoder's parameters (the embeddings' backward is a lookup: none), its forward a third of
that; the gradient of every parameter is parameter x c, with c from the rank's input data, so
that ranks contribute different gradients and a reduction that mixes up shards shows.
Environment: TT_SYN_HIDDEN (128), TT_SYN_BACKWARD_S (1.0).
"""
import os
import time

import torch

HIDDEN = int(os.environ.get("TT_SYN_HIDDEN", "128"))
BACKWARD_S = float(os.environ.get("TT_SYN_BACKWARD_S", "1.0"))
LAYERS, VOCAB, POSITIONS, TYPES = 24, 30522, 512, 2


class Sleep(torch.autograd.Function):
    """y = x; backward sleeps and gives every parameter the gradient p * mean(x * grad)."""

    @staticmethod
    def forward(ctx, x, fwd_s, bwd_s, *params):
        time.sleep(fwd_s)
        ctx.bwd_s = bwd_s
        ctx.save_for_backward(x, *params)
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        time.sleep(ctx.bwd_s)
        x, *params = ctx.saved_tensors
        c = (x * grad).mean()
        return (grad, None, None, *[p * c for p in params])


class Unit(torch.nn.Module):
    """One module of BertModel: its parameters and a set compute time."""

    def __init__(self, shapes, bwd_s):
        super().__init__()
        for name, shape in shapes:
            self.register_parameter(name, torch.nn.Parameter(torch.randn(*shape) * 0.02))
        self.bwd_s = bwd_s

    def forward(self, x):
        return Sleep.apply(x, self.bwd_s / 3, self.bwd_s, *self.parameters())


def linear(i, o):
    return [("weight", (o, i)), ("bias", (o,))]


def layer_norm(h):
    return [("weight", (h,)), ("bias", (h,))]


class SyntheticBert(torch.nn.Module):
    def __init__(self, hidden=HIDDEN, backward_s=BACKWARD_S):
        super().__init__()
        h = hidden
        per_layer = [("attention.self.query", linear(h, h)), ("attention.self.key", linear(h, h)),
                     ("attention.self.value", linear(h, h)),
                     ("attention.output.dense", linear(h, h)),
                     ("attention.output.LayerNorm", layer_norm(h)),
                     ("intermediate.dense", linear(h, 4 * h)), ("output.dense", linear(4 * h, h)),
                     ("output.LayerNorm", layer_norm(h))]
        encoder_numel = LAYERS * sum(n for _, s in per_layer for n in numels(s))

        def unit(shapes, compute=True):
            share = sum(numels(shapes)) / encoder_numel if compute else 0.0
            return Unit(shapes, backward_s * share)
        self.embeddings = torch.nn.ModuleDict({
            "word_embeddings": unit([("weight", (VOCAB, h))], False),
            "position_embeddings": unit([("weight", (POSITIONS, h))], False),
            "token_type_embeddings": unit([("weight", (TYPES, h))], False),
            "LayerNorm": unit(layer_norm(h), False)})
        self.encoder = torch.nn.ModuleList(
            torch.nn.ModuleDict({name.replace(".", "_"): unit(shapes) for name, shapes in per_layer})
            for _ in range(LAYERS))
        self.pooler = unit(linear(h, h), False)
        self.hidden = h

    def forward(self, x):
        for m in self.embeddings.values():
            x = m(x)
        for layer in self.encoder:
            for m in layer.values():
                x = m(x)
        return self.pooler(x)

    def example_input(self, batch, device):
        return torch.randn(batch, self.hidden, device=device)


def numels(shapes):
    out = []
    for _, shape in shapes:
        n = 1
        for d in shape:
            n *= d
        out.append(n)
    return out


def make():
    torch.manual_seed(0)
    return SyntheticBert()
