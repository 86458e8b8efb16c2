"""Training a weights file (`sim strategies train`): optuna searches the heuristic's weights
for strength against a pool of players, on seat-swapped pairs, then the best is replayed on
fresh seeds and written as a weights file with that interval.

Every trial plays the same deals (common random numbers): its seat is labelled CANDIDATE in
every run, and a match-up's game seeds come from the master seed and its label alone
(sim/store/seeds.py), so trials differ only in their weights. The study lives in DIR/study.db
and the sampler is seeded anew before every trial from the seed and the trial's number, as in
sim/tune/study.py, so a rerun continues exactly where an interrupted one stopped; each trial's
games are a run folder DIR/trials/tNNNN, resumed like any run.

A style target ("run_end>=30") turns the objective into strength minus PENALTY points per
unit the style estimate falls short; the best trial is the strongest of those whose estimate
meets the target, and the confirmation decides the target on its own interval.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from sim.engine.cards import NAMES, kind_from_name
from sim.stats import Estimate, Tally, mean, rate
from sim.tune.objective import derived_seed
from sim.tune.study import _create, _optuna, stamped

if TYPE_CHECKING:
    import optuna

    from sim.runner.plan import RunPlan

STUDY_FILE = "study.db"
CANDIDATE = "candidate.toml"  # the trained seat's label in every run: one label, one deal set
SELF = "self"  # in a pool: the start weights, so the candidate must beat where it began
PENALTY = 2.0  # objective points lost per unit (percentage point, turn) of style shortfall
HAND_BOUNDS = (0.0, 15.0)
BOUNDS = {  # what training may set each weight to (widened to take in the start's value)
    "pot": (0.0, 2.0),
    "lead2": (0.0, 1.0),
    "lead3": (0.0, 1.0),
    "saved": (0.0, 1.0),
    "reply": (0.0, 2.0),
    "reply_line": (0.0, 3.0),
    "flip": (0.0, 1.0),
    "stolen": (0.0, 12.0),
    "run_pressure": (-10.0, 10.0),
    "pile_left": (-1.0, 1.0),
    "threat": (0.0, 1.0),
}
SAMPLERS = ("cmaes", "tpe")
SEARCH = ("second_ply", "deals", "ply_margin", "lookahead")  # the search, never trained
SIGMA = 0.1  # CMA-ES's first step, a share of each weight's range: near the start, which is
# hand-tuned (at optuna's 1/6 the first 50 trials of a 25-weight search all lost to it)


class TrainError(ValueError):
    """Training options that cannot be used; the message names the option."""


@dataclass(frozen=True)
class Style:
    """A style metric: what it measures, from the games table, and its units' scale."""

    text: str
    scale: float
    is_rate: bool


STYLES = {
    "run_end": Style("% of games ended by the RUN line", 100.0, True),
    "deck_out": Style("% of games ended by a pile running out", 100.0, True),
    "turns": Style("mean turns a game", 1.0, False),
}


@dataclass(frozen=True)
class StyleTarget:
    """A style metric held at or above (>=) or at or below (<=) a bound."""

    metric: str
    at_least: bool
    bound: float

    @property
    def text(self) -> str:
        return f"{self.metric}{'>=' if self.at_least else '<='}{self.bound:g}"

    def shortfall(self, value: float) -> float:
        """How far value falls outside the target (0 inside)."""
        return max(0.0, self.bound - value if self.at_least else value - self.bound)

    def verdict(self, low: float, high: float) -> str:
        """met (the whole interval inside), missed (wholly outside) or unclear."""
        inside, outside = (low, high) if self.at_least else (-high, -low)
        bound = self.bound if self.at_least else -self.bound
        return "met" if inside >= bound else "missed" if outside < bound else "unclear"


def parse_style(text: str) -> StyleTarget:
    """'run_end>=30' -> StyleTarget; TrainError naming the known metrics otherwise."""
    found = re.fullmatch(r"\s*(\w+)\s*(>=|<=)\s*([-+0-9.eE]+)\s*", text)
    known = ", ".join(f"{k} ({s.text})" for k, s in STYLES.items())
    if not found:
        raise TrainError(f"--style {text!r}: expected METRIC>=N or METRIC<=N; metrics: {known}")
    name, op, number = found.groups()
    if name not in STYLES:
        raise TrainError(f"--style {text!r}: unknown metric {name!r}; metrics: {known}")
    try:
        bound = float(number)
    except ValueError:
        raise TrainError(f"--style {text!r}: {number!r} is not a number") from None
    if STYLES[name].is_rate and not 0 <= bound <= 100:
        raise TrainError(f"--style {text!r}: {name} is a percentage, 0..100")
    return StyleTarget(name, op == ">=", bound)


@dataclass(frozen=True)
class Training:
    """What decides a training's results: the config, the start weights (a spec), the pool,
    pairs per opponent a trial, the seed, the sampler, the style target, the weights varied."""

    config: str
    start: str
    pool: tuple[str, ...]
    pairs: int
    seed: int
    sampler: str = "cmaes"
    style: StyleTarget | None = None
    vary: tuple[str, ...] = field(default=())
    sigma: float = SIGMA

    def record(self) -> dict:
        """The training as JSON-ready data (the folder's train.json, the study's name)."""
        d = asdict(self)
        d["style"] = self.style.text if self.style else None
        return d

    @property
    def name(self) -> str:
        import hashlib

        text = json.dumps(self.record(), sort_keys=True)
        return f"train-{hashlib.sha256(text.encode()).hexdigest()[:12]}-seed{self.seed}"


# --- the weights ------------------------------------------------------------------------------


def features() -> dict[str, int]:
    """Weight name -> slot: the evaluation's features and hand.KIND for every card kind."""
    from strategies.heuristic import FEATURES, W_HAND

    return {**FEATURES, **{f"hand.{NAMES[k]}": W_HAND + k for k in range(len(NAMES))}}


def start_weights(spec: str) -> tuple[float, ...]:
    """The weights a start spec stands for: heuristic's, a persona's or a file's."""
    from sim.players.weights import default_weights, read_weights, weights_path

    if spec == "heuristic":
        return default_weights()
    path = weights_path(spec)
    if path is None:
        raise TrainError(f"--start {spec!r}: expected heuristic, a persona or a .toml file")
    return read_weights(path)


def default_vary(config: str) -> tuple[str, ...]:
    """Every feature, and the hand value of each card kind the config's deck holds."""
    from sim.model.config import load as load_config
    from strategies.heuristic import FEATURES

    kinds = sorted({kind for kind, _ in load_config(config).deck})
    return (*(n for n in FEATURES if n not in SEARCH), *(f"hand.{NAMES[k]}" for k in kinds))


def check_vary(names: tuple[str, ...]) -> tuple[str, ...]:
    """The names as canonical weight names (hand.DEL -> hand.DELETE), or TrainError."""
    known = features()
    out = []
    for name in names:
        if name.startswith("hand."):
            try:
                name = f"hand.{NAMES[kind_from_name(name[5:])]}"
            except ValueError as exc:
                raise TrainError(f"--vary {name}: {exc}") from None
        if name in SEARCH:
            raise TrainError(f"--vary {name}: a search setting, not a weight: set it in --start")
        if name not in known:
            raise TrainError(f"--vary {name}: unknown weight; known: {', '.join(known)}")
        out.append(name)
    if not out:
        raise TrainError("--vary: name at least one weight")
    return tuple(dict.fromkeys(out))


def bounds(name: str, start: float) -> tuple[float, float]:
    low, high = HAND_BOUNDS if name.startswith("hand.") else BOUNDS.get(name, (0.0, 2.0))
    return min(low, start), max(high, start)


def with_values(base: tuple[float, ...], values: dict[str, float]) -> tuple[float, ...]:
    """base with the named weights set, each rounded to 3 decimals (what the file holds)."""
    slots = list(base)
    for name, value in values.items():
        slots[features()[name]] = round(float(value), 3)
    return tuple(slots)


def toml_text(weights: tuple[float, ...], description: str, notes: list[str]) -> str:
    """A complete weights file (every weight named), read_weights reads it back exactly."""
    from strategies.heuristic import FEATURES

    lines = [f"# {note}" for note in notes]
    lines += [f"description = {json.dumps(description)}", ""]
    lines += [f"{name} = {weights[slot]!r}" for name, slot in FEATURES.items()]
    lines += ["", "[hand]"]
    hand = {n: s for n, s in features().items() if n.startswith("hand.")}
    lines += [f"{json.dumps(n[5:])} = {weights[s]!r}" for n, s in hand.items()]
    return "\n".join(lines) + "\n"


def write_weights(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)


# --- playing and measuring --------------------------------------------------------------------


Runner = Callable[[object, Path], None]
"""runner(plan, out): play a run plan into a folder (sim.runner.run.execute with options)."""


def opponents(training: Training) -> tuple[str, ...]:
    """The pool's specs with SELF as the start spec."""
    return tuple(training.start if p == SELF else p for p in training.pool)


def plan_for(training: Training, weights: tuple[float, ...], pairs: int, seed: int) -> RunPlan:
    """The candidate (labelled CANDIDATE, with these weights) against each pool member."""
    from dataclasses import replace

    from sim.players.specs import Player
    from sim.runner.plan import make_plan

    matchups = [f"heuristic,{p}" for p in opponents(training)]
    plan = make_plan([training.config], matchups, 2 * pairs, seed, chunk_size=chunk(pairs))
    me = Player(CANDIDATE, {}, weights)
    return replace(plan, matchups=tuple(replace(m, first=me) for m in plan.matchups))


def chunk(pairs: int) -> int:
    """Four chunks a cell, from the games alone (a rerun elsewhere continues the run)."""
    return max(2, -(-2 * pairs // 4))


@dataclass(frozen=True)
class Measure:
    """The candidate's score against each opponent, pooled, and its style, as Tallies."""

    by_opponent: dict[str, Tally]
    style: Tally | None

    @property
    def score(self) -> Tally:
        tallies = list(self.by_opponent.values())
        total = tallies[0]
        for t in tallies[1:]:
            total = total + t  # distinct match-ups have distinct deals: independent pairs
        return total

    def score_estimate(self, tally: Tally | None = None) -> Estimate:
        """A's score in % with its 95% interval, the seat-swapped pair the unit."""
        return scaled(rate(self.score if tally is None else tally, "pair"), 100.0)

    def style_estimate(self, target: StyleTarget) -> Estimate:
        s = STYLES[target.metric]
        raw = rate(self.style, "pair") if s.is_rate else mean(self.style, "pair")
        return scaled(raw, s.scale)


def scaled(e: Estimate, factor: float) -> Estimate:
    from dataclasses import replace

    return replace(e, value=e.value * factor, low=e.low * factor, high=e.high * factor)


STYLE_QUANTITIES = {"run_end": "end:run", "deck_out": "end:deck_out", "turns": "turns"}
"""Each style metric's quantity in the workers' tallies (sim/store/quantities.py)."""


def measure(run: Path, training: Training) -> Measure:
    """The candidate's score by opponent and its style over one run folder's games (the
    workers' tallies)."""
    from sim.store.folder import open_run

    labels = [f"{CANDIDATE},{p}" for p in opponents(training)]
    names = dict(zip(labels, training.pool, strict=True))
    by_opponent: dict[str, Tally] = {}
    style = None
    for (_, matchup), counted in open_run(run).tallies.items():
        opponent, score = names.get(matchup, matchup), counted.tally("win:A score")
        held = by_opponent.get(opponent)
        by_opponent[opponent] = score if held is None else held + score
        if training.style is not None:
            t = counted.tally(STYLE_QUANTITIES[training.style.metric])
            style = t if style is None else style + t
    return Measure(by_opponent, style)


def objective_value(training: Training, m: Measure) -> float:
    """Strength in %, less PENALTY a unit of style shortfall (estimates, no intervals)."""
    value = m.score_estimate().value
    if training.style is not None:
        value -= PENALTY * training.style.shortfall(m.style_estimate(training.style).value)
    return value


# --- the study --------------------------------------------------------------------------------


def open_study(training: Training, out: Path) -> optuna.Study:
    """Create or reopen the study in DIR/study.db; refuse another sim's measurements."""
    study = _create(_optuna(), f"sqlite:///{(out / STUDY_FILE).resolve()}", training.name,
                    ["maximize"])  # fmt: skip
    if stamped(study, str(out / STUDY_FILE), "train into another --out DIR"):
        study.enqueue_trial(start_params(training), user_attrs={"start": True})
    return study


def start_params(training: Training) -> dict[str, float]:
    start = start_weights(training.start)
    return {n: round(start[features()[n]], 3) for n in training.vary}


def sampler(training: Training, number: int) -> optuna.samplers.BaseSampler:
    """The sampler for trial `number`, seeded from the training's seed and the number, so its
    choice depends only on the trials before it (a resumed study asks what it would have)."""
    import warnings

    optuna = _optuna()
    seed = derived_seed(training.seed, 2, number) % 2**32
    if training.sampler == "tpe":
        return optuna.samplers.TPESampler(seed=seed, n_startup_trials=10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # x0 outside a generation, experimental flags
        return optuna.samplers.CmaEsSampler(
            x0=start_params(training),
            sigma0=training.sigma,
            seed=seed,
            warn_independent_sampling=False,
        )


def play_trial(training: Training, out: Path, trial, runner: Runner) -> Measure:
    """Suggest the trial's weights, write them beside its games, play and measure them."""
    start = start_weights(training.start)
    values = {}
    for name in training.vary:
        low, high = bounds(name, start[features()[name]])
        values[name] = trial.suggest_float(name, low, high)
    weights = with_values(start, values)
    folder = out / "trials" / f"t{trial.number:04d}"
    write_weights(folder / CANDIDATE, toml_text(weights, f"trial {trial.number}", []))
    runner(plan_for(training, weights, training.pairs, training_seed(training)), folder / "games")
    return measure(folder / "games", training)


def training_seed(training: Training) -> int:
    """The master seed of every trial's games (the same deals for all)."""
    return derived_seed(training.seed, 0, 0)


def confirmation_seed(training: Training) -> int:
    """The master seed of the confirmation: fresh deals, none a trial played."""
    return derived_seed(training.seed, 1)


def run(training: Training, out: Path, trials: int, runner: Runner,
        said: Callable[[int, Measure, float], None] | None = None) -> optuna.Study:  # fmt: skip
    """Play trials until the study holds `trials` finished ones; an interrupted trial of
    this folder is played (its games resumed) before anything new is asked."""
    optuna = _optuna()
    study = open_study(training, out)
    states = optuna.trial.TrialState
    while True:
        all_trials = study.get_trials(deepcopy=False)
        done = [t for t in all_trials if t.state == states.COMPLETE]
        if len(done) >= trials:
            return study
        running = [t for t in all_trials if t.state == states.RUNNING]
        study.sampler = sampler(training, len(all_trials))
        trial = optuna.trial.Trial(study, running[0]._trial_id) if running else study.ask()
        m = play_trial(training, out, trial, runner)
        value = objective_value(training, m)
        trial.set_user_attr("score", tally_fields(m.score))
        if m.style is not None:
            trial.set_user_attr("style", tally_fields(m.style))
        study.tell(trial, value)
        if said:
            said(trial.number, m, value)


def tally_fields(t: Tally) -> list[float]:
    return [float(x) for x in t.fields()]


def best_trial(training: Training, study: optuna.Study) -> optuna.trial.FrozenTrial | None:
    """The finished trial with the highest objective among those whose style estimate meets
    the target (all, without one); None when none does."""
    from optuna.trial import TrialState

    done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    if training.style is not None:
        done = [t for t in done if style_met(training, t)]
    return max(done, key=lambda t: (t.value, -t.number), default=None)


def style_met(training: Training, trial) -> bool:
    m = Measure({}, Tally(*trial.user_attrs["style"]))
    return training.style.shortfall(m.style_estimate(training.style).value) == 0


def trial_weights(training: Training, trial) -> tuple[float, ...]:
    return with_values(start_weights(training.start), dict(trial.params))


@dataclass(frozen=True)
class Confirmation:
    """The best trial replayed on the confirmation seed."""

    trial: int
    pairs: int
    measure: Measure


def confirm(training: Training, out: Path, trial, pairs: int, runner: Runner) -> Confirmation:
    """Play the trial's weights for `pairs` pairs against each opponent on fresh deals."""
    weights = trial_weights(training, trial)
    folder = out / "confirm" / f"t{trial.number:04d}-p{pairs}"
    write_weights(folder / CANDIDATE, toml_text(weights, f"trial {trial.number}", []))
    runner(plan_for(training, weights, pairs, confirmation_seed(training)), folder / "games")
    return Confirmation(trial.number, pairs, measure(folder / "games", training))


def result_notes(training: Training, c: Confirmation) -> list[str]:
    """The lines a written weights file opens with: how it was made and how it measured."""
    m = c.measure
    lines = [
        f"Made by sim strategies train: trial {c.trial} of study {training.name},",
        f"config {training.config}, start {training.start}, {training.pairs} pairs a trial.",
        f"On {c.pairs:,} fresh seat-swapped pairs against each opponent (A's score, 95%):",
    ]
    for name, tally in m.by_opponent.items():
        lines.append(f"  vs {name}: {interval(m.score_estimate(tally))}")
    if len(m.by_opponent) > 1:
        lines.append(f"  pooled: {interval(m.score_estimate())}")
    if training.style is not None:
        e = m.style_estimate(training.style)
        verdict = training.style.verdict(e.low, e.high)
        lines.append(f"  style {training.style.text}: {interval(e, '')} ({verdict})")
    return lines


def interval(e: Estimate, unit: str = "%") -> str:
    return f"{e.value:.1f}{unit} [{e.low:.1f}, {e.high:.1f}]"
