"""Golden results: refactorings that promise identical behaviour prove it here.

Every configuration below (every game, every player count, every built-in policy,
several rule options, a Battle Sheep position and the card games' deck files) is played
through the public runner, and each result column is hashed on its own. The hashes in
tests/golden/results.json were taken before the engine-contract refactoring; a change
that moves a number shows WHICH column of WHICH configuration moved.

A deliberate behaviour change (with the game's VERSION bumped) regenerates the file:

    python tests/test_golden.py --write

and the commit says which columns moved and why.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

GOLDEN = Path(__file__).parent / "golden" / "results.json"

# A Hiboufou deck of 16 cards and a Bobby Sitter deck of 30, as deck files would give them
HIBOUFOU_DECK = [["red", "orange"], ["red", "yellow"], ["orange", "yellow"], ["green", "blue"],
                 ["blue", "purple"], ["green", "purple"], ["red", "green", "blue"], ["orange", "blue"],
                 ["yellow", "purple"], ["red", "purple"], ["orange", "green"], ["yellow", "blue"],
                 ["red", "blue"], ["green", "yellow"], ["orange", "purple"], ["red", "orange", "yellow"]]
BOBBY_DECK = [{"sheep": 1, "count": 6}, {"sheep": 2, "count": 5}, {"sheep": 3, "count": 3},
              {"wolf": True, "count": 8}, {"wolf": True, "sheep": 1, "count": 3},
              {"hidden_wolf": True, "sheep": 1, "count": 3}, {"count": 2}]

# (game, players, policies, options, start, games)
CONFIGS: list[tuple[str, int, tuple[str, ...], dict, str | None, int]] = []
for _p in (2, 3, 4):
    CONFIGS += [("battlesheep", _p, ("random",), {}, None, 300),
                ("battlesheep", _p, ("greedy", "random"), {}, None, 150),
                ("battlesheep", _p, ("greedy:epsilon=0.2",), {"start_zone": "any_edge"}, None, 100)]
CONFIGS += [("battlesheep", 2, ("random",), {"no_move": "game_ends_now", "final_tie": "second_largest_herd"}, None, 300),
            ("battlesheep", 2, ("random",), {"no_move": "player_loses", "placement_order": "reverse"}, None, 300),
            ("battlesheep", 3, ("random",), {"board": "random", "tiles_per_player": 3, "stack_size": 9}, None, 300),
            ("battlesheep", 2, ("greedy",), {"board": "preset:ring-2p"}, None, 100),
            ("battlesheep", 4, ("random",), {"board": "preset:parallelogram-4p"}, None, 200),
            ("battlesheep", 2, ("random", "greedy"), {}, "position", 200)]
for _p in (2, 3, 4, 5):
    CONFIGS += [("blacksheep", _p, ("random",), {"turn_cap": 60}, None, 300),
                ("blacksheep", _p, ("threshold:k=6",), {}, None, 500),
                ("blacksheep", _p, ("risk:p=0.2", "threshold:k=8"), {}, None, 400)]
CONFIGS += [("blacksheep", 3, ("threshold:k=7",), {"wolf": "on", "joker": "on"}, None, 500),
            ("blacksheep", 4, ("threshold:k=7",), {"refill": "all", "cap_resolution": "most_triplets",
                                                    "must_draw_first": "yes", "zoo_max_per_species": 3}, None, 500),
            ("blacksheep", 3, ("risk:p=0.3",), {"zoo_limit_basis": "blind_draws", "magpie_entry": "draw_pile_shuffled",
                                                "magpie_can_break_triplet": "no", "wolf_return": "after_refill"}, None, 500)]
# turn_optimal's solver (turnsolve.py), its hashes taken before it shared leaves among opponents
# and before its transposition table
CONFIGS += [("blacksheep", 3, ("turn_optimal", "threshold:k=7"), {}, None, 150),
            ("blacksheep", 4, ("turn_optimal",), {}, None, 30),
            ("blacksheep", 2, ("turn_optimal:depth=2", "risk"), {}, None, 100)]
for _p in (2, 3, 4, 5):
    CONFIGS += [("hiboufou", _p, ("random",), {}, None, 500),
                ("hiboufou", _p, ("greedy", "defensive", "random"), {}, None, 400)]
CONFIGS += [("hiboufou", 3, ("greedy",), {"colours": 5, "colours_per_card": 3}, None, 500),
            ("hiboufou", 3, ("random",), {"empty_slot_priority": "strict", "capture_condition": "hand_emptied",
                                          "initial_slot": "left"}, None, 500),
            ("hiboufou", 4, ("defensive", "random"), {"empty_slot_priority": "free", "match_covered_card": "yes",
                                                      "play_after_forced_draw": "yes", "tiebreak": "last_capture"},
             None, 300),
            ("hiboufou", 3, ("greedy", "random"), {}, "deck", 500)]
for _p in (2, 3, 4, 5, 6):
    CONFIGS += [("bobbysitter", _p, ("adult",), {}, None, 300),
                ("bobbysitter", _p, ("child", "adult", "young_child"), {}, None, 300)]
CONFIGS += [("bobbysitter", 4, ("child", "adult"), {"start_tokens": "3,2,2,2", "stack_mode": "per_player"}, None, 300),
            ("bobbysitter", 3, ("profile:median_ms=500,spread=0.3",), {"wolf_with_sheep": "sheep", "target_tokens": 4},
             None, 300),
            ("bobbysitter", 3, ("adult", "child"), {}, "deck", 300),
            ("pig", 2, ("random",), {}, None, 500),
            ("pig", 2, ("hold:t=20",), {}, None, 1000),
            ("pig", 2, ("hold:t=25", "random"), {"goal": 50}, None, 1000)]
# the policies the list above lacked (the position evaluation, the learned and exact
# policies) and a search agent per game, in small runs: their hashes taken before the
# plug-in contract moved the search wiring out of the games (search/)
CONFIGS += [("battlesheep", 2, ("territory", "greedy"), {}, None, 100),
            ("battlesheep", 2, ("mcts:iters=40,rollout=greedy,cutoff=8,temp=1,expand=greedy", "greedy"), {}, None, 12),
            ("battlesheep", 3, ("mcts:iters=24", "random"), {"board": "random"}, None, 9),
            ("battlesheep", 2, ("alphabeta:depth=2", "territory"), {}, None, 8),
            ("blacksheep", 2, ("learned", "threshold:k=6"), {}, None, 400),
            ("blacksheep", 2, ("ismcts:iters=24,rollout=greedy", "threshold:k=6"), {}, None, 20),
            ("blacksheep", 3, ("pimc:worlds=16", "risk"), {}, None, 20),
            ("hiboufou", 2, ("ismcts:iters=24,rollout=greedy", "greedy"), {}, None, 16),
            ("hiboufou", 3, ("pimc:worlds=8,z=1", "defensive"), {}, None, 12),
            ("pig", 2, ("optimal", "learned"), {}, None, 1000),
            ("pig", 2, ("mcts:iters=40", "hold"), {}, None, 60)]


def config_id(cfg) -> str:
    game, players, policies, options, start, n = cfg
    opts = ",".join(f"{k}={v}" for k, v in sorted(options.items()))
    return f"{game}/{players}p/{'+'.join(policies)}/{opts or '-'}/{start or '-'}/{n}"


def _start(game, rules_options, players, start, tmp: Path):
    """(rules, start object) through the library's own readers."""
    if start == "deck":
        path = tmp / f"{game.name}-deck.json"
        path.write_text(json.dumps(HIBOUFOU_DECK if game.name == "hiboufou" else BOBBY_DECK))
        return game.make_rules(players, rules_options), {"deck": game.read_deck(path)}
    if start == "position":
        # a built pasture with seat 0's stack placed: a fixed reference game, stopped early
        import random
        from sheepsim.games.battlesheep import reference as REF
        ref = REF.new_game(REF.Rules(num_players=players))
        rng = random.Random(7)
        while ref.phase == "build" or (ref.phase == "place" and not ref.stacks):
            ref = REF.play(ref, REF.random_move(ref, rng))
        pos = REF.to_position(ref)
        return game.rules_for_position(pos, rules_options), pos
    return game.make_rules(players, rules_options), None


def hashes(cfg, tmp: Path) -> dict[str, str]:
    """{column: sha256 of its values} for one configuration's per-game results."""
    from sheepsim.games import get_game
    from sheepsim.policies import seat_specs
    from sheepsim.runner import simulate

    name, players, policies, options, start, n = cfg
    game = get_game(name)
    rules, position = _start(game, options, players, start, tmp)
    # several policies are dealt round the seats: (greedy, random) at 3 players is g, r, g
    seats = [policies[i % len(policies)] for i in range(players)] if len(policies) > 1 else list(policies)
    run = simulate(game, rules, seat_specs(name, seats, players), n, seed=20261201, position=position,
                   chunk_size=max(1, n // 3))
    out = {}
    for col in run.results.columns:
        values = run.results[col]
        data = np.asarray(values.astype(str) if values.dtype.name == "category" else values)
        out[col] = hashlib.sha256(data.tobytes() if data.dtype != object else "\n".join(data).encode()).hexdigest()[:16]
    return out


def _golden() -> dict:
    return json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("cfg", CONFIGS, ids=config_id)
def test_results_match_the_golden_hashes(cfg, tmp_path):
    want = _golden()[config_id(cfg)]
    got = hashes(cfg, tmp_path)
    # columns added after the golden file (new metrics) are not compared; none may vanish
    moved = {col: (h, got.get(col)) for col, h in want.items() if got.get(col) != h}
    assert not moved, f"columns that moved (golden, now): {moved}"


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_golden.py --write")
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        table = {config_id(c): hashes(c, Path(tmp)) for c in CONFIGS}
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(table)} configurations to {GOLDEN}")
