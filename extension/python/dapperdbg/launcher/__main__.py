"""The launcher's script. The engine (core/src/config/launcher.rs) and the children's
hooks (children/commands.py) run it by its path rather than as ``python -m
dapperdbg.launcher`` (which works the same): runpy would cost every start 1 ms (3.12) to
9 ms (3.9). Run by its path, it makes the start bundle's module from its file, and the
bundle serves the rest, the package's top included: found through ``sys.path``, they
would cost each start the import system's search (about 0.4 ms on 3.12), and where the
interpreter ignores PYTHONPATH (-E, -I) the package is found all the same. Python
compiles a script at every start: what it does is written here in few words."""

if __name__ == "__main__":
    import gc

    # No collection while the launcher starts (launch.py's ``main`` says why).
    collecting = gc.isenabled()
    gc.disable()
    if __package__:
        from dapperdbg.common import start_bundle
    else:
        import os
        import sys
        from _frozen_importlib import module_from_spec
        from _frozen_importlib_external import spec_from_file_location

        spec = spec_from_file_location("dapperdbg.common.start_bundle", os.path.join(
            os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common",
            "start_bundle.py"))
        start_bundle = sys.modules[spec.name] = module_from_spec(spec)
        spec.loader.exec_module(start_bundle)
    start_bundle.open_bundle()
    from dapperdbg.launcher.launch import run_as_main

    run_as_main(run_as_script=not __package__, collecting=collecting)
