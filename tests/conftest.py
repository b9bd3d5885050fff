import pytest

import cardenvs
from cardenvs.registry import raw_env_class


def all_variants():
    """(env_id, variant name, options) for every registered env and each of its declared variants."""
    out = []
    for env_id in cardenvs.ENV_IDS:
        for name, options in raw_env_class(env_id).VARIANTS.items():
            out.append(pytest.param(env_id, options, id=f"{env_id}-{name}"))
    return out
