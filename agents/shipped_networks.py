"""The networks shipped in ``agents/nets/models/``, by name: listed without torch.

``docs/nets.md`` says how each was made. :mod:`agents.nets.checkpoint` reads them.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = [
    "NETWORK_NAMES",
    "SHIPPED_MODEL",
    "SHIPPED_MODELS",
    "shipped_model_path",
    "shipped_names",
]

SHIPPED_MODEL = "b4c32-9x9.pt.gz"
"""File name of the default model shipped in ``agents/nets/models/`` (see ``docs/nets.md``)."""
SHIPPED_MODELS = {
    "default": SHIPPED_MODEL,
    "supervised": SHIPPED_MODEL,
    "paper-9x9": "paper-9x9.pt.gz",
    "strong-9x9": "strong-9x9.pt.gz",
    "strong-9x9-b6": "strong-9x9-b6.pt.gz",
}
"""The names a ``model`` option takes for a network shipped in ``agents/nets/models/``:
``default`` and ``supervised``, the network that imitates GNU Go; ``paper-9x9``, the
self-play network of Li & Lim's shape; ``strong-9x9``, the best network so far of the
self-play line that starts from the supervised one; ``strong-9x9-b6``, a larger network
(6 blocks of 48 filters) distilled from that line's games and taught by games against GNU Go,
which beats ``strong-9x9`` at half its simulations (``docs/nets.md`` says how each was made)."""
NETWORK_NAMES = tuple(name for name in SHIPPED_MODELS if name != "default")
"""The names to show a user: ``default`` is another name for ``supervised``."""


def shipped_names() -> list[str]:
    """The names of the shipped networks whose files this installation has."""
    return [name for name in SHIPPED_MODELS if shipped_model_path(name).is_file()]


def shipped_model_path(name: str = "default") -> Path:
    """Path of a network shipped with the package (``agents/nets/models/``).

    Raises:
        ValueError: When ``name`` is not one of :data:`SHIPPED_MODELS`.
    """
    if name not in SHIPPED_MODELS:
        raise ValueError(
            f"no shipped network is called {name!r}; the shipped ones are "
            f"{', '.join(SHIPPED_MODELS)}"
        )
    return Path(str(resources.files("agents.nets") / "models" / SHIPPED_MODELS[name]))
