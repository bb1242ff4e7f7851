"""Monte-Carlo tree search: tree, selection, search loop, agent, evaluators, backups."""
