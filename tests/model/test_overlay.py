"""sim/model/overlay.py: `--set` derives a config from a named one, checked as a file is."""

from __future__ import annotations

from collections import Counter

import pytest

from sim.engine.cards import AXIS_H, AXIS_NONE, AXIS_V, BLANK, DELETE, GOTO10, IFTHEN
from sim.model.config import ConfigError, load
from sim.model.overlay import OverlayError, derive
from sim.model.overlay import load as load_derived


@pytest.fixture(scope="module")
def base():
    return load("base")


def test_rules_and_cards_change_and_the_rest_stays(base):
    derived = derive(base, ["rules.run_capacity=5", "deck.DELETE=0"])
    assert derived.rules.run_capacity == 5 and derived.rules.lines == 5
    # base: 17 cards, one DELETE H and one DELETE V (docs/RULES.md 14) -> 15, none a DELETE
    assert len(derived.deck) == 15
    assert not any(kind == DELETE for kind, _ in derived.deck)
    assert Counter(derived.deck)[(BLANK, AXIS_NONE)] == 7
    assert derived.path == base.path
    assert derived.hash != base.hash


def test_a_card_count_is_set_per_axis_and_a_new_card_joins_the_end(base):
    derived = derive(base, ["deck.IF...THEN.V=3", "deck.goto10.h=1"])
    counts = Counter(derived.deck)
    assert counts[(IFTHEN, AXIS_V)] == 3 and counts[(IFTHEN, AXIS_H)] == 1
    assert derived.deck[-1] == (GOTO10, AXIS_H) and len(derived.deck) == 17 + 2 + 1
    assert derived.name == "base+IF...THEN.V=3+GOTO 10.H=1"


def test_the_name_lists_rules_then_cards_whatever_the_order_given(base):
    one = derive(base, ["deck.DELETE=0", "rules.run_capacity=5"])
    other = derive(base, ["rules.run_capacity=5", "deck.DELETE=0"])
    assert one.name == other.name == "base+run_capacity=5+DELETE=0"
    assert one.overlay == ("rules.run_capacity=5", "deck.DELETE=0")
    assert derive(base, ["deck.BLANK=6"]).name == "base+BLANK=6"


def test_values_are_toml_or_bare_words(base):
    assert derive(base, ['rules.orientation="free"']).rules.orientation == "free"
    bare = derive(base, ["rules.orientation=free"])
    assert bare.rules.orientation == "free" and bare.name == "base+orientation=free"
    assert bare.overlay == ('rules.orientation="free"',)  # recorded as TOML, re-parseable
    assert derive(base, ["rules.first_player=1"]).rules.first_player == "1"


def test_a_change_to_what_base_has_says_so(base):
    same = derive(base, ["rules.run_capacity=3"])
    assert same.hash == base.hash
    assert any("already has run_capacity=3" in w for w in same.warnings)


def test_no_items_is_the_config_itself(base):
    assert derive(base, []) is base


@pytest.mark.parametrize(
    ("items", "said"),
    [
        (["rules.nope=1"], "--set rules.nope=1: unknown rule option; known: cpu_level,"),
        (["rules.run_capacity=x"], "'x' is not allowed; expected a whole number 1-60"),
        (["rules.run_capacity=true"], "True is not allowed; expected a whole number 1-60"),
        (["noequals"], "--set noequals: expected KEY=VALUE"),
        (["=5"], "--set =5: expected KEY=VALUE"),
        (["description=x"], "no such key 'description'; --set takes rules.OPTION=VALUE"),
        (["extends=base"], "no such key 'extends'"),
        (["deck_extra.BLANK=1"], "no such key 'deck_extra.BLANK'"),
        (["deck.JOKER=1"], "unknown card kind 'JOKER'"),
        (["deck.DELETE=2"], "give deck.DELETE.H or deck.DELETE.V"),
        (["deck.DELETE.H=-1"], "expected a whole number 0-64, got -1"),
        (["deck.DELETE.H=two"], "expected a whole number 0-64, got 'two'"),
        (["deck.BLANK.H=2"], "BLANK has no direction, so no axis"),
        (["deck.BLANK=0"], "base+BLANK=0: deck: no BLANK card to set aside as the start card"),
        (["deck.BLANK=61"], "base+BLANK=61: deck: 71 cards; at most 64 per player"),
        (["rules.lines=6", "rules.lines=5"], "set the same rule; give one"),
        (["deck.DELETE=0", "deck.DELETE.H=1"], "set the same cards; give one"),
    ],
)
def test_bad_items_are_refused_with_the_item_named(base, items, said):
    with pytest.raises(OverlayError) as caught:
        derive(base, items)
    assert said in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_derived_configs_replay_command_derives_it_again(base):
    from sim.play.stepped import config_ref

    derived = derive(base, ["rules.orientation=free", "deck.GOTO 10.H=1"])
    assert config_ref(derived) == (
        f"{base.path} --set 'rules.orientation=\"free\"' --set 'deck.GOTO 10.H=1'"
    )


def test_a_derived_name_loads_as_the_config_it_names(base):
    named = load_derived("base+run_capacity=5+DELETE=0")
    made = derive(base, ["rules.run_capacity=5", "deck.DELETE=0"])
    assert (named.name, named.hash, named.overlay) == (made.name, made.hash, made.overlay)
    spaced = load_derived("base+GOTO 10.H=1+orientation=free")  # any order: canonical name
    assert spaced.name == "base+orientation=free+GOTO 10.H=1"


def test_deriving_a_derived_config_derives_the_file_once(base):
    twice = derive(load_derived("base+run_capacity=5"), ["deck.DELETE=0"])
    assert twice.name == "base+run_capacity=5+DELETE=0"
    assert twice.overlay == ("rules.run_capacity=5", "deck.DELETE=0")


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("base+nope=1", "--config base+nope=1: 'nope=1': not a change; after the base's name"),
        ("base+", "'': not a change"),
        ("base+DELETE", "'DELETE': not a change; give +DELETE=COUNT"),
        ("base+run_capacity=x", "--config base+run_capacity=x: rules.run_capacity=x: 'x' is"),
    ],
)
def test_a_bad_derived_name_is_refused_with_the_name(name, said):
    with pytest.raises(OverlayError) as caught:
        load_derived(name)
    assert said in str(caught.value)


def test_an_unknown_base_or_plain_name_is_the_files_own_error():
    for name in ("nobase+lines=6", "nothing"):
        with pytest.raises(ConfigError) as caught:
            load_derived(name)
        assert not isinstance(caught.value, OverlayError)
        assert f"unknown config {name.split('+')[0]!r}" in str(caught.value)
