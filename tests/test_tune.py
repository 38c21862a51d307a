"""The tuner (analysis kind `tune`): its measures against the summary
tables computed independently, the racing's survivors against the stored blocks, the
Pareto ranking against brute force, the best setting against a brute-force sweep of a
small space, resuming (cut short mid-batch, and extended by more trials) against an
uninterrupted study, and every bad input. Bobby Sitter: its kernels compile in seconds."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest

from sheepsim.analysis import definition, racing
from sheepsim.stats import pareto
from sheepsim.stats import tables as T
from sheepsim.analysis import tune as U
from sheepsim.games import get_game
from sheepsim.policies import seat_specs
from sheepsim.runner import simulate
from conftest import assert_bad, run_cli as run

SMALL = """
kind = "tune"
game = "bobbysitter"
seed = 7
players = 4
focal_policy = "child"
policy = "adult"
objectives = [{ metric = "focal_edge", goal = "zero" }]
trials = 16
games = 400
confirm_games = 2000
[space.target]
option = "target_tokens"
low = 4
high = 7
[space.child_start]
option = "start_tokens"
player = 0
low = 1
high = 5
"""


def _file(tmp_path, text: str, name: str = "t.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def _plan(tmp_path, text: str = SMALL):
    spec = definition.load(_file(tmp_path, text))
    return spec, U.plan(spec, 1.0)


# ---------------------------------------------------------------- the measures

def test_a_settings_measures_equal_the_summary_tables(tmp_path):
    _, p = _plan(tmp_path)
    setting = {"target": 6, "child_start": 3}
    est = racing.estimates(racing.played(p, setting, 2, None))
    # the same games played again through the plain runner and read by the summary tables
    rules = get_game("bobbysitter").make_rules(4, {"target_tokens": 6, "start_tokens": "3,2,2,2"})
    specs = seat_specs("bobbysitter", ["child", "adult", "adult", "adult"], 4)
    frames = [simulate(p.game, rules, specs, p.blocks[b], racing.block_seed(p.seed, b), notify=None).results
              for b in range(2)]
    df = pd.concat(frames, ignore_index=True)
    child = T.policy_table(df).set_index("policy").loc["child"]
    assert est["focal_edge"][0] == pytest.approx(child["wins"] / (df["winner"] >= 0).sum())
    seats = T.seat_table(df)
    rates = seats["win_rate"].to_numpy()
    assert est["balance"][0] == pytest.approx(1 - (rates.max() - rates.min()))
    assert est["edge"][0] == pytest.approx(rates[0])
    assert est["length"][0] == pytest.approx(df["turns"].mean())
    assert racing.options_of(p, setting) == {"target_tokens": 6, "start_tokens": "3,2,2,2"}


def test_per_player_knobs_go_over_the_everyone_knob_and_the_options(tmp_path):
    _, p = _plan(tmp_path, SMALL + "[space.adult_start]\noption = \"start_tokens\"\nlow = 1\nhigh = 3\n")
    assert racing.options_of(p, {"target": 6, "child_start": 4, "adult_start": 1}) == {
        "target_tokens": 6, "start_tokens": "4,1,1,1"}
    _, p = _plan(tmp_path, SMALL.replace('policy = "adult"', 'policy = "adult"\noptions = { start_tokens = "2,3,3,1" }'))
    assert racing.options_of(p, {"target": 6, "child_start": 5})["start_tokens"] == "5,3,3,1"


def test_losses_follow_the_goal():
    est = {"edge": (0.2, None), "length": (30.0, None), "target_length": (0.75, None), "balance": (0.9, None)}
    assert racing.loss(U.Objective("edge", "zero"), est, 4) == pytest.approx(0.05)
    assert racing.loss(U.Objective("edge", "minimize"), {"edge": (0.1, None)}, 4) == pytest.approx(-0.15)
    assert racing.loss(U.Objective("balance", "maximize"), est, 4) == -0.9
    assert racing.loss(U.Objective("length", "inside", (20, 25)), est, 4) == -0.75


def test_the_change_column_measures_what_the_verdict_judges():
    # a zero goal judges the edge's size: from -0.5 to +0.6 points the signed edge moves
    # a clear +1.1, the size only +0.1; the column showed +1.1 beside "no detectable change"
    from types import SimpleNamespace
    rng = np.random.default_rng(1)
    common = rng.normal(0, 0.5, 4000)          # the games both settings share
    base = {"focal_edge": (0.245, common), "length": (30.0, common)}
    moved = {"focal_edge": (0.256, common + rng.normal(0, 0.01, 4000)), "length": (31.0, common + 0.5)}
    p = SimpleNamespace(players=4, objectives=[U.Objective("focal_edge", "zero")])
    row = U._change_row(p, base, moved)
    assert row["d_focal_edge"] == pytest.approx(0.001)
    assert row["d_focal_edge_lo"] < 0 < row["d_focal_edge_hi"] and row["against the best"] == "no detectable change"
    # the other goals: the value's own change, detectable here, and the verdict agrees
    p = SimpleNamespace(players=4, objectives=[U.Objective("length", "minimize")])
    row = U._change_row(p, base, moved)
    assert row["d_length"] == pytest.approx(1.0) and row["d_length_lo"] > 0 and row["against the best"] == "worse"


def test_pareto_fronts_and_rank_against_brute_force():
    rng = np.random.default_rng(4)
    for _ in range(50):
        losses = rng.integers(0, 5, size=(rng.integers(1, 12), 2)).astype(float)
        front = pareto.fronts(losses)
        for i in range(len(losses)):
            dominated = [j for j in range(len(losses))
                         if (losses[j] <= losses[i]).all() and (losses[j] < losses[i]).any()]
            # front 0: dominated by no one; front k: dominated only by fronts below k, by one of front k - 1
            assert all(front[j] < front[i] for j in dominated)
            assert front[i] == 0 if not dominated else max(front[j] for j in dominated) == front[i] - 1
        order = pareto.rank(losses)
        assert sorted(order.tolist()) == list(range(len(losses)))
        assert (np.diff(front[order]) >= 0).all()
    one = np.array([[3.0], [np.nan], [1.0], [2.0]])
    assert pareto.rank(one).tolist() == [2, 3, 0, 1]


# ---------------------------------------------------------------- the search

def _trials(folder) -> pd.DataFrame:
    return pd.read_parquet(folder / "t" / "trials.parquet")


def test_racing_keeps_the_best_half_of_each_rung_on_common_games(tmp_path):
    spec, p = _plan(tmp_path)
    report = definition.run_file(_file(tmp_path, SMALL), tmp_path / "out", progress=False)
    text = report.read_text()
    assert "## Confirmed settings" in text and "## Sensitivity" in text and (tmp_path / "out/t/history.png").exists()
    trials = _trials(tmp_path / "out")
    assert len(trials) == 16 and set(trials["state"]) <= {"complete", "pruned"}
    assert (trials.loc[trials["state"] == "pruned", "rejected"].str.contains("target_tokens")).all()
    totals = np.cumsum(p.blocks).tolist()               # 100, 200, 400
    assert totals == [100, 200, 400]
    for _, batch in trials.groupby("batch"):
        raced = batch[batch["state"] == "complete"]
        for r in range(len(totals) - 1):
            at = raced[raced["games"] >= totals[r]]
            went_on = raced[raced["games"] >= totals[r + 1]]
            assert len(went_on) == max(1, -(-len(at) // 2)) if len(at) else len(went_on) == 0
            # the survivors are the best at rung r, recomputed from the same common blocks
            losses = {t.trial: racing.loss(p.objectives[0], racing.estimates(racing.played(p, {"target": t.target,
                      "child_start": t.child_start}, r + 1, None)), 4) for t in at.itertuples()}
            cut = sorted(losses.values())[len(went_on) - 1]
            assert all(losses[t] <= cut for t in went_on["trial"])


def test_the_best_setting_is_in_the_best_set_of_a_brute_force_sweep(tmp_path):
    # every setting of the small space on the confirmation's games: the tuner's best must
    # not be detectably worse than the sweep's best
    spec, p = _plan(tmp_path)
    definition.run_file(_file(tmp_path, SMALL), tmp_path / "out", progress=False)
    text = (tmp_path / "out/t.md").read_text()
    best = json.loads(json.dumps(text.split("Best setting: **")[1].split("**")[0]))
    tuned = dict(kv.split("=") for kv in best.split(", "))
    # the headline, first in the findings, names the same setting and its confirmation
    assert text.index("## Findings") < text.index(f"The best setting found is {best} (") < text.index("- Best setting")
    o = p.objectives[0]
    sweep = {}
    for target, child in itertools.product(range(4, 8), range(1, 6)):
        s = {"target": target, "child_start": child}
        if not racing.valid(p, s):
            est = racing.confirm_run(p, s, None)
            sweep[(target, child)] = (racing.loss(o, est, 4), racing.loss_influence(o, est, 4))
    top = min(sweep, key=lambda k: sweep[k][0])
    mine = sweep[(int(tuned["target"]), int(tuned["child_start"]))]
    d = mine[1] - sweep[top][1]
    assert mine[0] - sweep[top][0] <= 1.96 * d.std(ddof=1) / np.sqrt(len(d)) + 1e-12


def test_a_study_cut_short_or_extended_ends_as_an_uninterrupted_one(tmp_path, monkeypatch):
    path = _file(tmp_path, SMALL)
    definition.run_file(path, tmp_path / "whole", progress=False)
    # cut short: the second batch is asked, then the run dies before its trials are told
    calls = []
    real = racing.race

    def dies(p, study, members, threads):
        calls.append(len(members))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(p, study, members, threads)
    monkeypatch.setattr(racing, "race", dies)
    with pytest.raises(KeyboardInterrupt):
        definition.run_file(path, tmp_path / "cut", progress=False)
    monkeypatch.setattr(racing, "race", real)
    definition.run_file(path, tmp_path / "cut", progress=False)
    # extended: 8 trials first, then 16 (`trials` is not part of the study's identity)
    definition.run_file(_file(tmp_path, 'name = "t"\n' + SMALL.replace("trials = 16", "trials = 8"), "t8.toml"),
                        tmp_path / "grown", progress=False)
    definition.run_file(path, tmp_path / "grown", progress=False)
    columns = ["trial", "batch", "target", "child_start", "state", "games", "loss_0", "focal_edge"]
    whole = _trials(tmp_path / "whole")[columns]
    for other in ("cut", "grown"):
        pd.testing.assert_frame_equal(_trials(tmp_path / other)[columns], whole)
        assert (tmp_path / other / "t.md").read_text().split("- Search:")[0] == \
            (tmp_path / "whole/t.md").read_text().split("- Search:")[0]


def test_two_objectives_draw_the_pareto_front(tmp_path):
    text = SMALL.replace('objectives = [{ metric = "focal_edge", goal = "zero" }]',
                         'objectives = [{ metric = "focal_edge", goal = "zero" },\n'
                         '              { metric = "length", goal = "inside", range = [10, 20] }]')
    report = definition.run_file(_file(tmp_path, text), tmp_path / "out", progress=False).read_text()
    assert "pareto.png" in report and "NSGA-II" in report and "target-length score" in report
    assert (tmp_path / "out/t/pareto.png").stat().st_size > 10_000
    # "best" for two objectives in words, and the settings tried sorted by the same score
    findings = report.split("## Findings")[1].split("\n## ")[0]
    assert "best: the least sum of the two objectives, each scaled from 0 at the best to 1" in findings
    trials = pd.read_parquet(tmp_path / "out/t/trials.parquet")
    told = trials[trials[["loss_0", "loss_1"]].notna().all(axis=1)]
    told = told.assign(score=pareto.knee_scores(told[["loss_0", "loss_1"]].to_numpy()))
    first = told[told["games"] == told["games"].max()].sort_values(["score", "trial"]).iloc[0]
    table = report.split("## Every setting tried")[1]
    assert "best first (best: the least sum" in table
    rows = [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("| trial")]
    assert rows[0].startswith(f"| {int(first['trial'])} |")
    spec = json.loads((tmp_path / "out/t/pareto.json").read_text())
    assert len(spec["beyond"]) == len(spec["x"]) and set(spec["view"]) == {"x", "y"}


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("change,needle", [
    (("option = \"target_tokens\"", "option = \"nonesuch\""), "unknown bobbysitter option 'nonesuch'; valid options:"),
    (("low = 4\nhigh = 7", "low = 7\nhigh = 4"), "the range 7..4 is empty"),
    (("low = 4\nhigh = 7", "choices = []"), "`choices` is an empty range"),
    (("low = 4\nhigh = 7", "low = 1\nhigh = 7"), "leaves target_tokens's allowed 2..10000"),
    (('metric = "focal_edge"', 'metric = "fun"'), "unknown metric 'fun'; valid metrics: edge, focal_edge"),
    (('goal = "zero"', 'goal = "best"'), "unknown goal 'best'; valid goals: minimize, maximize, zero, inside"),
    (('{ metric = "focal_edge", goal = "zero" }', '{ metric = "length", goal = "inside", range = [30, 20] }'),
     "is upside down"),
    (('{ metric = "focal_edge", goal = "zero" }', '{ metric = "balance", goal = "inside", range = [2, 5] }'),
     "goal \"inside\" is for metric \"length\""),
    (('focal_policy = "child"\n', ''), "the focal_edge metric needs a `focal_policy`"),
    (("option = \"target_tokens\"", "option = \"target_tokens\"\nplayer = 0"), "takes no `player`"),
    (("player = 0", "player = 4"), "`player` must be a player slot 0..3"),
    (('game = "bobbysitter"', 'game = "chess"'), "unknown game 'chess'"),
    (("trials = 16", "trials = 0"), "`trials` must be a whole number >= 1"),
    (('objectives = [{ metric = "focal_edge", goal = "zero" }]', 'objectives = []'), "give one or two objectives"),
])
def test_bad_tune_files_fail_in_one_line_and_write_nothing(tmp_path, change, needle):
    old, new = change
    assert old in SMALL
    path = _file(tmp_path, SMALL.replace(old, new))
    assert_bad(run("run", str(path), "--reports", str(tmp_path / "out"), "-q"), needle)
    assert not (tmp_path / "out").exists()
