# Everyday PyTorch code around a training loop, run as it is after `import ember as torch`:
# a map-style Dataset, a DataLoader with two worker processes, a forward hook, the best model
# kept as a deep copy, a checkpoint pickled in memory and loaded into a fresh model.
# Data and initial weights come from numpy, so ember and PyTorch print the same numbers.
import copy
import io
import pickle

import numpy as np

import ember as torch
import ember.nn as nn
from ember.utils.data import DataLoader, Dataset, Subset


class Spirals(Dataset):
    """Two interleaved spirals: 2-d points, labels 0 and 1."""

    def __init__(self, n, seed):
        rng = np.random.RandomState(seed)
        t = np.sqrt(rng.rand(n)) * 3 * np.pi
        label = rng.randint(0, 2, n)
        r = t + 0.3 * rng.randn(n)
        sign = np.where(label == 1, 1.0, -1.0)
        self.points = np.stack([sign * r * np.cos(t), sign * r * np.sin(t)], 1) / 10
        self.labels = label

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return torch.from_numpy(self.points[i]), int(self.labels[i])


def make_model():
    model = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 2))
    rng = np.random.RandomState(1)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(rng.randn(*p.shape) * 0.5))
    return model.double()


def accuracy(model, loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
    model.train()
    return correct / len(loader.dataset)


if __name__ == "__main__":
    data = Spirals(640, seed=0)
    train, valid = Subset(data, range(512)), Subset(data, range(512, 640))
    train_loader = DataLoader(train, batch_size=64, num_workers=2, persistent_workers=True)
    valid_loader = DataLoader(valid, batch_size=128)
    x, y = next(iter(train_loader))
    print("batch:", tuple(x.shape), x.dtype, tuple(y.shape), y.dtype)

    model = make_model()
    calls = []
    model[0].register_forward_hook(lambda module, inputs, output: calls.append(tuple(output.shape)))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    best, best_acc = None, -1.0
    for epoch in range(1, 31):
        total = 0.0
        for x, y in train_loader:
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            total += loss.item() * len(y)
        acc = accuracy(model, valid_loader)
        if acc > best_acc:
            best, best_acc = copy.deepcopy(model), acc
        if epoch % 10 == 0:
            print(f"epoch {epoch}: loss {total / len(train):.4f}, valid accuracy {acc:.4f}")
    print("hook calls:", len(calls), calls[0])
    print("best valid accuracy:", best_acc)
    print("the copy is independent:", best[0].weight is not model[0].weight)

    buffer = io.BytesIO()
    pickle.dump({"model": best.state_dict(), "opt": opt.state_dict()}, buffer)
    checkpoint = pickle.loads(buffer.getvalue())
    restored = make_model()
    print(restored.load_state_dict(checkpoint["model"]))
    print("restored accuracy:", accuracy(restored, valid_loader))
    print("momentum buffers:", len(checkpoint["opt"]["state"]))
