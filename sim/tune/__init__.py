"""`sim tune`: search a space of decks and rule options for configs that meet balance targets.

space.py reads and validates the search space (a TOML file); metrics.py measures a trial's
run folders; objective.py plays a trial in rungs through the runner; a target is decided
from an interval by reports/verdict.py (the board's rule); study.py drives optuna;
confirm.py replays candidates on fresh seeds; table.py prints and writes the results.
"""
