"""`sheepsim bench`: one table of every game's speed, also as JSON for tracking.

Per game (its GameSpec's bench_players, bench_policy and bench_workload), then one more
row per entry of its bench_more (another policy, same players; kernel columns only):

* games/s at 1 and at N threads (default 2): the game's chunk kernel in this process,
  after a warm-up, on the same games (seed 1, games 0 .. n-1) at every thread count
  (numba.set_num_threads). Runs alternate between the thread counts and repeat; the
  fastest run of each is kept, since other processes on the machine can only slow a
  run down. `speed-up` = N-thread / 1-thread games/s, `efficiency` = speed-up / N.
* cpu/wall: CPU seconds of this process per wall second in the best N-thread run.
  Near N when every thread had a core to itself; lower when other processes took the
  cores (the speed-up is then understated) or threads sat idle waiting for others.
* reference games/s: the pure-Python reference engine (1 thread); ratio 1t = the
  kernel at 1 thread / the reference, both single-threaded; ratio Nt = the kernel at N
  threads / the reference (the speed-up targets are stated at 2 threads).
* decisions: for games that count them (GameSpec.decisions_column), the decisions a
  game takes (every decision: draws, stops, effects, placements) and decisions/s at N
  threads = games/s x that.
* cold start: a fresh process with an empty numba cache (NUMBA_CACHE_DIR), import +
  compile + first game; warm start: a fresh process with the package's own cache.
  Both are what a user waits for before the first game.

Sizes: unless given, each game's sizes are calibrated to its speed, so a fast and a
slow game get the same measuring time: a run of the kernel takes about RUN_SECONDS
at 1 thread and the reference about REFERENCE_SECONDS. Sizes keep two significant
digits so they stay the same from one run to the next.
"""

from __future__ import annotations

import json
import math
import os
import platform
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .errors import SheepsimError
from .timing import numba_threads, timed as _timed

RUN_SECONDS = 0.3          # one kernel run at 1 thread (CPU seconds)
REPEATS = 5                # runs per thread count, best kept: ~1.5 s at 1 thread
REFERENCE_SECONDS = 0.5    # one reference run
REFERENCE_REPEATS = 3
SPEED_UP_TARGET = 1.8      # the speed-up wanted at 2 threads
METRICS_COST_TARGET = 1.10  # a kernel with the experience metrics on is at most 10% slower
CHECK_TARGET_S = 60         # `sheepsim check` of the README's example: under a minute on 2 cores

_START = """
import time
t0 = time.perf_counter()
from sheepsim.games import get_game
from sheepsim.policies import seat_specs
g = get_game({game!r}); r = g.make_rules({players}, {{}})
specs = seat_specs(g.name, [g.bench_policy], r.num_players)
g.play_chunk(g.to_array(r), g.initial_state(r, None), specs, True, 0, 0, 1)
print(time.perf_counter() - t0)
"""


def start_seconds(game: str, players: int, cache_dir: str | None) -> float:
    """Seconds from a fresh interpreter to one finished game; `cache_dir` replaces the
    package's numba cache (an empty folder: cold start)."""
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    out = subprocess.run([sys.executable, "-c", _START.format(game=game, players=players)], env=env,
                         capture_output=True, text=True)
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["no output"])[-1]
        raise SheepsimError(f"bench: the {game} start-up process failed: {last}")
    return float(out.stdout.strip().splitlines()[-1])


def _two_digits(x: float) -> int:
    """x rounded down to two significant digits (at least 1)."""
    if x < 10:
        return max(1, int(x))
    scale = 10 ** (int(math.log10(x)) - 1)
    return int(x // scale * scale)


def _calibrate(cpu_seconds: Callable[[int], float], target: float) -> int:
    """Games that take about `target` CPU seconds at 1 thread: grow a trial size until a
    trial takes a tenth of the target, then scale. CPU time, not wall time, so that
    other processes on the machine do not change the sizes."""
    n = 1
    while True:
        t = cpu_seconds(n)
        if t >= target / 10:
            return _two_digits(n * target / t)
        n = int(n * min(100.0, max(2.0, target / 10 / max(t, 1e-6) * 1.5)))


def _summary(n: int, times: list[tuple[float, float]]) -> dict[str, Any]:
    wall, cpu = min(times)
    return {"games_per_s": n / wall, "cpu_per_wall": cpu / wall, "games_per_cpu_s": n / cpu,
            "wall_s": [round(w, 4) for w, _ in times], "cpu_s": [round(c, 4) for _, c in times]}


def _kernel(game, rules, specs, n_games: int | None, threads: int) -> dict[str, Any]:
    """Best-of-REPEATS runs of the chunk kernel at 1 and at `threads` threads, and at 1
    thread with the experience metrics on (games/tally.py)."""
    import numba
    from .games.tally import M_SIZE
    from .start import kernel_aux
    arr, init = game.to_array(rules), kernel_aux(game, rules, None, specs)

    def run(n: int, metrics: bool = False) -> tuple[float, float]:
        out = np.zeros((n, M_SIZE)) if metrics else None
        return _timed(lambda: game.play_chunk(arr, init, specs, True, 1, 0, n, out))

    with numba_threads():
        for t in (threads, 1):                  # warm up (the thread pool, first calls)
            numba.set_num_threads(t)
            run(min(n_games or 1000, 1000))
        run(min(n_games or 1000, 1000), True)
        n = n_games or _calibrate(lambda k: run(k)[1], RUN_SECONDS)
        runs: dict[tuple[int, bool], list[tuple[float, float]]] = {(1, False): [], (threads, False): [],
                                                                   (1, True): []}
        for _ in range(REPEATS):                # alternate, so a busy spell hits each
            for t, metrics in runs:
                numba.set_num_threads(t)
                runs[t, metrics].append(run(n, metrics))
    return {"games": n, "repeats": REPEATS,
            "threads": {t: _summary(n, times) for (t, metrics), times in runs.items() if not metrics},
            "metrics_1t": _summary(n, runs[1, True])}


def _reference(game, rules, n_games: int | None) -> dict[str, Any]:
    """Best-of-REFERENCE_REPEATS runs of the reference engine (each replays the same games)."""
    def run(n: int) -> tuple[float, float]:
        return _timed(lambda: game.reference_bench(rules, n, 1, game.bench_policy))

    n = n_games or _calibrate(lambda k: run(k)[1], REFERENCE_SECONDS)
    return {"games": n, "repeats": REFERENCE_REPEATS, **_summary(n, [run(n) for _ in range(REFERENCE_REPEATS)])}


def workload(game, players: int | None = None, policy: str | None = None):
    """(players, rules, seat specs) the game is benchmarked with (every seat `policy`, by
    default its bench_policy); SheepsimError if bad."""
    from .policies import seat_specs
    players = players or game.bench_players or game.players[0]
    rules = game.make_rules(players, {})
    return players, rules, seat_specs(game.name, [policy or game.bench_policy], players)


def bench_game(game, players: int | None = None, n_games: int | None = None, reference_games: int | None = None,
               threads: int = 2, startup: bool = True, more: tuple[str, str] | None = None) -> dict[str, Any]:
    """One row of the table (a JSON-able dict). `more`: one of the game's bench_more
    (policy, workload) instead of its bench_policy; the reference engines play only the
    bench_policy and start-up does not depend on the policy, so that row has the kernel only."""
    policy, text = more or (game.bench_policy, game.bench_workload)
    players, rules, specs = workload(game, players, policy)
    cold = warm = None
    if startup and more is None:
        with tempfile.TemporaryDirectory() as empty:
            cold = start_seconds(game.name, players, empty)
        start_seconds(game.name, players, None)          # make sure the package cache is filled
        warm = start_seconds(game.name, players, None)
    kernel = _kernel(game, rules, specs, n_games, threads)
    per_game = None
    if game.decisions_column is not None:       # the decisions a game takes, from one run's rows
        from .start import kernel_aux
        rows = game.play_chunk(game.to_array(rules), kernel_aux(game, rules, None, specs), specs, True, 1, 0,
                               min(kernel["games"], 2000))
        per_game = float(rows[:, game.decisions_column].mean())
    ref = None if more else _reference(game, rules, reference_games)
    ref_speed = ref["games_per_s"] if ref else None
    one, many = kernel["threads"][1]["games_per_s"], kernel["threads"][threads]["games_per_s"]
    return {"game": game.name, "title": game.title, "players": players, "policy": policy, "more": more is not None,
            "workload": text, "kernel": kernel,
            "games_per_s_1t": one, "games_per_s_nt": many, "threads": threads,
            "speed_up": many / one, "efficiency": many / one / threads,
            "metrics_games_per_s_1t": kernel["metrics_1t"]["games_per_s"],
            "metrics_cost": one / kernel["metrics_1t"]["games_per_s"],
            "cpu_per_wall_nt": kernel["threads"][threads]["cpu_per_wall"],
            "reference": ref, "reference_games_per_s": ref_speed, "ratio": one / ref_speed if ref else None,
            "ratio_nt": many / ref_speed if ref else None,
            "cold_start_s": cold, "warm_start_s": warm, "decisions_per_game": per_game,
            "decisions_per_s_nt": many * per_game if per_game is not None else None}


def c_baseline(game, threads: int, log: Callable[[str], None]) -> list[dict[str, Any]] | None:
    """The game's kernel against its plain-C program (GameSpec.baseline: same rules, same
    policy), side by side at 1 thread, one row per workload the game declares (Battle
    Sheep: complete 2-player games, and placement and moves on a fixed 32-hex board).
    None without a C compiler. Runs alternate between the two programs, best of REPEATS each."""
    import shutil
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        return None
    from .policies import seat_specs
    base = game.baseline
    rules = game.make_rules(base.players, {})
    specs = seat_specs(game.name, [base.policy], base.players)
    arr = game.to_array(rules)
    workloads = base.workloads(rules)
    program = _program_name(base.source)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        binary = Path(tmp) / base.source.stem
        built = subprocess.run([compiler, "-O3", "-march=native", "-fopenmp", str(base.source), "-o",
                                str(binary)], capture_output=True, text=True)
        if built.returncode != 0:
            log(f"bench: the C baseline did not compile ({built.stderr.strip()[:200]}); skipped")
            return None
        for label, init, start in workloads:
            log(f"bench: {game.name} against C, {label}...")
            n = _calibrate(lambda k: _timed(lambda: game.play_chunk(arr, init, specs, True, 1, 0, k))[1], RUN_SECONDS)
            c_runs, ours = [], []
            with numba_threads(1):
                for _ in range(REPEATS):
                    out = subprocess.run([str(binary), str(n), "1", str(base.players), start], capture_output=True,
                                         text=True, check=True).stdout
                    c_runs.append(float(out.split("games_per_s=")[1].split()[0]))
                    ours.append(n / _timed(lambda: game.play_chunk(arr, init, specs, True, 1, 0, n))[0])
            rows.append({"workload": label, "games": n, "c_games_per_s": max(c_runs),
                         "sheepsim_games_per_s": max(ours), "c_over_sheepsim": max(c_runs) / max(ours),
                         "game": game.name, "program": program, "policy": base.policy})
    return rows


def _program_name(source: Path) -> str:
    """A C program's file as the table names it: within the package, from its folder
    (baselines/bsfull.c); elsewhere (a plug-in game's), its file name."""
    try:
        return source.resolve().relative_to(Path(__file__).resolve().parent).as_posix()
    except ValueError:
        return source.name


CHECK_EXAMPLE = "variant.toml"      # the README's `sheepsim check` example (sheepsim/examples/)


def example_game(example: str | Path) -> str | None:
    """The game an example names (its TOML `game` key), whose benchmark brings the
    example's row: the check row's `example` is a file of sheepsim/examples/ (a name),
    the tuner's an analysis file (a path; None when the checkout has none)."""
    import tomllib
    if isinstance(example, Path):
        if not example.exists():
            return None
        return tomllib.loads(example.read_text()).get("game")
    from .examples import text
    return tomllib.loads(text(example)).get("game")


def check_row(threads: int, log: Callable[[str], None], scale: float = 1.0) -> dict[str, Any]:
    """The wall time of the README's `sheepsim check examples/variant.toml`, as a user
    waits for it: a fresh process, kernels in the cache (a first run compiles them and
    is not timed), best of 2. `scale` is check's --scale (tests make it small)."""
    from .analysis.check import load
    from .examples import text
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / CHECK_EXAMPLE
        path.write_text(text(CHECK_EXAMPLE))
        plan = load(path, scale)
        command = [sys.executable, "-c", "from sheepsim.cli import main; main()", "check", str(path), "-q",
                   "-t", str(threads), "--scale", str(scale)]
        log("bench: sheepsim check examples/variant.toml (a first run compiles, untimed)...")
        subprocess.run(command, capture_output=True, check=True)
        walls = [_timed(lambda: subprocess.run(command, capture_output=True, check=True))[0] for _ in range(2)]
    return {"command": "sheepsim check examples/variant.toml", "game": plan.game.name, "players": plan.players,
            "games_per_run": plan.games, "runs": 4 * len(plan.players), "wall_s": min(walls),
            "target_s": CHECK_TARGET_S}


TUNE_EXAMPLE = Path(__file__).resolve().parent.parent / "analyses" / "bobbysitter-tune-handicap.toml"


def tune_row(threads: int, log: Callable[[str], None], path: Path = TUNE_EXAMPLE) -> dict[str, Any] | None:
    """The tuner's speed on a shipped analysis (a checkout's analyses/; None without it):
    settings tried a minute, racing included, in this process (its kernels compiled by
    the row of the game it names), the whole study timed, then the confirmation."""
    from .analysis import definition
    from .analysis import racing, tune
    if not path.exists():
        return None
    log(f"bench: the tuner ({path.name})...")
    spec = definition.load(path)
    with tempfile.TemporaryDirectory() as tmp, numba_threads(threads):
        wall, _ = _timed(lambda: definition.run_file(path, Path(tmp), progress=False))
        study = racing.open_study(tune.plan(spec, 1.0), Path(tmp) / spec["name"], False)
        trials, search = len(study.trials), racing.search_seconds(study)
    return {"analysis": f"analyses/{path.name}", "settings": trials, "search_s": search,
            "settings_per_minute": trials / search * 60, "wall_s": wall}


def machine() -> dict[str, Any]:
    """What the numbers were measured on, and how busy it was."""
    import numba
    from .runner import versions
    return {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "host": platform.node(),
            "platform": platform.platform(), "cpu": _cpu_model(), "cpu_count": os.cpu_count(),
            "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
            "numba_threads": numba.config.NUMBA_NUM_THREADS,
            "load_average": list(os.getloadavg()), "versions": versions()}


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def threads_for(requested: int) -> int:
    """The N of the N-thread column: as requested, capped by numba's thread pool."""
    import numba
    return max(1, min(requested, numba.config.NUMBA_NUM_THREADS))


def check_json_path(path: Path) -> None:
    """Fail before minutes of measuring, not after."""
    if path.is_dir():
        raise SheepsimError(f"--json {path} is a folder; give a file name, e.g. {path / 'bench.json'}")
    if not path.parent.is_dir():
        raise SheepsimError(f"--json {path}: folder {path.parent} does not exist")


def run(games: list, players: int | None, n_games: int | None, reference_games: int | None, threads: int,
        startup: bool, log: Callable[[str], None], search_budget: int = 0, agents: tuple[str, ...] = (),
        agent_games: int = 200) -> dict[str, Any]:
    """Benchmark `games` (GameSpecs) one after the other; the report as JSON-able data."""
    threads = threads_for(threads)
    for game in games:                          # bad input fails before any measuring
        for policy in [None] + [p for p, _ in game.bench_more]:
            workload(game, players, policy)
        if agents:
            from .policies import parse_spec
            from .search.bench import _search_name
            if _search_name(game) is None:
                raise SheepsimError(f"--agent: {game.name} has no search agents to measure against; give a game "
                                    f"with mcts or ismcts (`sheepsim policies GAME`)")
            for spec in agents:
                parse_spec(game.name, spec)     # unknown, refused or malformed: its own one-line error
    report: dict[str, Any] = {"machine": machine(), "threads": threads, "rows": []}
    for game in games:
        log(f"bench: {game.name}...")
        report["rows"].append(bench_game(game, players, n_games, reference_games, threads, startup))
        for more in game.bench_more:
            log(f"bench: {game.name} {more[0]}...")
            report["rows"].append(bench_game(game, players, n_games, reference_games, threads, startup, more))
    baselines = [g for g in games if g.baseline is not None]
    if baselines:
        rows = [c_baseline(g, threads, log) for g in baselines]
        report["c_baseline"] = None if None in rows else [r for game_rows in rows for r in game_rows]
    if startup and any(g.name == example_game(CHECK_EXAMPLE) for g in games):
        report["check"] = check_row(threads, log)
    if any(g.name == example_game(TUNE_EXAMPLE) for g in games):
        report["tune"] = tune_row(threads, log)
    if search_budget:
        from .search.bench import search_games, search_row
        report["search"] = []
        for game in search_games(games):
            log(f"bench: {game.name} search...")
            report["search"].append(search_row(game, search_budget, threads))
    if agents:
        from .bench_agents import agent_row
        report["agents"] = []
        for game in games:
            for spec in agents:
                log(f"bench: {game.name} {spec}...")
                report["agents"].append(agent_row(game, spec, agent_games, threads))
    report["load_average_end"] = list(os.getloadavg())
    report["machine"]["threading_layer"] = _threading_layer()
    return report


def _threading_layer() -> str:
    import numba
    try:
        return numba.threading_layer()          # known once a parallel kernel has run
    except ValueError:
        return numba.config.THREADING_LAYER


def _fmt_s(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def _fmt(x: float | None, spec: str, unit: str = "") -> str:
    return "-" if x is None else format(x, spec) + unit


def _label(row: dict[str, Any]) -> str:
    """The game, with the policy for a bench_more row (a game can have two rows)."""
    return f"{row['game']} {row['policy']}" if row.get("more") else row["game"]


def table(report: dict[str, Any]) -> str:
    """The report as one text table, with the conditions it was measured in."""
    n = report["threads"]
    m = report["machine"]
    head = ["game", "players", "policy", "games/s 1t", f"games/s {n}t", "speed-up", "effic.", "cpu/wall",
            "metrics on", "ref games/s", "ratio 1t", f"ratio {n}t", "cold s", "warm s"]
    rows = [[r["game"], str(r["players"]), r["policy"], f"{r['games_per_s_1t']:,.0f}", f"{r['games_per_s_nt']:,.0f}",
             f"{r['speed_up']:.2f}x", f"{r['efficiency']:.0%}", f"{r['cpu_per_wall_nt']:.2f}",
             _fmt(r.get("metrics_cost"), ".2f", "x"), _fmt(r["reference_games_per_s"], ",.1f"),
             _fmt(r["ratio"], ",.0f", "x"), _fmt(r["ratio_nt"], ",.0f", "x"),
             _fmt_s(r["cold_start_s"]), _fmt_s(r["warm_start_s"])] for r in report["rows"]]
    widths = [max(len(x) for x in col) for col in zip(head, *rows)]
    line = lambda cells: "  ".join(c.ljust(w) if i == 0 else c.rjust(w)  # noqa: E731
                                   for i, (c, w) in enumerate(zip(cells, widths)))
    load = ", ".join(f"{x:.2f}" for x in m["load_average"][:1] + report.get("load_average_end", [])[:1])
    out = [f"sheepsim bench  {m['date']}  {m['cpu']}, {m['cpus_usable']} CPUs, numba {m['versions']['numba']} "
           f"({m.get('threading_layer', '?')} threading), 1-minute load average at start, end: {load}",
           line(head), line(["-" * w for w in widths])]
    out += [line(r) for r in rows]
    out.append("")
    out += [f"{r['game']}: {r['players']} players, every seat {r['policy']}: {r['workload']}; "
            f"{r['kernel']['games']:,} games per run, best of {r['kernel']['repeats']} per thread count; "
            + (f"reference {r['reference']['games']:,} games, best of {r['reference']['repeats']}" if r["reference"]
               else "kernel only (reference and start-up: the game's first row)")
            + (f"; {r['decisions_per_game']:,.1f} decisions a game, {r['decisions_per_s_nt']:,.0f} decisions/s at "
               f"{n} threads" if r.get("decisions_per_game") else "") for r in report["rows"]]
    slow = [_label(r) for r in report["rows"] if n == 2 and r["speed_up"] < SPEED_UP_TARGET]
    if slow:
        low = [_label(r) for r in report["rows"] if _label(r) in slow and r["cpu_per_wall_nt"] < 0.9 * n]
        out.append(f"below the {SPEED_UP_TARGET}x target at 2 threads: {', '.join(slow)}"
                   + (f" (cpu/wall under {0.9 * n:.1f}, so other processes took CPU: {', '.join(low)})" if low else ""))
    heavy = [_label(r) for r in report["rows"] if r.get("metrics_cost", 0) > METRICS_COST_TARGET]
    out.append(f"metrics on = time with the experience metrics tallied / time without, 1 thread (target: at most "
               f"{METRICS_COST_TARGET:.2f}x" + (f"; above it: {', '.join(heavy)})" if heavy else ")"))
    out.append(f"ratio = kernel at 1 (or {n}) threads / reference (the speed-up targets are at {n} threads); cpu/wall near the thread count means the threads had the "
               "cores to themselves")
    titles = {r["game"]: r["title"] for r in report["rows"]}
    for name in dict.fromkeys(r["game"] for r in report.get("c_baseline") or []):
        rows = [r for r in report["c_baseline"] if r["game"] == name]
        out += ["", f"{titles.get(name, name)} against plain C ({rows[0]['program']}, same rules and "
                    f"{rows[0]['policy']} policy), 1 thread, side by side, best of runs:"]
        out += [f"  {r['workload']}: C {r['c_games_per_s']:,.0f} games/s, sheepsim {r['sheepsim_games_per_s']:,.0f}: "
                f"C is {r['c_over_sheepsim']:.2f}x faster (target: at most 1.3x)" for r in rows]
    if report.get("check"):
        c = report["check"]
        out += ["", f"{c['command']} ({c['game']}, {c['runs']} runs of {c['games_per_run']:,} games, {n} threads): "
                    f"{c['wall_s']:.1f} s wall, a fresh process with cached kernels (target: under "
                    f"{c['target_s']} s)"]
    if report.get("tune"):
        t = report["tune"]
        out += ["", f"the tuner, {t['analysis']} ({n} threads): {t['settings']} settings raced in {t['search_s']:.1f} s, "
                    f"{t['settings_per_minute']:,.0f} settings a minute; {t['wall_s']:.1f} s wall with the "
                    f"confirmation and the report"]
    if report.get("search"):
        from .search.bench import table as search_table
        out.append(search_table(report["search"], n))
    if report.get("agents"):
        from .bench_agents import agents_table
        out.append(agents_table(report["agents"]))
    return "\n".join(out)


def write_json(report: dict[str, Any], path: Path) -> None:
    from .fileio import write_atomic
    write_atomic(path, json.dumps(report, indent=2) + "\n")
