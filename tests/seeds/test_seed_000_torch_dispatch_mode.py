"""Seed 000 ("Extending torch native API"): its one example is TorchDispatchMode's own source.
It runs as written (with the names it uses imported from the library), and a mode built
on it logs the same aten calls under torch and torchpy."""

from .harness import assert_same

# What the class body refers to: the helpers of torch.utils._python_dispatch and its globals.
PRELUDE = '''
import torch
from collections import deque
from typing import Deque
from torch.utils._python_dispatch import _push_mode, _pop_mode

_is_in_torch_dispatch_mode = False
_is_in_non_infra_torch_dispatch_mode = False
'''

SEED_CLASS = '''
class TorchDispatchMode:

    """
    Independent subclasses of :class:`TorchDispatchMode` are compositional:
    modes can be pushed onto a stack using ``with MyMode():``.
    When you call functions in the PyTorch API inside your
    ``__torch_dispatch__`` implementation, by default, they will forward on to
    the next mode on the mode stack.  If you want recursively call back into
    your current ``__torch_dispatch__`` implementation, either explicitly
    invoke ``self.__torch_dispatch__(...)``, or use the context manager
    ``__torch_dispatch__(self)`` to make PyTorch
    API self-referential (beware of infinite loops, in this case!)
    """

    def __init__(self, _dispatch_key=None):
        if _dispatch_key is not None:
            assert isinstance(_dispatch_key, torch._C.DispatchKey)
            self.__dict__["_dispatch_key"] = _dispatch_key

        self.old_dispatch_mode_flags: Deque[bool] = deque()
        self.old_non_infra_dispatch_mode_flags: Deque[bool] = deque()

    def _lazy_init_old_dispatch_mode_flags(self):
        if not hasattr(self, "old_dispatch_mode_flags"):
            self.old_dispatch_mode_flags: Deque[bool] = deque()  # type: ignore[no-redef]

        if not hasattr(self, "old_non_infra_dispatch_mode_flags"):
            self.old_non_infra_dispatch_mode_flags: Deque[bool] = deque()  # type: ignore[no-redef]

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        global _is_in_torch_dispatch_mode
        global _is_in_non_infra_torch_dispatch_mode
        # Previously, there wasn't any state in this class' constructor
        # super calls were added to existing modes, but for any new modes
        # this will replicate the previous behavior of not strictly needing
        # to call super().__init__()
        self._lazy_init_old_dispatch_mode_flags()
        self.old_dispatch_mode_flags.append(_is_in_torch_dispatch_mode)
        _is_in_torch_dispatch_mode = True
        self.old_non_infra_dispatch_mode_flags.append(_is_in_non_infra_torch_dispatch_mode)
        _is_in_non_infra_torch_dispatch_mode = _is_in_non_infra_torch_dispatch_mode or not self.is_infra_mode()
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        mb_dk_or_mode_key = self.__dict__.get("_dispatch_key", None)
        if mb_dk_or_mode_key is None:
            # Today, mode keys are not used at all in the per-dispatch-key-mode logic (for pre-dispatch)
            # We should probably revisit this.
            mb_dk_or_mode_key = self.__dict__.get("_mode_key", None)
        global _is_in_torch_dispatch_mode
        _is_in_torch_dispatch_mode = self.old_dispatch_mode_flags.pop()
        global _is_in_non_infra_torch_dispatch_mode
        _is_in_non_infra_torch_dispatch_mode = self.old_non_infra_dispatch_mode_flags.pop()
        _pop_mode(mb_dk_or_mode_key)

    @classmethod
    def is_infra_mode(cls):
        return False
'''

DRIVER = '''
class Printing(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        print(func, args, kwargs, _is_in_torch_dispatch_mode)
        return func(*args, **(kwargs or {}))

x = torch.tensor([1.0, 2.0], requires_grad=True)
with Printing() as mode:
    y = (x * 2).sum()
    torch.zeros(2, dtype=torch.int64)
    y.backward()
print(_is_in_torch_dispatch_mode, list(mode.old_dispatch_mode_flags), x.grad)
with Printing(), Printing():  # nested: the inner one's calls go to the outer one
    x.detach() + 1
print(Printing.is_infra_mode(), isinstance(Printing(torch._C.DispatchKey.Python).__dict__["_dispatch_key"],
                                           torch._C.DispatchKey))
Printing().__torch_dispatch__ is not None
try:
    with TorchDispatchMode():
        x + 1
except NotImplementedError as e:
    print("NotImplementedError", _is_in_torch_dispatch_mode)
'''


def test_torch_dispatch_mode_source_as_a_working_mode():
    assert_same(PRELUDE + SEED_CLASS + DRIVER)
