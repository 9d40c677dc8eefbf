"""Samplers (torch.utils.data.sampler): the order in which a DataLoader visits a dataset.

Random samplers draw from `generator` when one is given and from ember's default generator
otherwise, so `ember.manual_seed` makes them reproducible.
"""
from typing import Generic, Iterable, Iterator, List, Optional, Sequence, Sized, TypeVar, Union

import ember

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler",
           "WeightedRandomSampler"]

T_co = TypeVar("T_co", covariant=True)


def _randperm(n, generator):
    if generator is None:
        return ember.randperm(n)
    return ember.randperm(n, generator=generator)


def _randint(high, count, generator):
    out = ember.empty(count, dtype=ember.int64)
    if generator is None:
        return out.random_(0, high)
    return out.random_(0, high, generator=generator)


class Sampler(Generic[T_co]):
    r"""Base class: subclasses define `__iter__` over indices (and `__len__` when known)."""

    def __init__(self, data_source: Optional[Sized]) -> None:
        pass

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    r"""0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    r"""Random indices: a fresh permutation per pass without replacement (num_samples larger
    than the dataset chains several), independent uniform draws with replacement."""

    def __init__(self, data_source: Sized, replacement: bool = False,
                 num_samples: Optional[int] = None, generator=None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            "replacement={}".format(self.replacement))
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer "
                             "value, but got num_samples={}".format(self.num_samples))

    @property
    def num_samples(self) -> int:
        # The dataset may change size between constructing the sampler and iterating it.
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        if self.replacement:
            # In blocks of 32 draws, as PyTorch, so a partly consumed pass draws little extra.
            for _ in range(self.num_samples // 32):
                yield from _randint(n, 32, self.generator).tolist()
            yield from _randint(n, self.num_samples % 32, self.generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from _randperm(n, self.generator).tolist()
            yield from _randperm(n, self.generator).tolist()[:self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    r"""The given indices in a random order, without replacement."""

    def __init__(self, indices: Sequence[int], generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in _randperm(len(self.indices), self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    r"""Indices 0..len(weights)-1 drawn with probabilities proportional to `weights`."""

    def __init__(self, weights: Sequence[float], num_samples: int,
                 replacement: bool = True, generator=None) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError("num_samples should be a positive integer "
                             "value, but got num_samples={}".format(num_samples))
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got "
                             "replacement={}".format(replacement))
        weights_tensor = ember.as_tensor(weights, dtype=ember.double)
        if len(weights_tensor.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given "
                             "weights have shape {}".format(tuple(weights_tensor.shape)))
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        if self.generator is None:
            drawn = ember.multinomial(self.weights, self.num_samples, self.replacement)
        else:
            drawn = ember.multinomial(self.weights, self.num_samples, self.replacement,
                                      generator=self.generator)
        yield from iter(drawn.tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[List[int]]):
    r"""Groups the indices of `sampler` into lists of `batch_size` (the last one shorter unless
    `drop_last`)."""

    def __init__(self, sampler: Union[Sampler[int], Iterable[int]], batch_size: int,
                 drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, "
                             "but got batch_size={}".format(batch_size))
        if not isinstance(drop_last, bool):
            raise ValueError("drop_last should be a boolean value, but got "
                             "drop_last={}".format(drop_last))
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[List[int]]:
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
