"""One package per game: ``rules.py`` (pure functions), ``moves.py`` (where needed), ``env.py`` (AEC glue)."""
