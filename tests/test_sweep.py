"""Policy sweeps: best sets from paired outcomes, and a small end-to-end sweep."""

from __future__ import annotations

import re

import numpy as np
from click.testing import CliRunner

from sheepsim.analysis.sweep import best_set
from sheepsim.cli import cli


def test_best_set_keeps_ties_and_drops_clear_losers():
    rng = np.random.default_rng(0)
    base = rng.random(20_000)
    wins = np.stack([
        (base < 0.50).astype(np.int8),          # best
        (rng.random(20_000) < 0.50).astype(np.int8),   # same rate, unpaired noise: not separable
        (base < 0.40).astype(np.int8),          # 10 points worse: out
    ])
    best, keep = best_set(wins, 0.95)
    assert best in (0, 1) and keep.tolist() == [True, True, False]


def test_best_set_uses_pairing():
    # identical games but for 30 wins out of 20,000 (0.15 points): independent samples could
    # never tell them apart, paired outcomes on common seeds can
    wins = np.zeros((2, 20_000), dtype=np.int8)
    wins[:, :10_000] = 1
    wins[1, 10_000:10_030] = 1
    best, keep = best_set(wins, 0.95)
    assert best == 1 and keep.tolist() == [False, True]


def test_pig_sweep_report(tmp_path):
    toml = tmp_path / "pig.toml"
    toml.write_text('name = "pigs"\nkind = "policy_sweep"\ngame = "pig"\nseed = 3\nplayers = [2]\npolicy = "hold"\n'
                    'param = "t"\nvalues = [5, 20]\nfield_values = [20]\ngames = 3000\nconfirm_games = 3000\n')
    result = CliRunner().invoke(cli, ["run", str(toml), "--reports", str(tmp_path / "rep"), "-q", "--scale", "0.5"])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "rep" / "pigs.md").read_text()
    assert "| 5 |" in text and "| 20 |" in text and "in the best set" in text
    # findings first, in words; the exact command (with --scale) once, in the provenance
    assert text.index("## Findings") < text.index("## 2 players")
    assert "the best t is 20" in text.split("## 2 players")[0]
    # the headline answers first: the equilibria confirmed on fresh seeds (or none)
    headline = text.split("## Findings\n\n")[1].split("\n")[0]
    assert headline.startswith("Symmetric equilibria of hold:t confirmed on fresh seeds (each, against a field of "
                               "itself, not significantly worse than the best response at 95%): at 2 players ")
    assert text.count(f"sheepsim run {toml.as_posix()} --scale 0.5") == 1
    assert (tmp_path / "rep" / "pigs" / "sweep-2p.png").stat().st_size > 1000


def test_sweep_rejects_bad_values(tmp_path):
    toml = tmp_path / "bad.toml"
    toml.write_text('kind = "policy_sweep"\ngame = "blacksheep"\nplayers = [3]\npolicy = "threshold"\n'
                    'param = "k"\nvalues = [-1, 2]\n')
    result = CliRunner().invoke(cli, ["run", str(toml), "--reports", str(tmp_path / "rep")])
    assert result.exit_code == 2 and "out of range" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "rep").exists()


def test_rule_variants_report(tmp_path):
    toml = tmp_path / "v.toml"
    toml.write_text('name = "v"\nkind = "rule_variants"\ngame = "blacksheep"\nseed = 5\nplayers = [3]\n'
                    'policy = "threshold:k=6"\ngames = 400\n[variants]\nbase = {}\nwolf = { wolf = "on" }\n')
    result = CliRunner().invoke(cli, ["run", str(toml), "--reports", str(tmp_path / "rep"), "-q"])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "rep" / "v.md").read_text()
    assert "| 3 | base |" in text and "| 3 | wolf |" in text and "change in turns" in text
    # the baseline compared with itself changes nothing, and zero carries no sign
    base = next(line for line in text.splitlines() if line.startswith("| 3 | base | threshold:k=6 | 400 |"))
    assert " n/a |" in base and not re.search(r"-0\.0+(?![0-9])", text)
    assert text.index("## Findings") < text.index("## Seat balance") and "**3 players** (threshold:k=6)" in text
    headline = text.split("## Findings\n\n")[1].split("\n")[0]
    assert "game length" in headline and "seat 0's edge" in headline and not headline.startswith("- ")
    assert (tmp_path / "rep" / "v" / "variants.png").stat().st_size > 1000
    # the experience table: the base row's paired changes against itself are exactly zero
    feel = text.split("## How the games felt, by variant")[1]
    base = next(line for line in feel.splitlines() if line.startswith("| 3 | base |"))
    assert base.count("0.0 [0.0, 0.0]") == 2 and base.count("0.000 [0.000, 0.000]") == 1
    assert "triplets to win" in base
    assert ("How the games feel against `base`" in text) != ("No variant changes the decided share" in text)


def test_rule_variants_rejects_bad_variant(tmp_path):
    toml = tmp_path / "v.toml"
    toml.write_text('kind = "rule_variants"\ngame = "blacksheep"\nplayers = [3]\n[variants]\nbase = {}\n'
                    'odd = { wolf = "sometimes" }\n')
    result = CliRunner().invoke(cli, ["run", str(toml), "--reports", str(tmp_path / "rep")])
    assert result.exit_code == 2 and "wolf" in result.output and "off | on" in result.output


def test_sweep_against_a_fixed_field_reports_regret(tmp_path):
    # field = "SPEC": every other seat plays that one SPEC, and the field's own policy is
    # played in the focal slot on the same seeds; hold:t=20 against a hold:t=20 field plays
    # exactly the field's games, so its regret is 0 with no width at all
    toml = tmp_path / "pig.toml"
    toml.write_text('name = "fixed"\nkind = "policy_sweep"\ngame = "pig"\nseed = 3\npolicy = "hold"\nparam = "t"\n'
                    'values = [5, 20]\nfield = "hold:t=20"\ngames = 3000\n')
    result = CliRunner().invoke(cli, ["run", str(toml), "--reports", str(tmp_path / "rep"), "-q"])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "rep" / "fixed.md").read_text()
    assert "| t | win rate against hold:t=20 | hold:t=20's win rate | regret against hold:t=20 (points) |" in text
    assert text.split("## Findings\n\n")[1].startswith("Against hold:t=20, the best hold:t (every setting not "
                                                          "significantly worse than the best at 95%): at 2 players t = ")
    row = next(line for line in text.splitlines() if line.startswith("| 20 |"))
    assert row.split(" | ")[3] == "0.0 [0.0, 0.0]"
    five = next(line for line in text.splitlines() if line.startswith("| 5 |"))
    assert five.split(" | ")[3].startswith("+")          # holding at 5 gives away games
    findings = text.split("## 2 players")[0]
    assert "against hold:t=20 the best t is 20" in findings and "Regret against hold:t=20" in findings
    assert "smallest at t = 20, 0.0 [0.0, 0.0] points" in findings and "equilibrium" not in findings
    assert "**policies**: `hold:t=x vs field hold:t=20`" in text


def test_sweep_field_is_one_spec_and_not_a_swept_field(tmp_path):
    toml = tmp_path / "bad.toml"
    for extra, needle in (('field = "hold"\nfield_values = [20]\n', "give `field`"),
                          ("field = 20\n", "`field` must be a policy SPEC"),
                          ('field = "greedy"\n', "unknown pig policy 'greedy'")):
        toml.write_text('kind = "policy_sweep"\ngame = "pig"\npolicy = "hold"\nparam = "t"\nvalues = [5]\n' + extra)
        result = CliRunner().invoke(cli, ["run", str(toml), "--reports", str(tmp_path / "rep")])
        assert result.exit_code == 2 and needle in result.output and "Traceback" not in result.output, result.output
        assert not (tmp_path / "rep").exists()


def test_a_self_play_cell_below_the_fair_share_is_explained_by_its_games_without_a_sole_winner():
    from types import SimpleNamespace
    from sheepsim.stats.intervals import wilson_interval
    from sheepsim.report.layouts.sweep import _diagonal_note
    games = 3000
    outcomes = np.zeros((2, 2, games), dtype=np.int8)
    outcomes[0, 0] = -1                                   # k = 1 against itself: never a sole winner
    outcomes[1, 1, : games // 3] = 1                      # k = 2 against itself: fair, 1/3
    outcomes[0, 1, : games // 10] = 1
    outcomes[1, 0] = 1
    lo, hi = wilson_interval((outcomes == 1).sum(axis=2), games)
    p = SimpleNamespace(param="k", values=[1.0, 2.0], field_values=[1.0, 2.0], games=games)
    note = _diagonal_note(p, 3, outcomes, lo, hi)
    assert "k = 1: 0.0%, with no sole winner in 100.0% of the games, so (1 - 100.0%) / 3 = 0.0% expected" in note
    assert "k = 2" not in note and "below the fair 33.3%" in note
    outcomes[0, 0] = 0
    outcomes[0, 0, : games // 4] = 1                      # below with every game won alone: chance
    lo, hi = wilson_interval((outcomes == 1).sum(axis=2), games)
    note = _diagonal_note(p, 3, outcomes, lo, hi)
    assert "k = 1: 25.0% (0.0% without a sole winner), below by chance" in note and "expected" not in note
    outcomes[0, 0, : games // 3] = 1                      # fair on the diagonal: nothing to explain
    lo, hi = wilson_interval((outcomes == 1).sum(axis=2), games)
    assert _diagonal_note(p, 3, outcomes, lo, hi) == ""


def test_policies_outside_the_family_play_against_the_equilibrium(tmp_path):
    # hold:t=20 alone is its own best response; `outside` plays each SPEC against a field
    # of it on seeds of their own, paired with hold:t=20 itself in the focal slot: the same
    # policy there plays exactly those games (gain 0, no width), Pig's optimal more
    toml = tmp_path / "pig.toml"
    toml.write_text('name = "out"\nkind = "policy_sweep"\ngame = "pig"\nseed = 3\nplayers = [2]\npolicy = "hold"\n'
                    'param = "t"\nvalues = [20]\ngames = 500\nconfirm_games = 500\n'
                    'outside = ["optimal"]\noutside_games = 3000\nstrongest = "hold:t=20"\nstrongest_games = 1000\n')
    result = CliRunner().invoke(cli, ["run", str(toml), "--reports", str(tmp_path / "rep"), "-q"])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "rep" / "out.md").read_text()
    assert "### 2 players, beyond hold: against a field of hold:t=20" in text
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ") for line in text.splitlines()
            if line.startswith(("| hold:t=20 |", "| optimal |"))}
    # `strongest` plays the first 1,000 of the 3,000 games, paired with hold:t=20's own on
    # those: the same policy, so no gain and no width, only if the games line up
    assert rows["hold:t=20"][1] == "1,000" and rows["hold:t=20"][3].strip(" |") == "0.0 [0.0, 0.0]"
    assert rows["optimal"][1] == "3,000" and rows["optimal"][3].startswith("+")
    assert "3,000 per policy outside the family; 1,000 for hold:t=20, the first of them" in text
    assert "6 (policies outside the family)" in text
    finding = next(line for line in text.splitlines() if line.startswith("- **2 players, beyond hold**"))
    assert "where hold:t=20 itself wins" in finding
    for extra, needle in (('outside = "optimal"\n', "`outside` must be a list"),
                          ('outside = ["optimal"]\nfield = "hold:t=20"\n', "a fixed `field` has none"),
                          ('outside = ["greedy"]\n', "unknown pig policy 'greedy'"),
                          ('strongest = ["optimal"]\n', "`strongest` must be one policy SPEC"),
                          ('outside = ["optimal"]\nstrongest = "optimal"\n', "also in `outside`"),
                          ('strongest = "optimal"\nconfirm_games = 100\nstrongest_games = 200\n',
                           "must be at most `outside_games`"),
                          ('strongest = "optimal"\nstrongest_games = "many"\n', "`strongest_games` must be a positive")):
        bad = tmp_path / "bad.toml"
        bad.write_text('kind = "policy_sweep"\ngame = "pig"\npolicy = "hold"\nparam = "t"\nvalues = [20]\n' + extra)
        result = CliRunner().invoke(cli, ["run", str(bad), "--reports", str(tmp_path / "badrep")])
        assert result.exit_code == 2 and needle in result.output and "Traceback" not in result.output, result.output
        assert not (tmp_path / "badrep").exists()
