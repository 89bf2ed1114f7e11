"""torch.utils.data._utils' import paths, which torch's documentation names for extending collation
(`_utils.collate.collate` with a `collate_fn_map`): the same objects as torchpy.utils.data's."""

from . import collate, worker  # noqa: F401
