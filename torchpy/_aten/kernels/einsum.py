"""einsum as PyTorch computes it (CompositeImplicitAutograd).

Parse the equation into labels per operand; align every operand to one dim per output
label, then per contraction label (unsqueeze for labels it lacks, a diagonal for a
repeated one, then permute); contract the operands pairwise, left to right or along
`path`, each pair as permute/reshape/bmm/view/permute (sumproduct_pair), summing early
any dim only one side still has; finally sum or view away the contraction dims. Every
step is an aten op call, so a TorchDispatchMode sees PyTorch's sequence.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

from ..._dispatch.ops import ops
from ..._tensor.tensor import Tensor
from ..._tensor.torch_function import handle_torch_function, has_torch_function
from ..build import FUNCTIONS
from ..registry import register
from .linalg import aten_call

aten = ops.aten


_LETTERS = 26
_ELLIPSIS = 2 * _LETTERS


def _subscript(label: str) -> int:
    """A..Z -> 0..25, a..z -> 26..51."""
    return ord(label) - ord("A") if label.isupper() else ord(label) - ord("a") + _LETTERS


def _label(subscript: int) -> str:
    return chr(ord("A") + subscript) if subscript < _LETTERS else chr(ord("a") + subscript - _LETTERS)


def _is_letter(c: str) -> bool:
    return c.isascii() and c.isalpha()


def _parse_operands(lhs: str, num_ops: int) -> list[list[int]]:
    labels: list[list[int]] = [[] for _ in range(num_ops)]
    current = 0
    seen_ellipsis = False
    i = 0
    while i < len(lhs):
        c = lhs[i]
        if c == " ":
            pass
        elif c == ".":
            if seen_ellipsis:
                raise RuntimeError(
                    f"einsum(): found '.' for operand {current} for which an ellipsis was already found")
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise RuntimeError(f"einsum(): found '.' for operand {current} that is not part of any ellipsis")
            i += 2
            labels[current].append(_ELLIPSIS)
            seen_ellipsis = True
        elif c == ",":
            current += 1
            if current >= num_ops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
            seen_ellipsis = False
        else:
            if not _is_letter(c):
                raise RuntimeError(
                    f"einsum(): invalid subscript given at index {i} in the equation string, subscripts must "
                    "be in [a-zA-Z]")
            labels[current].append(_subscript(c))
        i += 1
    if current != num_ops - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return labels


class _Layout(NamedTuple):
    """Where each label goes in the aligned operands: output dims first, then contraction dims."""
    label_perm_index: list[int]  # label -> index, -1 for unused labels
    perm_index: int              # the aligned rank
    out_num_dim: int             # how many of the leading indices are output dims
    ell_num_dim: int             # dims the ellipsis covers
    ell_index: int               # where they start


def einsum(equation: str, tensors: Sequence[Tensor], *, path: Sequence[int] | None = None) -> Tensor:
    """PyTorch's einsum: align every operand to (output dims, contraction dims) by unsqueeze and
    permute (diagonals for repeated labels), then contract pairs left to right (or along
    `path`) with sumproduct_pair, and sum or view away what is left of the contraction dims."""
    if not tensors:
        raise RuntimeError("einsum(): must provide at least one operand")
    num_ops = len(tensors)
    if path is not None:
        wanted = 1 if num_ops == 1 else (num_ops - 1) * 2
        if len(path) != wanted:
            raise RuntimeError(
                f"einsum(): expected contraction path given in path parameter to have size {wanted} but got "
                f"{len(path)}")
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = _parse_operands(lhs, num_ops)
    label_count, ell_num_dim = _count_labels(tensors, op_labels)
    layout = _layout(equation, arrow, len(lhs), label_count, ell_num_dim)
    aligned, dim_counts = _align_operands(tensors, op_labels, layout)
    return _contract(aligned, dim_counts, layout.out_num_dim, layout.perm_index, path, num_ops)


def _count_labels(tensors: Sequence[Tensor], op_labels: list[list[int]]) -> tuple[list[int], int]:
    """How often each label occurs, and the most dims an ellipsis covers; checks the counts."""
    label_count = [0] * _ELLIPSIS
    ell_num_dim = 0
    for i, (operand, labels) in enumerate(zip(tensors, op_labels)):
        ndims = operand.dim()
        nlabels = len(labels)
        has_ellipsis = _ELLIPSIS in labels
        if has_ellipsis:
            nlabels -= 1
            ell_num_dim = max(ell_num_dim, ndims - nlabels)
        for s in labels:
            if s != _ELLIPSIS:
                label_count[s] += 1
        if (nlabels > ndims) if has_ellipsis else (nlabels != ndims):
            what = "is more than" if has_ellipsis else "does not match"
            tail = "" if has_ellipsis else " and no ellipsis was given"
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({nlabels}) {what} the number of dimensions "
                f"({ndims}) for operand {i}{tail}")
    return label_count, ell_num_dim


def _layout(equation: str, arrow: int, lhs_length: int, label_count: list[int], ell_num_dim: int) -> _Layout:
    """The output's indices (explicit after '->', else the ellipsis then the labels seen once),
    then the contraction labels in label order."""
    label_perm_index = [-1] * _ELLIPSIS
    perm_index = 0
    ell_index = 0
    ell_in_output = False
    if arrow < 0:
        perm_index = ell_num_dim
        ell_in_output = True
        for s in range(_ELLIPSIS):
            if label_count[s] == 1:
                label_perm_index[s] = perm_index
                perm_index += 1
    else:
        rhs = equation[arrow + 2:]
        i = 0
        while i < len(rhs):
            c = rhs[i]
            if c == ".":
                if ell_in_output:
                    raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was already found")
                if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                    raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis (...)")
                i += 2
                ell_index = perm_index
                perm_index += ell_num_dim
                ell_in_output = True
            elif c != " ":
                if not _is_letter(c):
                    raise RuntimeError(
                        f"einsum(): invalid subscript given at index {lhs_length + 2 + i} in the equation string, "
                        "subscripts must be in [a-zA-Z]")
                s = _subscript(c)
                if label_count[s] == 0 or label_perm_index[s] != -1:
                    why = ("appears more than once in the output" if label_perm_index[s] > -1
                           else "does not appear in the equation for any input operand")
                    raise RuntimeError(f"einsum(): output subscript {c} {why}")
                label_perm_index[s] = perm_index
                perm_index += 1
            i += 1
    out_num_dim = perm_index
    if not ell_in_output:  # the ellipsis dims are summed over
        ell_index = perm_index
        perm_index += ell_num_dim
    for s in range(_ELLIPSIS):
        if label_count[s] > 0 and label_perm_index[s] == -1:
            label_perm_index[s] = perm_index
            perm_index += 1
    return _Layout(label_perm_index, perm_index, out_num_dim, ell_num_dim, ell_index)


def _align_operands(tensors: Sequence[Tensor], op_labels: list[list[int]],
                    layout: _Layout) -> tuple[list[Tensor], list[int]]:
    """Each operand with one dim per output/contraction index (size 1 where it has none), and
    per index the number of operands whose size there is not 1."""
    label_perm_index, perm_index, _, ell_num_dim, ell_index = layout
    label_size = [1] * _ELLIPSIS
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm_index
    aligned = []
    for i, (operand, labels) in enumerate(zip(tensors, op_labels)):
        op = operand
        permutation = [-1] * perm_index
        dim = 0
        for s in labels:
            if s == _ELLIPSIS:
                covered = operand.dim() - (len(labels) - 1)
                for j in range(ell_num_dim - covered, ell_num_dim):
                    size = op._shape[dim]
                    if size != 1:
                        if ell_sizes[j] != 1 and ell_sizes[j] != size:
                            raise RuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {i}has size {size} which "
                                f"does not broadcast with previously seen ellipsis with size {ell_sizes[j]} for the "
                                "respective dimension")
                        ell_sizes[j] = size
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[label_perm_index[s]] == -1:
                size = op._shape[dim]
                if size != 1:
                    if label_size[s] != 1 and label_size[s] != size:
                        raise RuntimeError(
                            f"einsum(): subscript {_label(s)} has size {size} for operand {i} which does not "
                            f"broadcast with previously seen size {label_size[s]}")
                    label_size[s] = size
                    dim_counts[label_perm_index[s]] += 1
                permutation[label_perm_index[s]] = dim
                dim += 1
            else:  # a repeated label: take the diagonal, where the label first appeared
                previous = permutation[label_perm_index[s]]
                if op._shape[dim] != op._shape[previous]:
                    raise RuntimeError(
                        f"einsum(): subscript {_label(s)} is repeated for operand {i} but the sizes don't match, "
                        f"{op._shape[dim]} != {op._shape[previous]}")
                op = aten.diagonal.default(op, 0, previous, dim)
                op = _movedim_last_to(op, previous)
        for k, value in enumerate(permutation):
            if value == -1:
                op = aten_call("unsqueeze", op, dim)
                permutation[k] = dim
                dim += 1
        aligned.append(aten_call("permute", op, permutation))
    return aligned, dim_counts


def _movedim_last_to(op: Tensor, destination: int) -> Tensor:
    """op.movedim(-1, destination), which PyTorch decomposes into one permute."""
    order = list(range(op.dim() - 1))
    order.insert(destination, op.dim() - 1)
    return aten_call("permute", op, order)


def _contract(operands: list[Tensor], dim_counts: list[int], out_num_dim: int, perm_index: int,
              path: Sequence[int] | None, num_ops: int) -> Tensor:
    ops_left = list(operands)
    steps = iter(path or ())
    while len(ops_left) > 1:
        i, j = 0, 1
        if path is not None:
            i, j = next(steps), next(steps)
            if j < i:
                i, j = j, i
            if i == j or i < 0 or j >= len(ops_left):
                why = "cannot contract an operand with itself" if i == j else "operand index is out of bounds"
                raise RuntimeError(f"einsum(): invalid contraction ({i}, {j}) {why}")
        a, b = ops_left[i], ops_left[j]
        del ops_left[j]
        del ops_left[i]
        sum_dims, a_dims, b_dims = [], [], []
        for dim in range(out_num_dim, perm_index):
            sa, sb = a._shape[dim] != 1, b._shape[dim] != 1
            if sa and sb:
                if a._shape[dim] != b._shape[dim]:
                    raise RuntimeError("non-broadcast dimensions must match")
                dim_counts[dim] -= 1
                if dim_counts[dim] == 1:
                    sum_dims.append(dim)
                    dim_counts[dim] = 0
            elif dim_counts[dim] == 1:
                if sa:
                    a_dims.append(dim)
                    dim_counts[dim] = 0
                elif sb:
                    b_dims.append(dim)
                    dim_counts[dim] = 0
        if a_dims:
            a = aten_call("sum.dim_IntList", a, a_dims, True)
        if b_dims:
            b = aten_call("sum.dim_IntList", b, b_dims, True)
        pair = _sumproduct_pair(a, b, sum_dims)
        if path is not None:
            ops_left.append(pair)
        else:
            ops_left.insert(0, pair)

    result = ops_left[0]
    if perm_index - out_num_dim > 0:
        if num_ops > 1:  # every contraction dim has size 1 by now
            return aten_call("view", result, list(result._shape[:out_num_dim]))
        return aten_call("sum.dim_IntList", result, list(range(out_num_dim, perm_index)))
    return result


def _sumproduct_pair(left: Tensor, right: Tensor, sum_dims: list[int]) -> Tensor:
    """(left * right).sum(sum_dims, keepdim=True) as permute, reshape, bmm, view, permute."""
    if not sum_dims:
        return aten.mul.Tensor(left, right)
    ndim = left.dim()
    summed = set(sum_dims)
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(ndim):
        sl, sr = left._shape[i] != 1, right._shape[i] != 1
        if i in summed:
            if sl and sr:
                if left._shape[i] != right._shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left._shape[i]
            elif sl:
                left = aten_call("sum.dim_IntList", left, [i], True)
            elif sr:
                right = aten_call("sum.dim_IntList", right, [i], True)
        elif sl and sr:
            if left._shape[i] != right._shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left._shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left._shape[i]
        else:
            ro.append(i)
            ro_size *= right._shape[i]
    # If right's dims all come before left's in the output, swapping the operands lets bmm
    # produce the result in its final memory order.
    if lo and ro and ro[-1] < lo[0]:
        left, right = right, left
        lo, ro = ro, lo
        lo_size, ro_size = ro_size, lo_size
    out_size = ([left._shape[d] for d in lro] + [left._shape[d] for d in lo] + [1] * len(sum_dims)
                + [right._shape[d] for d in ro])
    lpermutation = lro + lo + sum_dims + ro
    rpermutation = lro + sum_dims + ro + lo
    opermutation = [-1] * len(out_size)
    for position, d in enumerate(lro + lo + sum_dims + ro):
        opermutation[d] = position
    left = aten_call("reshape", aten_call("permute", left, lpermutation), [lro_size, lo_size, sum_size])
    right = aten_call("reshape", aten_call("permute", right, rpermutation), [lro_size, sum_size, ro_size])
    result = aten.bmm.default(left, right)
    return aten_call("permute", aten_call("view", result, out_size), opermutation)


def _einsum_subscripts(sublist: Sequence[Any]) -> str:
    def one(n: Any) -> str:
        if n is Ellipsis:
            return "..."
        if 0 <= n < _ELLIPSIS:
            return _label(n)
        raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")

    return "".join(one(n) for n in sublist)


def einsum_public(*args: Any) -> Tensor:
    """torch.einsum(equation, *operands), torch.einsum(equation, [operands]) or the sublist
    form torch.einsum(op1, [0, 1], op2, [1, 2], [0, 2])."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least one "
                         "operand and its subscripts list")
    equation, operands = args[0], list(args[1:])
    if isinstance(equation, Tensor):  # sublist format
        pieces = list(args)
        equation = ",".join(_einsum_subscripts(sub) for sub in pieces[1::2])
        if len(pieces) % 2 == 1:
            equation += "->" + _einsum_subscripts(pieces[-1])
            operands = pieces[:-1:2]
        else:
            operands = pieces[::2]
    if has_torch_function(operands):  # as torch's Python einsum: after the sublists are read
        return handle_torch_function(einsum_public, operands, equation, *operands)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = list(operands[0])
    return FUNCTIONS[("", "einsum")]((equation, operands), {})  # the generated torchpy.einsum(equation, tensors)


register("einsum", einsum)


einsum_public.__name__ = einsum_public.__qualname__ = "einsum"  # torch.einsum, as handlers see it
