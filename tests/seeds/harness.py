"""Run a seed document's example under torch and under torchpy, changing only its imports.

`run_both(code)` executes the example as written (with `import torch` / `from torch...`
pointing at torchpy for the second run) and returns, per library, what it printed, what it
raised (type name and message) and the values named in `results`. A driver that exercises
an example which only defines things is passed as `driver` and run after it the same way.
"""

from __future__ import annotations

import contextlib
import io
import re
import textwrap
from dataclasses import dataclass, field
from typing import Any

_IMPORTS = [
    (re.compile(r"^(\s*)import torch as (\w+)", re.M), r"\1import torchpy as \2"),
    (re.compile(r"^(\s*)import torch\.(\S+) as (\w+)", re.M), r"\1import torchpy.\2 as \3"),
    (re.compile(r"^(\s*)import torch$", re.M), r"\1import torchpy as torch"),
    (re.compile(r"^(\s*)from torch(\.| )", re.M), r"\1from torchpy\2"),
]


def as_torchpy(code: str) -> str:
    """The example with its torch imports made torchpy imports, nothing else changed."""
    for pattern, replacement in _IMPORTS:
        code = pattern.sub(replacement, code)
    return code


@dataclass
class Outcome:
    printed: str
    error: tuple[str, str] | None
    results: dict[str, Any] = field(default_factory=dict)


def run(code: str, library: str, *, results: tuple[str, ...] = (), seed: int | None = None) -> Outcome:
    source = textwrap.dedent(code)
    if library == "torchpy":
        source = as_torchpy(source)
    if seed is not None:
        source = ("import torch\ntorch.manual_seed(%d)\n" % seed if library == "torch"
                  else "import torchpy as torch\ntorch.manual_seed(%d)\n" % seed) + source
    namespace: dict[str, Any] = {"__name__": "__main__"}  # classes print as __main__.X in both
    out = io.StringIO()
    error = None
    with contextlib.redirect_stdout(out):
        try:
            exec(compile(source, f"<seed example, {library}>", "exec"), namespace)
        except Exception as exc:  # the example's own error is part of what it shows
            error = (type(exc).__name__, str(exc))
    return Outcome(out.getvalue(), error, {name: _plain(namespace.get(name)) for name in results})


def _plain(value: Any) -> Any:
    """Tensors of either library as comparable (repr, type name) pairs."""
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if type(value).__module__.startswith(("torch", "torchpy")) or hasattr(value, "grad_fn"):
        return repr(value)
    return value


def run_both(code: str, *, results: tuple[str, ...] = (), seed: int | None = None) -> tuple[Outcome, Outcome]:
    return run(code, "torch", results=results, seed=seed), run(code, "torchpy", results=results, seed=seed)


def assert_same(code: str, *, results: tuple[str, ...] = (), seed: int | None = None,
                expect_error: type[BaseException] | None = None) -> Outcome:
    """The example prints, returns and raises the same under both libraries. It must run to its
    end under torch unless `expect_error` names the exception torch's run ends with."""
    theirs, ours = run_both(code, results=results, seed=seed)
    if expect_error is None:
        assert theirs.error is None, f"torch's run raised {theirs.error}"
    else:
        assert theirs.error is not None and theirs.error[0] == expect_error.__name__, theirs.error
    assert ours.error == theirs.error, ours.printed
    assert ours.printed == theirs.printed
    assert ours.results == theirs.results
    return theirs
