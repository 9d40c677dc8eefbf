# A small character-level transformer language model, trained for two hundred steps on a text
# every Debian system ships (the GPL-3 licence): token and learned position embeddings, two
# pre-norm TransformerEncoderLayers under a causal mask, a linear head, AdamW, gradient clipping.
# (No dropout: a few hundred steps on 35k characters do not overfit.)
# Written for PyTorch; runs as it is after `import ember as torch`. The batches come from numpy,
# so ember and PyTorch see the same data (the initial weights differ: each library draws its own).
#
#   PYTHONPATH=build/python /usr/bin/python3 examples/python/char_transformer.py [--steps 200]
import argparse
import math
import time

import numpy as np

import ember as torch
import ember.nn as nn

TEXT = "/usr/share/common-licenses/GPL-3"


class CharTransformer(nn.Module):
    def __init__(self, vocab, context, d_model=64, nhead=4, num_layers=2, dim_feedforward=128,
                 dropout=0.0):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.pos = nn.Parameter(torch.zeros(context, d_model))
        nn.init.normal_(self.pos, std=0.02)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout,
                                           activation="gelu", batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(context))

    def forward(self, idx):
        t = idx.size(1)
        x = self.embed(idx) + self.pos[:t]
        x = self.encoder(x, mask=self.mask[:t, :t])
        return self.head(self.norm(x))


def batches(data, context, batch_size, seed):
    rng = np.random.RandomState(seed)
    while True:
        starts = rng.randint(0, len(data) - context - 1, batch_size)
        x = np.stack([data[s:s + context] for s in starts])
        y = np.stack([data[s + 1:s + context + 1] for s in starts])
        yield torch.from_numpy(x), torch.from_numpy(y)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--context", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--print-every", type=int, default=40)
    args = parser.parse_args()

    text = open(TEXT, encoding="utf-8").read()
    chars = sorted(set(text))
    index = {c: i for i, c in enumerate(chars)}
    data = np.array([index[c] for c in text], dtype=np.int64)
    print(f"corpus: {TEXT}, {len(text)} characters, {len(chars)} distinct")

    torch.manual_seed(0)
    model = CharTransformer(len(chars), args.context)
    print(f"model: {sum(p.numel() for p in model.parameters())} parameters")
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    loss_fn = nn.CrossEntropyLoss()

    model.train()
    first = last = None
    start = time.perf_counter()
    for step, (x, y) in zip(range(args.steps), batches(data, args.context, args.batch_size, 0)):
        logits = model(x)
        loss = loss_fn(logits.reshape(-1, len(chars)), y.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        value = loss.item()
        first = value if first is None else first
        last = value
        if step % args.print_every == 0 or step == args.steps - 1:
            print(f"step {step:4d}  loss {value:.3f}")
    elapsed = time.perf_counter() - start
    uniform = math.log(len(chars))
    print(f"loss fell from {first:.3f} to {last:.3f} (a uniform guess: {uniform:.3f})")
    print(f"{elapsed / args.steps * 1000:.1f} ms per step")
    if not last < first:
        raise SystemExit("the loss did not fall")


if __name__ == "__main__":
    main()
