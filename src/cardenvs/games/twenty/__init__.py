"""Twenty: rules (:mod:`.rules`), the env (:mod:`.env`) and the exposed-hands solver (:mod:`.solver`)."""
