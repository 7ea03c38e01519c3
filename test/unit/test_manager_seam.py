"""The seam between ControllerManager and its helpers (manager_tables.py), checked on the source.

No module of controller_manager/ other than manager.py may touch a private member of the
manager (`cm._active`, `self.cm._log(...)`, `getattr(cm, '_switch')`): what the helpers use
is `ManagerTables`, and the manager provides every member of it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import py_controllers.controller_manager as package

PACKAGE = Path(package.__file__).parent
MANAGER = PACKAGE / 'manager.py'


def _class(tree: ast.Module, name: str) -> ast.ClassDef:
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)


def _members(cls: ast.ClassDef) -> set[str]:
    """Methods, properties and class attributes of `cls`, and every `self.x = ...` in it."""
    names: set[str] = set()
    for node in cls.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    for node in ast.walk(cls):
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign | ast.AugAssign)
            else []
        )
        for t in targets:
            if (
                isinstance(t, ast.Attribute)
                and isinstance(t.value, ast.Name)
                and t.value.id == 'self'
            ):
                names.add(t.attr)
    return names


def _manager_private() -> set[str]:
    cls = _class(ast.parse(MANAGER.read_text()), 'ControllerManager')
    return {n for n in _members(cls) if n.startswith('_') and not n.startswith('__')}


def private_uses(source: str, private: set[str]) -> list[str]:
    """`line: expression` for each use of a name in `private`, except `self._x` inside a
    class that defines `_x` itself (a helper's own private member of the same name)."""
    tree = ast.parse(source)
    own: dict[ast.AST, set[str]] = {}
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef):
            members = _members(cls)
            for node in ast.walk(cls):
                own[node] = own.get(node, set()) | members
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in private:
            is_self = isinstance(node.value, ast.Name) and node.value.id == 'self'
            if not (is_self and node.attr in own.get(node, set())):
                found.append((node.lineno, ast.unparse(node)))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ('getattr', 'setattr', 'hasattr', 'delattr')
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in private
        ):
            found.append((node.lineno, ast.unparse(node)))
    return [f'{line}: {text}' for line, text in sorted(found)]


def test_the_manager_has_private_members_to_protect() -> None:
    # the scan below means something only if it knows the manager's private names
    assert {'_active', '_apply', '_activate', '_running'} <= _manager_private()


def test_no_helper_module_uses_a_private_member_of_the_manager() -> None:
    private = _manager_private()
    offences = {
        path.name: uses
        for path in sorted(PACKAGE.glob('*.py'))
        if path != MANAGER
        for uses in [private_uses(path.read_text(), private)]
        if uses
    }
    assert offences == {}


def test_the_scan_finds_each_kind_of_reach() -> None:
    source = (
        'class Helper:\n'
        '    def _log(self): pass\n'
        '    def go(self, cm):\n'
        '        self._log()\n'  # its own: fine
        '        cm._active\n'
        '        self.cm._release(1)\n'
        "        getattr(cm, '_apply')\n"
        '        self._activate()\n'  # not its own: the manager's
    )
    found = private_uses(source, {'_log', '_active', '_release', '_apply', '_activate'})
    assert found == [
        '5: cm._active',
        '6: self.cm._release',
        "7: getattr(cm, '_apply')",
        '8: self._activate',
    ]


def test_the_manager_provides_every_member_of_the_seam() -> None:
    tables = _class(ast.parse((PACKAGE / 'manager_tables.py').read_text()), 'ManagerTables')
    wanted = {
        n.name if isinstance(n, ast.FunctionDef) else n.target.id  # type: ignore[union-attr]
        for n in tables.body
        if isinstance(n, ast.FunctionDef | ast.AnnAssign)
    }
    manager = _members(_class(ast.parse(MANAGER.read_text()), 'ControllerManager'))
    assert len(wanted) >= 19
    assert sorted(wanted - manager) == []
