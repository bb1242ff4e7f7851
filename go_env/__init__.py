"""go_env: the game of Go (a compiled rules core) and its PettingZoo AEC environment."""
