"""Arena matches between agents and their statistics.

* :mod:`agents.matches.arena`: paired-opening matches, resumable, with SPRT early stopping
  (``iter_games``, ``run_match``);
* :mod:`agents.matches.match`: what decides a match's games, and its result;
* :mod:`agents.matches.players`, :mod:`agents.matches.game`: the agents of a process, and
  one game (clocks, referee, outcome), alone or many at once;
* :mod:`agents.matches.executors`: where the games run (this process, a process pool, the
  stream workers of :mod:`agents.matches.stream_pool`, Ray through
  :mod:`agents.matches.ray_pool`), behind one protocol;
* :mod:`agents.matches.openings`: random openings and opening books;
* :mod:`agents.matches.results`: the resumable ``results.jsonl`` file (or its recorded
  ``results.jsonl.gz``);
* :mod:`agents.matches.records`: a run's SGF files from its results file, and a run copied
  into the record (``gomcts sgf export``, ``gomcts record``: :mod:`agents.matches.records_cli`);
* :mod:`agents.matches.stats`: score rates, intervals, Elo, SPRT;
* :mod:`agents.matches.paired`: two matches on the same openings compared game by game;
* :mod:`agents.matches.balanced`: opening books a value function rates as even (the
  ``gomcts book`` command, :mod:`agents.nets.book_cli`, gives it the network's);
* :mod:`agents.matches.pair_stats`: what a match's pairs tell (splits, colour balance,
  signal-to-noise per pair);
* :mod:`agents.matches.plots`: the running score plot;
* :mod:`agents.matches.cli`: the ``gomcts arena`` command.

None of it imports Optuna; the studies of :mod:`tuning` play their games through it. See
``docs/arena.md``.
"""
