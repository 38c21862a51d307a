"""The skill_ladder and ratings analysis kinds: their statistics, runs and bad input."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from conftest import assert_bad
from conftest import run_cli as run
from sheepsim.analysis.ratings import ELO, cycle, fit
from sheepsim.report import saved


def _analysis(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "a.toml"
    path.write_text(text)
    return path


# --- ratings: the solver and the cycle search ------------------------------------------

def test_bradley_terry_recovers_known_strengths_from_their_expected_wins():
    true = np.array([0.0, 0.8, -0.5, 1.7])
    p = 1 / (1 + np.exp(-(true[:, None] - true[None, :])))
    played = np.full((4, 4), 10_000.0) - np.diag(np.full(4, 10_000.0))
    r = fit(p * played, played)
    assert np.allclose(r, true, atol=1e-4)


def test_bradley_terry_of_two_players_is_the_log_odds():
    wins = np.array([[0.0, 700.0], [300.0, 0.0]])
    r = fit(wins, wins + wins.T)
    assert r[1] == pytest.approx(np.log(300 / 700), abs=1e-6)
    assert ELO * abs(r[1]) == pytest.approx(147.2, abs=0.1)    # 70% = about 147 Elo


def test_cycle_is_found_only_where_there_is_one():
    beats = np.zeros((4, 4), dtype=bool)
    beats[0, 1] = beats[1, 2] = beats[0, 3] = True
    assert cycle(beats) is None
    beats[2, 0] = True                  # 0 > 1 > 2 > 0
    loop = cycle(beats)
    assert loop[0] == loop[-1] and set(loop) == {0, 1, 2}
    assert all(beats[a, b] for a, b in zip(loop, loop[1:]))


# --- whole runs ------------------------------------------------------------------------

def test_ratings_run_ranks_pig_policies(tmp_path):
    path = _analysis(tmp_path, 'name = "r"\nkind = "ratings"\ngame = "pig"\n'
                               'policies = ["random", "hold:t=20", "hold:t=10"]\ngames = 3000\nbootstrap = 200\n')
    result = run("run", str(path), "--reports", str(tmp_path / "rep"), "-q")
    assert result.exit_code == 0, result.output
    text = (tmp_path / "rep" / "r.md").read_text()
    # hold:t=20 is hold's default, named in full beside hold:t=10
    assert "Strongest: **hold:t=20**" in text and "No cycle" in text
    assert text.split("## Findings\n\n")[1].startswith("Highest rating: hold:t=20, ")
    rows = re.findall(r"^\| (\S+) \| (-?\d+) \[(-?\d+), (-?\d+)\]", text, re.M)
    ranked = [name for name, *_ in rows]
    assert ranked == ["hold:t=20", "hold:t=10", "random"]
    assert (tmp_path / "rep" / "r" / "pairs.png").stat().st_size > 10_000


def test_skill_ladder_run_follows_its_stopping_rule(tmp_path):
    path = _analysis(tmp_path, 'name = "l"\nkind = "skill_ladder"\ngame = "battlesheep"\nplayers = 2\n'
                               'policy = "mcts"\nstart = 2\nlimit = 16\ngames = 200\nagainst_games = 100\n')
    result = run("run", str(path), "--reports", str(tmp_path / "rep"), "-q")
    assert result.exit_code == 0, result.output
    text = (tmp_path / "rep" / "l.md").read_text()
    steps = re.findall(r"^\| mcts:iters=(\d+) \| mcts:iters=(\d+) \| 200 \| (\d+) \| [\d.]+% \[([\d.]+), ([\d.]+)\]",
                       text, re.M)
    assert steps, text
    # every step but the last gained significantly; the last did not, or the limit stopped the ladder
    for strong, weak, _, lo, _ in steps[:-1]:
        assert int(strong) == 2 * int(weak) and float(lo) > 50
    last_strong, _, _, last_lo, _ = steps[-1]
    assert float(last_lo) <= 50 or int(last_strong) == 16
    # the headline answers whether doubling still pays at the top, as the last step says
    headline = text.split("## Findings\n\n")[1].split("\n")[0]
    assert f"{last_strong} against {int(last_strong) // 2} iterations wins " in headline
    if float(last_lo) != 50:
        pays = float(last_lo) > 50
        assert headline.startswith("Doubling mcts's iterations " + (
            "still pays at the top of the ladder: " if pays else "stops paying, at this many games, at about "))
    assert "## Findings" in text and (tmp_path / "rep" / "l" / "ladder.png").exists()
    # its saved data, so the site draws the report's figures (and does not fall back to its Markdown)
    data = saved.read_sidecar(tmp_path / "rep" / "l.md")
    assert data is not None and data["findings"]
    figures = [s["path"] for s in data["sections"] if s["type"] == "figure"]
    assert figures == ["l/ladder.png", "l/against.png"]
    for figure in figures:
        spec = saved.read_figure_spec(tmp_path / "rep" / figure)
        assert spec is not None and spec["kind"] == "lines", figure


@pytest.mark.parametrize("body,needles", [
    ('kind = "skill_ladder"\ngame = "pig"\npolicy = "mcts"\nstart = 64\nlimit = 100\n',
     ["limit (100) is below its first step", "limit >= 128"]),
    ('kind = "skill_ladder"\ngame = "pig"\npolicy = "hold"\n', ["has none", "mcts or ismcts"]),
    ('kind = "skill_ladder"\ngame = "pig"\npolicy = "mcts:iters=5"\n', ["without iters"]),
    ('kind = "skill_ladder"\ngame = "blacksheep"\npolicy = "mcts"\n', ["hides cards", "use ismcts"]),
    ('kind = "skill_ladder"\ngame = "battlesheep"\nplayers = [2, 3]\n', ["one player count"]),
    ('kind = "ratings"\ngame = "pig"\npolicies = ["random", "hold"]\n', ["at least 3 different policies"]),
    ('kind = "ratings"\ngame = "pig"\npolicies = ["random", "hold", "mcts"]\nbootstrap = 5\n', ["bootstrap"]),
    ('kind = "ratings"\ngame = "pig"\npolicies = ["random", "hold", "mcts:rollout=wild"]\n', ["random, greedy"]),
])
def test_bad_ladder_and_ratings_files_are_one_line_exit_2(tmp_path, body, needles):
    reports = tmp_path / "rep"
    assert_bad(run("run", str(_analysis(tmp_path, body)), "--reports", str(reports)), *needles)
    assert not reports.exists()


def test_a_significant_pair_the_rating_order_contradicts_is_flagged():
    """blacksheep-ratings: risk rated first (by beating random far more) while
    threshold:k=6 beats risk head to head: no cycle, but the order is contradicted."""
    import pandas as pd

    from sheepsim.analysis.ratings import contradicted
    from sheepsim.report.layouts.ratings import _findings, _headline
    labels = ["random", "threshold:k=6", "risk"]
    beats = np.array([[False, False, False], [True, False, True], [True, False, False]])
    assert cycle(beats) is None
    assert contradicted([2, 1, 0], beats) == [(1, 2)]          # risk rated above threshold:k=6
    assert contradicted([1, 2, 0], beats) == []
    table = pd.DataFrame({"policy": ["risk", "threshold:k=6", "random"], "rating": [593.0, 571.0, 0.0],
                          "rating_lo": [560.0, 531.0, 0.0], "rating_hi": [631.0, 616.0, 0.0]})
    said = ["threshold:k=6 beats risk 62.7% [57.9, 67.3]"]
    lines = _findings(table, None, labels, said)
    assert not any("consistent with every significant pairwise result" in line for line in lines)
    assert "but not the ratings' order" in lines[-2]
    assert lines[-1] == ("**Against the ratings' order**: threshold:k=6 beats risk 62.7% [57.9, 67.3], yet is rated "
                         "below it (95% Wilson interval above 50%).")
    assert _headline(table, said) == (
        "Highest rating: risk, 22 Elo above threshold:k=6 (their intervals overlap); the ratings' order is "
        "contradicted by 1 significant pairwise result (threshold:k=6 beats risk 62.7% [57.9, 67.3]).")
    assert "consistent with every significant pairwise result" in _findings(table, None, labels, [])[-1]
    assert _headline(table, []).endswith("no significant pairwise result contradicts the ratings' order.")
