"""The tests' own layout (docs/testing.md): no test file imports another test file
or a conftest (shared fixtures live in conftest.py files, shared helpers in tests/support),
every folder of tests is a package (two folders may then hold files of the same name), and
the pure tests import neither the app nor its database."""
from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
APP_MODULES = {"inspector.extensions", "flask_migrate"}


def _imports(path: Path):
    """(line, module, names) of every import in `path`, those inside functions too."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, []
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module, [a.name for a in node.names]


def _python_files():
    return sorted(p for p in TESTS.rglob("*.py") if "__pycache__" not in p.parts)


def test_no_module_of_the_tests_imports_a_test_file_or_a_conftest():
    found = []
    for path in _python_files():
        for line, module, names in _imports(path):
            targets = [module] + [f"{module}.{n}" for n in names]
            last = [t.rsplit(".", 1)[-1] for t in targets if t.startswith("tests.")]
            if any(part.startswith("test_") or part == "conftest" for part in last):
                found.append(f"{path.relative_to(TESTS.parent)}:{line} imports {module}")
    assert not found, "move the shared fixture to a conftest.py and the helper to " \
                      "tests/support:\n" + "\n".join(found)


def test_every_folder_of_tests_is_a_package():
    folders = {p.parent for p in TESTS.rglob("test_*.py") if "__pycache__" not in p.parts}
    missing = sorted(str(f.relative_to(TESTS.parent)) for f in folders
                     if not (f / "__init__.py").exists())
    assert not missing, f"add an empty __init__.py to: {missing}"


def test_pure_tests_import_neither_the_app_nor_its_database():
    found = []
    for path in sorted((TESTS / "pure").glob("*.py")):
        for line, module, names in _imports(path):
            if module in APP_MODULES or (module == "inspector" and "create_app" in names):
                found.append(f"{path.name}:{line} imports {module}")
    assert not found, "a test that needs the app or the database goes in its area's folder:\n" \
                      + "\n".join(found)


def test_the_layout_tests_see_the_tests():
    """The walks above read the real tree: this file and the shared conftest are in it."""
    files = {p.relative_to(TESTS).as_posix() for p in _python_files()}
    assert {"conftest.py", "pure/test_tests_layout.py", "support/__init__.py"} <= files
