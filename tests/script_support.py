"""Loading a file of ``scripts/`` or ``benchmarks/`` as a module, for the tests that call it.

Those folders are not packages: a test loads the file by its path and calls its functions
(``main(argv)`` as the command line would).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def load_script(name: str, folder: str = "scripts") -> ModuleType:
    """``ROOT/folder/name.py`` as the module ``name`` (registered in ``sys.modules``)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / folder / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look a module up by its name
    spec.loader.exec_module(module)
    return module
