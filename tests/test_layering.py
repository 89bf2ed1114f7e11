"""The package's layers depend only downwards (docs/architecture.md, "Layers").

Every module under torchpy/ is read with `ast`; every `import` / `from ... import` that names
a torchpy module (absolute or relative, at module level or inside a function) is checked
against LAYERS: a module may import its own layer or a lower one, never a higher one, and never
a sibling (a different layer of the same rank). An import inside a function is allowed under the
same rule and must say why it is deferred in a comment on its line or the line above (import-time
cost, or a cycle between modules of one layer).

Key-set arithmetic (shifts, complements, bit_length, raw bit positions) lives in
torchpy/_dispatch/keys.py only; everything else names what keys.py computes.
"""

from __future__ import annotations

import ast
import pathlib
import re
from dataclasses import dataclass

PACKAGE_DIR = pathlib.Path(__file__).resolve().parent.parent / "torchpy"

# Module (or package) -> layer. The longest matching prefix decides, so a package's modules
# share its layer unless named here themselves. Kept in step with docs/architecture.md.
LAYERS: dict[str, str] = {
    # standard library only: usable from every layer
    "torchpy.utils._pytree": "base",
    "torchpy.utils._handles": "base",
    # the dispatcher: keys, schemas, kernels, tables; knows no tensor and no NumPy
    "torchpy._dispatch": "dispatch",
    # the object model: Tensor, dtype, device, promotion, printing, __torch_function__'s protocol
    "torchpy._tensor": "tensor",
    "torchpy._tensor.function_modes": "tensor",  # the mode stack, mode_on(): below tensor.py, which uses them
    "torchpy._tensor.members": "tensor",  # Tensor's method table; installed by torchpy/__init__
    # the operator library: the YAML, kernels, bindings, and the torch namespace's functions
    "torchpy._aten": "aten",
    # functionality keys other than autograd (Python key, ADInplaceOrView, fallthroughs)
    "torchpy._features": "features",
    # reverse- and forward-mode AD (the Autograd key, the engine, Function, gradcheck)
    "torchpy.autograd": "autograd",
    # torch-compatible entry points over the layers below
    "torchpy._C": "api",
    "torchpy._typename": "api",
    "torchpy._library": "api",
    "torchpy.library": "api",
    "torchpy.linalg": "api",
    "torchpy.types": "api",
    "torchpy.utils": "api",  # the package itself (empty); its modules are placed one by one
    "torchpy.utils._python_dispatch": "api",
    "torchpy.utils._dtype_abbrs": "api",
    "torchpy._determinism": "api",
    # user-facing libraries, built on autograd and the entry points
    "torchpy.nn": "libraries",
    "torchpy.optim": "libraries",
    "torchpy.func": "libraries",
    "torchpy.testing": "libraries",
    "torchpy.serialization": "libraries",
    "torchpy.random": "libraries",
    "torchpy.utils.hooks": "libraries",
    "torchpy.utils._grad": "libraries",
    "torchpy.utils.flop_counter": "libraries",
    "torchpy.utils.module_tracker": "libraries",
    "torchpy.utils.checkpoint": "libraries",
    # the device modules a training script touches: CPU only, flags kept as torch keeps them
    "torchpy.cuda": "libraries",
    "torchpy.backends": "libraries",
    "torchpy.accelerator": "libraries",
    "torchpy.onnx": "libraries",
    "torchpy.utils.data": "libraries",
    "torchpy.utils.data.collate": "libraries",
    "torchpy.utils.data.dataloader": "libraries",
    "torchpy.utils.data.dataset": "libraries",
    "torchpy.utils.data.distributed": "libraries",
    "torchpy.utils.data.fetch": "libraries",
    "torchpy.utils.data.sampler": "libraries",
    "torchpy.utils.data.worker": "libraries",
    "torchpy.utils.data.datapipes": "libraries",
    "torchpy.utils.data._utils": "libraries",
    "torchpy.utils.data._utils.collate": "libraries",
    "torchpy.utils.data._utils.worker": "libraries",
    # the package: the torchpy namespace, and what enumerates or replaces all of it
    "torchpy": "package",
    "torchpy.overrides": "package",
    "torchpy.compat": "package",
    "torchpy.demo": "package",
    "torchpy.examples": "package",
}

# Bottom to top. Layers of one rank are siblings: neither imports the other.
RANKS: dict[str, int] = {
    "base": 0,
    "dispatch": 1,
    "tensor": 2,
    "aten": 3,
    "features": 4,
    "autograd": 4,
    "api": 5,
    "libraries": 6,
    "package": 7,
}

# Modules of the utils package that must be placed explicitly (the package's own entry covers
# only torchpy/utils/__init__.py): a new utils module has to say where it sits.
_EXPLICIT_PACKAGES = ("torchpy.utils",)


@dataclass(frozen=True)
class Import:
    path: pathlib.Path
    line: int
    source: str  # importing module
    target: str  # imported torchpy module
    deferred: bool  # inside a function
    justified: bool  # a comment on its line or the line above


def module_name(path: pathlib.Path, root: pathlib.Path = PACKAGE_DIR) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> dict[str, pathlib.Path]:
    return {module_name(p): p for p in sorted(PACKAGE_DIR.rglob("*.py"))}


def layer_of(module: str) -> str:
    for package in _EXPLICIT_PACKAGES:
        if module.startswith(package + ".") and module not in LAYERS:
            raise AssertionError(f"{module}: every module of {package} needs its own entry in LAYERS")
    name = module
    while name:
        if name in LAYERS:
            return LAYERS[name]
        name = name.rpartition(".")[0]
    raise AssertionError(f"{module} has no layer: add it to LAYERS (and docs/architecture.md)")


def _resolve_from(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


_TOOL_MARKERS = re.compile(r"noqa(:\s*[A-Z]+[0-9]+(,\s*[A-Z]+[0-9]+)*)?|type:\s*ignore(\[[\w-]+\])?")


def _says_why(line: str) -> bool:
    """A comment with words in it besides linter markers (`# noqa: F401` alone says nothing)."""
    comment = line.partition("#")[2]
    return bool(re.search("[A-Za-z]", _TOOL_MARKERS.sub("", comment)))


def _has_comment(lines: list[str], node: ast.stmt) -> bool:
    first = node.lineno - 1
    if first > 0 and lines[first - 1].strip().startswith("#") and _says_why(lines[first - 1]):
        return True
    return any(_says_why(lines[i]) for i in range(first, node.end_lineno or node.lineno))


def imports_of(path: pathlib.Path, modules: dict[str, pathlib.Path], root: pathlib.Path = PACKAGE_DIR) -> list[Import]:
    """Every import of a torchpy module in `path`, top-level and deferred."""
    source = path.read_text()
    lines = source.splitlines()
    module = module_name(path, root)
    is_package = path.name == "__init__.py"
    found: list[Import] = []

    def add(node: ast.stmt, target: str, deferred: bool) -> None:
        if target == "torchpy" or target.startswith("torchpy."):
            found.append(Import(path, node.lineno, module, target, deferred, _has_comment(lines, node)))

    def visit(node: ast.AST, deferred: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = deferred or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                for alias in child.names:
                    add(child, alias.name, inner)
            elif isinstance(child, ast.ImportFrom):
                base = _resolve_from(module, is_package, child)
                for alias in child.names:
                    submodule = f"{base}.{alias.name}"
                    add(child, submodule if submodule in modules else base, inner)
            visit(child, inner)

    visit(ast.parse(source, str(path)), False)
    return found


def all_imports() -> list[Import]:
    modules = all_modules()
    return [imp for path in modules.values() for imp in imports_of(path, modules)]


def allowed(source_layer: str, target_layer: str) -> bool:
    return source_layer == target_layer or RANKS[target_layer] < RANKS[source_layer]


def _where(imp: Import) -> str:
    return f"{imp.path.relative_to(PACKAGE_DIR.parent)}:{imp.line}"


def test_every_module_has_a_layer() -> None:
    for module in all_modules():
        assert layer_of(module) in RANKS


def test_no_import_points_up() -> None:
    problems = []
    for imp in all_imports():
        source, target = layer_of(imp.source), layer_of(imp.target)
        if not allowed(source, target):
            kind = "a sibling layer" if RANKS[source] == RANKS[target] else "a layer above it"
            problems.append(f"{_where(imp)}: {imp.source} ({source}) imports {imp.target} ({target}), {kind}")
    assert not problems, "\n".join(problems)


def test_deferred_imports_say_why() -> None:
    problems = [
        f"{_where(imp)}: {imp.source} imports {imp.target} inside a function without a comment saying why"
        for imp in all_imports()
        if imp.deferred and not imp.justified
    ]
    assert not problems, "\n".join(problems)


# --- the checker itself ---------------------------------------------------------------------


def test_checker_reads_relative_deferred_and_from_package_imports(tmp_path: pathlib.Path) -> None:
    root = tmp_path / "torchpy"
    path = root / "autograd" / "derivatives" / "x.py"
    path.parent.mkdir(parents=True)
    path.write_text(
        "import torchpy\n"
        "from ... import _aten, where\n"
        "from ...autograd import grad_mode\n"
        "def f():\n"
        "    # a cycle inside autograd\n"
        "    from .. import engine\n"
        "    from torchpy.nn import Module\n"
        "    from torchpy import nn  # noqa: F401\n"
    )
    found = imports_of(path, all_modules(), root)
    got = [(i.line, i.target, i.deferred, i.justified) for i in found]
    assert got == [
        (1, "torchpy", False, False),
        (2, "torchpy._aten", False, False),
        (2, "torchpy", False, False),
        (3, "torchpy.autograd.grad_mode", False, False),
        (6, "torchpy.autograd.engine", True, True),
        (7, "torchpy.nn", True, False),
        (8, "torchpy.nn", True, False),
    ]
    assert layer_of("torchpy.autograd.derivatives.x") == "autograd"
    assert not allowed("autograd", "package") and not allowed("autograd", "libraries")
    assert not allowed("autograd", "features") and not allowed("features", "autograd")
    assert allowed("autograd", "aten") and allowed("autograd", "autograd") and allowed("libraries", "api")


# --- key-set arithmetic lives in keys.py --------------------------------------------------------

KEYS_MODULE = PACKAGE_DIR / "_dispatch" / "keys.py"

# Identifiers that name key sets, keys or their bit layout. A salt (a TLS state's index above the
# key bits, tls.py) is not a key set: tls.py shifts it by keys.SALT_SHIFT.
_KEYISH = re.compile(r"(?i)keyset|(^|_)ks($|_)|key|bits|mask|backend|functionalit|include|exclude|dispatch")
DISPATCH_DIR = PACKAGE_DIR / "_dispatch"  # every int here is a key set, a key or a salt


def _mentions_keys(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        name = sub.id if isinstance(sub, ast.Name) else sub.attr if isinstance(sub, ast.Attribute) else None
        if name is not None and _KEYISH.search(name):
            return True
    return False


def _is_key_member(node: ast.AST) -> bool:
    """DispatchKey.X / BackendComponent.X (possibly through a module alias)."""
    return (isinstance(node, ast.Attribute) and isinstance(node.value, (ast.Name, ast.Attribute))
            and (getattr(node.value, "id", None) or getattr(node.value, "attr", None)) in ("DispatchKey", "BackendComponent"))


def _by_salt_shift(node: ast.BinOp) -> bool:
    return isinstance(node.right, (ast.Name, ast.Attribute)) and (
        getattr(node.right, "id", None) or getattr(node.right, "attr", None)) == "SALT_SHIFT"


def key_arithmetic(tree: ast.AST, all_ints_are_keys: bool = False) -> list[tuple[int, str]]:
    """(line, what) for each shift, complement or bit_length() of a key set, and each sum or
    difference of key enum values (a raw key index). With `all_ints_are_keys` (the dispatcher's
    own modules) every shift but a salt's, complement and bit_length() counts."""
    keyish = (lambda node: True) if all_ints_are_keys else _mentions_keys
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.LShift, ast.RShift)):
            if keyish(node) and not _by_salt_shift(node):
                found.append((node.lineno, "a shift of key bits"))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            if _is_key_member(node.left) or _is_key_member(node.right):
                found.append((node.lineno, "arithmetic on a key's value"))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert) and keyish(node.operand):
            found.append((node.lineno, "a complement of key bits (use keys.without or a keys.py constant)"))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "bit_length"
              and keyish(node.func.value)):
            found.append((node.lineno, "bit_length() of a key set (use keys.highest_key / highest_backend)"))
    return found


def test_key_arithmetic_only_in_keys_py() -> None:
    problems = []
    for path in all_modules().values():
        if path == KEYS_MODULE:
            continue
        tree = ast.parse(path.read_text(), str(path))
        for line, what in key_arithmetic(tree, all_ints_are_keys=path.parent == DISPATCH_DIR):
            problems.append(f"{path.relative_to(PACKAGE_DIR.parent)}:{line}: {what}")
    assert not problems, "\n".join(problems)


def test_key_arithmetic_check_finds_what_it_should() -> None:
    bad = (
        "a = ks & ~self._fallthrough_bits(b)\n"
        "b = (ks & K.BACKEND_MASK).bit_length()\n"
        "c = K.FULL_KEYSET_BITS & ~((1 << (K.NUM_BACKENDS - 1 + DispatchKey.Python + 1)) - 1)\n"
        "d = tls.local.included & ~_PYTHON_BITS\n"
        "e = DispatchKey.AutogradCPU - DispatchKey.StartOfAutogradFunctionalityBackends\n"
        "f = (included | include) & ~uninclude\n"
    )
    assert sorted({line for line, _ in key_arithmetic(ast.parse(bad))}) == [1, 2, 3, 4, 5, 6]
    in_dispatcher = "self._added = self._bits & ~current\nindex = salted >> SALT_SHIFT\n"
    assert [line for line, _ in key_arithmetic(ast.parse(in_dispatcher), all_ints_are_keys=True)] == [1]
    fine = (
        "ks = a._keyset | b._keyset | thread['salt']\n"  # unions and intersections are set operations
        "hit = (ks & K.ALL_BUT_PYTHON_BITS)\n"
        "index = salted >> SALT_SHIFT\n"
        "mask = (1 << 53) - 1\n"  # not keys: random's bit masks, sorting's n.bit_length()
        "m = n.bit_length() - 1\n"
        "x = np.isinf(mean) & ~stays\n"
    )
    assert key_arithmetic(ast.parse(fine)) == []


# --- what the fixes moved keeps its public face ---------------------------------------------------


def test_public_functions_have_one_home() -> None:
    """torchpy.<name> and torchpy.linalg.<name> are the objects torchpy._aten.public holds, which
    autograd's formulas and nn call: the same functions a user calls, not copies."""
    import torchpy
    from torchpy._aten import public

    for name, function in vars(public.functions).items():
        assert getattr(torchpy, name) is function, name
    for name, function in vars(public.linalg).items():
        assert getattr(torchpy.linalg, name) is function, name
    assert torchpy.tensor is public.functions.tensor  # the mode-checked one
    assert torchpy.einsum is public.functions.einsum and torchpy.norm is public.functions.norm


def test_hook_handles_keep_their_torch_path() -> None:
    from torchpy.utils import _handles, hooks

    assert hooks.RemovableHandle is _handles.RemovableHandle and hooks.add_hook is _handles.add_hook
    assert hooks.RemovableHandle.__module__ == "torchpy.utils.hooks"  # as torch.utils.hooks.RemovableHandle
