"""Tensor's method table (torchpy/_tensor/members.py): every member declared once, by the module
that owns it, and put onto Tensor by one installer; no other module assigns onto Tensor."""

import ast
import pathlib

import pytest

import torchpy
from torchpy._tensor import members
from torchpy._tensor.members import MODES, NONE, PROTOCOL, TABLE, Declaration, MemberTable

PACKAGE = pathlib.Path(torchpy.__file__).parent
INSTALLER = PACKAGE / "_tensor" / "members.py"


def _names_tensor(node: ast.AST) -> bool:
    """`Tensor`, `_Tensor`, `torchpy.Tensor`, `tensor.Tensor`, ...: an expression naming the class."""
    if isinstance(node, ast.Name):
        return node.id.lstrip("_") == "Tensor"
    return isinstance(node, ast.Attribute) and node.attr == "Tensor"


def _assignments_onto_tensor(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        for target in targets:
            for part in ast.walk(target):
                if isinstance(part, ast.Attribute) and _names_tensor(part.value):
                    lines.append(node.lineno)
        if isinstance(node, ast.Call) and node.args:
            fn = node.func
            name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else ""
            if name in ("setattr", "delattr", "__setattr__", "__delattr__") and any(
                    _names_tensor(a) for a in node.args[:2]):
                lines.append(node.lineno)
    return sorted(lines)


def test_no_module_but_the_installer_assigns_onto_tensor():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == INSTALLER:
            continue
        for line in _assignments_onto_tensor(ast.parse(path.read_text(), str(path))):
            found.append(f"{path.relative_to(PACKAGE.parent)}:{line}")
    assert found == [], "declare these with torchpy._tensor.members instead"


def test_the_scan_finds_each_form_of_assignment():
    source = """
Tensor.sort = f
tensor.Tensor.__new__ = g
_Tensor.x += 1
setattr(Tensor, name, fn)
type.__setattr__(Tensor, "y", 1)
del Tensor.z
"""
    assert _assignments_onto_tensor(ast.parse(source)) == [2, 3, 4, 5, 6, 7]
    assert _assignments_onto_tensor(ast.parse("setattr(cls, name, fn)\nx.Tensor_like = 1\n")) == []


def test_no_member_is_declared_twice():
    table = MemberTable()
    table.add(Declaration("sort", lambda self: 0, MODES, "pkg.a"))
    with pytest.raises(ValueError, match=r"Tensor.sort is declared twice: in pkg.a and in pkg.b"):
        table.add(Declaration("sort", lambda self: 1, MODES, "pkg.b"))
    with pytest.raises(ValueError, match="the op table generated two methods"):
        table.add_generated("add", len)
        table.add_generated("add", len)


def test_every_installed_member_is_tensors_and_declared_once():
    """What import installed is what Tensor carries; each name from one source."""
    assert TABLE.installed is not None
    for name, member in TABLE.installed.items():
        assert torchpy.Tensor.__dict__[name] is member, name
    declared_from = {}
    for name, declaration in TABLE.declared.items():
        declared_from.setdefault(name, []).append(declaration.module)
    assert all(len(modules) == 1 for modules in declared_from.values())


def test_every_public_member_states_its_part_in_torch_function():
    for name, member in torchpy.Tensor.__dict__.items():
        if members.in_protocol(name) and members._is_member(member):
            assert TABLE.checks(name) in (PROTOCOL, MODES), name


class _Plain:
    @property
    def shape(self):
        return ()


def test_a_declaration_may_not_silently_hide_a_generated_binding():
    table = MemberTable()
    table.add_generated("sort", len)
    table.add(Declaration("sort", lambda self: 0, MODES, "pkg.kernels"))
    with pytest.raises(ValueError, match="hides the op table's binding: declare it with replaces_generated"):
        table.install(type("T", (), {}))


def test_a_wrapper_gets_the_generated_binding():
    table = MemberTable()
    table.add_generated("view", len)
    table.add(Declaration("view", lambda generated: ("fast", generated), MODES, "pkg.fast", True, wrapper=True))
    cls = type("T", (), {})
    table.install(cls)
    assert cls.__dict__["view"] == ("fast", len)


def test_a_public_class_body_member_needs_a_declaration():
    with pytest.raises(ValueError, match=r"Tensor.shape \(class body\) has no declaration"):
        MemberTable().install(_Plain)


def test_a_public_member_must_take_part_in_torch_function():
    with pytest.raises(ValueError, match="is part of __torch_function__: declare it PROTOCOL or MODES"):
        Declaration("size", len, NONE, "pkg")
    Declaration("_helper", len, NONE, "pkg")  # private: fine


def test_nothing_is_declared_after_the_install():
    table = MemberTable()
    table.install(type("T", (), {}))
    with pytest.raises(RuntimeError, match="declared after Tensor's members were installed"):
        table.add(Declaration("late", len, MODES, "pkg"))
    with pytest.raises(RuntimeError, match="installed once"):
        table.install(type("T", (), {}))
