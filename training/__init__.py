"""Self-play training (the ``train`` extra): see ``training/README.md``."""
