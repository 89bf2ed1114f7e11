"""Seed 001 (the Chinese "Extending torch native API"): the `__torch_dispatch__` calling
convention. The example is the handler's signature with an empty body; on a tensor subclass
it makes every op return None. The normalization rules the seed states are checked with a
handler that prints what it receives."""

from .harness import assert_same

SEED_HANDLER = '''
@classmethod
def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
    ...
'''

EMPTY_HANDLER_DRIVER = '''
import torch

class Convention(torch.Tensor):
    pass

Convention.__torch_dispatch__ = __torch_dispatch__
x = torch.Tensor._make_subclass(Convention, torch.ones(2))
print(torch.add(x, 2), x.sum(), torch.mul(x, x))
'''


def test_calling_convention_signature():
    assert_same("import torch\n" + SEED_HANDLER + EMPTY_HANDLER_DRIVER)


# The seed's rules: kwargs hold keyword-only arguments, dropped when equal to their default;
# args hold the rest however they were passed, trailing defaults dropped.
NORMALIZATION = '''
import torch

base = torch.arange(6.0).view(2, 3)

def plain(a):
    if isinstance(a, list):
        return [plain(v) for v in a]
    return base if isinstance(a, torch.Tensor) else a

class Recording(torch.Tensor):
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        shown = [[type(v).__name__ for v in a] if isinstance(a, list)
                 else type(a).__name__ if isinstance(a, torch.Tensor) else a for a in args]
        print(func, shown, kwargs)
        return func(*[plain(a) for a in args], **(kwargs or {}))

x = torch.Tensor._make_subclass(Recording, torch.arange(6.0).view(2, 3))
torch.add(x, 2)
torch.add(x, x, alpha=1)
torch.add(x, other=x, alpha=3)
torch.sum(x, dim=0)
x.sum(0, keepdim=False)
x.sum(dim=1, keepdim=True, dtype=torch.float64)
torch.zeros_like(x, dtype=torch.int64)
x.clamp(min=0)
x.transpose(1, 0)
torch.cat([x, x], dim=0)
x.to(torch.float64)
'''


def test_arguments_are_normalized_as_the_seed_describes():
    assert_same(NORMALIZATION)
