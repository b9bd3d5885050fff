"""Speed measurements run by ``cardenvs bench``. Each ``bench_*.py`` module exposes ``run(quick) -> list[dict]``
with rows ``{"benchmark", "value", "unit", "reference", "ratio", "note"}``; ratios compare against a reference
measured in the same run (or a stated external figure, named as such in ``note``)."""
