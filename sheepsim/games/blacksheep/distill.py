"""How the `distilled` policy's weights are made: turn_optimal's stop decisions, fitted.

turn_optimal (turnsolve.py) is the strongest stop rule sheepsim has for this game and
plays a few hundred games a second; `distilled` (policies.py) decides from six terms
of the position (policies.STOP_TERMS: a bias, the stake and the two gains of
`stop_terms` weighted by the Black Sheep's chance, that chance, the cards on the table)
and plays as fast as `threshold`. Its weights are a logistic regression of
turn_optimal's choice (draw or stop) on those terms, over every decision turn_optimal
makes where it may stop:

* for each player count in PLAYERS, `games` games in which one seat (seat g mod the
  player count in game g) plays turn_optimal and the others the fixed rule at the
  equilibrium threshold (policies.EQUILIBRIUM_K), the positions turn_optimal meets against
  the fixed rules, and `games // 2` games in which every seat plays turn_optimal;
* game g is dealt and played on the streams of (seed, g) (rng.streams), so the data
  and the fit depend only on (games, seed);
* the fit: scipy's L-BFGS on the mean log-loss, the terms scaled to unit spread while
  fitting; the weights are written to tables/distilled.json with what made them.

    python -m sheepsim.games.blacksheep.distill [--games N] [--seed S] [--out FILE]

remakes the table (the shipped one: 2,000 games a player count, the defaults, in about
4 minutes on one core, most of it turn_optimal at 4 players).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from ...rng import streams
from . import engine as E
from . import policies as POL
from . import rules as R
from . import turnsolve as TS
from .model import DRAW, EAGLE_ASK_PHASE, MAGPIE_PHASE, MOLE_PHASE, OVER, STOP
from .rules import R_MUST_DRAW

PLAYERS = (2, 3, 4)
TABLE = Path(__file__).with_name("tables") / "distilled.json"
# turn_optimal's parameters (depth, triplet, pair, single, win) at their defaults: depth 1
# and the objective the terms measure (game.py registers the same)
SOLVER = np.array([1.0, POL.T_VALUE[3], POL.T_VALUE[2], POL.T_VALUE[1], POL.T_WIN])
SOLVED = (DRAW, EAGLE_ASK_PHASE, MAGPIE_PHASE, MOLE_PHASE)        # the phases turn_optimal decides


def terms(s: np.ndarray, rules: np.ndarray, seat: int, buf: np.ndarray) -> np.ndarray:
    """The row of policies.STOP_TERMS the weights multiply, at the seat's stop decision."""
    q, stake, placement, next_card = POL.stop_terms(s, rules, seat, buf)
    return np.array([1.0, q * stake, (1.0 - q) * placement, (1.0 - q) * next_card, q, s[E.H_NTABLE]])


def collect(players: int, first: int, games: int, seed: int, every_seat: bool, k: int
            ) -> tuple[np.ndarray, np.ndarray]:
    """(terms, draws) at every turn_optimal decision where it may stop, in games
    first .. first + games - 1 (`every_seat`: every seat plays turn_optimal, else seat
    g mod players against threshold:k)."""
    rules = R.to_array(R.make(players, {}))
    s = np.zeros(E.STATE_SIZE, np.int32)
    aux = np.zeros(1, np.int32)
    buf = np.empty((E.MAX_DECISIONS, 3), np.int32)
    scratch = np.empty((E.MAX_DECISIONS, 3), np.int32)
    fixed = np.array([float(k)])
    rows, draws = [], []
    for g in range(first, first + games):
        # stream 0 deals; each seat's luck and policy streams as the engine's Shape numbers them
        rng = streams(seed, g, E.SHAPE.streams)
        E.deal(s, rules, rng[0])
        while s[E.H_PHASE] != OVER:
            seat = int(s[E.H_ACTOR])
            phase = s[E.H_PHASE]
            if not (every_seat or seat == g % players):
                code, a, b = POL.threshold(s, rules, aux, seat, fixed, rng[E.SHAPE.policy + seat], buf)
            elif phase in SOLVED:
                code, a, b = TS.decide(s, rules, seat, SOLVER, scratch)
                if phase == DRAW and not (rules[R_MUST_DRAW] == 1 and s[E.H_DRAWS] == 0):
                    rows.append(terms(s, rules, seat, buf))
                    draws.append(code != STOP)
            else:
                code, a, b = POL.play_special(s, rules, seat, rng[E.SHAPE.policy + seat])
            c = E.sample_chance(s, rules, code, a, b, rng[E.SHAPE.luck + seat])
            E.apply(s, rules, code, a, b, c)
    return np.array(rows).reshape(-1, len(POL.STOP_TERMS)), np.array(draws, dtype=float)


def fit(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Logistic regression of y (1 = draw) on x's columns (the first is the bias), by
    L-BFGS on the mean log-loss; the columns are scaled to unit spread while fitting and
    the weights scaled back."""
    spread = x.std(axis=0)
    spread[spread == 0] = 1.0
    z = x / spread

    def loss(w):
        t = z @ w
        return (np.logaddexp(0.0, t) - y * t).mean(), z.T @ (expit(t) - y) / len(y)

    found = minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B")
    return found.x / spread


def agreement(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> float:
    """The share of decisions on which the linear rule (draw when x . w > 0) chooses as y."""
    return float(((x @ weights > 0) == (y > 0.5)).mean())


def train(games: int, seed: int) -> dict:
    start = time.perf_counter()
    parts, counts = [], {}
    for players in PLAYERS:
        k = POL.EQUILIBRIUM_K[players]
        for every_seat, first, n in ((False, 0, games), (True, games, games // 2)):
            x, y = collect(players, first, n, seed, every_seat, k)
            parts.append((x, y))
            counts[f"{players}p {'self-play' if every_seat else f'one seat v threshold:k={k}'}"] = \
                {"games": n, "decisions": len(y)}
    x = np.vstack([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    weights = fit(x, y)
    return {"terms": list(POL.STOP_TERMS), "weights": [round(float(w), 6) for w in weights],
            "agreement": round(agreement(x, y, weights), 5), "draw_share": round(float(y.mean()), 5),
            "decisions": int(len(y)), "data": counts, "seed": seed, "solver": "turn_optimal (depth 1, defaults)",
            "seconds": round(time.perf_counter() - start, 1),
            "made_by": f"python -m sheepsim.games.blacksheep.distill --games {games} --seed {seed}"}


def read(path: Path = TABLE) -> dict:
    return json.loads(path.read_text())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m sheepsim.games.blacksheep.distill",
                                     description="Fit the distilled policy's weights to turn_optimal's decisions.")
    parser.add_argument("--games", type=int, default=2000, help="games a player count (default 2000)")
    parser.add_argument("--seed", type=int, default=20261207, help="master seed (default 20261207)")
    parser.add_argument("--out", type=Path, default=TABLE, help=f"where to write (default {TABLE})")
    args = parser.parse_args(argv)
    table = train(args.games, args.seed)
    args.out.write_text(json.dumps(table, indent=1) + "\n")
    print(f"{table['decisions']:,} decisions, agreement {table['agreement']:.2%}, {table['seconds']} s: {args.out}")


if __name__ == "__main__":
    main()
