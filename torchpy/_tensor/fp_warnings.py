"""NumPy's floating-point warnings ("overflow encountered in add", "divide by zero ..."), which
PyTorch never gives, kept silent in the kernels. Two ways, one cheap and one always right:

* Set NumPy's error state to "ignore" around the call (`set_quiet` / `reset_quiet`, or
  `with quiet():`). np.errstate costs ~1.4 us per use; setting its context variable directly
  ~0.3 us (the set, the reset, and NumPy's slower read of a variable just changed).

* A warnings filter, installed at import, that ignores those warnings when a module of
  torchpy._aten.kernels called the ufunc from its own frame (Python charges a warning raised
  in C to the innermost Python frame). It costs nothing until a warning happens. It holds
  while NumPy's error state is its default (warnings: not errors, prints or calls) and no
  filter in front of it could take such a warning (show it, or make it an error). `silent()`
  is that test; hot kernels inline it as `FILTER_HOLDS[0] and errstate() is DEFAULT_ERRSTATE`
  (~0.05 us) and then call the ufunc directly. It covers only ufuncs called from a kernel's
  own frame: code that runs NumPy's Python functions (whose frames the filter does not match)
  sets the error state instead.

The filter goes last, so that the program's own filters come first. FILTER_HOLDS is worked out
again whenever the filters change: the warnings module reports every change it makes
(filterwarnings, simplefilter, resetwarnings, catch_warnings) through its `_filters_mutated`
hook, which is wrapped here (and which puts the filter back where a change dropped it). Where
that hook is missing, or not used as in CPython 3.10-3.13, FILTER_HOLDS stays False and the
kernels always set the error state. A program that calls np.seterr() (rather than using
np.errstate blocks) leaves a non-default state: the kernels then set the state themselves.
"""

from __future__ import annotations

import contextvars
import warnings
from typing import Any, Callable

import numpy as np

try:
    from numpy._core.umath import _extobj_contextvar, _make_extobj

    QUIET: Any = _make_extobj(all="ignore")
    set_quiet: Callable[[Any], Any] = _extobj_contextvar.set
    reset_quiet: Callable[[Any], None] = _extobj_contextvar.reset
    errstate: Callable[[], Any] = _extobj_contextvar.get
    DEFAULT_ERRSTATE: Any = contextvars.Context().run(errstate)  # the default, whatever is set now
except ImportError:  # pragma: no cover - depends on the NumPy build
    QUIET = None

    def set_quiet(_: Any) -> Any:
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def reset_quiet(state: Any) -> None:
        state.__exit__(None, None, None)

    def errstate() -> Any:
        return None

    DEFAULT_ERRSTATE = object()  # never the current state: the filter is never relied on


class quiet:
    """`with quiet():` runs NumPy code without floating-point warnings (PyTorch has none)."""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        self._token = set_quiet(QUIET)

    def __exit__(self, *exc: Any) -> None:
        reset_quiet(self._token)


_KERNELS = __name__.partition(".")[0] + "._aten.kernels"  # the modules that rely on the filter
# Appended, the last filter consulted: any filter of the program's own comes first.
warnings.filterwarnings("ignore", r"(overflow|invalid value|divide by zero|underflow) encountered in",
                        RuntimeWarning, _KERNELS.replace(".", r"\.") + r"\.", append=True)
_OURS = warnings.filters[-1]


def _filters_reach_ours(filters: list) -> bool:
    """Whether a NumPy floating-point warning from a kernel module gets to our filter: every
    filter in front of it ignores, or cannot match the warning's category or module."""
    for item in filters:
        if item is _OURS:
            return True
        action, message, category, module, lineno = item
        if not issubclass(RuntimeWarning, category) or (module is not None and
                                                        not module.match(_KERNELS + ".elementwise")):
            continue  # cannot match
        if action == "ignore":
            if message is None and not lineno:
                return True  # takes every such warning, and ignores it
            continue
        return False  # it could show the warning, or raise it
    return False  # ours is not there


FILTER_HOLDS = [False]  # _filters_reach_ours(warnings.filters), kept current


def _hook_is_used() -> bool:
    names = [warnings._add_filter, warnings.resetwarnings, warnings.catch_warnings.__enter__,
             warnings.catch_warnings.__exit__]
    return all("_filters_mutated" in fn.__code__.co_names for fn in names)


def _install() -> None:
    try:
        original = warnings._filters_mutated
        if not _hook_is_used():
            return
    except AttributeError:  # pragma: no cover - another Python's warnings module
        return

    def filters_mutated() -> None:
        original()
        filters = warnings.filters
        if _OURS not in filters:
            # gone with a catch_warnings block torchpy was imported in (pytest collects tests in
            # one), or with resetwarnings(): put back, last again
            filters.append(_OURS)
            original()
        FILTER_HOLDS[0] = _filters_reach_ours(filters)

    warnings._filters_mutated = filters_mutated
    FILTER_HOLDS[0] = _filters_reach_ours(warnings.filters)


_install()


def silent() -> bool:
    """Whether a ufunc called from a kernel's own frame gives no floating-point warning
    without the error state being set."""
    return FILTER_HOLDS[0] and errstate() is DEFAULT_ERRSTATE
