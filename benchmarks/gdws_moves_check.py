"""How far the moves ``gdws:`` offers a bot (:mod:`cardenvs.games.guandan.platform`) agree with OpenGuanDan's move
generator (its ``guandan-java-action.jar``, run with a JDK): at the play decisions of random ``guandan_v0``
hands, the set of ``[type, rank, cards]`` we list and the set the jar lists for the same hand, level and play
to beat, compared as sets (cards sorted). Prints the share of positions where they are equal and the commonest
differences.

    OPENGUANDAN=/path/to/OpenGuanDan python -m benchmarks.gdws_moves_check [--hands 20]

Their jar is run from the checkout (``guandan-java/guandan-java-action.jar``), never copied here."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
from collections import Counter
from pathlib import Path

import numpy as np

from cardenvs.games.guandan import platform, rules
from cardenvs.registry import make

SUIT_ROW = {"H": 0, "S": 1, "C": 2, "D": 3}
RANK_COLUMN = {r: i for i, r in enumerate("23456789TJQKA")}


def jar_hand(names: list[str]) -> list[int]:
    """A hand in the jar's input form: per rank (2..A, SB, HR) a bit per suit for one copy, the next bits for two."""
    out = [0] * 15
    for name in names:
        row, column = (
            (0, 13) if name == "SB" else (0, 14) if name == "HR" else (SUIT_ROW[name[0]], RANK_COLUMN[name[1]])
        )
        low, high = 1 << row, 1 << (row + 4)
        out[column] |= high if out[column] & low else low
    return out


def key(move: list) -> str:
    cards = move[2] if isinstance(move[2], str) else sorted(move[2])
    return json.dumps([move[0], move[1], cards])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--options", default="{}", help="env options as JSON, e.g. '{\"sf_as_straight\": true}'")
    parser.add_argument("--show", action="store_true", help="print each position's differences")
    args = parser.parse_args()
    jar = Path(os.environ["OPENGUANDAN"]) / "guandan-java" / "guandan-java-action.jar"
    worker = subprocess.Popen(
        ["java", "-jar", str(jar), "--worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert worker.stdin is not None and worker.stdout is not None
    equal = positions = 0
    only_ours: Counter = Counter()
    only_theirs: Counter = Counter()
    rng = np.random.default_rng(0)
    for hand in range(args.hands):
        env = make("guandan_v0", **json.loads(args.options))
        env.reset(seed=hand)
        base = env.unwrapped
        flags = rules.move_flags(base.config)
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            mask = np.asarray(observation["action_mask"], dtype=bool)
            s = base.core_state()[1][0]
            if s["phase"] == rules.PLAY and s["pending"] < 0:
                _, listed, _ = platform.question_moves(s, mask, flags)
                names = platform.hand_names(s["hands"][int(s["to_move"])])
                level = "23456789TJQKA"[int(s["hand_level"])]
                request: dict = {"id": positions + 1, "cards": jar_hand(names), "currentRank": level}
                request["heartsNum"] = names.count("H" + level)
                if s["last_pid"] >= 0:
                    i = int(s["last_play"])
                    cards = [int(c) for c in s["hist_cards"][i] if c >= 0]
                    greater = platform.platform_move(int(s["hist_pid"][i]), cards, int(s["hand_level"]), "openguandan")
                    request.update(mode="second", greaterAction=greater)
                else:
                    request["mode"] = "first"
                worker.stdin.write(json.dumps(request) + "\n")
                worker.stdin.flush()
                theirs = {key(m) for m in json.loads(worker.stdout.readline())["actions"]}
                ours = {key(m if m[0] != "Bomb" or m[1] != "JOKER" else ["FourKings", "B", m[2]]) for m in listed}
                positions += 1
                equal += ours == theirs
                only_ours.update(json.loads(k)[0] for k in ours - theirs)
                if args.show and ours != theirs:
                    print(
                        "level", level, "ours only", sorted(ours - theirs)[:3], "theirs only", sorted(theirs - ours)[:3]
                    )
                only_theirs.update(json.loads(k)[0] for k in theirs - ours)
            legal = np.flatnonzero(mask)
            env.step(int(legal[rng.integers(len(legal))]))
    worker.stdin.close()
    worker.wait()
    share = equal / positions
    print(f"{positions} play decisions over {args.hands} random hands: equal move sets at {equal} ({share:.1%})")
    print("moves only we list, by type:", dict(only_ours.most_common()))
    print("moves only the jar lists, by type:", dict(only_theirs.most_common()))


if __name__ == "__main__":
    main()
