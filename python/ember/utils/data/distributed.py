"""DistributedSampler (torch.utils.data.distributed): each of `num_replicas` processes reads
its own 1/num_replicas of the dataset, the same permutation on every replica for one epoch."""
import math
from typing import Iterator, Optional, TypeVar

import ember

from .sampler import Sampler

__all__ = ["DistributedSampler"]

T_co = TypeVar("T_co", covariant=True)


def _distributed():
    # ember has no process groups of its own; a distributed package, when present, supplies the
    # world size and rank that were not given.
    dist = getattr(ember, "distributed", None)
    if dist is None or not dist.is_available():
        raise RuntimeError("Requires distributed package to be available")
    return dist


class DistributedSampler(Sampler[T_co]):
    r"""Indices for replica `rank` of `num_replicas`: a permutation seeded with `seed + epoch`
    (call `set_epoch` at the start of every epoch, or each epoch repeats the order), padded by
    repeating its start so every replica gets `num_samples` indices, or cut (`drop_last`)."""

    def __init__(self, dataset, num_replicas: Optional[int] = None, rank: Optional[int] = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None:
            num_replicas = _distributed().get_world_size()
        if rank is None:
            rank = _distributed().get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError("Invalid rank {}, rank should be in the interval"
                             " [0, {}]".format(rank, num_replicas - 1))
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(self.dataset)
        if self.drop_last and n % self.num_replicas != 0:
            # Drop the tail so every replica gets the same number of distinct samples.
            self.num_samples = math.ceil((n - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(n / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[T_co]:
        n = len(self.dataset)
        if self.shuffle:
            g = ember.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = ember.randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[:self.total_size]
        assert len(indices) == self.total_size
        indices = indices[self.rank:self.total_size:self.num_replicas]
        assert len(indices) == self.num_samples
        return iter(indices)

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        r"""Sets the epoch, which seeds the shuffle: all replicas must set the same one."""
        self.epoch = epoch
