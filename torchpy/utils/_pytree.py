"""torchpy.utils._pytree: nested containers as trees of leaves, as torch.utils._pytree has them.

A pytree is a nest of registered container types (tuple, list, dict, namedtuple,
OrderedDict, defaultdict, deque and whatever `register_pytree_node` adds); anything
else, None included, is a leaf. `tree_flatten` returns the leaves in order and a
`TreeSpec` that `tree_unflatten` rebuilds the tree from.

Speed: `tree_map(fn, (args, kwargs))` runs on every call through a wrapper tensor
subclass, so the common operations dispatch on the exact type of each node through
per-operation tables (type -> handler, None for a leaf type) that are filled the
first time a type is seen and emptied whenever the registry changes. `tree_map`
without `is_leaf` or extra trees rebuilds the tree in one pass and makes no TreeSpec.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import json
import threading
import types
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from enum import Enum
from typing import Any, Generic, NamedTuple, TypeVar

__all__ = [
    "PyTree", "Context", "FlattenFn", "UnflattenFn", "DumpableContext", "ToDumpableContextFn",
    "FromDumpableContextFn", "PyTreeSpec", "TreeSpec", "LeafSpec", "keystr", "key_get",
    "register_pytree_node", "tree_is_leaf", "tree_flatten", "tree_flatten_with_path",
    "tree_unflatten", "tree_iter", "tree_leaves", "tree_leaves_with_path", "tree_structure",
    "tree_map", "tree_map_with_path", "tree_map_", "tree_map_only", "tree_map_only_",
    "tree_all", "tree_any", "tree_all_only", "tree_any_only", "treespec_dumps",
    "treespec_loads", "treespec_pprint", "is_namedtuple", "is_namedtuple_class",
    "is_namedtuple_instance", "is_structseq", "is_structseq_class", "is_structseq_instance",
]

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)

Context = Any
PyTree = Any
FlattenFn = Callable[[PyTree], "tuple[list[Any], Context]"]
UnflattenFn = Callable[[Iterable[Any], Context], PyTree]
DumpableContext = Any  # anything json can dump
ToDumpableContextFn = Callable[[Context], DumpableContext]
FromDumpableContextFn = Callable[[DumpableContext], Context]
FlattenWithKeysFn = Callable[[PyTree], "tuple[list[tuple[Any, Any]], Any]"]
KeyPath = tuple  # tuple of key entries
IsLeaf = Callable[[PyTree], bool]

DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL = 1
NO_SERIALIZED_TYPE_NAME_FOUND = "NO_SERIALIZED_TYPE_NAME_FOUND"


# ----------------------------------------------------------------------------- registry

class NodeDef(NamedTuple):
    type: type
    flatten_fn: FlattenFn
    unflatten_fn: UnflattenFn
    flatten_with_keys_fn: FlattenWithKeysFn | None


class _SerializeNodeDef(NamedTuple):
    typ: type
    serialized_type_name: str
    to_dumpable_context: ToDumpableContextFn | None
    from_dumpable_context: FromDumpableContextFn | None


class _NodeRegistry(dict):
    """SUPPORTED_NODES: a dict that empties the per-type caches whenever it changes, even
    when code edits it directly rather than through register_pytree_node."""

    def __setitem__(self, cls: type, node_def: NodeDef) -> None:
        super().__setitem__(cls, node_def)
        _registry_changed()

    def __delitem__(self, cls: type) -> None:
        super().__delitem__(cls)
        _registry_changed()

    def pop(self, *args: Any) -> Any:
        try:
            return super().pop(*args)
        finally:
            _registry_changed()

    def popitem(self) -> tuple[type, NodeDef]:
        try:
            return super().popitem()
        finally:
            _registry_changed()

    def setdefault(self, cls: type, node_def: Any = None) -> Any:
        try:
            return super().setdefault(cls, node_def)
        finally:
            _registry_changed()

    def update(self, *args: Any, **kwargs: Any) -> None:
        super().update(*args, **kwargs)
        _registry_changed()

    def clear(self) -> None:
        super().clear()
        _registry_changed()


_NODE_REGISTRY_LOCK = threading.RLock()
SUPPORTED_NODES: dict[type, NodeDef] = _NodeRegistry()
SUPPORTED_SERIALIZED_TYPES: dict[type, _SerializeNodeDef] = {}
SERIALIZED_TYPE_TO_PYTHON_TYPE: dict[str, type] = {}
CONSTANT_NODES: set[type] = set()
# Caches keyed by node type (the dispatch tables below); emptied whenever the registry changes.
_TYPE_CACHES: list[dict] = []


def _registry_changed() -> None:
    for cache in _TYPE_CACHES:
        cache.clear()


def register_pytree_node(
    cls: type,
    flatten_fn: FlattenFn,
    unflatten_fn: UnflattenFn,
    *,
    serialized_type_name: str | None = None,
    to_dumpable_context: ToDumpableContextFn | None = None,
    from_dumpable_context: FromDumpableContextFn | None = None,
    flatten_with_keys_fn: FlattenWithKeysFn | None = None,
) -> None:
    """Register `cls` as a container: flatten_fn(node) -> (children, context) and
    unflatten_fn(children, context) -> node."""
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            raise ValueError(f"{cls} is already registered as pytree node.")
    _private_register_pytree_node(
        cls, flatten_fn, unflatten_fn, serialized_type_name=serialized_type_name,
        to_dumpable_context=to_dumpable_context, from_dumpable_context=from_dumpable_context,
        flatten_with_keys_fn=flatten_with_keys_fn,
    )


def _private_register_pytree_node(
    cls: type,
    flatten_fn: FlattenFn,
    unflatten_fn: UnflattenFn,
    *,
    serialized_type_name: str | None = None,
    to_dumpable_context: ToDumpableContextFn | None = None,
    from_dumpable_context: FromDumpableContextFn | None = None,
    flatten_with_keys_fn: FlattenWithKeysFn | None = None,
) -> None:
    """Register (or, with a warning, re-register) `cls`; torch's internal entry point."""
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            warnings.warn(
                f"{cls} is already registered as pytree node. "
                "Overwriting the previous registration.",
                stacklevel=2,
            )
        SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
        if (to_dumpable_context is None) ^ (from_dumpable_context is None):
            raise ValueError(
                f"Both to_dumpable_context and from_dumpable_context for {cls} must "
                "be None or registered."
            )
        if serialized_type_name is None:
            serialized_type_name = NO_SERIALIZED_TYPE_NAME_FOUND
        SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(
            cls, serialized_type_name, to_dumpable_context, from_dumpable_context)
        SERIALIZED_TYPE_TO_PYTHON_TYPE[serialized_type_name] = cls


def _register_pytree_node(
    cls: type,
    flatten_fn: FlattenFn,
    unflatten_fn: UnflattenFn,
    to_str_fn: Callable | None = None,
    maybe_from_str_fn: Callable | None = None,
    *,
    serialized_type_name: str | None = None,
    to_dumpable_context: ToDumpableContextFn | None = None,
    from_dumpable_context: FromDumpableContextFn | None = None,
    flatten_with_keys_fn: FlattenWithKeysFn | None = None,
) -> None:
    """Deprecated spelling of register_pytree_node that may overwrite a registration."""
    warnings.warn(
        "`torch.utils._pytree._register_pytree_node` is deprecated. "
        "Please use `torch.utils._pytree.register_pytree_node` instead.",
        FutureWarning, stacklevel=2,
    )
    if to_str_fn is not None or maybe_from_str_fn is not None:
        warnings.warn(
            "`to_str_fn` and `maybe_from_str_fn` is deprecated. "
            "Please use `to_dumpable_context` and `from_dumpable_context` instead.",
            FutureWarning, stacklevel=2,
        )
    _private_register_pytree_node(
        cls, flatten_fn, unflatten_fn, serialized_type_name=serialized_type_name,
        to_dumpable_context=to_dumpable_context, from_dumpable_context=from_dumpable_context,
        flatten_with_keys_fn=flatten_with_keys_fn,
    )


def _deregister_pytree_node(cls: type) -> None:
    with _NODE_REGISTRY_LOCK:
        del SUPPORTED_NODES[cls]
        node_def = SUPPORTED_SERIALIZED_TYPES.pop(cls)
        del SERIALIZED_TYPE_TO_PYTHON_TYPE[node_def.serialized_type_name]
        CONSTANT_NODES.discard(cls)


def _register_namedtuple(cls: type, *, serialized_type_name: str) -> None:
    """Give a namedtuple class a serialized name (namedtuples are nodes without this)."""
    _private_register_pytree_node(
        cls, _namedtuple_flatten, _namedtuple_unflatten,
        serialized_type_name=serialized_type_name,
        to_dumpable_context=_namedtuple_serialize, from_dumpable_context=_namedtuple_deserialize,
        flatten_with_keys_fn=_namedtuple_flatten_with_keys,
    )


def register_dataclass(
    cls: type,
    *,
    field_names: list[str] | None = None,
    drop_field_names: list[str] | None = None,
    serialized_type_name: str | None = None,
) -> None:
    """Register a dataclass-like `cls`: its fields are children, None fields are kept aside."""
    field_names = _dataclass_field_names(cls, field_names, drop_field_names or [])

    def flatten(obj: Any) -> tuple[list[Any], Context]:
        values, flat_names, none_names = [], [], []
        for name in field_names:
            value = getattr(obj, name)
            if value is None:
                none_names.append(name)
            else:
                values.append(value)
                flat_names.append(name)
        return values, [flat_names, none_names]

    def unflatten(values: Iterable[Any], context: Context) -> Any:
        flat_names, none_names = context
        return cls(**dict(zip(flat_names, values, strict=True)), **dict.fromkeys(none_names))

    def flatten_with_keys(obj: Any) -> tuple[list[Any], Context]:
        values, (flat_names, _) = flatten(obj)
        return [(GetAttrKey(k), v) for k, v in zip(flat_names, values, strict=True)], flat_names

    _private_register_pytree_node(
        cls, flatten, unflatten, serialized_type_name=serialized_type_name,
        flatten_with_keys_fn=flatten_with_keys,
    )


def _dataclass_field_names(cls: type, field_names: list[str] | None,
                           drop_field_names: list[str]) -> list[str]:
    if not dataclasses.is_dataclass(cls):
        if field_names is None:
            raise ValueError(
                "field_names must be specified with a list of all fields used to "
                f"initialize {cls}, as it is not a dataclass."
            )
        return field_names
    init_fields = [f.name for f in dataclasses.fields(cls) if f.init]
    if field_names is None:
        return init_fields
    expected = set(init_fields).difference(drop_field_names)
    if expected != set(field_names):
        message = "field_names does not include all dataclass fields.\n"
        if missing := expected - set(field_names):
            message += (
                f"Missing fields in `field_names`: {missing}. If you want "
                "to include these fields in the pytree, please add them "
                "to `field_names`, otherwise please add them to "
                "`drop_field_names`.\n"
            )
        if unexpected := set(field_names) - expected:
            message += (
                f"Unexpected fields in `field_names`: {unexpected}. "
                "Please remove these fields, or add them to `drop_field_names`.\n"
            )
        raise ValueError(message)
    return field_names


@dataclasses.dataclass(frozen=True, slots=True)
class ConstantNode(Generic[T]):
    value: T


def register_constant(cls: type) -> None:
    """Register `cls` as a node with no leaves: the instance itself rides in the context."""
    if cls.__eq__ is object.__eq__:
        raise TypeError(
            "register_constant(cls) expects `cls` to have a non-default `__eq__` implementation.")
    if cls.__hash__ is None:
        raise TypeError(
            "register_constant(cls) expects `cls` to have a non-default `__hash__` implementation.")

    def flatten(x: Any) -> tuple[list[Any], ConstantNode]:
        return [], ConstantNode(x)

    def unflatten(_: Any, context: ConstantNode) -> Any:
        return context.value

    with _NODE_REGISTRY_LOCK:
        _private_register_pytree_node(cls, flatten, unflatten, flatten_with_keys_fn=flatten)
        CONSTANT_NODES.add(cls)


def is_constant_class(cls: type) -> bool:
    return isinstance(cls, type) and cls in CONSTANT_NODES


def _is_constant_holder(spec: TreeSpec) -> bool:
    return isinstance(spec._context, ConstantNode)


def _retrieve_constant(spec: TreeSpec) -> Any:
    if not _is_constant_holder(spec):
        raise AssertionError("spec does not correspond to a registered constant pytree")
    return tree_unflatten([], spec)


# ----------------------------------------------------------------------------- key paths

@dataclasses.dataclass(frozen=True, slots=True)
class SequenceKey(Generic[T]):
    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"

    def get(self, sequence: Sequence[T]) -> T:
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True, slots=True)
class MappingKey(Generic[K, T]):
    key: K

    def __str__(self) -> str:
        return f"[{self.key!r}]"

    def get(self, mapping: Mapping[K, T]) -> T:
        return mapping[self.key]


@dataclasses.dataclass(frozen=True, slots=True)
class GetAttrKey:
    name: str

    def __str__(self) -> str:
        return f".{self.name}"

    def get(self, obj: Any) -> Any:
        return getattr(obj, self.name)


def keystr(kp: KeyPath) -> str:
    """A key path as text, e.g. `[0]['a'].x`."""
    return "".join(str(k) for k in kp)


def key_get(obj: Any, kp: KeyPath) -> Any:
    """The value at key path `kp` inside `obj`."""
    for key in kp:
        obj = key.get(obj)
    return obj


# ------------------------------------------------------------------ namedtuple, structseq

def is_namedtuple(obj: object) -> bool:
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_namedtuple_class(cls: type) -> bool:
    """A tuple subclass with string `_fields` and callable `_make` / `_asdict`."""
    if not (isinstance(cls, type) and issubclass(cls, tuple)):
        return False
    fields = getattr(cls, "_fields", None)
    return (isinstance(fields, tuple) and all(type(f) is str for f in fields)
            and callable(getattr(cls, "_make", None)) and callable(getattr(cls, "_asdict", None)))


def is_namedtuple_instance(obj: object) -> bool:
    return is_namedtuple_class(type(obj))


_Py_TPFLAGS_BASETYPE = 1 << 10


def is_structseq(obj: object) -> bool:
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


def is_structseq_class(cls: type) -> bool:
    """A C struct sequence (os.stat_result, torch.return_types.*): a final direct tuple subclass."""
    return (isinstance(cls, type) and cls.__bases__ == (tuple,)
            and all(isinstance(getattr(cls, a, None), int)
                    for a in ("n_fields", "n_sequence_fields", "n_unnamed_fields"))
            and not cls.__flags__ & _Py_TPFLAGS_BASETYPE)


def is_structseq_instance(obj: object) -> bool:
    return is_structseq_class(type(obj))


# ----------------------------------------------------------------------------- built-in node types

def _tuple_flatten(d: tuple) -> tuple[list, Context]:
    return list(d), None


def _tuple_unflatten(values: Iterable, context: Context) -> tuple:
    return tuple(values)


def _list_flatten(d: list) -> tuple[list, Context]:
    return d, None


def _list_unflatten(values: Iterable, context: Context) -> list:
    return list(values)


def _dict_flatten(d: dict) -> tuple[list, Context]:
    return list(d.values()), list(d.keys())


def _dict_unflatten(values: Iterable, context: Context) -> dict:
    return dict(zip(context, values, strict=True))


def _namedtuple_flatten(d: tuple) -> tuple[list, Context]:
    return list(d), type(d)


def _namedtuple_unflatten(values: Iterable, context: Context) -> tuple:
    return context(*values)


def _ordereddict_flatten(d: OrderedDict) -> tuple[list, Context]:
    return list(d.values()), list(d.keys())


def _ordereddict_unflatten(values: Iterable, context: Context) -> OrderedDict:
    return OrderedDict(zip(context, values, strict=True))


def _defaultdict_flatten(d: defaultdict) -> tuple[list, Context]:
    return list(d.values()), [d.default_factory, list(d.keys())]


def _defaultdict_unflatten(values: Iterable, context: Context) -> defaultdict:
    default_factory, keys = context
    return defaultdict(default_factory, _dict_unflatten(values, keys))


def _deque_flatten(d: deque) -> tuple[list, Context]:
    return list(d), d.maxlen


def _deque_unflatten(values: Iterable, context: Context) -> deque:
    return deque(values, maxlen=context)


def _sequence_with_keys(flatten: Callable) -> Callable:
    def flatten_with_keys(d: Any) -> tuple[list, Context]:
        values, context = flatten(d)
        return [(SequenceKey(i), v) for i, v in enumerate(values)], context
    return flatten_with_keys


def _mapping_with_keys(flatten: Callable, keys_of: Callable[[Context], list]) -> Callable:
    def flatten_with_keys(d: Any) -> tuple[list, Context]:
        values, context = flatten(d)
        return [(MappingKey(k), v) for k, v in zip(keys_of(context), values, strict=True)], context
    return flatten_with_keys


def _namedtuple_flatten_with_keys(d: tuple) -> tuple[list, Context]:
    values, context = _namedtuple_flatten(d)
    return [(GetAttrKey(f), v) for f, v in zip(context._fields, values, strict=True)], context


def _namedtuple_serialize(context: Context) -> DumpableContext:
    node = SUPPORTED_SERIALIZED_TYPES.get(context)
    if node is None:
        raise NotImplementedError(
            f"Can't serialize TreeSpec of namedtuple class {context} because we "
            "didn't register a serializated_type_name. Please register using "
            "`_register_namedtuple`."
        )
    if node.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(
            f"Can't serialize TreeSpec of namedtuple class {context} because we "
            "couldn't find a serializated_type_name. Please register using "
            "`_register_namedtuple`."
        )
    return node.serialized_type_name


def _namedtuple_deserialize(dumpable_context: DumpableContext) -> Context:
    if dumpable_context not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(
            f"Can't deserialize TreeSpec of namedtuple class {dumpable_context} "
            "because we couldn't find a serializated name."
        )
    return SERIALIZED_TYPE_TO_PYTHON_TYPE[dumpable_context]


def _defaultdict_serialize(context: Context) -> DumpableContext:
    default_factory, keys = context
    return {
        "default_factory_module": default_factory.__module__,
        "default_factory_name": default_factory.__qualname__,
        "dict_context": keys,
    }


def _defaultdict_deserialize(dumpable_context: DumpableContext) -> Context:
    if not isinstance(dumpable_context, dict):
        raise AssertionError("dumpable_context must be a dict")
    expected = {"default_factory_module", "default_factory_name", "dict_context"}
    if set(dumpable_context) != expected:
        raise AssertionError(
            f"dumpable_context keys must be {expected}, got {set(dumpable_context)}")
    module_name = dumpable_context["default_factory_module"]
    name = dumpable_context["default_factory_name"]
    if not isinstance(module_name, str):
        raise AssertionError("default_factory_module must be a string")
    if not isinstance(name, str):
        raise AssertionError("default_factory_name must be a string")
    factory = getattr(importlib.import_module(module_name), name)
    return [factory, dumpable_context["dict_context"]]


def _register_builtin_nodes() -> None:
    _first = lambda context: context  # noqa: E731  (dict-like contexts are the keys...)
    _second = lambda context: context[1]  # noqa: E731  (...or [factory, keys])
    for cls, flatten, unflatten, name, with_keys, serializers in [
        (tuple, _tuple_flatten, _tuple_unflatten, "builtins.tuple",
         _sequence_with_keys(_tuple_flatten), (None, None)),
        (list, _list_flatten, _list_unflatten, "builtins.list",
         _sequence_with_keys(_list_flatten), (None, None)),
        (dict, _dict_flatten, _dict_unflatten, "builtins.dict",
         _mapping_with_keys(_dict_flatten, _first), (None, None)),
        (namedtuple, _namedtuple_flatten, _namedtuple_unflatten, "collections.namedtuple",
         _namedtuple_flatten_with_keys, (_namedtuple_serialize, _namedtuple_deserialize)),
        (OrderedDict, _ordereddict_flatten, _ordereddict_unflatten, "collections.OrderedDict",
         _mapping_with_keys(_ordereddict_flatten, _first), (None, None)),
        (defaultdict, _defaultdict_flatten, _defaultdict_unflatten, "collections.defaultdict",
         _mapping_with_keys(_defaultdict_flatten, _second),
         (_defaultdict_serialize, _defaultdict_deserialize)),
        (deque, _deque_flatten, _deque_unflatten, "collections.deque",
         _sequence_with_keys(_deque_flatten), (None, None)),
    ]:
        _private_register_pytree_node(
            cls, flatten, unflatten, serialized_type_name=name, flatten_with_keys_fn=with_keys,
            to_dumpable_context=serializers[0], from_dumpable_context=serializers[1])


_register_builtin_nodes()
# The built-in registrations; a node type whose NodeDef is still one of these gets the
# specialised fast handlers below, anything else goes through its flatten / unflatten fns.
_BUILTIN_NODE_DEFS: dict[type, NodeDef] = dict(SUPPORTED_NODES)
STANDARD_DICT_TYPES: frozenset[type] = frozenset({dict, OrderedDict, defaultdict})
BUILTIN_TYPES: frozenset[type] = frozenset(_BUILTIN_NODE_DEFS)


def _get_node_type(tree: Any) -> Any:
    """The registry key for `tree`: its type, or `namedtuple` for every namedtuple class."""
    cls = type(tree)
    return namedtuple if is_namedtuple_class(cls) else cls


def tree_is_leaf(tree: PyTree, is_leaf: IsLeaf | None = None) -> bool:
    """Whether `tree` is a leaf: `is_leaf(tree)` says so, or its type is not registered."""
    if is_leaf is not None and is_leaf(tree):
        return True
    return _get_node_type(tree) not in SUPPORTED_NODES


# ----------------------------------------------------------------------------- TreeSpec

class TreeSpec:
    """The structure of a pytree: the root's node type and context, and one spec per child.

    A leaf's spec has type None. Attributes are read-only; counts are computed once.
    """

    __slots__ = ("_type", "_context", "_children", "_num_leaves", "_num_nodes")

    def __init__(self, type: Any, context: Context, children_specs: list[TreeSpec]) -> None:
        if type is None:
            if context is not None:
                raise AssertionError("leaf node should not have a context")
            if len(children_specs) != 0:
                raise AssertionError("leaf node should not have children")
            num_leaves = num_nodes = 1
        else:
            num_leaves, num_nodes = 0, 1
            for child in children_specs:
                num_leaves += child._num_leaves
                num_nodes += child._num_nodes
        self._type = type
        self._context = context
        self._children = children_specs
        self._num_leaves = num_leaves
        self._num_nodes = num_nodes

    @property
    def type(self) -> Any:
        return self._type

    @property
    def context(self) -> Context:
        return self._context

    @property
    def num_leaves(self) -> int:
        return self._num_leaves

    @property
    def num_nodes(self) -> int:
        return self._num_nodes

    @property
    def num_children(self) -> int:
        return len(self._children)

    @property
    def children_specs(self) -> list[TreeSpec]:
        warnings.warn(
            "`treespec.children_specs` is deprecated. "
            "Use `treespec.child(index)` to access a single child, "
            "or `treespec.children()` to get all children.",
            FutureWarning, stacklevel=2,
        )
        return self._children

    def is_leaf(self) -> bool:
        return self._num_nodes == 1 and self._num_leaves == 1

    def children(self) -> list[TreeSpec]:
        return self._children.copy()

    def child(self, index: int) -> TreeSpec:
        return self._children[index]

    def __repr__(self, indent: int = 0) -> str:
        # Children after the first go on their own lines, indented two more per level.
        children = self._children
        text = ""
        if children:
            indent += 2
            text = children[0].__repr__(indent)
            for child in children[1:]:
                text += ",\n" + " " * indent + child.__repr__(indent)
        return f"TreeSpec({self._type.__name__}, {self._context}, [{text}])"

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        # torch compares node types by their str(), so equal-named re-created types match
        return ((self._type is other._type or str(self._type) == str(other._type))
                and self._context == other._context and self._children == other._children)

    def __hash__(self) -> int:
        node_type, context = self._type, self._context
        if node_type is defaultdict:
            context = (context[0], tuple(context[1]))
        elif node_type is dict or node_type is OrderedDict:
            context = tuple(context)
        elif node_type is None or node_type in BUILTIN_TYPES:
            pass
        elif isinstance(context, ConstantNode):
            context = context.value
        else:
            context = None  # a custom context may be unhashable; equal specs still hash equal
        return hash((node_type, context, tuple(self._children)))

    def __reduce__(self) -> tuple:
        return (TreeSpec, (self._type, self._context, self._children))

    def unflatten(self, leaves: Iterable[Any]) -> PyTree:
        """Rebuild the pytree from its leaves."""
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self._num_leaves:
            raise ValueError(
                f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} "
                f"but the spec refers to a pytree that holds {self._num_leaves} "
                f"items ({self}).",
            )
        if self._type is None:
            return leaves[0]
        return _BUILD[self._type](self, leaves, 0)

    def flatten_up_to(self, tree: PyTree) -> list[PyTree]:
        """The subtrees of `tree` at this spec's leaves (`tree` has this structure above)."""
        subtrees: list[PyTree] = []
        _flatten_up_to(self, tree, subtrees)
        return subtrees


PyTreeSpec = TreeSpec


class LeafSpec(TreeSpec):
    """The spec of a leaf (deprecated in torch: test `spec.is_leaf()` instead)."""

    __slots__ = ()

    def __init__(self) -> None:
        warnings.warn(
            "`isinstance(treespec, LeafSpec)` is deprecated, "
            "use `isinstance(treespec, TreeSpec) and treespec.is_leaf()` instead.",
            FutureWarning, stacklevel=2,
        )
        _init_leaf(self)

    def __repr__(self, indent: int = 0) -> str:
        return "*"

    def __reduce__(self) -> tuple:
        return (treespec_leaf, ())


def _init_leaf(spec: TreeSpec) -> None:
    spec._type = spec._context = None
    spec._children = []
    spec._num_leaves = spec._num_nodes = 1


_LEAF_SPEC = object.__new__(LeafSpec)  # all leaves share one spec; built without the warning
_init_leaf(_LEAF_SPEC)
_new_spec = object.__new__


def treespec_leaf() -> LeafSpec:
    return _LEAF_SPEC


def treespec_tuple(iterable: Iterable[TreeSpec] = (), /) -> TreeSpec:
    children = list(iterable)
    if any(not isinstance(child, TreeSpec) for child in children):
        raise ValueError(f"Expected a tuple of TreeSpec values, got: {children!r}.")
    return TreeSpec(tuple, None, children)


def treespec_dict(mapping: Mapping[Any, TreeSpec] | Iterable[tuple[Any, TreeSpec]] = (), /,
                  **kwargs: TreeSpec) -> TreeSpec:
    items = dict(mapping, **kwargs)
    if any(not isinstance(child, TreeSpec) for child in items.values()):
        raise ValueError(f"Expected a dictionary of TreeSpec values, got: {items!r}.")
    return TreeSpec(dict, list(items.keys()), list(items.values()))


def _is_pytreespec_instance(obj: Any) -> bool:
    return isinstance(obj, TreeSpec)


# ---------------------------------------------------------------- per-type dispatch tables

class _TypeTable(dict):
    """type -> handler for one operation: the built-in node types' own handlers, `custom`
    for other registered node types, None for leaf types. Filled on first sight of a type."""

    __slots__ = ("builtin", "custom")
    _LIMIT = 4096  # forget everything past this many types (classes made on the fly)

    def __init__(self, builtin: dict[type, Callable], custom: Callable) -> None:
        super().__init__()
        self.builtin = builtin
        self.custom = custom

    def __missing__(self, cls: type) -> Callable | None:
        node_type = namedtuple if is_namedtuple_class(cls) else cls
        node_def = SUPPORTED_NODES.get(node_type)
        if node_def is None:
            handler = None
        elif node_def is _BUILTIN_NODE_DEFS.get(node_type):
            handler = self.builtin[node_type]
        else:
            handler = self.custom
        if len(self) >= self._LIMIT:
            self.clear()
        self[cls] = handler
        return handler


def _table(builtin: dict[type, Callable], custom: Callable) -> _TypeTable:
    table = _TypeTable(builtin, custom)
    _TYPE_CACHES.append(table)
    return table


def _custom_node(node: Any) -> tuple[Any, NodeDef]:
    node_type = _get_node_type(node)
    return node_type, SUPPORTED_NODES[node_type]


# ----------------------------------------------------------------------------- flatten

def _flatten_children(node_type: Any, context: Context, children: Iterable[Any],
                      leaves: list[Any]) -> TreeSpec:
    """Append the leaves under `children` to `leaves`; the spec of their parent."""
    specs = []
    start = len(leaves)
    num_nodes = 1
    for child in children:
        handler = _FLATTEN[type(child)]
        if handler is None:
            leaves.append(child)
            specs.append(_LEAF_SPEC)
            num_nodes += 1
        else:
            child_spec = handler(child, leaves)
            specs.append(child_spec)
            num_nodes += child_spec._num_nodes
    spec = _new_spec(TreeSpec)  # not TreeSpec(...): the counts are known already
    spec._type = node_type
    spec._context = context
    spec._children = specs
    spec._num_leaves = len(leaves) - start
    spec._num_nodes = num_nodes
    return spec


def _flatten_custom(node: Any, leaves: list[Any]) -> TreeSpec:
    node_type, node_def = _custom_node(node)
    children, context = node_def.flatten_fn(node)
    return _flatten_children(node_type, context, children, leaves)


def _flatten_dict(node: dict, leaves: list[Any]) -> TreeSpec:
    return _flatten_children(dict, list(node), node.values(), leaves)


# handler(node, leaves) -> spec; partial() keeps a Python frame out of every tuple / list
_FLATTEN = _table({
    tuple: functools.partial(_flatten_children, tuple, None),
    list: functools.partial(_flatten_children, list, None),
    dict: _flatten_dict,
    namedtuple: lambda node, leaves: _flatten_children(namedtuple, type(node), node, leaves),
    OrderedDict: lambda node, leaves: _flatten_children(
        OrderedDict, list(node), node.values(), leaves),
    defaultdict: lambda node, leaves: _flatten_children(
        defaultdict, [node.default_factory, list(node)], node.values(), leaves),
    deque: lambda node, leaves: _flatten_children(deque, node.maxlen, node, leaves),
}, _flatten_custom)


def _flatten_with_is_leaf(node: Any, leaves: list[Any], is_leaf: IsLeaf) -> TreeSpec:
    """The general flatten: `is_leaf` is asked about every node, root first."""
    if is_leaf(node):
        leaves.append(node)
        return _LEAF_SPEC
    node_type = _get_node_type(node)
    node_def = SUPPORTED_NODES.get(node_type)
    if node_def is None:
        leaves.append(node)
        return _LEAF_SPEC
    children, context = node_def.flatten_fn(node)
    return TreeSpec(node_type, context,
                    [_flatten_with_is_leaf(child, leaves, is_leaf) for child in children])


def tree_flatten(tree: PyTree, is_leaf: IsLeaf | None = None) -> tuple[list[Any], TreeSpec]:
    """The leaves of `tree` in order, and the TreeSpec that rebuilds it from them."""
    leaves: list[Any] = []
    if is_leaf is not None:
        return leaves, _flatten_with_is_leaf(tree, leaves, is_leaf)
    handler = _FLATTEN[type(tree)]
    if handler is None:
        return [tree], _LEAF_SPEC
    return leaves, handler(tree, leaves)


def tree_structure(tree: PyTree, is_leaf: IsLeaf | None = None) -> TreeSpec:
    return tree_flatten(tree, is_leaf=is_leaf)[1]


# ----------------------------------------------------------------------------- unflatten

# A builder makes the node a spec describes from leaves[start:start + spec.num_leaves];
# indexing the flat list beats an iterator, and a spec knows each child's leaf count.
Builder = Callable[[TreeSpec, Sequence[Any], int], PyTree]


def _build_children(spec: TreeSpec, leaves: Sequence[Any], start: int) -> list[Any]:
    if spec._num_nodes - 1 == spec._num_leaves:
        # every child is a leaf (a child node has more nodes than leaves)
        return list(leaves[start:start + spec._num_leaves])
    out = []
    for child in spec._children:
        if child._type is None:
            out.append(leaves[start])
            start += 1
        else:
            out.append(_BUILD[child._type](child, leaves, start))
            start += child._num_leaves
    return out


def _build_tuple(spec: TreeSpec, leaves: Sequence[Any], start: int) -> tuple:
    if spec._num_nodes - 1 == spec._num_leaves:
        return tuple(leaves[start:start + spec._num_leaves])
    return tuple(_build_children(spec, leaves, start))


def _build_dict(spec: TreeSpec, leaves: Sequence[Any], start: int) -> dict:
    return dict(zip(spec._context, _build_children(spec, leaves, start)))


def _build_custom(spec: TreeSpec, leaves: Sequence[Any], start: int) -> PyTree:
    unflatten_fn = SUPPORTED_NODES[spec._type].unflatten_fn
    return unflatten_fn(_build_children(spec, leaves, start), spec._context)


_BUILTIN_BUILDERS: dict[type, Builder] = {
    tuple: _build_tuple,
    list: _build_children,
    dict: _build_dict,
    namedtuple: lambda spec, leaves, start: spec._context(*_build_children(spec, leaves, start)),
    OrderedDict: lambda spec, leaves, start: OrderedDict(
        zip(spec._context, _build_children(spec, leaves, start))),
    defaultdict: lambda spec, leaves, start: defaultdict(
        spec._context[0], zip(spec._context[1], _build_children(spec, leaves, start))),
    deque: lambda spec, leaves, start: deque(
        _build_children(spec, leaves, start), maxlen=spec._context),
}


class _BuilderTable(dict):
    """spec type -> builder(spec, leaves); KeyError for an unregistered type, as in torch."""

    def __missing__(self, node_type: Any) -> Builder:
        node_def = SUPPORTED_NODES[node_type]
        if node_def is _BUILTIN_NODE_DEFS.get(node_type):
            builder = _BUILTIN_BUILDERS[node_type]
        else:
            builder = _build_custom
        self[node_type] = builder
        return builder


_BUILD = _BuilderTable()
_TYPE_CACHES.append(_BUILD)


def tree_unflatten(leaves: Iterable[Any], treespec: TreeSpec) -> PyTree:
    """The inverse of tree_flatten (the two arguments may also come in the other order)."""
    if not isinstance(treespec, TreeSpec):
        if not isinstance(leaves, TreeSpec):
            raise TypeError(
                f"Expected `treespec` to be an instance of "
                f"PyTreeSpec but got item of type {type(treespec)}."
            )
        leaves, treespec = treespec, leaves
    return treespec.unflatten(leaves)


def _flatten_up_to(spec: TreeSpec, node: PyTree, subtrees: list[PyTree]) -> None:
    if spec.is_leaf():
        subtrees.append(node)
        return
    for child, child_spec in zip(_children_like(spec, node), spec._children, strict=True):
        _flatten_up_to(child_spec, child, subtrees)


def _children_like(spec: TreeSpec, node: PyTree) -> list[PyTree]:
    """The children of `node`, which must be a node of `spec`'s kind (dict types mix freely)."""
    node_type, spec_type = _get_node_type(node), spec._type
    if spec_type not in BUILTIN_TYPES:
        if node_type != spec_type:
            raise ValueError(f"Type mismatch; expected {spec_type!r}, but got {node_type!r}.")
        children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
        if len(children) != spec.num_children:
            raise ValueError(
                f"Node arity mismatch; expected {spec.num_children}, but got {len(children)}.")
        if context != spec._context:
            raise ValueError(f"Node context mismatch for custom node type {spec_type!r}.")
        return children
    both_dicts = spec_type in STANDARD_DICT_TYPES and node_type in STANDARD_DICT_TYPES
    if not both_dicts and node_type != spec_type:
        raise ValueError(f"Node type mismatch; expected {spec_type!r}, but got {node_type!r}.")
    if len(node) != spec.num_children:
        raise ValueError(
            f"Node arity mismatch; expected {spec.num_children}, but got {len(node)}.")
    if both_dicts:
        # a defaultdict's factory is not compared; keys are, in any order
        keys = spec._context if spec_type is not defaultdict else spec._context[1]
        got, expected = set(node), set(keys)
        if got != expected:
            message = ""
            if missing := expected.difference(got):
                message += f"; missing key(s): {missing}"
            if extra := got.difference(expected):
                message += f"; extra key(s): {extra}"
            raise ValueError(f"Node keys mismatch{message}.")
        return [node[key] for key in keys]
    children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
    if node_type is not deque and context != spec._context:  # a deque's maxlen may differ
        raise ValueError(
            f"Node context mismatch for node type {spec_type!r}; "
            f"expected {spec._context!r}, but got {context!r}.")
    return children


# ----------------------------------------------------------------------------- leaves

def tree_iter(tree: PyTree, is_leaf: IsLeaf | None = None) -> Iterator[Any]:
    """The leaves of `tree`, lazily: nodes are flattened as the iterator reaches them."""
    if is_leaf is not None and is_leaf(tree):
        yield tree
        return
    node_def = SUPPORTED_NODES.get(_get_node_type(tree))
    if node_def is None:
        yield tree
        return
    children, _ = node_def.flatten_fn(tree)
    for child in children:
        yield from tree_iter(child, is_leaf)


def _collect(children: Iterable[Any], leaves: list[Any]) -> None:
    for child in children:
        handler = _COLLECT[type(child)]
        if handler is None:
            leaves.append(child)
        else:
            handler(child, leaves)


def _collect_custom(node: Any, leaves: list[Any]) -> None:
    _collect(_custom_node(node)[1].flatten_fn(node)[0], leaves)


def _collect_values(node: Any, leaves: list[Any]) -> None:
    _collect(node.values(), leaves)


_COLLECT = _table({
    tuple: _collect, list: _collect, namedtuple: _collect, deque: _collect,
    dict: _collect_values, OrderedDict: _collect_values, defaultdict: _collect_values,
}, _collect_custom)


class _CustomNodeFound(Exception):
    """A tree holds a node that is not built in; the caller must walk it lazily."""


def _collect_pure(children: Iterable[Any], leaves: list[Any]) -> None:
    for child in children:
        handler = _COLLECT_PURE[type(child)]
        if handler is None:
            leaves.append(child)
        else:
            handler(child, leaves)


def _refuse_custom(node: Any, leaves: list[Any]) -> None:
    raise _CustomNodeFound


# Leaves of trees of built-in nodes only: collecting them eagerly has no visible effect,
# so tree_all / tree_any may short-circuit over the list exactly as over tree_iter.
_COLLECT_PURE = _table({
    tuple: _collect_pure, list: _collect_pure, namedtuple: _collect_pure, deque: _collect_pure,
    dict: lambda node, leaves: _collect_pure(node.values(), leaves),
    OrderedDict: lambda node, leaves: _collect_pure(node.values(), leaves),
    defaultdict: lambda node, leaves: _collect_pure(node.values(), leaves),
}, _refuse_custom)


def _builtin_leaves(tree: PyTree) -> list[Any] | None:
    """The leaves of `tree`, or None if it holds a node that is not built in."""
    handler = _COLLECT_PURE[type(tree)]
    if handler is None:
        return [tree]
    leaves: list[Any] = []
    try:
        handler(tree, leaves)
    except _CustomNodeFound:
        return None
    return leaves


def tree_leaves(tree: PyTree, is_leaf: IsLeaf | None = None) -> list[Any]:
    """The leaves of `tree` in order."""
    if is_leaf is not None:
        return list(tree_iter(tree, is_leaf))
    handler = _COLLECT[type(tree)]
    if handler is None:
        return [tree]
    leaves: list[Any] = []
    handler(tree, leaves)
    return leaves


def arg_tree_leaves(*args: PyTree, **kwargs: PyTree) -> list[Any]:
    """tree_leaves((args, kwargs)), a little faster."""
    leaves: list[Any] = []
    _collect(args, leaves)
    _collect(kwargs.values(), leaves)
    return leaves


def _lazy_leaves(tree: PyTree, is_leaf: IsLeaf | None) -> Iterable[Any]:
    if is_leaf is None:
        leaves = _builtin_leaves(tree)
        if leaves is not None:
            return leaves
    return tree_iter(tree, is_leaf)


def tree_all(pred: Callable[[Any], bool], tree: PyTree, is_leaf: IsLeaf | None = None) -> bool:
    return all(map(pred, _lazy_leaves(tree, is_leaf)))


def tree_any(pred: Callable[[Any], bool], tree: PyTree, is_leaf: IsLeaf | None = None) -> bool:
    return any(map(pred, _lazy_leaves(tree, is_leaf)))


def tree_all_only(type_or_types: type | tuple[type, ...], /, pred: Callable[[Any], bool],
                  tree: PyTree, is_leaf: IsLeaf | None = None) -> bool:
    return all(pred(x) for x in _lazy_leaves(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types: type | tuple[type, ...], /, pred: Callable[[Any], bool],
                  tree: PyTree, is_leaf: IsLeaf | None = None) -> bool:
    return any(pred(x) for x in _lazy_leaves(tree, is_leaf) if isinstance(x, type_or_types))


# ----------------------------------------------------------------------------- map

def _map_children(func: Callable, children: Iterable[Any]) -> list[Any]:
    out = []
    for child in children:
        handler = _MAP[type(child)]
        out.append(func(child) if handler is None else handler(func, child))
    return out


def _map_tuple(func: Callable, node: tuple) -> tuple:
    out = []
    for child in node:  # _map_children inlined: (args, kwargs) is two tuples deep
        handler = _MAP[type(child)]
        out.append(func(child) if handler is None else handler(func, child))
    return tuple(out)


def _map_dict(func: Callable, node: dict) -> dict:
    out = {}
    for key, child in node.items():
        handler = _MAP[type(child)]
        out[key] = func(child) if handler is None else handler(func, child)
    return out


def _map_custom(func: Callable, node: Any) -> Any:
    node_def = _custom_node(node)[1]
    children, context = node_def.flatten_fn(node)
    return node_def.unflatten_fn(_map_children(func, children), context)


_MAP = _table({
    tuple: _map_tuple,
    list: _map_children,
    dict: _map_dict,
    namedtuple: lambda func, node: type(node)(*_map_children(func, node)),
    OrderedDict: lambda func, node: OrderedDict(
        zip(list(node), _map_children(func, node.values()))),
    defaultdict: lambda func, node: defaultdict(
        node.default_factory, zip(list(node), _map_children(func, node.values()))),
    deque: lambda func, node: deque(_map_children(func, node), maxlen=node.maxlen),
}, _map_custom)


def tree_map(func: Callable[..., Any], tree: PyTree, *rests: PyTree,
             is_leaf: IsLeaf | None = None) -> PyTree:
    """A tree like `tree` with `func(leaf, *leaves_of_rests)` at every leaf; each of `rests`
    must have `tree`'s structure down to its leaves (a leaf of `tree` may match a subtree)."""
    if not rests and is_leaf is None:
        # One pass, no TreeSpec. func runs as leaves are reached, so a custom node's
        # flatten_fn runs between func calls (torch flattens everything first); the
        # calls and the result are the same.
        kind = type(tree)
        if kind is tuple:  # a handler's args: _map_tuple's work without its call
            if len(tree) == 2:  # a binary op's (self, other), unrolled: the loop costs as much again
                first, second = tree
                handler, handler2 = _MAP[type(first)], _MAP[type(second)]
                return (func(first) if handler is None else handler(func, first),
                        func(second) if handler2 is None else handler2(func, second))
            out = []
            for child in tree:
                handler = _MAP[type(child)]
                out.append(func(child) if handler is None else handler(func, child))
            return tuple(out)
        if kind is dict and not tree:  # a handler's kwargs, most often
            return {}
        handler = _MAP[kind]
        return func(tree) if handler is None else handler(func, tree)
    leaves, spec = tree_flatten(tree, is_leaf=is_leaf)
    flat_args = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(map(func, *flat_args))


def tree_map_(func: Callable[..., Any], tree: PyTree, *rests: PyTree,
              is_leaf: IsLeaf | None = None) -> PyTree:
    """Call `func` on every leaf (with the matching subtrees of `rests`); return `tree`."""
    if not rests:
        for leaf in tree_leaves(tree, is_leaf=is_leaf):
            func(leaf)
        return tree
    leaves, spec = tree_flatten(tree, is_leaf=is_leaf)
    for args in zip(leaves, *[spec.flatten_up_to(r) for r in rests]):
        func(*args)
    return tree


def map_only(type_or_types_or_pred: type | tuple | types.UnionType | Callable[[Any], bool], /,
             ) -> Callable[[Callable], Callable]:
    """A decorator: the function applies to leaves of the given type(s) (or passing the
    predicate) and returns other leaves unchanged."""
    pred = _only_predicate(type_or_types_or_pred)

    def wrapper(func: Callable[[Any], Any]) -> Callable[[Any], Any]:
        @functools.wraps(func)
        def wrapped(x: Any) -> Any:
            return func(x) if pred(x) else x
        return wrapped

    return wrapper


def _only_predicate(type_or_types_or_pred: Any) -> Callable[[Any], bool]:
    if isinstance(type_or_types_or_pred, (type, tuple, types.UnionType)):
        return lambda x: isinstance(x, type_or_types_or_pred)
    if callable(type_or_types_or_pred):
        return type_or_types_or_pred
    raise TypeError("Argument must be a type, a tuple of types, or a callable.")


def _only(type_or_types_or_pred: Any, func: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """map_only without functools.wraps (the wrapped function never leaves tree_map_only)."""
    if isinstance(type_or_types_or_pred, (type, tuple, types.UnionType)):
        return lambda x: func(x) if isinstance(x, type_or_types_or_pred) else x
    pred = _only_predicate(type_or_types_or_pred)
    return lambda x: func(x) if pred(x) else x


def tree_map_only(type_or_types_or_pred: Any, /, func: Callable[[Any], Any], tree: PyTree,
                  is_leaf: IsLeaf | None = None) -> PyTree:
    return tree_map(_only(type_or_types_or_pred, func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred: Any, /, func: Callable[[Any], Any], tree: PyTree,
                   is_leaf: IsLeaf | None = None) -> PyTree:
    return tree_map_(_only(type_or_types_or_pred, func), tree, is_leaf=is_leaf)


def _broadcast_to_and_flatten(tree: PyTree, treespec: TreeSpec,
                              is_leaf: IsLeaf | None = None) -> list[Any] | None:
    """`tree`, a prefix of `treespec`'s structure, with each leaf repeated over the leaves
    of `treespec` under it (vmap's in_dims); None if `tree` is not such a prefix."""
    full_tree = tree_unflatten([0] * treespec.num_leaves, treespec)
    result: list[Any] = []

    def add_leaves(x: Any, subtree: PyTree) -> None:
        result.extend([x] * tree_structure(subtree, is_leaf=is_leaf).num_leaves)

    try:
        tree_map_(add_leaves, tree, full_tree, is_leaf=is_leaf)
    except ValueError:
        return None
    return result


# ----------------------------------------------------------------------------- key paths over trees

def _generate_key_paths(key_path: KeyPath, tree: PyTree,
                        is_leaf: IsLeaf | None = None) -> Iterator[tuple[KeyPath, Any]]:
    if is_leaf and is_leaf(tree):
        yield key_path, tree
        return
    node_type = _get_node_type(tree)
    node_def = SUPPORTED_NODES.get(node_type)
    if not node_def:
        yield key_path, tree
        return
    if not node_def.flatten_with_keys_fn:
        raise ValueError(
            f"Did not find a flatten_with_keys_fn for type: {node_type}. "
            "Please pass a flatten_with_keys_fn argument to register_pytree_node."
        )
    key_children, _ = node_def.flatten_with_keys_fn(tree)
    for key, child in key_children:
        yield from _generate_key_paths((*key_path, key), child, is_leaf)


def tree_flatten_with_path(tree: PyTree, is_leaf: IsLeaf | None = None,
                           ) -> tuple[list[tuple[KeyPath, Any]], TreeSpec]:
    _, spec = tree_flatten(tree, is_leaf)
    return list(_generate_key_paths((), tree, is_leaf)), spec


def tree_leaves_with_path(tree: PyTree, is_leaf: IsLeaf | None = None,
                          ) -> list[tuple[KeyPath, Any]]:
    return list(_generate_key_paths((), tree, is_leaf))


def tree_map_with_path(func: Callable[..., Any], tree: PyTree, *rests: PyTree,
                       is_leaf: IsLeaf | None = None) -> PyTree:
    """tree_map with the key path of each leaf as func's first argument."""
    path_leaves, spec = tree_flatten_with_path(tree, is_leaf)
    columns = list(zip(*path_leaves, strict=True)) + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(func(*xs) for xs in zip(*columns, strict=True))


# ----------------------------------------------------------------------------- serialization

class EnumEncoder(json.JSONEncoder):
    """json that writes an Enum member as its class's fully qualified name and its name."""

    def default(self, obj: object) -> Any:
        if isinstance(obj, Enum):
            return {"__enum__": True,
                    "fqn": f"{obj.__class__.__module__}:{obj.__class__.__qualname__}",
                    "name": obj.name}
        return super().default(obj)


def enum_object_hook(obj: dict[str, Any]) -> Any:
    if "__enum__" in obj:
        module_name, _, qualname = obj["fqn"].partition(":")
        enum_cls: Any = importlib.import_module(module_name)
        for attr in qualname.split("."):
            enum_cls = getattr(enum_cls, attr)
        return enum_cls[obj["name"]]
    return obj


def _treespec_to_json(spec: TreeSpec) -> dict[str, Any]:
    if spec.is_leaf():
        return {"type": None, "context": None, "children_spec": []}
    node = SUPPORTED_SERIALIZED_TYPES.get(spec._type)
    if node is None:
        raise NotImplementedError(f"Serializing {spec._type} in pytree is not registered.")
    if node.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(
            f"No registered serialization name for {spec._type} found. "
            "Please update your _register_pytree_node call with a `serialized_type_name` kwarg."
        )
    if node.to_dumpable_context is None:
        try:
            context = json.dumps(spec._context, cls=EnumEncoder)
        except TypeError as e:
            raise TypeError(
                "Unable to serialize context. "
                "Please make the context json dump-able, or register a "
                "custom serializer using _register_pytree_node."
            ) from e
    else:
        context = node.to_dumpable_context(spec._context)
    return {"type": node.serialized_type_name, "context": context,
            "children_spec": [_treespec_to_json(child) for child in spec._children]}


def _json_to_treespec(schema: DumpableContext) -> TreeSpec:
    if schema["type"] is None and schema["context"] is None and not schema["children_spec"]:
        return _LEAF_SPEC
    if schema["type"] not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(f"Deserializing {schema['type']} in pytree is not registered.")
    node_type = SERIALIZED_TYPE_TO_PYTHON_TYPE[schema["type"]]
    node = SUPPORTED_SERIALIZED_TYPES[node_type]
    if node.from_dumpable_context is None:
        try:
            context = json.loads(schema["context"], object_hook=enum_object_hook)
        except TypeError as e:
            raise TypeError(
                "Unable to deserialize context. "
                "Please make the context json load-able, or register a "
                "custom serializer using _register_pytree_node."
            ) from e
    else:
        context = node.from_dumpable_context(schema["context"])
    return TreeSpec(node_type, context,
                    [_json_to_treespec(child) for child in schema["children_spec"]])


_SUPPORTED_PROTOCOLS: dict[int, tuple[Callable, Callable]] = {
    1: (_treespec_to_json, _json_to_treespec),
}


def treespec_dumps(treespec: TreeSpec, protocol: int | None = None) -> str:
    """The spec as a JSON string: `[protocol, {"type", "context", "children_spec"}]`."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(
            f"Expected `treespec` to be an instance of "
            f"PyTreeSpec but got item of type {type(treespec)}."
        )
    if protocol is None:
        protocol = DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL
    if protocol not in _SUPPORTED_PROTOCOLS:
        raise ValueError(
            f"Unknown protocol {protocol}. "
            f"Available protocols: {list(_SUPPORTED_PROTOCOLS.keys())}",
        )
    return json.dumps((protocol, _SUPPORTED_PROTOCOLS[protocol][0](treespec)), cls=EnumEncoder)


@functools.lru_cache
def treespec_loads(serialized: str) -> TreeSpec:
    protocol, schema = json.loads(serialized)
    if protocol not in _SUPPORTED_PROTOCOLS:
        raise ValueError(
            f"Unknown protocol {protocol}. "
            f"Available protocols: {list(_SUPPORTED_PROTOCOLS.keys())}",
        )
    return _SUPPORTED_PROTOCOLS[protocol][1](schema)


class _Asterisk(str):
    __slots__ = ()

    def __new__(cls) -> _Asterisk:
        return super().__new__(cls, "*")

    def __repr__(self) -> str:
        return "*"  # no quotes


_asterisk = _Asterisk()


def treespec_pprint(treespec: TreeSpec) -> str:
    """The tree the spec describes, with `*` at every leaf."""
    return repr(tree_unflatten([_asterisk] * treespec.num_leaves, treespec))
