"""The launcher's script. The engine (core/src/config/launcher.rs) and the children's
hooks (children/commands.py) run it by its path, ``python …/dapperdbg/launcher/__main__.py
--ipc …``, rather than as ``python -m dapperdbg.launcher`` (which works the same): runpy,
and what it imports, would cost every start 1 ms (3.12) to 9 ms (3.9, which imports
typing for it) that a plain ``python script.py`` does not pay.

Run by its path, it makes the package's top, ``dapperdbg.common`` and the start bundle's
module from their files itself, and the bundle (common/start_bundle.py) serves the rest:
found through ``sys.path``, each would cost the import system's search (a directory
listed for each entry it passes) and its Python machinery, some 0.4 ms of every start
on 3.12. So the package needs no ``sys.path`` entry, where the interpreter ignores
PYTHONPATH (-E, -I) too."""


def _make_start_modules(package: str) -> None:
    """The modules the bundle needs, each made from its file in ``package`` (its bytecode
    read from, or written to, its cache as an import would)."""
    import os
    import sys

    try:  # The import system's own functions, loaded with the interpreter.
        from _frozen_importlib import module_from_spec
        from _frozen_importlib_external import spec_from_file_location
    except ImportError:  # Not CPython's import system: through sys.path, as usual.
        if sys.flags.ignore_environment:
            sys.path.insert(0, os.path.dirname(package))
        return
    for name, path in (("dapperdbg", "__init__.py"), ("dapperdbg.common", "common/__init__.py"),
                       ("dapperdbg.common.start_bundle", "common/start_bundle.py")):
        if name in sys.modules:
            continue
        spec = spec_from_file_location(name, os.path.join(package, *path.split("/")))
        module = module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, module)


if __name__ == "__main__":
    import gc

    # No collection while the launcher starts (launch.py's ``main`` says why): the bundle's
    # first block alone makes enough objects to set one off.
    collecting = gc.isenabled()
    gc.disable()
    if not __package__:
        import os

        _make_start_modules(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from dapperdbg.common.start_bundle import open_bundle

    open_bundle()
    from dapperdbg.launcher.launch import run_as_main

    run_as_main(run_as_script=not __package__, collecting=collecting)
