"""Stop tables: the `learned` policy's data file, and the probe kernel that learns one.

A push-your-luck decision (Pig's roll or hold, Bye-Bye Black Sheep's draw or stop) is
described by a small documented feature set: a CELL, a few bucketed features of what
the seat may know, and the AMOUNT at stake (Pig's turn total, the cards on the table).
A stop table holds one threshold per cell: the seat stops once the amount reaches its
cell's threshold, and goes on below it. A table with one threshold everywhere is the
fixed rule (hold at t, threshold k) exactly, decision for decision.

Each game with a stop table gives, in its policies.py (@njit):

    stop_cell(s, rules, seat) -> int    the cell, or -1 where the table does not decide
                                        (a forced roll or draw, a hold that wins, the
                                        turn's other decisions)
    stop_amount(s) -> int               the amount at stake
    stop_act(s, rules, seat, rng, stop) the action that stops (stop True) or goes on,
                                        as the `learned` policy plays it

and `Features` (GameSpec.stop_features). In the kernels' aux a run with a `learned`
seat ends with the table's block, [min T, T_0, ..., T_{n-1}, n]: Pig reads it from the
end of aux; Bye-Bye Black Sheep, whose kernels see aux as a pointer without a length, at
slot 1 (its start state is the one slot before it), and skips working out the cell of a
draw while the amount is below every threshold (min T).

The file, JSON ("sheepsim-stop-table", FORMAT_VERSION): game, game_version, players,
rules (every option: a table is refused under other rules), features (the feature
set's name: a table is refused by another feature set), axes ([name, size] each, the
cell index is row-major over them), amount, thresholds (one per cell), provenance.

Probing (probe_block): every seat plays the table being learned. At a decision point
(stop_cell >= 0), chosen with probability rate[cell] from the game's probe stream
(stream N_STREAMS, used by nothing else; per cell, so that rare cells can be probed at
every visit and common ones seldom) when the amount is at least near[cell] (a cell's
threshold less the feature set's window: far below it going on is plain), up to
`per_game` a game, the position and every
stream are copied twice and played out, once stopping now and once going on, all
seats on the table afterwards: the same luck in both (common random numbers), so
delta = share(go) - share(stop) of the deciding seat estimates with little variance
how much going on is worth there. At amounts >= far_from[cell] (the learner passes
the thresholds) a third copy goes on while the seat decides its own turn's stop and
the amount is below far_from[cell] + reach, then the table: far = share(that) -
share(stop) sees what one step cannot, a gain that only comes from going on a long
way (Pig's "roll on to win" when the opponent is near the goal, where one more roll is
worth about 0.001). The game itself then goes on as the table says: the probes never
touch its streams, so its moves are those of a plain run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from ..errors import SheepsimError
from ..fileio import write_atomic
from ..rng import rand_float, seed_stream
from .driver import MAX_STEPS, NATURE, _buffers, as_action, block_games, \
    BLOCKS, seed_game
from .fast import popcount

FORMAT = "sheepsim-stop-table"
FORMAT_VERSION = 1
PROBE_COLUMNS = ("cell", "amount", "seat", "delta", "far")


@dataclass(frozen=True)
class Features:
    """A game's stop-table feature set under given rules."""

    name: str                               # versioned: "pig-scores-v1"
    axes: tuple[tuple[str, int], ...]       # (feature, buckets); the cell is row-major over them
    amount: str                             # what the threshold is compared with
    initial: int                            # the threshold learning starts from (the fixed rule's)
    window: int                             # probes look this far below a cell's threshold
    fixed: str                              # the SPEC of the fixed rule at `initial` (the same play)
    floor: int = 0                          # learning never sets a threshold below it
    reach: int = 0                          # far probes go on to T + reach (0: none; policy_iteration.py)
    doc: str = ""
    ticks: tuple[tuple[str, ...], ...] = ()  # each axis's bucket labels ("0-4" points); none: the bucket's index

    @property
    def cells(self) -> int:
        return int(np.prod([n for _, n in self.axes]))


def shipped(game: str, players: int) -> Path:
    """The table sheepsim ships for `game` and a player count (learned without a file)."""
    return Path(__file__).parent / game / "tables" / f"learned-{players}p.json"


def save(path: Path, game, rules, features: Features, thresholds: np.ndarray, provenance: dict[str, Any]) -> None:
    data = {"format": FORMAT, "version": FORMAT_VERSION, "game": game.name, "game_version": game.version,
            "players": rules.num_players, "rules": rules.as_dict(), "features": features.name,
            "axes": [list(a) for a in features.axes], "amount": features.amount,
            "thresholds": [int(t) for t in thresholds], "provenance": provenance}
    write_atomic(path, json.dumps(data, indent=1) + "\n")     # a full disk: one line, no half table


def load(path: Path | str, game, rules, features: Features) -> np.ndarray:
    """The thresholds of table file `path`, refused in one line unless it was learned for
    this game, version, player count, rules and feature set."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise SheepsimError(f"stop table {path} does not exist (learn one with `sheepsim run` on a "
                            f"`learn_stop` analysis, or leave out table= for the shipped one)")
    except (OSError, UnicodeDecodeError) as exc:
        raise SheepsimError(f"cannot read stop table {path}: {getattr(exc, 'strerror', None) or exc}")
    except json.JSONDecodeError as exc:
        raise SheepsimError(f"stop table {path} is not valid JSON: line {exc.lineno}: {exc.msg}")
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SheepsimError(f"stop table {path} is not a sheepsim stop table (no \"format\": \"{FORMAT}\")")
    expect = [("version", FORMAT_VERSION, "format version"), ("game", game.name, "game"),
              ("game_version", game.version, f"{game.name} engine version"),
              ("players", rules.num_players, "player count"), ("features", features.name, "feature set")]
    for key, want, what in expect:
        if data.get(key) != want:
            raise SheepsimError(f"stop table {path} was learned for {what} {data.get(key)!r}, not {want!r}: "
                                f"learn a table for this one")
    if data.get("rules") != rules.as_dict():
        have = data.get("rules") if isinstance(data.get("rules"), dict) else {}
        diff = sorted(k for k in set(have) | set(rules.as_dict()) if have.get(k) != rules.as_dict().get(k))
        shown = ", ".join(f"{k}={have.get(k)!r} (here {rules.as_dict().get(k)!r})" for k in diff[:3])
        raise SheepsimError(f"stop table {path} was learned under other rules: {shown}")
    t = data.get("thresholds")
    if not isinstance(t, list) or len(t) != features.cells or not all(
            isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2 ** 30 for v in t):
        raise SheepsimError(f"stop table {path}: `thresholds` must be {features.cells} whole numbers >= 0 "
                            f"(one per cell of {' x '.join(f'{n} {a}' for a, n in features.axes)})")
    return np.array(t, dtype=np.int32)


def block(thresholds: np.ndarray) -> np.ndarray:
    """The table as the kernels read it at the end of aux: [min T, T_0, ..., T_{n-1}, n]."""
    t = np.asarray(thresholds, dtype=np.int32)
    return np.concatenate([[t.min()], t, [len(t)]]).astype(np.int32)


def for_run(game, rules, specs, learned_id: int) -> np.ndarray | None:
    """The thresholds the `learned` seats of a run play (None without one): every such
    seat must name the same file; without table= the shipped table."""
    paths = {spec.file("table") or "" for spec in specs if spec.policy.builtin and spec.policy.id == learned_id}
    if not paths:
        return None
    if len(paths) > 1:
        raise SheepsimError(f"the learned seats name different tables ({', '.join(sorted(p or 'shipped' for p in paths))})"
                            f": a run carries one stop table; give every learned seat the same table=")
    path = paths.pop()
    if not path:
        path = shipped(game.name, rules.num_players)
        if not path.is_file():
            raise SheepsimError(f"sheepsim ships no {game.name} stop table for {rules.num_players} players: give "
                                f"learned:table=FILE (learn one with `sheepsim run` on a `learn_stop` analysis)")
    return load(path, game, rules, game.stop_features(rules))


def check_block(aux: np.ndarray, cells: int, at: int | None = None) -> None:
    """The guard of the kernels' entry points: a run with a learned seat must end its aux
    with a table block of `cells` thresholds (block(), starting at slot `at`, if the kernel
    reads it there), or the kernel would read past aux."""
    if len(aux) < cells + 2 or int(aux[-1]) != cells or (at is not None and len(aux) != at + cells + 2):
        raise SheepsimError(f"the learned policy needs its stop table ({cells} cells) at the end of aux: "
                            f"build aux with sheepsim.start.kernel_aux")


# --- the probe kernel -------------------------------------------------------------------

@njit(inline="always")
def _share(outcome, cowinners, s, rules, row, seat, players):
    """`seat`'s share of the finished game: 1 / winners if it is one, 1 / players if none."""
    outcome(s, rules, row)
    mask = np.int64(row[cowinners])
    winners = popcount(mask)
    if winners == 0:
        return 1.0 / players
    return 1.0 / winners if (mask >> seat) & 1 else 0.0


@njit(inline="always")
def _advance(actor, nature, chance, step, choose, game, learned, s, rules, aux, params, rngs, bufv, scratch,
             who):
    """One decision of `who` (the actor), every seat on the table."""
    if who == NATURE:
        action = as_action(nature(s, rules, aux, (rngs[0])))
        c = chance(s, rules, aux, action, (rngs[0]))
    else:
        action = as_action(choose(learned, s, rules, aux, who, params, (rngs[game.policy + who]), bufv,
                                  scratch))
        c = chance(s, rules, aux, action, (rngs[game.luck + who]))
    step(s, rules, aux, action, c)


@njit(inline="always")
def _branch(actor, nature, chance, step, outcome, choose, act, cell, amount, game, cowinners, learned, s, rules,
            aux, params, rngs, bufv, scratch, row, seat, stop, until):
    """`seat` stops (or goes on) now, then the game is played out: its share. Going on,
    the seat keeps going on while it decides its own turn's stop (its cell >= 0, the
    amount not fallen: the same turn) below `until` (0: once, then the table)."""
    action = as_action(act(s, rules, seat, (rngs[game.policy + seat]), stop))
    c = chance(s, rules, aux, action, (rngs[game.luck + seat]))
    step(s, rules, aux, action, c)
    forcing = until > 0
    before = amount(s)
    for _ in range(MAX_STEPS):
        who = actor(s, rules)
        if who == -1:
            break
        if forcing:
            now = amount(s)
            forcing = who == seat and now >= before and now < until and cell(s, rules, who) >= 0
            before = now
        if forcing:
            action = as_action(act(s, rules, seat, (rngs[game.policy + seat]), False))
            c = chance(s, rules, aux, action, (rngs[game.luck + seat]))
            step(s, rules, aux, action, c)
        else:
            _advance(actor, nature, chance, step, choose, game, learned, s, rules, aux, params, rngs, bufv,
                     scratch, who)
    return _share(outcome, cowinners, s, rules, row, seat, rules[0])


@njit(inline="always")
def probe_blocks(start, actor, nature, chance, step, outcome, choose, cell, amount, act, game, cowinners,
                 o_size, learned, rules_arr, aux_arr, seed, first, rate, near, per_game, counts, out, visits,
                 far_from, reach, b_lo, b_hi):
    """Games first .. first + len(counts) - 1, self-play on the table in aux, in blocks
    b_lo .. b_hi - 1 (as driver.play_blocks); game i's probes are out[i * per_game +
    j] = (cell, amount, seat, delta, far) for j < counts[i] (module docstring), and
    visits[b, cell] counts block b's decision points by cell at amounts >= near[cell],
    the only ones probed. Depends
    only on (rules, aux, seed, game): any thread count gives the same rows."""
    n = counts.shape[0]
    for b in range(b_lo, min(b_hi, min(n, BLOCKS))):
        lo, hi = block_games(n, b)
        _probe_block(start, actor, nature, chance, step, outcome, choose, cell, amount, act, game, cowinners,
                     o_size, learned, rules_arr, aux_arr, seed, first, rate, near, per_game, counts, out, visits[b],
                     far_from, reach, lo, hi)


@njit(inline="always")
def _probe_block(start, actor, nature, chance, step, outcome, choose, cell, amount, act, game, cowinners,
                 o_size, learned, rules_arr, aux_arr, seed, first, rate, near, per_game, counts, out, visits,
                 far_from, reach, lo, hi):
    # plain arrays, not fast.py's views: a view does not keep its array alive, and these
    # are the kernel's own (the probes cost two play-outs each, so the views' saving is small)
    s, (bufv, scratch, _) = _buffers(game)
    f = np.empty(game.state_size, dtype=np.int32)
    streams = game.streams
    rngs = np.empty((streams + 1, 4), dtype=np.uint64)      # the game's streams, then the probe stream
    frngs = np.empty((streams, 4), dtype=np.uint64)
    row = np.zeros(o_size, dtype=np.int32)
    params = np.zeros(8, dtype=np.float64)
    players = rules_arr[0]
    rules, aux = rules_arr, aux_arr
    for i in range(lo, hi):
        g = first + i
        seed_game(seed, g, players, game.luck, game.policy, rngs)
        seed_stream(seed, g, streams, rngs[streams])
        start(s, rules, aux_arr, rngs[0])
        k = 0
        for _ in range(MAX_STEPS):
            who = actor(s, rules)
            if who == -1:
                break
            c = cell(s, rules, who) if who >= 0 else -1
            if c >= 0 and amount(s) >= near[c]:
                visits[c] += 1
                if k < per_game and rand_float(rngs[streams]) < rate[c]:
                    # stop, go on once, and (at or above far_from) go on to far_from + reach
                    far = reach > 0 and amount(s) >= far_from[c]
                    shares = np.zeros(3)
                    for branch in range(3 if far else 2):
                        for x in range(game.state_size):
                            f[x] = s[x]
                        frngs[:, :] = rngs[:streams, :]
                        shares[branch] = _branch(actor, nature, chance, step, outcome, choose, act, cell, amount, game,
                                            cowinners, learned, f, rules, aux, params, frngs, bufv, scratch, row,
                                            who, branch == 0, far_from[c] + reach if branch == 2 else 0)
                    j = i * per_game + k
                    out[j, 0] = c
                    out[j, 1] = amount(s)
                    out[j, 2] = who
                    out[j, 3] = shares[1] - shares[0]
                    out[j, 4] = shares[2] - shares[0] if far else np.nan
                    k += 1
            _advance(actor, nature, chance, step, choose, game, learned, s, rules, aux, params, rngs, bufv,
                     scratch, who)
        counts[i] = k


def probe(play, rules_arr: np.ndarray, aux: np.ndarray, seed: int, first: int, n: int, rate: np.ndarray,
          near: np.ndarray, per_game: int, far_from: np.ndarray | None = None,
          reach: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Probes of games first .. first + n - 1 (play.probe_blocks on Python threads), as
    float64 rows (cell, amount, seat, delta, far): a visit of a cell at an amount >=
    near[cell] is probed with chance rate[cell]; delta is what going on once is worth,
    far (NaN unless reach > 0 and the amount >= far_from[cell]) what going on to
    far_from[cell] + reach is worth; and those visits by cell."""
    from .wrappers import run_blocks
    out = np.zeros((n * per_game, len(PROBE_COLUMNS)))
    counts = np.zeros(n, dtype=np.int64)
    visits = np.zeros((BLOCKS, len(rate)), dtype=np.int64)
    far_from = np.zeros(len(rate), dtype=np.int64) if far_from is None else np.asarray(far_from, dtype=np.int64)
    # run_blocks shares out the blocks of len(args[7]) games: counts is in that place
    run_blocks(play.probe_blocks, (rules_arr, aux, np.uint64(seed), first, np.asarray(rate, dtype=np.float64),
                                    np.asarray(near, dtype=np.int64), per_game, counts, out, visits, far_from,
                                    int(reach)))
    keep = (np.arange(per_game)[None, :] < counts[:, None]).ravel()
    return out[keep], visits.sum(axis=0)
