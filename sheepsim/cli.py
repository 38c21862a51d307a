"""The `sheepsim` command: parse, validate, make one library call, print.

Every bad input ends with one line `error: ...` on stderr and exit status 2.
"""

from __future__ import annotations

import functools
import json
import shlex
import sys
import textwrap
from pathlib import Path

import click

from .errors import SheepsimError

GAMES_HELP = "GAME is one of the names listed by `sheepsim games` (e.g. battlesheep)."
QUICK_LOOK = "reports/quick-look"      # where `run --scale` below 1 writes by default


def _game(name: str):
    from .games import get_game
    return get_game(name)


def _rules_and_start(game, players, options, from_position):
    """Rules and start object (sheepsim.start.resolve) of the running command."""
    from .start import resolve
    return resolve(game, players, options, from_position, _deck_option())


def _deck_option() -> Path | None:
    """--deck of the running command. game_options keeps it out of the command's own
    arguments (click's ctx.params still has it), so a command that plays games takes a
    deck without passing it along itself."""
    ctx = click.get_current_context(silent=True)
    return None if ctx is None else ctx.params.get("deck")


class RuleOption(click.ParamType):
    """--option NAME=VALUE: the shape here, the name against the game's options when
    the game is known (it comes first on the command line); values are checked by the
    game's rules, with their allowed range."""

    name = "NAME=VALUE"

    def convert(self, value, param, ctx):
        key, sep, _ = str(value).partition("=")
        if not sep or not key.strip():
            self.fail(f"{value!r} must look like NAME=VALUE, e.g. wolf=on (see `sheepsim rules GAME`)", param, ctx)
        game = _known_game(ctx)
        if game is not None and key.strip() not in {o.name for o in game.options}:
            self.fail(f"{game.name} has no rule option {key.strip()!r}; valid options: "
                      f"{', '.join(o.name for o in game.options)}", param, ctx)
        return value


class PolicyOption(click.ParamType):
    """--policy SPEC, checked against the game's policies (with their parameters and
    ranges) when the game is known."""

    name = "SPEC"

    def convert(self, value, param, ctx):
        """The parsed PolicySpec when the game is known (the command uses it as it is),
        else the text, parsed when the game is."""
        game = _known_game(ctx)
        if game is None or not isinstance(value, str):
            return value
        from .policies import parse_spec
        try:
            return parse_spec(game.name, value)
        except SheepsimError as exc:
            self.fail(str(exc), param, ctx)


def _known_game(ctx):
    """The GameSpec of the command's GAME argument if it is already parsed and valid."""
    name = (ctx.params if ctx is not None else {}).get("game")
    if not isinstance(name, str):
        return None
    try:
        return _game(name)
    except SheepsimError:
        return None


def game_options(fn):
    """Options shared by every command that plays games."""
    @click.option("--players", "-p", type=int, default=None, help="Number of players (default: the game's minimum).")
    @click.option("--policy", "policies", multiple=True, type=PolicyOption(),
                  help="Policy SPEC (`name` or `name:key=value,...`): once for all seats, or once per seat. "
                       "See `sheepsim policies GAME`. Default: random (Bobby Sitter: adult).")
    @click.option("--option", "-o", "options", multiple=True, type=RuleOption(),
                  help="Rule option; repeatable. See `sheepsim rules GAME`.")
    @click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True,
                  help="Master seed: game g uses random streams keyed by (seed, g).")
    @click.option("--no-rotate", is_flag=True,
                  help="Keep policy slot i on seat i in every game (default: rotate slots over seats).")
    @click.option("--from-position", type=click.Path(dir_okay=False, path_type=Path), default=None,
                  help="Start every game from this Battle Sheep position (JSON, as `sheepsim legal --help` "
                       "and the README describe), e.g. a designer's own board.")
    @click.option("--deck", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
                  help="Deal every game from this deck file (card games), recorded in the results' manifest. "
                       "Hiboufou: TOML `cards = [[\"red\", \"orange\"], ...]` or a JSON list of cards, each a "
                       "list of colour names (red orange yellow green blue purple pink brown); it replaces the "
                       "generated deck. Bobby Sitter: TOML `cards = [{sheep = 2, count = 8}, {wolf = true, "
                       "count = 10}, ...]` (fields sheep, wolf, hidden_wolf, count) or the same list in JSON.")
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        kwargs.pop("deck", None)      # _rules_and_start reads it (see _deck_option)
        return fn(*args, **kwargs)
    return wrapper


class _Group(click.Group):
    """Every failure is one line on stderr: `error: ...`, exit 2 for bad input."""

    def main(self, args=None, prog_name=None, **extra):
        extra["standalone_mode"] = False
        if not (sys.argv[1:] if args is None else args):      # bare `sheepsim`: the help, not an error
            ctx = click.Context(self, info_name=prog_name or "sheepsim", **self.context_settings)
            click.echo(self.get_help(ctx))
            sys.exit(0)
        self.given = list(sys.argv[1:] if args is None else args)      # for --time-limit's child
        try:
            code = super().main(args=args, prog_name=prog_name or "sheepsim", **extra)
        except SheepsimError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
        except click.exceptions.Abort as exc:
            # Ctrl-C: the runner's KeyboardInterrupt says what was kept (click wraps it)
            said = str(exc.__cause__ or "")
            click.echo(f"interrupted{': ' + said if said else ''}", err=True)
            sys.exit(130)
        except click.ClickException as exc:
            if isinstance(exc, click.NoSuchOption) and exc.option_name == "--plugin":
                # a common slip: --plugin is an option of sheepsim itself, not of the command
                click.echo(f"error: --plugin goes before the command: {_plugin_first(self.given)}", err=True)
                sys.exit(2)
            ctx = getattr(exc, "ctx", None)
            hint = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
            click.echo(f"error: {exc.format_message()}{hint}", err=True)
            sys.exit(exc.exit_code)
        sys.exit(code if isinstance(code, int) else 0)


def _plugin_first(args: list[str]) -> str:
    """The command line with every --plugin FILE moved in front of the command."""
    plugins, rest, i = [], [], 0
    while i < len(args):
        if args[i] == "--plugin" and i + 1 < len(args):
            plugins += args[i:i + 2]
            i += 2
            continue
        if args[i].startswith("--plugin="):
            plugins += ["--plugin", args[i].split("=", 1)[1]]
        else:
            rest.append(args[i])
        i += 1
    return shlex.join(["sheepsim", *plugins, *rest])


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="sheepsim", prog_name="sheepsim")     # `python -m sheepsim` too
@click.option("--plugin", "plugins", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
              metavar="FILE.py", help="Import a Python file that registers policies (@register_policy) "
                                      "before running the command; repeatable.")
@click.option("--time-limit", type=click.FloatRange(0, min_open=True), default=None, metavar="SECONDS",
              help="Run the command in a watched child process: stop it (one line, exit 2) when no chunk has "
                   "finished for SECONDS (simulate; other commands: the whole command), name the signal if it "
                   "crashes, and kill it on Ctrl-C. For plugins, whose compiled code cannot be interrupted "
                   "otherwise. A --out folder is marked failed, its chunks kept: the same command resumes.")
@click.pass_context
def cli(ctx, plugins, time_limit) -> None:
    """Monte Carlo strategy analysis for Battle Sheep, Bye-Bye Black Sheep, Hiboufou,
    Bobby Sitter and Pig.

    \b
    Typical session:
      sheepsim games                                   list the games
      sheepsim rules battlesheep                       every rule option and its default
      sheepsim policies battlesheep                    built-in policies and parameters
      sheepsim simulate battlesheep -p 2 --games 100000 --policy greedy --policy random
      sheepsim trace battlesheep --seed 1 --game 0     read one game move by move
      sheepsim examples                                example position and decks, in examples/
      sheepsim legal examples/position.json            legal moves of a position, as JSON
      sheepsim simulate blacksheep -p 3 --games 100000 --policy threshold:k=7 -o wolf=on
      sheepsim trace blacksheep -p 3 --policy risk:p=0.18 --seed 1 --game 0
      sheepsim simulate bobbysitter -p 3 --policy child --policy adult --policy adult -o start_tokens=3,2,2
      sheepsim simulate hiboufou -p 3 --policy greedy --deck examples/hiboufou-deck.toml
      sheepsim simulate pig --policy hold:t=25 --policy hold:t=20 --out runs/t25
      sheepsim simulate pig --policy hold:t=20 --out runs/t20
      sheepsim compare runs/t25 runs/t20               paired difference of two runs, same seed
      sheepsim check examples/variant.toml             a rule variant against the base game
      sheepsim run analyses/battlesheep-seat-advantage.toml
      sheepsim run analyses/blacksheep-thresholds.toml --scale 0.1   a quick look
      sheepsim report                                  the reports as a site: reports/site/index.html
      sheepsim bench                                   every game's speed in one table
      sheepsim cache info                              numba's cache folder, and stale ones
      sheepsim --plugin mypolicy.py simulate battlesheep --policy mine --policy greedy
      sheepsim --plugin mypolicy.py --time-limit 300 simulate battlesheep --policy mine --out runs/mine
    """
    if time_limit is not None:      # only then: the child (no --time-limit) works as any command
        from . import watchdog
        child = [sys.executable, "-c", "from sheepsim.cli import main; main()",
                 *watchdog.child_args(ctx.command.given)]
        sys.exit(watchdog.supervise(child, time_limit))
    from .policies import load_plugin
    for path in plugins:
        load_plugin(path)


@cli.command()
def games() -> None:
    """List the games, their player counts, engine versions and where each comes from
    (built in, or the plug-in file or entry point that registered it).

    A plug-in game is listed once its file is loaded (`sheepsim --plugin FILE games`)
    or its package names it in the `sheepsim.games` entry point group.

    \b
    Example:
      sheepsim games
    """
    from .games import all_games, source
    for g in all_games().values():
        click.echo(f"{g.name:<14} {g.title:<24} {g.players[0]}-{g.players[1]} players   version {g.version}   "
                   f"{source(g.name)}")


@cli.command()
@click.argument("game")
@click.option("--json", "as_json", is_flag=True, help="Print the options as JSON.")
@click.option("--readings", is_flag=True,
              help="Print the game's rules readings instead: every place the rulebook is silent or ambiguous, "
                   "the reading sheepsim takes, and the option that selects another.")
def rules(game: str, as_json: bool, readings: bool) -> None:
    """Every rule option of GAME with its default and allowed values. Each option's help
    says where its default comes from when the rulebook does not settle it; --readings
    prints the game's rules readings (each ambiguity, the reading taken, the option
    that selects another).

    \b
    Example:
      sheepsim rules blacksheep
      sheepsim rules blacksheep --readings
      sheepsim simulate blacksheep -p 3 -n 20000 -o wolf=on -o turn_cap=300
    """
    g = _game(game)
    if readings:
        if g.readings is None:
            raise SheepsimError(f"{g.title} gives no rules readings; its options and their help are all "
                                f"`sheepsim rules {g.name}` shows")
        click.echo(Path(g.readings).read_text(encoding="utf-8").rstrip())
        return
    rows = [{"name": o.name, "default": o.default, "allowed": o.allowed(), "help": o.help} for o in g.options]
    if as_json:
        click.echo(json.dumps({"game": g.name, "players": list(g.players), "options": rows}, indent=1))
        return
    click.echo(f"{g.title} rule options (set with --option NAME=VALUE); players: {g.players[0]}-{g.players[1]}")
    click.echo(textwrap.fill("Defaults follow the rulebook; where it is silent or unclear, the help says so and "
                             "the default is sheepsim's reading. ASSUMED marks values no source gives.", 100) + "\n")
    for r in rows:
        click.echo(f"{r['name']}  (default: {r['default']})\n    allowed: {r['allowed']}\n    {r['help']}\n")
    if g.readings is not None:
        click.echo(f"The rules readings (each ambiguity, the reading taken, the option for another): "
                   f"sheepsim rules {g.name} --readings")


@cli.command()
@click.argument("game")
def policies(game: str) -> None:
    """The policies registered for GAME, with their parameters, and how to write one.

    \b
    Example:
      sheepsim policies blacksheep
      sheepsim simulate blacksheep -p 2 -n 20000 --policy threshold:k=6 --policy risk:p=0.2
    """
    from .policies import policies_for
    g = _game(game)
    if g.policy_help:
        click.echo(f"{g.policy_help}\n")
    for p in policies_for(g.name):
        if p.refuse:        # registered for every game, but not playable in this one
            continue
        click.echo(f"{p.name}{'' if p.builtin else '  (user)'}\n    {p.doc}")
        for k, (default, text) in p.params.items():
            kind = "name" if k in p.choices else "integer" if k in p.integers else "number"
            click.echo(f"    {p.name}:{k}=<{kind}>  (default {p.value_text(k, default)}; allowed {p.allowed(k)}) "
                       f"{text}")
        for k, text in p.files.items():
            click.echo(f"    {p.name}:{k}=<path>  {text}")
        click.echo("")


@cli.command()
@click.argument("game", is_eager=True)      # parsed first, so --policy and -o can check against it
@game_options
@click.option("--games", "-n", "n_games", type=int, default=10_000, show_default=True, help="Number of games.")
@click.option("--threads", "-t", type=click.IntRange(1, 256), default=None,
              help="Numba threads (default: all cores; with --backend dask, per worker). "
                   "Results do not depend on it.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for the results (per-chunk files + manifest.json with their checksums); "
                   "running the same command again resumes, redoing only unfinished or damaged chunks.")
@click.option("--chunk-size", type=click.IntRange(1, 10_000_000), default=None,
              help="Games per chunk (one task, one file; default 50000, or the --out folder's). "
                   "Results do not depend on it, except where --ci-halfwidth stops.")
@click.option("--aggregate", is_flag=True,
              help="Keep per-chunk counts (wins by seat and policy, length and score histograms, sums) "
                   "instead of per-game rows: memory stays flat however many games.")
@click.option("--ci-halfwidth", type=click.FloatRange(0, 0.5, min_open=True, max_open=True), default=None,
              metavar="H", help="Stop at the first chunk after which every seat's 95% win-rate interval is "
                                "at most +-H (e.g. 0.005); --games is then the limit.")
@click.option("--metrics", is_flag=True,
              help="Also tally each game's experience metrics in the kernels: rounds, lead changes, the round "
                   "from which the winner leads for good (decided_at, decided_share), comeback (the winner "
                   "trailed at half-time) and drama (the winner's deficit summed); the summary adds their table.")
@click.option("--target-length", "target", nargs=2, type=float, default=None, metavar="SHORTEST LONGEST",
              help="Also score the length against this target range, in the game's turn unit: 1 inside it, "
                   "falling to 0 at no length and at twice LONGEST (Ludii's IdealDuration).")
@click.option("--backend", type=click.Choice(["local", "dask"]), default="local", show_default=True,
              help="local: this process. dask: chunks as tasks on a Dask cluster (pip install 'sheepsim[dask]').")
@click.option("--scheduler", metavar="ADDRESS", default=None,
              help="With --backend dask: address of an existing Dask scheduler (tcp://HOST:PORT).")
@click.option("--workers", type=click.IntRange(1, 1024), default=None,
              help="With --backend dask: start a local cluster of N worker processes (default: one per core).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def simulate(game, players, policies, options, seed, no_rotate, from_position, n_games, threads, out,
             chunk_size, aggregate, ci_halfwidth, metrics, target, backend, scheduler, workers, quiet) -> None:
    """Play many games of GAME and print win rates per seat with 95% Wilson intervals.

    \b
    Example:
      sheepsim simulate battlesheep -p 2 -n 20000 --policy greedy --policy random --seed 1
      sheepsim simulate pig -n 100000 --policy hold:t=20 --policy hold:t=25 --out runs/pig
      sheepsim simulate hiboufou -p 3 -n 20000 --policy greedy --metrics
    """
    from .policies import seat_specs
    from .runner import simulate as run
    from .report.summary import summary_text
    from .runner import check_games
    check_games(n_games, aggregate)
    _check_target(target)
    g = _game(game)
    rules, position = _rules_and_start(g, players, options, from_position)
    specs = seat_specs(g.name, policies, rules.num_players)
    start_file = from_position or _deck_option()
    from .watchdog import beat, watched
    beat(out)                       # under --time-limit: the folder to mark failed if it is stopped
    result = run(g, rules, specs, n_games, seed, threads, not no_rotate, position, out, chunk_size,
                 progress=not quiet and sys.stderr.isatty(), aggregate=aggregate, ci_halfwidth=ci_halfwidth,
                 backend=backend, scheduler=scheduler, workers=workers, metrics=metrics,
                 start_file=None if start_file is None else str(start_file),
                 notify=None if quiet else functools.partial(click.echo, err=True),
                 on_chunk=(lambda index: beat()) if watched() else None)
    click.echo(summary_text(g, result, target))
    if result.extra["redone"]:
        why = ", ".join(f"{i} ({reason})" for i, reason in sorted(result.extra["redone"].items()))
        click.echo(f"recomputed chunk(s) {why}")
    if out is not None:
        m = result.manifest
        resumed = f", {result.extra['resumed']} resumed" if result.extra["resumed"] else ""
        click.echo(f"results: {out}/ (manifest.json + {len(m['chunks'])} {m['mode']} chunk(s){resumed})")


@cli.command()
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="Also write the seat and policy tables as CSV (a `table` column tells them apart).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="Also write every number of the summary as JSON.")
@click.option("--target-length", "target", nargs=2, type=float, default=None, metavar="SHORTEST LONGEST",
              help="Also score the length against this target range, as simulate --target-length.")
@click.option("--force", is_flag=True, help="Replace the --csv and --json FILEs if they exist and create missing "
                                         "folders for them.")
def summarize(folder: Path, csv_path: Path | None, json_path: Path | None, target, force: bool) -> None:
    """The summary of a finished run folder (simulate --out DIR), without playing a game.

    \b
    Example:
      sheepsim simulate pig -n 100000 --policy hold:t=20 --policy hold:t=25 --out runs/pig
      sheepsim summarize runs/pig --csv pig.csv
    """
    from .report.summary import summary_csv, summary_json, summary_text
    from .runner import read_run
    _check_target(target)
    _check_files(((json_path, "--json"), (csv_path, "--csv")), force)
    run = read_run(folder)
    g = _game(run.manifest["game"])
    _write_tables(((json_path, functools.partial(summary_json, target=target)), (csv_path, summary_csv)), g, run)
    click.echo(summary_text(g, run, target))


def _check_target(target) -> None:
    from .stats.tables import target_problem
    problem = None if target is None else target_problem(*target)
    if problem:
        raise SheepsimError(f"--target-length: {problem}")


def _check_files(files, force: bool) -> None:
    """Each (FILE or None, option) writable, before any work: no file replaced and no
    folder made unless --force."""
    from .fileio import check_new_file
    for path, option in files:
        if path is not None:
            check_new_file(path, option, force, "out." + option.lstrip("-"))


def _write_tables(files, game, data) -> None:
    """--json/--csv of summarize and compare: files first, so a bad path fails before
    anything is printed."""
    from .fileio import write_atomic
    for path, text in files:
        if path is not None:
            try:
                write_atomic(path, text(game, data))
            except OSError as exc:
                raise SheepsimError(f"cannot write {path}: {exc.strerror}; choose a writable file")


@cli.command()
@click.argument("folder_a", metavar="DIR_A", type=click.Path(file_okay=False, path_type=Path))
@click.argument("folder_b", metavar="DIR_B", type=click.Path(file_okay=False, path_type=Path))
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="Also write the seat and slot tables as CSV (a `table` column tells them apart).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="Also write every number of the comparison as JSON.")
@click.option("--force", is_flag=True, help="Replace the --csv and --json FILEs if they exist and create missing "
                                         "folders for them.")
def compare(folder_a: Path, folder_b: Path, csv_path: Path | None, json_path: Path | None, force: bool) -> None:
    """The paired difference A - B of two finished runs (simulate --out) made with the same
    seed and player count, whose policies or rules differ: per seat (and per player slot)
    the win rate, and the mean game length, game g of A against game g of B, with 95%
    intervals. Pairing on the same seeds removes most of the luck from the difference.

    \b
    Example:
      sheepsim simulate pig -n 20000 --policy hold:t=25 --policy hold:t=20 --out runs/t25
      sheepsim simulate pig -n 20000 --policy hold:t=20 --out runs/t20
      sheepsim compare runs/t25 runs/t20
    """
    from .report.compare import compare_runs, comparison_csv, comparison_json, comparison_text
    _check_files(((json_path, "--json"), (csv_path, "--csv")), force)
    c = compare_runs(folder_a, folder_b)
    g = _game(c.manifests[0]["game"])
    _write_tables(((json_path, comparison_json), (csv_path, comparison_csv)), g, c)
    click.echo(comparison_text(g, c))


@cli.command()
@click.argument("folder", metavar="[DIR]", default="examples", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite example files already in DIR.")
def examples(folder: Path, force: bool) -> None:
    """Write the example files the README uses into DIR (default: examples): a Battle Sheep
    position, a Hiboufou deck, a Bobby Sitter deck and an analysis file, each commented or
    described in the README. Files already there are kept (nothing is written) unless --force.

    \b
    Example:
      sheepsim examples && sheepsim legal examples/position.json
    """
    from .examples import write_examples
    for example, path in write_examples(folder, force):
        click.echo(f"wrote {path}  {example.what}")
        click.echo(f"    try: {example.use.format(path=path)}")


@cli.command()
@click.argument("game", is_eager=True)      # parsed first, so --policy and -o can check against it
@game_options
@click.option("--game", "-g", "game_index", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True,
              help="Index of the game within the run of --seed (as in simulate's `game` column).")
@click.option("--json", "as_json", is_flag=True, help="Full state after every event, as JSON.")
@click.option("--html", "html_path", type=click.Path(path_type=Path), default=None, metavar="FILE",
              help="Write the game as one self-contained HTML page to FILE (a replay to step through in a "
                   "browser: the picture after every event, its text, every seat's cards) instead of printing.")
@click.option("--from-run", "from_run", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Replay game --game of the finished run in DIR (simulate --out) with exactly its settings: "
                   "rules, policies, seed, rotation, deck or position (give none of them here).")
@click.option("--force", is_flag=True, help="Replace the --html FILE if it exists and create missing folders for it.")
def trace(game, players, policies, options, seed, no_rotate, from_position, game_index, as_json, html_path,
          from_run, force) -> None:
    """A readable log of one game: every decision and the board after it (the game of
    index --game in the run of --seed, with the same options and policies as the run).
    With --html FILE, the same game as a page that replays it step by step.

    \b
    Example:
      sheepsim trace blacksheep -p 3 --policy threshold:k=7 --seed 1 --game 0
      sheepsim trace battlesheep --seed 1 --game 42 --html replay.html
      sheepsim trace blacksheep --from-run runs/bb3 --game 17 --html bb3-17.html
    """
    from .policies import seat_specs
    from .report import replay
    from .start import kernel_aux
    if html_path is not None and as_json:
        raise SheepsimError("give --html FILE or --json, not both (--json prints the states, --html writes a page)")
    if html_path is not None:
        replay.check_output(html_path, force)
    g = _game(game)
    deck_file, start_option, start = _deck_option(), None, None
    if from_run is not None:
        ctx = click.get_current_context()
        given = [name for name in ("players", "policies", "options", "seed", "no_rotate", "from_position", "deck")
                 if ctx.get_parameter_source(name) not in (None, click.core.ParameterSource.DEFAULT)]
        if given:
            flags = {"players": "--players", "policies": "--policy", "options": "--option", "no_rotate": "--no-rotate",
                     "from_position": "--from-position"}
            raise SheepsimError(f"--from-run replays the run with its own settings: drop "
                                f"{', '.join(flags.get(n, '--' + n) for n in given)}")
        run = replay.run_settings(from_run, g)
        if game_index >= run.games:
            raise SheepsimError(f"--game {game_index} is beyond the run in {from_run}: it played {run.games} games "
                                f"(indexes 0 to {run.games - 1})")
        rules, position, seed, rotate = run.rules, run.start, run.seed, run.rotate
        specs = seat_specs(g.name, run.policies, rules.num_players)
        deck_file = run.start_file if run.start_file is not None and run.start_file.is_file() else None
        start = None if run.start_file is None else str(run.start_file)
    else:
        rules, position = _rules_and_start(g, players, options, from_position)
        specs = seat_specs(g.name, policies, rules.num_players)
        rotate = not no_rotate
        start_file = deck_file or from_position
        if start_file is not None:
            start = str(start_file)
            start_option = f"{'--deck' if deck_file else '--from-position'} {start_file}"
    init = kernel_aux(g, rules, position, specs)
    if html_path is None:
        click.echo(g.trace(rules, specs, seed, game_index, rotate, init, as_json, deck_file=deck_file))
        return
    command = replay.trace_command(g, rules, [s.label for s in specs], seed, game_index, rotate, start_option,
                                   from_run)
    doc = replay.build(g, rules, specs, seed, game_index, rotate, init, deck_file, start, from_run, command)
    path, size = replay.write(html_path, doc)
    click.echo(f"wrote {path}: {g.title} game {game_index} of seed {seed}, {len(doc['steps'])} steps, "
               f"{size / 1024:.0f} KB; open it in a browser")


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--game", "game", default=None, metavar="GAME",
              help="The game whose position FILE holds; give it before --option. Default: the only game with a "
                   "position format.")
@click.option("--option", "-o", "options", multiple=True, type=RuleOption(), help="Rule option; repeatable.")
def legal(file: Path, game: str | None, options) -> None:
    """The legal moves of the Battle Sheep position in FILE, as JSON: {"from": [q, r], "to":
    [q, r], "count": n}, {"place": [q, r]} or {"tile": [[q, r] x 4]}.

    FILE holds one JSON object: game "battle-sheep", num_players, stack_size, phase (build,
    place, move or over), to_move (the seat to act), cells (every pasture hex once, as
    {"q", "r", "owner": seat or null, "height": sheep, 0 when empty}, in axial
    coordinates, r growing downward) and optionally tiles (lists of 4 [q, r]). The README
    describes it; `sheepsim examples` writes one.

    \b
    Example:
      sheepsim examples && sheepsim legal examples/position.json
    """
    g = _position_game(game)
    rules, position = _rules_and_start(g, None, options, file)
    click.echo(json.dumps(g.legal(position, rules)))


def _position_game(name: str | None):
    """The game `sheepsim legal` reads a position of: GAME, else the only registered game
    with a position format and its legal moves (GameSpec.read_position, legal)."""
    from .games import all_games
    takes = [g for g in all_games().values() if g.read_position is not None and g.legal is not None]
    names = ", ".join(g.name for g in takes)
    if name is None:
        if len(takes) != 1:
            raise SheepsimError(f"give --game: sheepsim legal works for: {names}")
        return takes[0]
    g = _game(name)
    if g.name not in {t.name for t in takes}:
        raise SheepsimError(f"{g.name} has no position format; sheepsim legal works for: {names}")
    return g


@cli.command()
@click.argument("variant", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--scale", type=click.FloatRange(0.001, 1000), default=1.0, show_default=True,
              help="Multiply the games per run (e.g. 4 for intervals half as wide).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="Also write the verdict (every row, the findings, the settings) as JSON.")
@click.option("--threads", "-t", type=click.IntRange(1, 256), default=None, help="Numba threads.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines.")
@click.option("--force", is_flag=True, help="Replace the --json FILE if it exists and create missing folders for it.")
def check(variant: Path, scale: float, json_path: Path | None, threads, quiet, force) -> None:
    """A rule variant against the base game on common seeds: one verdict table of seat 0's
    edge, length, decisiveness, comeback rate, lead changes and skill gap, each with the
    paired change, its 95% interval and a Holm-adjusted p, then the findings in words.

    \b
    VARIANT is a TOML file (`sheepsim examples` writes examples/variant.toml):
      game = "blacksheep"          a name from `sheepsim games`
      players = [3, 4]             player counts (default: the game's smallest)
      games = 50000                games per run, four runs per player count (--scale
                                   multiplies it)
      seed = 0                     the master seed, shared by base and variant
      policy = "threshold:k=7"     every seat's policy in the self-play runs (default:
                                   `strong`)
      strong = "threshold:k=7"     the skill gap: one seat of `strong` (rotated) against
      weak = "random"              `weak` in the others; default: the game's pair,
                                   greedy/random (Pig hold/random, Bye-Bye Black Sheep
                                   threshold:k=7/random, Bobby Sitter adult/child)
      target_length = [15, 25]     optional: also the target-length score (Ludii's
                                   IdealDuration) in the game's turn unit
      name, description            the variant's label (default: the file's name)
      [base]                       the base game's rule options (default: the rules'),
                                   and `deck = "FILE"` for a deck file (relative to
                                   VARIANT), as simulate's -o and --deck
      [variant]                    what the variant changes, the same keys
    Measures: seat 0 edge (its sole-win rate of decided games less 1/P), length, decided
    share (decided_at / rounds), comeback rate, lead changes (simulate --metrics),
    target-length score, skill gap (strong's sole-win rate less 1/P). Nothing is written
    but the --json file.

    \b
    Example:
      sheepsim examples && sheepsim check examples/variant.toml
    """
    from .analysis import check as C
    from .fileio import write_atomic
    _check_files(((json_path, "--json"),), force)
    plan = C.load(variant, scale)
    verdict = C.run(plan, threads, progress=not quiet)
    if json_path is not None:
        try:
            write_atomic(json_path, json.dumps(C.verdict_json(verdict), indent=1) + "\n")
        except OSError as exc:
            raise SheepsimError(f"cannot write {json_path}: {exc.strerror}; choose a writable file")
    click.echo(C.verdict_text(verdict))


@cli.command("run")
@click.argument("analyses", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path),
                metavar="ANALYSIS...")
@click.option("--scale", type=click.FloatRange(0.001, 1000), default=None,
              help="Multiply every game count (e.g. 0.1 for a quick look). Default: the analysis file's own "
                   "`scale`, the scale its committed report is made at (1 when the file names none).")
@click.option("--reports", type=click.Path(file_okay=False, path_type=Path), default=None,
              help=f"Folder the Markdown report and figures are written to (default: reports at the file's own "
                   f"scale; {QUICK_LOOK} below it and reports/scale-S above it, so another scale never replaces "
                   f"the committed report).")
@click.option("--only-changed", is_flag=True,
              help="Keep a report whose inputs (the analysis file, its scale, every sheepsim source it was made "
                   "from, recorded in REPORTS/<name>/inputs.json) are unchanged, instead of remaking it; say "
                   "which it did. `make reports` runs every file of analyses/ this way.")
@click.option("--force", is_flag=True, help="Replace a report made at a larger scale than this run's.")
@click.option("--threads", "-t", type=click.IntRange(1, 256), default=None, help="Worker threads.")
@click.option("--quiet", "-q", is_flag=True, help="No progress output.")
def run_analysis(analyses: tuple[Path, ...], scale: float | None, reports: Path | None, only_changed: bool,
                 force: bool, threads, quiet) -> None:
    """Run the analysis defined in each ANALYSIS (a TOML file, e.g. one of analyses/) and
    write its report, REPORTS/<name>.md, with its figures in REPORTS/<name>/.

    \b
    An analysis file names its kind and game, and may name the rest:
      kind = "seat_advantage"   seat_advantage, policy_sweep, rule_variants, grid,
                                skill_ladder, ratings, learn_stop, tune or converge
      game = "pig"              a name from `sheepsim games`
      name, title, description  the report's file name (default: the file's), title, text
      seed = 0                  the master seed (default 0)
      scale = 1                 the scale the committed report is made at (default 1):
                                `sheepsim run FILE` and `make reports` run at it
    and the keys of its kind (games, players, options and policies take the forms of
    simulate's --games, --players, -o NAME=VALUE and --policy SPEC):
      seat_advantage  players, policies, games, options
      policy_sweep    players, policy, param, values, field_policy, field_values, games,
                      confirm_games, options, confidence; or field = "SPEC" (one fixed
                      field, e.g. "optimal", instead of field_policy and field_values);
                      outside = ["SPEC", ...], outside_games (policies beyond the
                      family, each against the confirmed equilibrium); strongest =
                      "SPEC", strongest_games (a search too slow for outside_games,
                      on the first of those games)
      rule_variants   players, policy, games, options, variants
      grid            players, policy, focal_policy, games, options, rows, cols, metrics,
                      labels, skip_invalid
      skill_ladder    players, policy, start, limit, games, against, against_games,
                      options
      ratings         policies, games, options, bootstrap
      learn_stop      players, options, games, target, per_game, max_iterations,
                      confidence, eval_games, candidates, field, strongest,
                      strongest_games (Pig, Bye-Bye Black Sheep: learns a stop table,
                      learned-<P>p.json beside the report; `strongest`, a search too
                      slow for eval_games, plays the first strongest_games of them)
      tune            players, policy, focal_policy, strong, weak, options, space,
                      objectives, trials, batch, games, eta, rungs, confirm,
                      confirm_games (searches rule options, deck parameters and
                      per-player handicaps with optuna; resumable from
                      REPORTS/<name>/study.sqlite3)
      converge        players, policy, knob, levels, top, games, halfwidth, tolerance,
                      anchors, strength_games, measure_games, exact, play_all, options
                      (follows seat 0's edge and every seat's share up a ladder of agents
                      until they stop moving, or says they have not)
    A key the kind does not know is an error. A complete file:
      kind = "seat_advantage"
      game = "pig"
      players = [2]
      policies = ["random", "hold"]
      games = 20000
    `sheepsim examples` writes a commented one (examples/analysis.toml); the repository's
    analyses/ folder holds one file per study, each kind described at the top of
    sheepsim/analysis/<module>.py (seat_advantage, sweep, variants, grid, ladder,
    ratings, learn_stop, tune, converge).

    \b
    Example:
      sheepsim examples && sheepsim run examples/analysis.toml --scale 0.1
      sheepsim run analyses/pig-hold-sweep.toml --scale 0.1
      sheepsim run analyses/pig-optimal.toml --only-changed   as `make reports` runs each file
    """
    from .analysis.definition import file_scale, load, run_file
    from .report.saved import findings_lines
    for analysis in analyses:
        own = file_scale(load(analysis))
        at = own if scale is None else scale
        folder = reports if reports is not None else Path(
            "reports" if at == own else QUICK_LOOK if at < own else f"reports/scale-{at:g}")
        path = run_file(analysis, folder, at, threads, progress=not quiet, only_changed=only_changed, force=force,
                        say=lambda line: click.echo(line, err=True))
        if at < own and reports is None:
            click.echo(f"report: {path} (a quick look at --scale {at:g}: intervals are wider than the committed "
                       f"report's, made at --scale {own:g})")
        elif at > own and reports is None:
            click.echo(f"report: {path} (at --scale {at:g}, beside the committed report made at --scale {own:g}; "
                       f"set `scale = {at:g}` in the analysis file to make it the committed one)")
        else:
            click.echo(f"report: {path}")
        for line in findings_lines(path):       # what the report found, without opening it
            click.echo(line)


@cli.command("report")
@click.argument("reports", required=False, default=Path("reports"), type=click.Path(path_type=Path))
@click.option("--out", "out", type=click.Path(path_type=Path), default=None, metavar="SITE",
              help="Folder to write the site to (default: REPORTS/site). A site made before is replaced whole; "
                   "any other folder that is not empty is refused.")
def report_site(reports: Path, out: Path | None) -> None:
    """The reports in REPORTS (default: reports) as a static HTML site to click through:
    an index of every report with its first finding, and one page per report (findings
    first, then its tables, figures and provenance). Figures with saved data are
    interactive (hover: the value, its 95% interval and n; zoom), the others are the
    report's PNGs; tables sort by a click on a header. Nothing is re-run: the pages are
    made from the files `sheepsim run` saved. The site needs no server and no network:
    open SITE/index.html in a browser.

    \b
    Example:
      sheepsim report reports --out reports/site
    """
    from .report.site import build
    site = build(reports, out)
    for note in site.notes:
        click.echo(f"note: {note}", err=True)
    live = sum(p.interactive for p in site.pages)
    old = sum(not p.from_data for p in site.pages)
    click.echo(f"site: {site.index} ({len(site.pages)} reports, {live} interactive figures"
               + (f", {old} from their Markdown alone (no saved data)" if old else "") + "); open it in a browser")


@cli.command()
@click.argument("games", nargs=-1, metavar="[GAME]...")
@click.option("--players", "-p", type=int, default=None,
              help="Number of players, with one GAME (default: the game's benchmark player count).")
@click.option("--games", "-n", "n_games", type=click.IntRange(1, None), default=None,
              help="Games per kernel run (default: calibrated per game to about 0.3 s on 1 thread; "
                   "best of 5 runs per thread count).")
@click.option("--reference-games", type=click.IntRange(1, None), default=None,
              help="Games per reference engine run (default: calibrated to about 0.5 s; best of 3 runs).")
@click.option("--threads", "-t", type=click.IntRange(2, 256), default=2, show_default=True,
              help="Thread count compared with 1 thread (capped by numba's thread pool).")
@click.option("--json", "json_path", type=click.Path(path_type=Path), default=None, metavar="FILE",
              help="Also write the table, with machine information, as JSON to FILE.")
@click.option("--no-startup", is_flag=True, help="Skip the timings of fresh processes: cold and warm start-up, and "
                                             "the wall time of `sheepsim check examples/variant.toml`.")
@click.option("--search-budget", type=click.IntRange(0, 100_000), default=100, show_default=True,
              help="Iterations per decision of the search rows (mcts, ismcts: iterations/s, decisions/s, the "
                   "cost over a random playout, a plain-Python search over the reference engine); 0 skips them.")
@click.option("--agent", "agents", multiple=True, metavar="SPEC",
              help="A search agent to measure (repeatable), e.g. alphabeta:depth=3: its milliseconds a decision "
                   "at 1 thread, and its win rate against mcts at equal time per decision (mcts:iters=256 scaled "
                   "by the two costs).")
@click.option("--agent-games", type=click.IntRange(10, 1_000_000), default=200, show_default=True,
              help="2-player games of each --agent against its equal-time mcts, seats rotated.")
def bench(games, players, n_games, reference_games, threads, json_path, no_startup, search_budget, agents,
          agent_games) -> None:
    """Speed of every game (or of each GAME given): kernel games/s at 1 and 2 threads,
    parallel efficiency, the pure-Python reference, cold and warm start, in one table;
    the wall time of the README's `sheepsim check` example (with blacksheep); the tuner's
    settings a minute on analyses/bobbysitter-tune-handicap.toml (with bobbysitter); then
    the search policies' speed (sheepsim/search/bench.py); with --agent, each agent's
    cost a decision and its strength at equal time.

    \b
    Example:
      sheepsim bench pig --no-startup
      sheepsim bench battlesheep --no-startup --search-budget 0 --agent alphabeta:depth=3
    """
    from .bench import check_json_path, run, table, write_json
    from .games import all_games
    if players is not None and len(games) != 1:
        raise SheepsimError("--players needs exactly one GAME (player counts differ between games)")
    if json_path is not None:
        check_json_path(json_path)
    specs = [_game(name) for name in games] or list(all_games().values())
    report = run(specs, players, n_games, reference_games, threads, not no_startup,
                 lambda msg: click.echo(msg, err=True), search_budget, agents, agent_games)
    click.echo(table(report))
    if json_path is not None:
        write_json(report, json_path)
        click.echo(f"json: {json_path}")


@cli.group("cache")
def cache_group() -> None:
    """numba's disk cache of compiled kernels: one folder per version of the sources
    (any edit to the package starts a new, empty one), under $XDG_CACHE_HOME/sheepsim
    or ~/.cache/sheepsim. A NUMBA_CACHE_DIR you set is used instead.

    \b
    Example:
      sheepsim cache info
    """


def _describe_folder(f) -> str:
    if not f.files:
        return f"{f.path}  (empty)"
    return f"{f.path}  ({f.bytes / 1e6:.1f} MB, {f.files} file{'' if f.files == 1 else 's'})"


@cache_group.command("info")
def cache_info() -> None:
    """Show the cache folder in use and the stale ones beside it.

    Prints the folder in use with its size and number of files, then the other
    sheepsim cache folders (older sources, another numba, or another checkout).

    \b
    Example:
      sheepsim cache info
    """
    from . import cache as C
    info = C.info()
    whose = "" if info.managed else f"  [{C.ENV}, set by you]"
    click.echo(f"in use: {_describe_folder(info.current)}{whose}")
    if not info.others:
        click.echo(f"no other sheepsim cache folders in {info.root}")
        return
    click.echo(f"other sheepsim cache folders (older sources, another numba, or another checkout), "
               f"{sum(f.bytes for f in info.others) / 1e6:.1f} MB in all; `sheepsim cache clear --all` "
               f"removes them:")
    for f in info.others:
        click.echo(f"  {_describe_folder(f)}")


@cache_group.command("clear")
@click.option("--all", "everything", is_flag=True,
              help="Also remove every other sheepsim cache folder (older sources, other numba versions, "
                   "other checkouts: those recompile on their next run).")
def cache_clear(everything: bool) -> None:
    """Remove the cache folder in use (--all: every sheepsim one).

    The next run compiles its kernels afresh (a few minutes for every game).

    \b
    Example:
      sheepsim cache clear --all
    """
    from . import cache as C
    removed = C.clear(everything)
    for f in removed:
        click.echo(f"removed {_describe_folder(f)}")
    if not removed:
        click.echo(f"nothing to remove in {C.root()}")


def main() -> None:
    cli.main()


if __name__ == "__main__":
    main()
