"""The Autograd dispatch key's kernel: record the graph, redispatch below autograd.

One generic kernel serves every operator (as PyTorch's VariableType kernels
do, generated per op there). When grad mode is off or no input requires grad
it redispatches below the autograd keys at once. Otherwise it runs the op
below autograd (with the autograd keys excluded for nested calls, so kernels
built from other ops record nothing), then builds the op's backward node from
its registered derivative and attaches it to the differentiable outputs.
"""

from __future__ import annotations

from typing import Any

from .._aten.fastcall import aten, call
from .._dispatch import keys as K
from .._dispatch import tls
from .._dispatch.dispatcher import RAW, Kernel, caller_location, dispatcher
from .._dispatch.keys import DispatchKey
from .._tensor.tensor import Tensor
from . import grad_mode
from .derivatives import FORMULAS
from .forward_grad import state as _forward_state
from .graph import SavedTensor, autograd_meta, grad_accumulator, gradient_edge, saved_hooks_state
from .node import NotImplementedNode, OpNode, _node_class, input_info, new_op_node
from . import views

BELOW_AUTOGRAD = K.full_after(DispatchKey.AutogradOther)
# Excluded while the op runs below autograd: nested op calls record nothing.
_BELOW_AUTOGRAD_EXCLUDED = K.AUTOGRAD_BITS | K.key_bits(DispatchKey.ADInplaceOrView)

_grad_state = grad_mode.state


_DETACH_OP = aten("detach")


def _DETACH(t: Tensor) -> Tensor:
    return call(_DETACH_OP, t._keyset, t)  # normalized already: straight to the dispatcher


def _requires_grad(value: Any) -> bool:
    if isinstance(value, Tensor):
        return value._requires_grad
    if isinstance(value, (list, tuple)):
        return any(isinstance(v, Tensor) and v._requires_grad for v in value)
    return False


def _any_input_requires_grad(op: Any, args: tuple, kwargs: dict) -> bool:
    # On every op call with grad mode on: kept to plain attribute reads.
    n = len(args)
    try:
        for position, name, is_list in op._tensor_args:
            value = args[position] if position < n else kwargs.get(name)
            if value is None:
                continue
            if is_list:
                if any(v is not None and v._requires_grad for v in value):
                    return True
            elif value._requires_grad:
                return True
            elif value._base is not None and value._base._requires_grad:
                return True  # a view requires grad when its base does (the base may have gained history)
    except AttributeError:  # a non-Tensor where a Tensor goes (a kernel passed it through)
        return any(_requires_grad(v) for v in (*args, *kwargs.values()))
    return False


def autograd_kernel(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    if _forward_state.active:  # a dual level is live: forward_kernel.py (the only cost of forward AD)
        return _forward_state.kernel(op, ks, args, kwargs)
    if _grad_state.enabled and _any_input_requires_grad(op, args, kwargs):
        return _record(op, ks & BELOW_AUTOGRAD, args, kwargs)
    below = ks & BELOW_AUTOGRAD
    fn = op.probe_redispatch(below)  # redispatch_raw's first step, inline: every op passes here
    if fn is not None:
        return fn(*args, **kwargs)
    hit = op.probe_redispatch_raw(below)  # a feature kernel below (the Python key under a mode)
    if hit is not None:
        return hit[0](op, hit[1], args, kwargs)
    return op.redispatch_raw(below, args, kwargs)


def specialize(op: Any) -> Any:
    """autograd_kernel for one op, with its test unrolled where the op's tensors are its first
    one or two arguments (pointwise, views, reductions: most calls). The test is
    _any_input_requires_grad's; anything it cannot settle goes to autograd_kernel."""
    probe, probe_raw, redispatch = op.probe_redispatch, op.probe_redispatch_raw, op.redispatch_raw
    layout = tuple((position, is_list) for position, _, is_list in op._tensor_args)

    if layout == ((0, False),):

        def one_tensor(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
            if not args or _forward_state.active:
                return autograd_kernel(op, ks, args, kwargs)
            t = args[0]
            try:
                needs = t._requires_grad or (t._base is not None and t._base._requires_grad)
            except AttributeError:  # None, or a non-Tensor a kernel passed through
                return autograd_kernel(op, ks, args, kwargs)
            if needs and _grad_state.enabled:
                return _record(op, ks & BELOW_AUTOGRAD, args, kwargs)
            below = ks & BELOW_AUTOGRAD
            fn = probe(below)  # redispatch_raw's first step, inline: every op passes here
            if fn is not None:
                return fn(*args, **kwargs) if kwargs else fn(*args)
            hit = probe_raw(below)  # a feature kernel below (the Python key under a mode)
            if hit is not None:
                return hit[0](op, hit[1], args, kwargs)
            return redispatch(below, args, kwargs)

        return one_tensor
    if layout == ((0, False), (1, False)):

        def two_tensors(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
            if _forward_state.active:
                return autograd_kernel(op, ks, args, kwargs)
            try:
                a = args[0]
                b = args[1]
                needs = (a._requires_grad or b._requires_grad or (a._base is not None and a._base._requires_grad)
                         or (b._base is not None and b._base._requires_grad))
            except (IndexError, AttributeError):  # fewer arguments, or a non-Tensor among them
                return autograd_kernel(op, ks, args, kwargs)
            if needs and _grad_state.enabled:
                return _record(op, ks & BELOW_AUTOGRAD, args, kwargs)
            below = ks & BELOW_AUTOGRAD
            fn = probe(below)  # redispatch_raw's first step, inline: every op passes here
            if fn is not None:
                return fn(*args, **kwargs) if kwargs else fn(*args)
            hit = probe_raw(below)  # a feature kernel below (the Python key under a mode)
            if hit is not None:
                return hit[0](op, hit[1], args, kwargs)
            return redispatch(below, args, kwargs)

        return two_tensors
    return autograd_kernel


def reverse_kernel(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    """autograd_kernel without the forward-AD check (forward_kernel.py runs the op with it)."""
    if _grad_state.enabled and _any_input_requires_grad(op, args, kwargs):
        return _record(op, ks & BELOW_AUTOGRAD, args, kwargs)
    return op.redispatch_raw(ks & BELOW_AUTOGRAD, args, kwargs)


class _OpFacts:
    """What recording needs to know about an op, worked out from its schema once."""

    __slots__ = ("arguments", "written", "inplace", "kind", "name", "functional_name", "list_arguments",
                 "plan_formula", "plan", "fast")

    def __init__(self, op: Any) -> None:
        schema = op._schema
        self.arguments = tuple((a.name, a.kwarg_only, a.default_value) for a in schema.arguments)
        self.written = tuple(
            (a.name, a.kwarg_only) for a in schema.arguments if a.alias_info is not None and a.alias_info.is_write
        )
        self.inplace = schema.kind.name == "inplace"
        self.list_arguments = frozenset(a.name for a in schema.arguments if a.type.is_list)
        self.plan_formula: Any = None  # the formula `plan` was made for
        self.plan: Any = None
        self.fast: Any = None  # a _FastRecord, for the FORMULAS version it was made at
        # The schema kind, except that t_, squeeze_, ... re-view self in place rather than
        # writing its elements: "inplace_view".
        self.kind = "inplace_view" if "inplace_view" in op.tags else schema.kind.name
        # Formulas are looked up per call (one may be registered later); their names once.
        self.name = op.name()
        entry = op._entry
        self.functional_name = (entry.name[:-1] + (f".{entry.overload_name}" if entry.overload_name else "")
                                if self.inplace else None)

    def formula(self) -> Any:
        """The op's derivative; an in-place op (mul_) uses its functional op's (mul)."""
        formula = FORMULAS.get(self.name)
        if formula is None and self.functional_name is not None:
            formula = FORMULAS.get(self.functional_name)
        return formula


class _SavePlan:
    """How to record one formula's inputs and saved values, worked out once per (op, formula):
    `inputs` flattened only when one is a Tensor[]; geometry (`self.shape`) taken before the op
    runs; results, geometry and plain values saved after it."""

    __slots__ = ("flatten", "geometry", "saves")

    def __init__(self, facts: _OpFacts, formula: Any) -> None:
        self.flatten = any(name in facts.list_arguments for name in formula.inputs)
        self.geometry = tuple((name, *name.split(".")) for name in formula.save if "." in name)
        saves = []
        for name in formula.save:
            if name[:6] == "result":
                saves.append(("result", name, int(name[6:] or 0)))
            elif "." in name:
                saves.append(("geometry", name, name.replace(".", "_")))
            else:
                saves.append(("value", name, None))
        self.saves = tuple(saves)


def _plan_for(facts: _OpFacts, formula: Any) -> _SavePlan:
    if facts.plan_formula is not formula:
        facts.plan = _SavePlan(facts, formula)
        facts.plan_formula = formula
    return facts.plan


_NO_EDGE = (None, 0)


class _FastRecord:
    """_record's work for one (op, formula) laid out by argument position, for the common
    call: a functional or view op with a derivative, no Tensor[] input, nothing written, no
    keyword arguments. A call then indexes `args` instead of building a dict by name.
    `usable` is False where the general path must run."""

    __slots__ = ("formula", "version", "usable", "below", "node_class", "inputs", "geometry", "saves", "view",
                 "self_index")

    def __init__(self, formula: Any, usable: bool) -> None:
        self.formula = formula
        self.version = -1  # FORMULAS.version it was made at
        self.usable = usable
        self.below = False  # not differentiable and writes nothing: just run the op below autograd

    @classmethod
    def make(cls, facts: _OpFacts, formula: Any) -> "_FastRecord":
        if formula is not None and formula.backward is None and not facts.written:
            fast = cls(formula, False)
            fast.below = True
            return fast
        if (formula is None or formula.backward is None or facts.written
                or facts.kind not in ("functional", "view")):
            return cls(formula, False)
        plan = _plan_for(facts, formula)
        # name -> (position, default); a keyword-only argument always takes its default here
        where = {name: (len(facts.arguments) if kwarg_only else i, default)
                 for i, (name, kwarg_only, default) in enumerate(facts.arguments)}
        names = (*formula.inputs, *(n for kind, n, _ in plan.saves if kind == "value"),
                 *(src for _, src, _ in plan.geometry))
        if plan.flatten or any(name not in where for name in names):
            return cls(formula, False)
        fast = cls(formula, True)
        fast.node_class = _node_class(formula.node_name)
        fast.inputs = tuple(where[name] for name in formula.inputs)
        fast.geometry = tuple((name.replace(".", "_"), *where[src], attr, _GEOMETRY[attr])
                              for name, src, attr in plan.geometry)
        fast.saves = tuple((kind, name, detail, *where.get(name, (0, None))) for kind, name, detail in plan.saves
                           if kind != "geometry")
        fast.view = facts.kind == "view"
        fast.self_index = where["self"][0] if "self" in where else None
        return fast


_below_salt = tls.excluding(_BELOW_AUTOGRAD_EXCLUDED)  # this thread's salt, autograd keys excluded
_below_salts = _below_salt.salts


def _record_fast(op: Any, ks: int, args: tuple, rec: _FastRecord) -> Any:
    """_record for a call _FastRecord covers: the same steps, by position."""
    n = len(args)
    edges = []
    infos = []
    for index, default in rec.inputs:
        v = args[index] if index < n else default
        if isinstance(v, Tensor):
            # gradient_edge, inline for the common cases (a view may need its grad_fn refreshed)
            if v._base is not None:
                edges.append(gradient_edge(v))
            elif v._grad_fn is not None:
                meta = v._autograd_meta
                edges.append((v._grad_fn, 0 if meta is None else meta.output_nr))
            elif v._requires_grad:
                edges.append((grad_accumulator(v), 0))
            else:
                edges.append(_NO_EDGE)
            infos.append((v._shape, v._dtype))
        else:
            edges.append(_NO_EDGE)
            infos.append(None)
    saved: dict[str, Any] = {}
    for key, index, default, attr, of_tensor in rec.geometry:  # before the op runs, as _record takes it
        value = args[index] if index < n else default
        saved[key] = of_tensor(value) if type(value) is Tensor else _geometry(value, attr)

    hooked = saved_hooks_state.stack
    if hooked:  # pack hooks see the inputs before the op runs, as torch calls them
        for kind, name, detail, index, default in rec.saves:
            if kind != "result":
                saved[name] = _saved_value(args[index] if index < n else default)
    result = _run_below(op, ks, args, {})
    multi = isinstance(result, (tuple, list))
    outputs = result if multi else (result,)
    if rec.view and outputs:
        first = outputs[0]
        target = args[rec.self_index] if rec.self_index is not None and rec.self_index < n else None
        if isinstance(first, Tensor) and first._base is not None and first is not target:
            views.mark_views(args[0], outputs, multi)
    formula = rec.formula
    node = new_op_node(rec.node_class, formula, tuple(edges), infos, len(outputs), saved)
    if multi:
        node._output_meta = [(o._shape, o._dtype) if isinstance(o, Tensor) else None for o in outputs]
    if hooked:
        _attach(node, outputs)
        for kind, name, detail, _, _ in rec.saves:
            if kind == "result":
                saved[name] = _saved_hooked_output(node, outputs[detail], detail)
        return result
    for kind, name, detail, index, default in rec.saves:
        if kind == "result":
            saved[name] = _saved_output(node, outputs[detail], detail)
        else:
            value = args[index] if index < n else default
            # a plain tensor (the common case) inline; _saved_value covers every kind
            saved[name] = SavedTensor(value, value._grad_fn) if type(value) is Tensor else _saved_value(value)
    _attach(node, outputs)
    return result


def _saved_hooked_output(node: Any, output: Tensor, index: int) -> SavedTensor:
    """An output saved under saved-tensor hooks: the pack hook gets the output itself, with its
    history attached (torch's order), not the detached alias saved without hooks."""
    if not (output._dtype.is_floating_point or output._dtype.is_complex):
        return SavedTensor(output)
    return SavedTensor(output, output_of=node, output_nr=index)


def _saved_output(node: Any, output: Tensor, index: int) -> SavedTensor:
    """Output `index` of the op `node` records, as saved for its backward."""
    if not (output._dtype.is_floating_point or output._dtype.is_complex):
        return SavedTensor(output)  # an integer output (indices) has no history: saved as it is
    # As in PyTorch, an output is saved detached (no reference cycle through its grad_fn);
    # unpacking reattaches it to this node for double backward.
    return SavedTensor(_DETACH(output), output_of=node, output_nr=index)


def _saved_value(value: Any) -> Any:
    """An argument as saved: tensors (alone or in a list) version-checked, the rest as is."""
    if isinstance(value, Tensor):
        return SavedTensor(value, output_of=value._grad_fn)
    if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
        return [SavedTensor(v) if isinstance(v, Tensor) else v for v in value]
    return value


def _attach(node: Any, outputs: Any) -> None:
    """The differentiable outputs' history is `node`."""
    for index, out in enumerate(outputs):
        if isinstance(out, Tensor) and (out._dtype.is_floating_point or out._dtype.is_complex):
            out._grad_fn = node
            out._requires_grad = True
            if index or out._autograd_meta is not None:  # output 0 needs no meta of its own
                autograd_meta(out).output_nr = index


def _facts_for(op: Any) -> _OpFacts:
    try:
        return op._autograd_facts  # kept on the OpOverload: no hashing on the hot path
    except AttributeError:
        facts = op._autograd_facts = _OpFacts(op)
        return facts


def _argument_values(facts: _OpFacts, args: tuple, kwargs: dict) -> dict[str, Any]:
    """Every argument by name, defaults filled in."""
    values = {}
    n = len(args)
    for i, (name, kwarg_only, default) in enumerate(facts.arguments):
        if not kwarg_only and i < n:
            values[name] = args[i]
        elif name in kwargs:
            values[name] = kwargs[name]
        else:
            values[name] = default
    return values


def _check_mutations(op: Any, facts: _OpFacts, values: dict[str, Any]) -> None:
    for name, kwarg_only in facts.written:
        target = values[name]
        if not isinstance(target, Tensor):
            continue
        if kwarg_only:  # an out= argument
            raise RuntimeError(
                f"{op._schema.name.split('::')[1]}(): functions with out=... arguments don't support "
                "automatic differentiation, but one of the arguments requires grad."
            )
        if target._grad_fn is None and target._requires_grad:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def _run_below(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    state = tls.local.__dict__  # the thread's TLS as a dict: one lookup for the read and both writes
    salt = state["salt"]
    state["salt"] = _below_salts.get(salt) or _below_salt(salt)
    try:
        return op.redispatch_raw(ks, args, kwargs)
    finally:
        state["salt"] = salt


def _differentiable(t: Any) -> bool:
    return isinstance(t, Tensor) and (t._dtype.is_floating_point or t._dtype.is_complex)


def _flat_inputs(values: dict[str, Any], names: tuple[str, ...]) -> list[Any]:
    """The formula's inputs in order; a Tensor[] argument (cat's tensors) adds each element."""
    inputs: list[Any] = []
    for name in names:
        value = values[name]
        if isinstance(value, (list, tuple)):
            inputs.extend(value)
        else:
            inputs.append(value)
    return inputs


def _shape_of(t: Tensor) -> tuple:
    shape = t._shape
    return shape if type(shape) is tuple else tuple(shape)


def _stride_of(t: Tensor) -> tuple:
    stride = t._stride  # None until asked: worked out from the array
    return stride if type(stride) is tuple else tuple(t.stride())


_GEOMETRY = {
    "shape": _shape_of,
    "stride": _stride_of,
    "offset": lambda t: t.storage_offset(),
    "dtype": lambda t: t._dtype,
}


def _geometry(value: Any, attr: str) -> Any:
    """A saved `arg.attr`: one tensor's shape / stride / offset / dtype, or a list of them."""
    if isinstance(value, (list, tuple)):
        return [_geometry(v, attr) for v in value]
    return None if value is None else _GEOMETRY[attr](value)


def _record(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    facts = _facts_for(op)
    fast = facts.fast
    if fast is None or fast.version != FORMULAS.version:  # first call, or a formula registered since
        fast = facts.fast = _FastRecord.make(facts, facts.formula())
        fast.version = FORMULAS.version
    formula = fast.formula
    if fast.usable and not kwargs:
        return _record_fast(op, ks, args, fast)
    if fast.below:  # registered as not differentiable (detach, ones_like, ...): no history
        return _run_below(op, ks, args, kwargs)
    if formula is not None and formula.backward is None and not facts.written:
        # Registered as not differentiable (detach, zeros_like, ...): no history.
        return _run_below(op, ks, args, kwargs)
    values = _argument_values(facts, args, kwargs)
    target = values.get("self")
    inplace_on_view = facts.kind == "inplace" and isinstance(target, Tensor) and target._base is not None
    if inplace_on_view:
        views.check_inplace(target)
    if facts.written:
        _check_mutations(op, facts, values)
    if formula is not None and formula.backward is None:
        return _run_below(op, ks, args, kwargs)
    to_save = values
    if formula is not None and "self" in formula.save and facts.kind == "inplace":
        # The formula needs self as it was before the op overwrote it; cloned with grad mode
        # on, so the copy keeps self's history for double backward.
        to_save = dict(values)
        to_save["self"] = values["self"].clone()
    if formula is not None:
        plan = _plan_for(facts, formula)
        # Taken before the op runs: an in-place view op (t_, squeeze_) changes self's shape.
        inputs = _flat_inputs(values, formula.inputs) if plan.flatten else [values[n] for n in formula.inputs]
        # Before the op runs: a view input's grad_fn is regenerated here if its base changed in
        # place (which may raise), and an in-place op's self still has its old history.
        edges = []
        infos = []
        for v in inputs:
            if isinstance(v, Tensor):
                edges.append(gradient_edge(v) if v._requires_grad or v._base is not None else _NO_EDGE)
                infos.append(input_info(v))
            else:
                edges.append(_NO_EDGE)
                infos.append(None)
        edges = tuple(edges)
        geometry = {name: _geometry(to_save[src], attr) for name, src, attr in plan.geometry}
        hooked = saved_hooks_state.stack
        # pack hooks see the inputs before the op runs, as torch calls them
        presaved = {name: _saved_value(to_save[name]) for kind, name, _ in plan.saves
                    if kind == "value"} if hooked else None
    else:
        views.refresh_inputs(values)
    result = _run_below(op, ks, args, kwargs)
    outputs = result if isinstance(result, (tuple, list)) else (result,)
    first = outputs[0] if outputs else None
    if facts.kind == "view" and isinstance(first, Tensor) and first._base is not None and first is not target:
        views.mark_views(args[0], outputs, isinstance(result, (tuple, list)))
    if formula is None:
        edges = tuple(gradient_edge(v) for v in values.values() if isinstance(v, Tensor) and v._requires_grad)
        node = NotImplementedNode(op.name(), edges, len(outputs))
    else:
        node = OpNode(formula, edges, infos, len(outputs))
        node._output_meta = [(o._shape, o._dtype) if isinstance(o, Tensor) else None for o in outputs]
        saved = node._saved
        for kind, name, detail in plan.saves:
            if kind == "result":
                if not hooked:
                    saved[name] = _saved_output(node, outputs[detail], detail)
            elif kind == "geometry":  # "self.shape": only the geometry, so self is not kept alive
                saved[detail] = geometry[name]
            else:
                saved[name] = presaved[name] if hooked else _saved_value(to_save[name])
    _attach(node, outputs)
    if formula is not None and hooked:
        for kind, name, detail in plan.saves:
            if kind == "result":
                node._saved[name] = _saved_hooked_output(node, outputs[detail], detail)
    if inplace_on_view:
        views.rebase_history(target, node)
    elif facts.kind == "inplace_view" and isinstance(target, Tensor) and target._base is not None:
        views.mark_current(target)  # its new grad_fn (TBackward1, ...) is the view's history now
    return result


# PyTorch 2.13 registers its autograd fallback at these keys (not HIP, IPU, VE,
# PrivateUse2/3 or NestedTensor: those stay free for users' fallbacks).
AUTOGRAD_FALLBACK_KEYS = tuple(DispatchKey[f"Autograd{b}"] for b in (
    "Other", "CPU", "CUDA", "XLA", "MPS", "XPU", "HPU", "Lazy", "MTIA", "MAIA", "PrivateUse1", "Meta",
))

_kernel = Kernel(autograd_kernel, RAW, caller_location(), specialize=specialize)
_handles = [dispatcher.register_fallback(key, _kernel) for key in AUTOGRAD_FALLBACK_KEYS]
