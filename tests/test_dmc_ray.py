"""DMC's Ray backend (``backend: ray``): two Ray actors on a local Ray of two CPUs feed the learner; both hand
out samples, the run writes the local backend's outputs, and its model plays legal moves as ``dmc:PATH``.
(A cluster, ``RAY_ADDRESS``, and a GPU learner are not tested here.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
ray = pytest.importorskip("ray")

from cardenvs import arena  # noqa: E402
from cardenvs.training import dmc, dmc_model  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SMALL = ["--set", "hidden=[32]", "--set", "move_hidden=16", "--set", "head_hidden=32", "--set", "eval_minutes=0"]


@pytest.mark.slow
def test_two_ray_actors_feed_the_learner_and_the_model_plays(tmp_path):
    # 64 steps a call: every actor's first call ends episodes (a Twos deal is about 30 decisions), so each
    # hands out samples in the first round, which the learner waits for
    flags = ["--set", "game=twos_v0", "--total-frames", "500", "--final-eval-games", "2", "--out", str(tmp_path)]
    flags += ["--set", "num_envs=8", "--set", "rollout_steps=64", "--set", "batch_size=64", *SMALL]
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        assert dmc.main([*flags, "--ray", "--actors", "2"]) == 0
    finally:
        ray.shutdown()
    run = tmp_path / "twos__dmc__1"
    actors = json.loads((run / "actors.json").read_text())
    assert actors["backend"] == "ray" and actors["device"] == "cpu"
    assert len(actors["actors"]) == 2 and all(a["decisions"] > 0 and a["episodes"] > 0 for a in actors["actors"])
    assert dmc_model.load_checkpoint(run / "model.pt")["frames"] >= 500
    assert json.loads((run / "final_eval.json").read_text())["games"] > 0
    results = arena.run_tournament("twos", [f"dmc:{run / 'model.pt'}", "random", "random"], 2, seed=3)
    assert results.stats()[results.agents[0]]["games"] >= 2  # every seating of 2 deals; an illegal move raises


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--set", "backend=mpi"], "backend 'mpi': expected one of local, ray"),
        (["--actors", "0"], "actors=0: expected an integer >= 1"),
        (["--device", "tpu"], "device 'tpu': expected cpu, cuda, cuda:N or auto"),
    ],
)
def test_bad_backend_settings_are_named(flags, message, capsys):
    with pytest.raises(SystemExit):
        dmc.parse_args(["--set", "game=twos_v0", *flags])
    assert message in capsys.readouterr().err


def test_ray_flag_and_config_key_pick_the_backend():
    assert dmc.parse_args(["--set", "game=twos_v0"]).backend == "local"
    assert dmc.parse_args(["--set", "game=twos_v0", "--ray", "--actors", "3"]).backend == "ray"
    assert dmc.parse_args(["--set", "game=twos_v0", "--set", "backend=ray", "--device", "auto"]).device == "auto"
    config = dmc.parse_args(["--config", str(ROOT / "configs/doudizhu_dmc_ray.yaml")])
    assert (config.backend, config.actors, config.device) == ("ray", 8, "auto")


def test_device_auto_is_the_cpu_without_a_gpu():
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert dmc_model.resolve_device("auto").type == expected
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="torch sees no GPU"):
            dmc_model.resolve_device("cuda")
