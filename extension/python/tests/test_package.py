"""The package as a whole: its import graph has no cycle, its request table names each
command once, and ``pip install ./extension/python`` installs every module of it.

The import-graph rule. Every import of a ``dapper`` module counts, wherever it is
written: at module level, and inside a function too (a function-level import runs as
soon as the function does, so it is a dependency all the same; one that closes a cycle
only moves the cycle to run time). Lazy imports for start-up cost are fine, as long as
they close no cycle. Only imports under ``if TYPE_CHECKING:`` do not count: they never
run. An edge goes from the importing module to the module imported (``from pkg import
name`` imports ``pkg.name`` when that is a module, else ``pkg``), and to the packages
above it, whose ``__init__`` runs first, except the importer's own packages, which are
initialised before the importer runs.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import socket
import subprocess
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest
from test_listen import PROGRAM as LISTEN_PROGRAM
from test_listen import Client

from conftest import PACKAGE_DIR, TIMEOUT

ROOT = Path(PACKAGE_DIR)
PACKAGE = ROOT / "dapperdbg"


def module_names() -> dict[str, Path]:
    """Every module of the package: dotted name -> file."""
    modules = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, typing_too: bool = False):
    """The import statements that run (every one but those under TYPE_CHECKING, unless
    ``typing_too``)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test) and not typing_too:
            yield from (item for branch in node.orelse
                        for item in _imports_in(branch, typing_too))
            continue
        yield from _imports_in(node, typing_too)


def _imports_in(node: ast.AST, typing_too: bool = False):
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        yield node
    else:
        yield from _imports(node, typing_too)


def _ancestors(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:index]) for index in range(1, len(parts))]


def import_graph(typing_too: bool = False) -> dict[str, set[str]]:
    """``typing_too``: imports under TYPE_CHECKING count as well."""
    modules = module_names()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        package = name if is_package else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in _imports(ast.parse(path.read_text(), str(path)), typing_too):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
                continue
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                targets.add(submodule if submodule in modules else source)
        own = set(_ancestors(name)) | ({name} if is_package else set())
        for target in targets:
            if target not in modules:
                continue
            graph[name].add(target)
            graph[name].update(a for a in _ancestors(target) if a not in own and a in modules)
        graph[name].discard(name)
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected component that has one (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(_cycle_in(graph, set(component)))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def _cycle_in(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    start = min(component)
    path, seen = [start], {start}
    while True:
        following = sorted(t for t in graph[path[-1]] if t in component)
        back = [t for t in following if t in seen]
        if back:
            return path[path.index(back[0]):] + [back[0]]
        path.append(following[0])
        seen.add(following[0])


def test_the_import_graph_has_no_cycle():
    cycles = find_cycles(import_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_session_parts_do_not_depend_on_the_debugger_even_for_types():
    """Within session/, imports under TYPE_CHECKING count too: the Debugger's parts
    (stops, hot reload, exception breakpoints, frame restarts) are typed by what they use
    of it (session/parts.py), not by the module that makes them."""
    graph = import_graph(typing_too=True)
    session = {name: {target for target in targets if target.startswith("dapperdbg.session")}
               for name, targets in graph.items() if name.startswith("dapperdbg.session")}
    cycles = find_cycles(session)
    assert not cycles, "session cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_packages_form_layers():
    """Collapsed to its packages (dapperdbg.session.debugger counts as dapperdbg.session), the
    graph has no cycle either: each package imports only packages below it (the
    README's layout table lists them in that order)."""
    packages: dict[str, set[str]] = {}
    for module, targets in import_graph().items():
        package = ".".join(module.split(".")[:2])
        edges = packages.setdefault(package, set())
        edges.update(".".join(t.split(".")[:2]) for t in targets)
        edges.discard(package)
    for edges in packages.values():
        edges.intersection_update(packages)
    cycles = find_cycles(packages)
    assert not cycles, "package cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


@pytest.mark.parametrize(("graph", "expected"), [
    ({"a": {"b"}, "b": set()}, []),
    ({"a": {"b"}, "b": {"a"}}, [["a", "b", "a"]]),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c", "a"]]),
])
def test_find_cycles_reports_each_cycle(graph, expected):
    assert find_cycles(graph) == expected


def test_the_graph_counts_function_level_imports_and_not_type_checking_ones():
    graph = import_graph()
    # children/__init__.py imports the hooks' stand-ins inside activate(), and they import
    # each hook at its first use, for start-up cost.
    assert "dapperdbg.children.stand_ins" in graph["dapperdbg.children"]
    assert "dapperdbg.children.fork" in graph["dapperdbg.children.stand_ins"]
    # The handlers name the Debugger for the type checker only.
    assert "dapperdbg.session.debugger" not in graph["dapperdbg.requests.execution"]
    assert "dapperdbg.requests.dispatch" in graph["dapperdbg.session.lifecycle"]


def test_each_request_is_registered_once():
    from dapperdbg.requests.dispatch import HANDLERS, handler_for

    source = (PACKAGE / "requests" / "dispatch.py").read_text()
    [table] = [node.value for node in ast.walk(ast.parse(source))
               if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "HANDLERS"]
    commands = [key.value for key in table.keys]
    assert len(commands) == len(set(commands)), commands
    assert sorted(commands) == sorted(HANDLERS)
    assert all(callable(handler_for(command)) for command in HANDLERS)


def _local_build_wheels() -> list[Path]:
    """Directories of this machine that hold wheels of the build backend: setuptools 61+
    and wheel (CPython ships both for its own tests from 3.12 on), so that pip builds
    the package with no network."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    candidates = [stdlib / "test", stdlib / "test" / "wheeldata",
                  stdlib / "ensurepip" / "_bundled", Path("/usr/share/python-wheels")]
    found = [d for d in candidates if d.is_dir() and list(d.glob("*.whl"))]

    def has(name: str, oldest: tuple[int, ...] = ()) -> bool:
        for directory in found:
            for wheel in directory.glob(f"{name}-*.whl"):
                version = wheel.name.split("-")[1].split(".")
                if tuple(int(p) for p in version[:1] if p.isdigit()) >= oldest:
                    return True
        return False

    return found if has("setuptools", (61,)) and has("wheel") else []


@pytest.mark.skipif(not _local_build_wheels(),
                    reason="no local wheels of setuptools 61+ and wheel to build with offline")
def test_pip_installs_every_module(tmp_path):
    """``pip install ./extension/python`` into a fresh venv, offline (its pip from
    ensurepip, the build backend from local wheels); then the venv's Python, which sees
    nothing of this tree, imports every module from its site-packages."""
    environment = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(environment)
    python = environment / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_"))}
    clean["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    # A copy of the project, so that setuptools' build/ and egg-info stay out of the tree
    # (and a stale build/ cannot hide a package missing from the list).
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        "__pycache__", "build", "*.egg-info", "tests", "benchmarks"))
    links = [option for d in _local_build_wheels() for option in ("--find-links", str(d))]
    subprocess.run([str(python), "-m", "pip", "install", "--no-index", *links, "--quiet",
                    str(source)], check=True, cwd=tmp_path, env=clean, timeout=300)
    names = sorted(module_names())
    script = (
        "import importlib, sysconfig\n"
        "site_packages = sysconfig.get_paths()['purelib']\n"
        f"for name in {names!r}:\n"
        "    module = importlib.import_module(name)\n"
        "    assert module.__file__.startswith(site_packages), module.__file__\n"
        f"print('imported', {len(names)})\n"
    )
    result = subprocess.run([str(python), "-c", script], env=clean, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"imported {len(names)}\n"
    _run_both_entry_points(python, clean, tmp_path)


REPOSITORY = ROOT.parent.parent
VSCE = REPOSITORY / "node_modules" / ".bin" / ("vsce.cmd" if os.name == "nt" else "vsce")


def _packaged_vsix(tmp_path: Path) -> Path | None:
    """The .vsix that npm test's VS Code suite installs (DAPPER_VSIX), or one packaged
    here by vsce from the build in dist/; None when neither can be had."""
    given = os.environ.get("DAPPER_VSIX")
    if given:
        return Path(given)
    if not VSCE.exists() or not (REPOSITORY / "dist" / "extension.js").exists():
        return None
    vsix = tmp_path / "dapper.vsix"
    subprocess.run([str(VSCE), "package", "--no-dependencies", "--out", str(vsix)],
                   cwd=REPOSITORY, check=True, capture_output=True, timeout=300)
    return vsix


@pytest.mark.skipif(not _local_build_wheels(),
                    reason="no local wheels of setuptools 61+ and wheel to build with offline")
def test_pip_installs_the_package_from_the_installed_extension(tmp_path):
    """The README's ``pip install <extension>/extension/python``: from the packaged .vsix
    (as VS Code unpacks it) into a fresh venv, offline; the installed package then serves
    a debugger through ``--listen`` and ``--connect``."""
    vsix = _packaged_vsix(tmp_path)
    if vsix is None:
        pytest.skip("no build to package (dist/) or no vsce (node_modules)")
    unpacked = tmp_path / "installed"
    with zipfile.ZipFile(vsix) as archive:
        archive.extractall(unpacked)
    folder = unpacked / "extension" / "extension" / "python"
    assert (folder / "pyproject.toml").is_file(), sorted(p.name for p in folder.iterdir())
    environment = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(environment)
    python = environment / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_"))}
    clean["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    links = [option for d in _local_build_wheels() for option in ("--find-links", str(d))]
    subprocess.run([str(python), "-m", "pip", "install", "--no-index", *links, "--quiet",
                    str(folder)], check=True, cwd=tmp_path, env=clean, timeout=300)
    _run_both_entry_points(python, clean, tmp_path)


def _run_both_entry_points(python: Path, env: dict, tmp_path: Path) -> None:
    """The installed ``python -m dapperdbg --listen`` and ``--connect``, for real: a
    socket peer speaks the engine's side (hello, configure, a breakpoint, the stop, the
    exit)."""
    program = tmp_path / "ticks.py"
    program.write_text(LISTEN_PROGRAM)

    def session(client: Client, process: subprocess.Popen) -> None:
        hello = client.attach(str(program))
        assert hello["body"]["pid"] == process.pid and hello["body"]["name"] == str(program)
        stopped = client.until(lambda m: m.get("event") == "stopped")
        assert stopped["body"]["reason"] == "breakpoint"
        client.request("setBreakpoints", {"source": {"path": str(program)}, "breakpoints": []})
        client.request("continue", {"threadId": stopped["body"]["threadId"]})
        assert client.until(lambda m: m.get("event") == "dapper/exiting")["body"] == {
            "exitCode": 4}
        process.wait(timeout=TIMEOUT)
        assert process.returncode == 4

    listening = subprocess.Popen(
        [str(python), "-m", "dapperdbg", "--listen", "0", str(program), "0.3"], env=env,
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = listening.stderr.readline()
        assert line.startswith("dapper: listening for a debugger on 127.0.0.1:"), line
        session(Client(int(line.rsplit(":", 1)[1])), listening)
    finally:
        if listening.poll() is None:
            listening.kill()
        listening.communicate(timeout=TIMEOUT)

    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(TIMEOUT)
    port = server.getsockname()[1]
    connecting = subprocess.Popen(
        [str(python), "-m", "dapperdbg", "--connect", str(port), str(program), "0.3"], env=env,
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        sock, _ = server.accept()
        session(Client(port, sock), connecting)
    finally:
        server.close()
        if connecting.poll() is None:
            connecting.kill()
        connecting.communicate(timeout=TIMEOUT)


def test_the_package_description_names_the_package_as_pip_and_import_know_it():
    """The README that pip shows (pyproject's ``readme``) names the distribution and the
    import package by their real names, and is shipped wherever pyproject.toml is."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    name = re.search(r'^name = "([^"]+)"', pyproject, re.MULTILINE).group(1)
    readme_name = re.search(r'^readme = "([^"]+)"', pyproject, re.MULTILINE).group(1)
    readme = (ROOT / readme_name).read_text(encoding="utf-8")
    assert readme.splitlines()[0] == f"# {name}"
    stated = re.findall(r"(pip|import) name `([^`]+)`", readme)
    assert stated, "the README states the pip name and the import name"
    for kind, stated_name in stated:
        expected = name if kind == "pip" else "dapperdbg"
        assert stated_name == expected, (kind, stated_name)
    assert (ROOT / "dapperdbg" / "__init__.py").is_file()
