"""The shared ``watch`` machinery, with a toy family: what a named watch shows and when it ends, the three screens."""

from __future__ import annotations

import argparse
import threading
from dataclasses import replace

import pytest

from client_core.answers import StateChange
from client_core.blocks import BlockChanges, BlockRef
from client_core.caller import Caller
from client_core.errors import InvalidInput
from client_core.game_book import GameBook
from client_core.keys import KeyNames
from client_core.rest import RestClient
from client_core.watching import Card, GameWatch, JsonLines, TextLines, suggestion, watch
from tests.client_core.scripted_ledger import ScriptedLedger, address, in_a_thread
from tests.client_core.toy_family import TOY, Toy, ToyChange, decode, encode

NO_NAMES = KeyNames({})


class Recorded:
    """A screen that keeps what it was asked to show, and says when the snapshot has been shown."""

    def __init__(self) -> None:
        self.shown: list[tuple[int, list[ToyChange]]] = []
        self.hints: list[str] = []
        self.started = threading.Event()

    def snapshot(self, block: BlockRef, games: list[ToyChange], name: str | None, hint: str) -> None:
        self.shown.append((block.block_num, games))
        self.hints.append(hint)
        self.started.set()

    def changes(self, block: BlockRef, changes: list[ToyChange]) -> None:
        self.shown.append((block.block_num, changes))


def block(num: int, **games: bytes | None) -> BlockChanges:
    changes = tuple(
        StateChange(address(name), "DELETE" if data is None else "SET", data or b"") for name, data in games.items()
    )
    return BlockChanges(f"{num:0128x}", num, f"{num - 1:0128x}", changes)


def test_a_named_watch_shows_only_its_game_and_stops_at_the_change_that_ends_it():
    screen = Recorded()
    watcher = GameWatch(TOY, None, "g", screen)
    assert watcher.apply(block(2, g=b"g=1", other=b"other=5")) is False
    shared = address("g")
    watcher.book.load([(shared, b"g=1;h=0")])
    ended = watcher.apply(BlockChanges("b" * 128, 3, "a" * 128, (StateChange(shared, "SET", b"g=3;h=1"),)))
    assert ended is True
    assert screen.shown == [(2, [ToyChange("created", "g", Toy("g", 1))]), (3, [ToyChange("scored", "g", Toy("g", 3))])]


def test_the_watch_ends_where_the_family_says_and_what_the_block_did_after_is_not_shown():
    def replayed(before, after):  # one block: g won, deleted, created again
        return [ToyChange("scored", "g", Toy("g", 3)), ToyChange("deleted", "g", None), ToyChange("created", "g", None)]

    screen = Recorded()
    family = replace(TOY, book=lambda on_problem: GameBook(decode, replayed, on_problem))
    assert GameWatch(family, None, "g", screen).apply(block(2, g=b"g=0")) is True
    assert screen.shown == [(2, [ToyChange("scored", "g", Toy("g", 3))])]


def test_only_the_family_says_when_the_game_ends():
    screen = Recorded()
    never = replace(TOY, end_of_game=lambda changes: None)
    watcher = GameWatch(never, None, "g", screen)
    watcher.book.load([(address("g"), b"g=1")])
    assert watcher.apply(block(2, g=None)) is False
    assert screen.shown == [(2, [ToyChange("deleted", "g", None)])]


def test_the_lobby_shows_every_game_s_changes_and_never_ends():
    screen = Recorded()
    watcher = GameWatch(TOY, None, None, screen)
    assert watcher.apply(block(2, a=b"a=3", b=b"b=0")) is False
    assert watcher.apply(block(3, a=None)) is False
    [(_, created), (_, deleted)] = screen.shown
    assert sorted(change.name for change in created) == ["a", "b"]
    assert deleted == [ToyChange("deleted", "a", None)]


def test_a_block_that_did_nothing_to_the_watched_game_shows_nothing():
    screen = Recorded()
    assert GameWatch(TOY, None, "g", screen).apply(block(2, other=b"other=1")) is False
    assert screen.shown == []


def test_a_name_no_game_can_have_is_refused_before_any_request():
    with pytest.raises(InvalidInput, match="a toy name has no '='"):
        watch(Caller.of(argparse.Namespace()), TOY, "a=b", "text")


def test_text_lines_print_the_card_or_the_waiting_line_then_a_line_per_change(capsys):
    screen = TextLines(TOY, NO_NAMES, "me")
    screen.snapshot(BlockRef("a" * 128, 4), [ToyChange("snapshot", "g", None)], "g", "")
    screen.snapshot(BlockRef("a" * 128, 4), [ToyChange("snapshot", "g", Toy("g", 1))], "g", "")
    screen.changes(BlockRef("b" * 128, 5), [ToyChange("scored", "g", Toy("g", 2))])
    assert capsys.readouterr().out.splitlines() == ["block 4: no g yet", "[g: 1]", "block 5: g scored: 2 (seen by me)"]
    screen.snapshot(BlockRef("a" * 128, 4), [ToyChange("snapshot", "g1", None)], "g1", "; did you mean 'g'?")
    assert capsys.readouterr().out == "block 4: no g1 yet; did you mean 'g'?\n"


def test_the_lobby_s_text_lines_end_with_what_it_watches(capsys):
    TextLines(TOY, NO_NAMES, None).snapshot(BlockRef("a" * 128, 4), [ToyChange("snapshot", "g", Toy("g", 1))], None, "")
    assert capsys.readouterr().out.splitlines() == [
        "block 4: g snapshot: 1",
        "block 4: watching every toy for changes (Ctrl-C stops)",
    ]


def test_json_lines_are_the_family_s_one_per_change(capsys):
    JsonLines(TOY).snapshot(BlockRef("a" * 128, 4), [ToyChange("snapshot", "g", None)], "g", "")
    assert capsys.readouterr().out == '{"block": 4, "name": "g"}\n'


def test_on_a_terminal_the_card_is_redrawn_with_the_family_s_few_last_lines_and_no_footer_once_over():
    screens: list[str] = []
    card = Card(TOY, NO_NAMES, None, write=screens.append)
    card.snapshot(BlockRef("a" * 128, 4), [ToyChange("snapshot", "g", None)], "g", "")
    card.changes(BlockRef("b" * 128, 5), [ToyChange("created", "g", Toy("g", 0))])
    card.changes(BlockRef("c" * 128, 6), [ToyChange("scored", "g", Toy("g", 1)), ToyChange("scored", "g", Toy("g", 3))])
    waiting, created, won = screens
    assert waiting == "\x1b[H\x1b[2Jblock 4: no g yet\n", "the toy, as XO, counts no game as over: no footer"
    assert created == "\x1b[H\x1b[2J[g: 0]\n\nblock 4: no g yet\nblock 5: g created: 0\nwatching; Ctrl-C stops\n"
    assert won == "\x1b[H\x1b[2J[g: 3]\n\nblock 6: g scored: 1\nblock 6: g scored: 3\n", "two lines kept, no footer"


@pytest.fixture
def ledger():
    """The scripted REST API in a thread of its own, so a watch can block on it here."""
    with in_a_thread(ScriptedLedger("devnet")) as server:
        yield server


def test_a_watch_reads_the_game_as_of_the_newest_block_follows_it_and_returns_0_once_it_is_over(ledger):
    ledger.commit_now({address("g"): encode(Toy("g", 1))})
    screen, ended = Recorded(), []
    with RestClient(ledger.url) as client:
        watching = threading.Thread(target=lambda: ended.append(GameWatch(TOY, client, "g", screen).run()))
        watching.start()
        assert screen.started.wait(10)
        ledger.commit_now({address("g"): encode(Toy("g", 2))})
        ledger.commit_now({address("g"): encode(Toy("g", 3))}, {address("g"): None})
        watching.join(10)
    assert ended == [0]
    assert screen.shown == [
        (1, [ToyChange("snapshot", "g", Toy("g", 1))]),
        (2, [ToyChange("scored", "g", Toy("g", 2))]),
        (3, [ToyChange("deleted", "g", None)]),
    ]


def test_a_watch_of_a_game_not_there_names_the_likely_one_and_the_games_there_are_then_waits_for_it(ledger):
    ledger.commit_now({address("game1"): encode(Toy("game1", 0)), address("duel"): encode(Toy("duel", 1))})
    screen, ended = Recorded(), []
    with RestClient(ledger.url) as client:
        watching = threading.Thread(target=lambda: ended.append(GameWatch(TOY, client, "g1", screen).run()))
        watching.start()
        assert screen.started.wait(10)
        ledger.commit_now({address("g1"): encode(Toy("g1", 3))})
        watching.join(10)
    assert screen.hints == ["; did you mean 'game1'? (games now: 'duel', 'game1')"]
    assert ended == [0]
    assert screen.shown == [(1, [ToyChange("snapshot", "g1", None)]), (2, [ToyChange("created", "g1", Toy("g1", 3))])]


def test_a_watch_of_a_game_that_is_there_reads_no_other_game(ledger):
    ledger.commit_now({address("g"): encode(Toy("g", 3)), address("game1"): encode(Toy("game1", 0))})
    screen = Recorded()
    with RestClient(ledger.url) as client:
        assert GameWatch(TOY, client, "g", screen).run() == 0
    assert screen.hints == [""]
    assert ledger.gets("/state?") == [], "the namespace is listed only when the game is not there"


def test_the_suggestion_is_the_closest_name_like_a_mistyped_command_s():
    assert suggestion("g1", ["duel", "game1"]) == "; did you mean 'game1'? (games now: 'duel', 'game1')"
    assert suggestion("Game1", ["game1"]) == "; did you mean 'game1'? (games now: 'game1')"
    assert suggestion("zzz", ["duel", "game1"]) == " (games now: 'duel', 'game1')", "none alike: the games, no guess"
    assert suggestion("g1", []) == "", "no game at all: nothing to add"


def test_the_suggestion_names_a_few_games_escaped_and_cut_short():
    many = [f"game{number:02}" for number in range(20)]
    assert suggestion("gmae07", many) == (
        "; did you mean 'game07'? (games now: 'game00', 'game01', 'game02', 'game03', 'game04', 'game05', "
        "'game06', 'game07' and 12 more)"
    )
    hostile = "\x1b[2Jevil" + "x" * 100
    said = suggestion("evil", [hostile])
    assert "\x1b" not in said and "\\x1b[2J" in said and said.endswith("...)")


def test_a_watch_of_a_game_already_over_shows_it_and_returns_0_at_once(ledger):
    ledger.commit_now({address("g"): encode(Toy("g", 3))})
    screen = Recorded()
    with RestClient(ledger.url) as client:
        assert GameWatch(TOY, client, "g", screen).run() == 0
    assert screen.shown == [(1, [ToyChange("snapshot", "g", Toy("g", 3))])]
    assert ledger.gets("/subscriptions") == [], "nothing left to follow"
