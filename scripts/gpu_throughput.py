#!/usr/bin/env python3
"""Training throughput on one GPU: ResNet-50 (torchvision) and a BERT-large-shaped encoder
(24 layers, hidden 1024, 16 heads, FFN 4096, seq 128; torch.nn.TransformerEncoder), full
training steps (forward, backward, SGD step), fp32 (TF32 matmul/conv as PyTorch defaults say),
tf32 forced on, and bf16 autocast. Median of timed steps after warm-up, CUDA-synchronized."""
import json, statistics, sys, time
import torch, torchvision

def bench(model, make_batch, loss_fn, steps, warmup, amp):
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    x, y = make_batch()
    times = []
    for i in range(warmup + steps):
        torch.cuda.synchronize(); t0 = time.perf_counter()
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=amp):
            loss = loss_fn(model(x), y)
        loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        if i >= warmup: times.append(time.perf_counter() - t0)
    return statistics.median(times)

def main():
    dev = "cuda"
    out = []
    for precision in ("fp32-default", "tf32", "amp-bf16"):
        torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
        torch.backends.cudnn.allow_tf32 = precision != "fp32-default" or torch.backends.cudnn.allow_tf32
        amp = precision == "amp-bf16"
        for batch in (64, 256):
            m = torchvision.models.resnet50().to(dev).to(memory_format=torch.channels_last).train()
            mk = lambda: (torch.randn(batch, 3, 224, 224, device=dev).to(memory_format=torch.channels_last),
                          torch.randint(0, 1000, (batch,), device=dev))
            t = bench(m, mk, torch.nn.functional.cross_entropy, 20, 5, amp)
            out.append({"model": "resnet50", "precision": precision, "batch": batch,
                        "step_s": t, "samples_per_s": batch / t})
            print(json.dumps(out[-1]), flush=True)
            del m
        for batch in (32,):
            layer = torch.nn.TransformerEncoderLayer(1024, 16, 4096, dropout=0.1, batch_first=True)
            enc = torch.nn.TransformerEncoder(layer, 24, enable_nested_tensor=False)
            m = torch.nn.Sequential(torch.nn.Embedding(30522, 1024), enc, torch.nn.Linear(1024, 30522)).to(dev).train()
            mk = lambda: (torch.randint(0, 30522, (batch, 128), device=dev), torch.randint(0, 30522, (batch, 128), device=dev))
            lf = lambda o, y: torch.nn.functional.cross_entropy(o.reshape(-1, o.shape[-1]).float(), y.reshape(-1))
            t = bench(m, mk, lf, 10, 3, amp)
            out.append({"model": "bert-large-encoder-seq128", "precision": precision, "batch": batch,
                        "step_s": t, "samples_per_s": batch / t})
            print(json.dumps(out[-1]), flush=True)
            del m
    print("torch", torch.__version__, "torchvision", torchvision.__version__, torch.cuda.get_device_name())

if __name__ == "__main__":
    main()
