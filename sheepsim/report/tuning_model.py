"""The tuner's data model, shared by its analysis (analysis/tune.py plans a run,
analysis/racing.py plays and races its settings) and its report (report/layouts/tune.py):
the knobs, the objectives, the plan of a run, the metrics' labels and how a measure is
shown. It sits below both, so that the report reads what the analysis hands it and
never imports the analysis.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..stats import measures as M

# metric: (label, shown as) -- "points": a share less the fair 1/P, in signed points
METRICS = {"edge": ("seat 0 edge", "points"), "focal_edge": ("focal player's edge", "points"),
           "length": ("length", "count"), "decided_share": ("decided share", "share"),
           "comeback": ("comeback rate", "share"), "lead_changes": ("lead changes", "count"),
           "drama": ("drama", "count"), "balance": ("balance", "count"), "skill_gap": ("skill gap", "points")}
SHOWN = ("length", "edge", "focal_edge", "balance", "decided_share", "comeback")     # besides the objectives


@dataclass(frozen=True)
class Knob:
    name: str
    option: str
    values: tuple                 # every value the knob takes, in order (a step moves along it)
    player: int | None = None     # a per-player option's slot, or None for every player's value
    choices: bool = False


@dataclass(frozen=True)
class Objective:
    metric: str
    goal: str
    range: tuple[float, float] | None = None

    @property
    def label(self) -> str:
        if self.goal == "inside":
            return f"target-length score ({self.range[0]:g}-{self.range[1]:g})"
        label = METRICS[self.metric][0]
        return {"zero": f"|{label}|", "maximize": f"{label} (max)", "minimize": f"{label} (min)"}[self.goal]

    @property
    def measure(self) -> str:
        """The measure behind it: the target-length score for `inside`."""
        return "target_length" if self.goal == "inside" else self.metric


@dataclass
class Plan:
    game: Any
    players: int
    policies: list[str]           # one SPEC per player slot
    strong: str
    weak: str
    options: dict[str, Any]
    knobs: list[Knob]
    objectives: list[Objective]
    trials: int
    batch: int
    blocks: list[int]             # games per racing block
    eta: int
    confirm: int
    confirm_games: int
    seed: int
    identity: str = ""
    needs_skill: bool = False
    cache: dict = field(default_factory=dict)     # (setting, block) -> per-game measures


def offset(measure: str, players: int) -> float:
    """What a measure is shown less: the fair 1/P for an edge (a share of sole wins)."""
    return 1.0 / players if measure in M.EDGES else 0.0


def kind_of(measure: str) -> str:
    """How a measure is shown: "points" (an edge), "share" or "count"."""
    return "count" if measure == "target_length" else METRICS[measure][1]


def label_of(measure: str) -> str:
    return "target-length score" if measure == "target_length" else METRICS[measure][0]


def setting_text(s: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in s.items())


def shown_names(p: Plan) -> list[str]:
    """The measures the tables show: the objectives', then SHOWN (the focal player's
    edge only when slot 0 plays its own policy)."""
    names = [o.measure for o in p.objectives]
    return names + [m for m in SHOWN if m not in names and not (m == "focal_edge" and len(set(p.policies)) == 1)]


def shown(p: Plan, est: dict[str, tuple[float, Any]], name: str) -> tuple[float, float, float]:
    """A measure as reports show it, with its 95% interval: edges less the fair 1/P."""
    value, infl = est[name]
    lo, hi = est["balance_interval"] if name == "balance" else M.interval(value, infl)
    shift = offset(name, p.players)
    return value - shift, lo - shift, hi - shift
