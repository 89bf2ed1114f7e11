"""Kernel families. Importing this package registers every kernel in the registry."""

from . import pointwise, pointwise_select  # noqa: F401
from . import indexing  # noqa: F401
from . import sorting  # noqa: F401
from . import reduction, extrema, statistics, cumulative, norm, softmax  # noqa: F401
from . import factory  # noqa: F401
from . import view, shape, copy  # noqa: F401
from . import random  # noqa: F401
from . import linalg, einsum  # noqa: F401
from . import activation_backward, softmax_backward, view_backward  # noqa: F401
from . import adaptive_pool, adaptive_pool_backward, adaptive_pool_composite  # noqa: F401
from . import multinomial  # noqa: F401  (torch.utils.data's WeightedRandomSampler draws with it)
from . import optim_ops  # noqa: F401
from . import convolution, convolution_composite, padding  # noqa: F401
from . import api_ops, api_pointwise, api_shape  # noqa: F401  (torch.equal, isclose, meshgrid, diff, fmax, tril, logspace, ...)
