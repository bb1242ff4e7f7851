"""Compiled (numba) core of the rules engine. Private: use :class:`go_env.state.GoState`."""
