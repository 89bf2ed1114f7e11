"""Code above the dispatcher calls ops through its one call entry and never reads the
resolution caches: only `torchpy/_dispatch/` knows they exist (a dispatch trace, which
empties them, depends on it)."""

import pathlib
import re

import torchpy
from torchpy._dispatch import ops
from torchpy._dispatch.ops import call, call_kw

PACKAGE = pathlib.Path(torchpy.__file__).parent

# the caches' names on OpOverload and OperatorEntry, the resolution entry points, the guard
# that hot paths once used to detect a trace, and OpOverload's former private entry points
# (binder, n_fast, call_normalized, redispatch_raw are public now)
_PRIVATE = re.compile(
    r"\b_?(?:call_cache|call_raw_cache|plain_cache)\b|\._cache\b|\bPLAIN_CALL\b"
    r"|_entry\.(?:cache|resolve|lookup)\b|\bentry\.(?:cache|resolve|lookup)\b"
    r"|\._(?:binder|n_fast|call_normalized|redispatch_raw)\b"
)


def test_nothing_outside_the_dispatcher_reads_its_caches():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.parent.name == "_dispatch" and path.parent.parent == PACKAGE:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if _PRIVATE.search(line):
                offenders.append(f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_the_pattern_finds_what_it_forbids():
    for line in ("hit = op._call_raw_cache.get(s)", "fn = op._plain_cache.get(ks)", "op._cache.get(ks)",
                 "if OpOverload.__call__ is PLAIN_CALL:", "op._entry.resolve(ks)", "entry.cache.get(ks)",
                 "op._binder.bind(args, kwargs)", "op._redispatch_raw(ks, args, kwargs)"):
        assert _PRIVATE.search(line), line


def test_call_dispatches_normalized_arguments_in_full():
    x = torchpy.tensor([1.0, -2.0], requires_grad=True)
    y = call(ops.op_for("aten::mul.Tensor"), x._keyset, x, x)
    assert y.grad_fn is not None and y.tolist() == [1.0, 4.0]  # through autograd
    z = call_kw(ops.op_for("aten::sum.dim_IntList"), x._keyset, (x, [0]), {"dtype": torchpy.float64})
    assert z.dtype == torchpy.float64 and z.item() == -1.0
