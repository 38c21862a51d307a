"""`sheepsim check` and the scores beside it: outcome
uniformity and the target-length score.

The paired change is checked against independent computations: the plain paired
difference when every game counts, and a paired bootstrap over games for ratios. The
runs are Pig (its kernels compile in seconds) and one small Bye-Bye Black Sheep check,
the shipped example."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from sheepsim.analysis import check as C
from sheepsim.stats import tables as T
from sheepsim.stats.intervals import holm_adjusted
from sheepsim.analysis.policy_iteration import holm
from sheepsim.report.compare import _paired
from conftest import assert_bad, run_cli as run


# ---------------------------------------------------------------- the paired change

def test_a_plain_mean_pairs_as_the_paired_difference():
    rng = np.random.default_rng(1)
    base = rng.poisson(20, 3000).astype(float)
    variant = base + rng.normal(1, 3, 3000)
    ones = np.ones(3000)
    row = C.paired_ratio((base, ones), (variant, ones))
    diff, lo, hi = _paired(variant, base)
    assert row["change"] == pytest.approx(diff, abs=1e-12)
    assert (row["change_lo"], row["change_hi"]) == pytest.approx((lo, hi), abs=1e-12)
    assert row["base"] == pytest.approx(base.mean()) and row["variant"] == pytest.approx(variant.mean())


def test_a_ratio_change_has_the_paired_bootstrap_spread():
    # a share over the games it is defined for (comeback over won games), the two sides
    # correlated game by game as common seeds make them
    rng = np.random.default_rng(2)
    n = 4000
    latent = rng.uniform(size=n)
    b_base = (rng.uniform(size=n) < 0.8).astype(float)
    b_var = np.where(rng.uniform(size=n) < 0.9, b_base, 1 - b_base)
    a_base = b_base * (latent < 0.35)
    a_var = b_var * (latent < 0.40)
    row = C.paired_ratio((a_base, b_base), (a_var, b_var))
    se = (row["change_hi"] - row["change_lo"]) / (2 * 1.959964)
    draws = rng.integers(0, n, size=(3000, n))
    boot = a_var[draws].sum(1) / b_var[draws].sum(1) - a_base[draws].sum(1) / b_base[draws].sum(1)
    assert se == pytest.approx(boot.std(ddof=1), rel=0.08)
    assert row["change"] == pytest.approx(a_var.sum() / b_var.sum() - a_base.sum() / b_base.sum())


def test_a_measure_defined_for_no_game_is_nan_not_an_error():
    zeros, ones = np.zeros(10), np.ones(10)
    row = C.paired_ratio((zeros, zeros), (ones, ones))
    assert all(np.isnan(v) for v in row.values())


def test_holm_adjusted_agrees_with_the_step_down_test():
    rng = np.random.default_rng(3)
    for _ in range(300):
        p = rng.uniform(0, 0.06, rng.integers(1, 9)) ** rng.uniform(0.5, 2)
        assert np.array_equal(holm_adjusted(p) <= 0.05, holm(p, 0.05))
    assert np.isnan(holm_adjusted([0.01, np.nan])[1]) and holm_adjusted([0.01, np.nan])[0] == 0.01


def test_the_skill_gap_follows_the_strong_slot_over_the_seats():
    # seat s holds slot (s + rotation) mod P: slot 0 (strong) sits at seat (P - rotation) mod P
    skill = pd.DataFrame({"num_players": 3, "rotation": [0, 1, 2, 0, 1],
                          "winner": [0, 2, 1, 1, -1]})
    self_play = pd.DataFrame({"winner": [0, 1, 0, 0, 1], "turns": [10, 12, 9, 11, 10],
                              **{k: [0.5, 0.5, 0.5, 0.5, np.nan] for k in ("decided_share", "comeback",
                                                                            "lead_changes")}})
    measures = C.per_game(self_play, skill, None)
    a, b = measures["skill_gap"]
    assert a.tolist() == [1, 1, 1, 0, 0] and b.tolist() == [1, 1, 1, 1, 0]
    assert "target_length" not in measures
    a, b = measures["comeback"]
    assert b.tolist() == [1, 1, 1, 1, 0] and a[4] == 0


def test_an_edge_that_moves_away_from_fair_is_said_so_in_its_direction(tmp_path):
    plan = C.load(_variant(tmp_path, PIG + "[variant]\ngoal = 50\n"))
    row = pd.DataFrame([{"measure": "edge", "base": -0.001, "variant": -0.006, "change": -0.005,
                         "change_lo": -0.010, "change_hi": -0.001}]).iloc[0]
    text = C._sentence(row, plan)
    assert text.startswith("seat 0's edge fell by 0.5 [0.1, 1.0] points (from -0.1 to -0.6: further from fair)")
    row = row.copy()
    row[["base", "variant", "change", "change_lo", "change_hi"]] = [-0.02, -0.01, 0.01, 0.005, 0.015]
    assert C._sentence(row, plan).startswith("seat 0's edge rose by 1.0 [0.5, 1.5] points (from -2.0 to -1.0: "
                                             "closer to fair)")


# ---------------------------------------------------------------- scores

def test_target_length_score_is_ludiis_ideal_duration():
    turns = np.array([0, 5, 10, 15, 20, 30, 40, 50])
    assert T.target_length_score(turns, 10, 20).tolist() == [0, 0.5, 1, 1, 1, 0.5, 0, 0]
    hist = Counter({5: 3, 15: 2, 30: 5})
    row = T.target_length_row(hist, 10, 20)
    per_game = T.target_length_score(np.repeat(list(hist), list(hist.values())), 10, 20)
    assert row["score"] == pytest.approx(per_game.mean())
    assert (row["score_lo"], row["score_hi"]) == pytest.approx(
        (per_game.mean() - 1.959964 * per_game.std(ddof=1) / 10 ** 0.5,
         per_game.mean() + 1.959964 * per_game.std(ddof=1) / 10 ** 0.5), rel=1e-5)
    assert row["inside_rate"] == 0.2
    assert T.target_problem(20, 10) and T.target_problem(0, 0) and T.target_problem(0, 10) is None


def test_outcome_uniformity_by_hand():
    assert T.uniformity(np.array([500, 500]), 1000)[0] == pytest.approx(0.0)      # a fair coin
    assert T.uniformity(np.array([250] * 4), 1000)[0] == pytest.approx(0.25)      # 1 - 4 * 3/16
    assert T.uniformity(np.array([1000, 0]), 1000)[0] == pytest.approx(1.0)       # a foregone result
    # seat shares 0.6 and 0.3 (0.1 drawn): 1 - 2 (0.24 + 0.21) = 0.1
    u, lo, hi = T.uniformity(np.array([600, 300]), 1000)
    assert u == pytest.approx(0.1) and lo < u < hi
    u, lo, hi = T.uniformity(np.array([5000, 5000]), 10000)
    assert lo == 0.0 <= u <= hi                      # the estimate inside its interval at the floor


# ---------------------------------------------------------------- the command

def _variant(tmp_path, text: str, name: str = "v.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


PIG = 'game = "pig"\nplayers = [2]\ngames = 3000\nseed = 5\n'


def test_an_unchanged_variant_changes_nothing_in_any_game(tmp_path):
    plan = C.load(_variant(tmp_path, PIG + "[variant]\ngoal = 100\n"))
    verdict = C.run(plan, progress=False)
    t = verdict.table
    assert set(t["measure"]) == {"edge", "length", "decided_share", "comeback", "lead_changes", "skill_gap"}
    assert (t["change"] == 0).all() and (t["change_lo"] == 0).all() and (t["change_hi"] == 0).all()
    assert (t["p_holm"] == 1).all()
    assert "the same in every game of base and variant" in verdict.findings[0]


def test_a_shorter_goal_shortens_games_and_says_so(tmp_path):
    path = _variant(tmp_path, PIG + "target_length = [15, 25]\n[variant]\ngoal = 50\n")
    out = tmp_path / "verdict.json"
    result = run("check", str(path), "--json", str(out), "-q")
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    rows = {r["measure"]: r for r in data["rows"]}
    length = rows["length"]
    assert length["change_hi"] < 0 and length["p_holm"] < 1e-6 and length["variant"] < length["base"]
    assert "target_length" in rows
    text = result.output
    assert "Pig: variant 'v' against the base game, 3,000 games per run, seed 5, common seeds" in text
    assert "variant: goal=50" in text and "hold in every seat" in text
    assert "games got shorter by" in text
    assert data["games"] == 3000 and data["variant"] == {"goal": 50}


def test_scale_multiplies_the_games(tmp_path):
    plan = C.load(_variant(tmp_path, PIG + "[variant]\ngoal = 50\n"), scale=0.5)
    assert plan.games == 1500
    assert C.load(_variant(tmp_path, 'game = "pig"\n[variant]\ngoal = 50\n')).games == C.DEFAULT_GAMES


def test_a_deck_file_is_read_relative_to_the_variant_file(tmp_path):
    run("examples", str(tmp_path / "ex"))
    path = _variant(tmp_path / "ex", 'game = "hiboufou"\nplayers = 3\ngames = 200\n'
                                     '[variant]\ndeck = "hiboufou-deck.toml"\n')
    plan = C.load(path)
    assert plan.sides[3]["variant"].start["deck"] and plan.sides[3]["base"].start is None


@pytest.mark.parametrize("text,needle", [
    ('game = "chess"\n[variant]\nwolf = "on"\n', "unknown game 'chess'; valid games:"),
    ('game = "pig"\n[variant]\nwolf = "on"\n', "unknown pig option 'wolf'; valid options: goal, turn_cap"),
    ('game = "pig"\n[variant]\ngoal = 5\n', "goal"),
    ('game = "pig"\n', "it has no [variant] table"),
    ('game = "pig"\n[variant]\n', "its [variant] table is empty"),
    ('game = "pig"\ntarget_length = [30, 20]\n[variant]\ngoal = 50\n', "is upside down"),
    ('game = "pig"\ntarget_length = 20\n[variant]\ngoal = 50\n', "`target_length` must be [shortest, longest]"),
    ('game = "pig"\ngames = 0\n[variant]\ngoal = 50\n', "`games` must be a positive whole number"),
    ('game = "pig"\nplayers = [3]\n[variant]\ngoal = 50\n', "players"),
    ('game = "pig"\nstrong = "random"\n[variant]\ngoal = 50\n', "the skill gap needs two different policies"),
    ('game = "pig"\npolicy = "nonesuch"\n[variant]\ngoal = 50\n', "nonesuch"),
    ('game = "pig"\nrounds = 3\n[variant]\ngoal = 50\n', "unknown key 'rounds'; valid keys: game,"),
    ('game = "hiboufou"\n[variant]\ndeck = "missing.toml"\n', "missing.toml"),
    ('game = "pig"\n[variant]\ndeck = "d.toml"\n', "pig takes no deck file"),
    ('game = "pig"\n[variant\n', "is not valid TOML"),
])
def test_bad_variant_files_fail_in_one_line_and_write_nothing(tmp_path, text, needle):
    path = _variant(tmp_path, text)
    out = tmp_path / "verdict.json"
    assert_bad(run("check", str(path), "--json", str(out), "-q"), "variant file", needle)
    assert not out.exists()


def test_a_missing_variant_file_fails_in_one_line(tmp_path):
    assert_bad(run("check", str(tmp_path / "none.toml")), "cannot read variant file")


def test_the_example_variant_checks(tmp_path):
    run("examples", str(tmp_path))
    result = run("check", str(tmp_path / "variant.toml"), "--scale", "0.04", "-q")
    assert result.exit_code == 0, result.output
    assert "Bye-Bye Black Sheep: variant 'wolf' against the base game, 2,000 games per run" in result.output
    assert "target length score" in result.output and "Findings:" in result.output
