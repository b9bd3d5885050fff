"""War: the env (:mod:`.env`) and its rules (:mod:`.rules`)."""
