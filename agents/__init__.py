"""agents: everything that chooses moves."""
