"""sim/model/config.py: the shipped configurations (docs/RULES.md 14), `extends`, the hash,
errors."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from sim.engine.cards import (
    AXIS_H,
    AXIS_NONE,
    AXIS_V,
    BLANK,
    CONT,
    CUT,
    DELETE,
    END,
    ENTER,
    GET,
    GOSUB,
    GOTO10,
    IFELSE,
    IFTHEN,
    NEXT,
    PASTE,
    PRINT,
    REM,
    SAVE,
    SYNTAX,
)
from sim.model.config import SHIPPED_DIR, ConfigError, available, load

# docs/RULES.md 14, written out by hand: (kind, axis) -> copies, per player.
BASE_DECK = Counter(
    {
        (BLANK, AXIS_NONE): 7,
        (DELETE, AXIS_H): 1,
        (DELETE, AXIS_V): 1,
        (ENTER, AXIS_H): 1,
        (ENTER, AXIS_V): 1,
        (IFTHEN, AXIS_H): 1,
        (IFTHEN, AXIS_V): 1,
        (PRINT, AXIS_H): 1,
        (PRINT, AXIS_V): 1,
        (SAVE, AXIS_H): 1,
        (SAVE, AXIS_V): 1,
    }
)
VARIANTS_DECK = Counter(
    {
        (BLANK, AXIS_NONE): 7,
        (DELETE, AXIS_H): 1,
        (DELETE, AXIS_V): 1,
        (IFTHEN, AXIS_H): 1,
        (IFTHEN, AXIS_V): 1,
        (CUT, AXIS_H): 1,
        (PASTE, AXIS_V): 1,
        (GOTO10, AXIS_H): 1,
        (IFELSE, AXIS_NONE): 1,
        (REM, AXIS_H): 1,
        (SYNTAX, AXIS_V): 1,
    }
)
DECK_101 = Counter(
    {
        (BLANK, AXIS_NONE): 7,
        (DELETE, AXIS_H): 1,
        (DELETE, AXIS_V): 1,
        (ENTER, AXIS_H): 1,
        (ENTER, AXIS_V): 1,
        (END, AXIS_H): 1,
        (CONT, AXIS_H): 1,
        (GOSUB, AXIS_H): 1,
        (GOSUB, AXIS_V): 1,
        (GET, AXIS_NONE): 1,
        (NEXT, AXIS_H): 1,
    }
)
LARGE_DECK = BASE_DECK + Counter(
    {
        (CUT, AXIS_H): 1,
        (CUT, AXIS_V): 1,
        (PASTE, AXIS_H): 1,
        (PASTE, AXIS_V): 1,
        (GOTO10, AXIS_H): 1,
        (REM, AXIS_H): 1,
        (SYNTAX, AXIS_V): 1,
        (IFELSE, AXIS_NONE): 1,
        (BLANK, AXIS_NONE): 1,
    }
)

# name: (lines, run_capacity, cards, deck)
SHIPPED = {
    "base": (5, 3, 17, BASE_DECK),
    "base-60": (6, 3, 17, BASE_DECK),
    "variants": (5, 3, 17, VARIANTS_DECK),
    "101": (6, 3, 17, DECK_101),
    "large": (6, 5, 26, LARGE_DECK),
}

SMALL_DECK = """
[[deck]]
kind = "BLANK"
count = 4
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / f"{name}.toml"
    path.write_text(text)
    return path


def load_path(path: Path):
    return load(str(path))


# --- the shipped configurations -------------------------------------------------------


def test_expected_decks_have_the_sizes_rules_14_states():
    for lines, run, cards, deck in SHIPPED.values():
        assert sum(deck.values()) == cards, (lines, run)


def test_every_shipped_config_is_available():
    assert set(SHIPPED) <= set(available())
    assert set(SHIPPED) <= {p.stem for p in SHIPPED_DIR.glob("*.toml")}


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_config_matches_rules_14(name):
    lines, run_capacity, cards, deck = SHIPPED[name]
    config = load(name)
    assert config.name == name
    assert config.rules.lines == lines
    assert config.rules.run_capacity == run_capacity
    assert len(config.deck) == cards
    assert Counter(config.deck) == deck
    assert config.warnings == ()


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_config_leaves_other_rule_options_at_defaults(name):
    rules = load(name).rules
    assert (rules.orientation, rules.visibility, rules.first_player) == (
        "printed",
        "default",
        "random",
    )
    assert (rules.cpu_level, rules.cpu_reading) == (1, "glossary")


def test_kinds_and_axes_arrays_follow_the_deck():
    config = load("variants")
    assert list(zip(config.kinds().tolist(), config.axes().tolist(), strict=True)) == list(
        config.deck
    )


def test_config_found_by_path(tmp_path):
    path = write(tmp_path, "mine", SMALL_DECK)
    config = load_path(path)
    assert config.name == "mine"
    assert config.path == path
    assert Counter(config.deck) == Counter({(BLANK, AXIS_NONE): 4})


# --- extends --------------------------------------------------------------------------


def test_extends_merges_rules_and_adds_deck_extra(tmp_path):
    write(
        tmp_path,
        "parent",
        '[rules]\nlines = 6\nrun_capacity = 5\norientation = "free"\n' + SMALL_DECK,
    )
    child = write(
        tmp_path,
        "child",
        'extends = "parent"\n[rules]\nrun_capacity = 4\n'
        '[[deck_extra]]\nkind = "DELETE"\naxis = "V"\ncount = 2\n',
    )
    config = load_path(child)
    assert config.name == "child"
    assert (config.rules.lines, config.rules.run_capacity) == (6, 4)
    assert config.rules.orientation == "free"
    assert Counter(config.deck) == Counter({(BLANK, AXIS_NONE): 4, (DELETE, AXIS_V): 2})


def test_extends_a_shipped_config(tmp_path):
    child = write(tmp_path, "more", 'extends = "base"\n[[deck_extra]]\nkind = "GET"\n')
    config = load_path(child)
    assert (config.rules.lines, config.rules.run_capacity) == (5, 3)
    assert Counter(config.deck) == BASE_DECK + Counter({(GET, AXIS_NONE): 1})


def test_deck_extra_accumulates_through_two_levels(tmp_path):
    write(tmp_path, "grand", SMALL_DECK)
    write(tmp_path, "parent", 'extends = "grand"\n[[deck_extra]]\nkind = "REM"\naxis = "H"\n')
    child = write(tmp_path, "child", 'extends = "parent"\n[[deck_extra]]\nkind = "GET"\n')
    assert Counter(load_path(child).deck) == Counter(
        {(BLANK, AXIS_NONE): 4, (REM, AXIS_H): 1, (GET, AXIS_NONE): 1}
    )


def test_child_deck_replaces_parent_deck(tmp_path):
    write(tmp_path, "parent", SMALL_DECK)
    child = write(
        tmp_path,
        "child",
        'extends = "parent"\n[[deck]]\nkind = "BLANK"\ncount = 5\n'
        '[[deck]]\nkind = "SAVE"\naxis = "H"\n',
    )
    assert Counter(load_path(child).deck) == Counter({(BLANK, AXIS_NONE): 5, (SAVE, AXIS_H): 1})


# --- descriptions --------------------------------------------------------------------------


def test_a_child_that_changes_the_deck_does_not_inherit_the_description(tmp_path):
    """base says "Standard 17-card decks, ...": untrue of 60 BLANKs. The description says
    what the config is instead: 60 cards, base's 5 lines and RUN capacity 3."""
    child = write(tmp_path, "blanks", 'extends = "base"\n[[deck]]\nkind = "BLANK"\ncount = 60\n')
    assert load_path(child).description == "60-card decks, 5 lines (10-50), RUN capacity 3"


def test_a_child_that_changes_the_rules_does_not_inherit_the_description(tmp_path):
    child = write(tmp_path, "wide", 'extends = "base"\n[rules]\nlines = 6\nrun_capacity = 5\n')
    assert load_path(child).description == "17-card decks, 6 lines (10-60), RUN capacity 5"


def test_a_child_that_changes_nothing_keeps_the_description_and_its_own_wins(tmp_path):
    same = write(tmp_path, "same", 'extends = "base"\n')
    assert load_path(same).description == load("base").description
    own = write(tmp_path, "own", 'extends = "base"\ndescription = "Mine"\n[rules]\nlines = 6\n')
    assert load_path(own).description == "Mine"


def test_extends_looks_in_the_extending_files_folder_first(tmp_path):
    # A local "base" shadows the shipped one for files in this folder.
    write(tmp_path, "base", "[rules]\nlines = 6\nrun_capacity = 4\n" + SMALL_DECK)
    child = write(tmp_path, "child", 'extends = "base"\n')
    config = load_path(child)
    assert (config.rules.lines, config.rules.run_capacity) == (6, 4)
    assert Counter(config.deck) == Counter({(BLANK, AXIS_NONE): 4})


# --- the hash -------------------------------------------------------------------------


def test_hash_is_stable_across_loads():
    first, second = load("base").hash, load("base").hash
    assert first == second
    assert len(first) == 16
    int(first, 16)


def test_hash_is_stable_across_processes():
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", "from sim.model.config import load; print(load('large').hash)"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    assert out.stdout.strip() == load("large").hash


def test_hash_ignores_file_name_and_description(tmp_path):
    text = (SHIPPED_DIR / "base.toml").read_text()
    text = text.replace('description = "', 'description = "A copy. ', 1)
    copy = write(tmp_path, "copy-of-base", text)
    assert load_path(copy).description != load("base").description
    assert load_path(copy).hash == load("base").hash


def test_hash_changes_with_the_rules():
    assert load("base-60").hash != load("base").hash


@pytest.mark.parametrize(
    "extra",
    [
        "[rules]\nrun_capacity = 5\n",
        '[rules]\norientation = "free"\n',
        '[[deck_extra]]\nkind = "BLANK"\n',
        '[[deck_extra]]\nkind = "SAVE"\naxis = "V"\n',
    ],
)
def test_hash_changes_with_rules_or_deck(tmp_path, extra):
    same = write(tmp_path, "same", 'extends = "base"\n')
    changed = write(tmp_path, "changed", 'extends = "base"\n' + extra)
    assert load_path(same).hash == load("base").hash
    assert load_path(changed).hash != load("base").hash


def test_hash_changes_with_an_axis(tmp_path):
    h = write(tmp_path, "h", SMALL_DECK + '[[deck]]\nkind = "PRINT"\naxis = "H"\n')
    v = write(tmp_path, "v", SMALL_DECK + '[[deck]]\nkind = "PRINT"\naxis = "V"\n')
    assert load_path(h).hash != load_path(v).hash


# --- errors ---------------------------------------------------------------------------


def deck_entry(kind: str, axis: str | None = None, count: str | None = None) -> str:
    text = f'[[deck]]\nkind = "{kind}"\n'
    if axis is not None:
        text += f'axis = "{axis}"\n'
    if count is not None:
        text += f"count = {count}\n"
    return text


ERRORS = {
    "invalid-toml": ("[rules\nlines = 5\n", "TOML"),
    "unknown-top-level": ("colour = 1\n" + SMALL_DECK, "colour"),
    "unknown-kind": (SMALL_DECK + deck_entry("JUMP", "H"), "deck[1].kind"),
    "get-with-axis": (SMALL_DECK + deck_entry("GET", "H"), "deck[1].axis"),
    "blank-with-axis": (SMALL_DECK + deck_entry("BLANK", "V"), "deck[1].axis"),
    "delete-without-axis": (SMALL_DECK + deck_entry("DELETE"), "deck[1].axis"),
    "delete-bad-axis": (SMALL_DECK + deck_entry("DELETE", "X"), "deck[1].axis"),
    "count-zero": (deck_entry("BLANK", count="0") + SMALL_DECK, "deck[0].count"),
    "count-negative": (deck_entry("BLANK", count="-1") + SMALL_DECK, "deck[0].count"),
    "count-float": (deck_entry("BLANK", count="1.5") + SMALL_DECK, "deck[0].count"),
    "count-string": (deck_entry("BLANK", count='"2"') + SMALL_DECK, "deck[0].count"),
    "count-bool": (deck_entry("BLANK", count="true") + SMALL_DECK, "deck[0].count"),
    "no-blank": (deck_entry("DELETE", "H", "4"), "deck: no BLANK"),
    "too-few-cards": (deck_entry("BLANK", count="3"), "deck: 3 cards"),
    "deck-second-differs": (
        SMALL_DECK + '[[deck_second]]\nkind = "BLANK"\ncount = 5\n',
        "deck_second",
    ),
    "unknown-rule-option": ("[rules]\nspeed = 2\n" + SMALL_DECK, "rules.speed"),
    "lines-7": ("[rules]\nlines = 7\n" + SMALL_DECK, "rules.lines"),
    "orientation-sideways": (
        '[rules]\norientation = "sideways"\n' + SMALL_DECK,
        "rules.orientation",
    ),
    "extends-unknown": ('extends = "no-such-config"\n', "extends"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_bad_config_raises_config_error_naming_file_and_field(tmp_path, case):
    text, field = ERRORS[case]
    path = write(tmp_path, case, text)
    with pytest.raises(ConfigError) as info:
        load_path(path)
    message = str(info.value)
    assert str(path) in message
    assert field in message.replace(str(path), "")


def test_the_error_cases_are_valid_once_fixed(tmp_path):
    # The same shapes with the mistake taken out load, so each error above is the mistake's.
    good = (
        SMALL_DECK
        + deck_entry("GET")
        + deck_entry("DELETE", "H", "2")
        + '[[deck_second]]\nkind = "BLANK"\ncount = 4\n'
        + deck_entry("GET").replace("[[deck]]", "[[deck_second]]")
        + deck_entry("DELETE", "H", "2").replace("[[deck]]", "[[deck_second]]")
    )
    text = '[rules]\nlines = 6\norientation = "free"\n' + good
    config = load_path(write(tmp_path, "good", text))
    assert len(config.deck) == 7


def test_deck_of_exactly_four_cards_loads(tmp_path):
    config = load_path(write(tmp_path, "four", deck_entry("BLANK", count="4")))
    assert len(config.deck) == 4


def test_unknown_extends_names_the_missing_config(tmp_path):
    path = write(tmp_path, "orphan", 'extends = "no-such-config"\n')
    with pytest.raises(ConfigError, match="no-such-config"):
        load_path(path)


def test_unknown_config_name():
    with pytest.raises(ConfigError, match="nope"):
        load("nope")


def test_extends_cycle(tmp_path):
    a = write(tmp_path, "a", 'extends = "b"\n' + SMALL_DECK)
    write(tmp_path, "b", 'extends = "a"\n')
    with pytest.raises(ConfigError) as info:
        load_path(a)
    assert str(a) in str(info.value)
    assert "extends" in str(info.value)


def test_extends_itself(tmp_path):
    path = write(tmp_path, "loop", 'extends = "loop"\n' + SMALL_DECK)
    with pytest.raises(ConfigError) as info:
        load_path(path)
    assert str(path) in str(info.value)
    assert "extends" in str(info.value)


@pytest.mark.parametrize("value", ["3.5", '"3"'])
def test_run_capacity_must_be_a_whole_number(tmp_path, value):
    path = write(tmp_path, "frac", f"[rules]\nrun_capacity = {value}\n" + SMALL_DECK)
    with pytest.raises(ConfigError, match=r"rules\.run_capacity"):
        load_path(path)


# --- warnings -------------------------------------------------------------------------


def test_paste_without_cut_loads_with_a_warning(tmp_path):
    path = write(tmp_path, "paste", SMALL_DECK + deck_entry("PASTE", "H"))
    config = load_path(path)
    assert (PASTE, AXIS_H) in config.deck
    assert config.warnings
    assert any("PASTE" in w for w in config.warnings)


def test_paste_with_cut_has_no_warning(tmp_path):
    path = write(tmp_path, "both", SMALL_DECK + deck_entry("PASTE", "H") + deck_entry("CUT", "V"))
    assert load_path(path).warnings == ()


def test_extends_with_a_toml_name_looks_beside_the_extending_file(tmp_path, monkeypatch):
    sub = tmp_path / "sub"
    sub.mkdir()
    write(sub, "parent", SMALL_DECK)
    child = write(sub, "child", 'extends = "parent.toml"\n[rules]\nlines = 6\n')
    monkeypatch.chdir(tmp_path)
    assert load_path(child).rules.lines == 6
