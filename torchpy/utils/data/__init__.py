"""torchpy.utils.data: torch.utils.data's datasets, samplers, collation and DataLoader."""

from . import _utils  # noqa: F401  (torch.utils.data._utils.collate, as torch documents it)
from .collate import default_collate, default_convert
from .dataloader import DataLoader
from .datapipes import (
    DataChunk, DFIterDataPipe, IterDataPipe, MapDataPipe, argument_validation, functional_datapipe,
    guaranteed_datapipes_determinism, non_deterministic, runtime_validation, runtime_validation_disabled,
)
from .dataset import (
    ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset, random_split,
)
from .distributed import DistributedSampler
from .fetch import DatasetKind as _DatasetKind  # noqa: F401  (torch exports it under this name)
from .sampler import (
    BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler, WeightedRandomSampler,
)
from .worker import get_worker_info

__all__ = [
    "BatchSampler", "ChainDataset", "ConcatDataset", "DFIterDataPipe", "DataChunk", "DataLoader", "Dataset",
    "DistributedSampler", "IterDataPipe", "IterableDataset", "MapDataPipe", "RandomSampler", "Sampler",
    "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler", "TensorDataset",
    "WeightedRandomSampler", "argument_validation", "default_collate", "default_convert",
    "functional_datapipe", "get_worker_info", "guaranteed_datapipes_determinism", "non_deterministic",
    "random_split", "runtime_validation", "runtime_validation_disabled",
]
