"""agents: everything that chooses moves, and the matches that compare them."""

from agents._moved import install as _install_moved_modules

_install_moved_modules()  # old import paths of moved modules, for one release (CHANGELOG.md)
