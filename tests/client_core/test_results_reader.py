"""Reading a chain's rated games to its newest block, and again from where the last read stopped (``results_reader``).

Against the scripted ledger in Sawtooth's mode (blocks read by ``/blocks`` pages and ``/receipts``;
it lists blocks newest first even when asked to reverse them, so the genesis block is found by walking
the pages), with the toy family of ``test_ratings`` (a line per finished game).
"""

from __future__ import annotations

import json

from client_core.rest import RestClient
from client_core.results_book import Family, ResultBook
from client_core.results_reader import cache_path, load_book, read_to_head, save_book
from tests.client_core.scripted_ledger import PREFIX, ScriptedLedger, address, in_a_thread
from tests.client_core.test_ratings import A, B, toy_reader

TOY = Family("xo", PREFIX, toy_reader)
HERE, THERE = address("here"), address("there")


def test_the_first_read_starts_at_genesis_a_saved_book_resumes_and_a_replaced_chain_is_read_afresh(tmp_path):
    path = tmp_path / "book.json"
    notices: list[str] = []
    with in_a_thread(ScriptedLedger("sawtooth")) as server, RestClient(server.url) as client:
        server.commit_now({HERE: f"g {A} {B} win".encode()})
        server.commit_now({address("elsewhere", namespace="aaaaaa"): b"not ours"})
        server.commit_now({THERE: f"h {B} {A} draw".encode()})
        book, problems = read_to_head(client, load_book(path, [TOY]), on_notice=notices.append)
        assert problems == []
        assert [(r.block_num, r.game, r.outcome) for r in book.results] == [(1, "g", "win"), (3, "h", "draw")]
        assert book.cursor is not None and book.cursor.block_num == 3
        assert save_book(path, book) is None

        server.commit_now({HERE: f"g {A} {B} win\nk {A} {B} loss".encode()})
        resumed, _ = read_to_head(client, load_book(path, [TOY]))
        assert [(r.block_num, r.game) for r in resumed.results] == [(1, "g"), (3, "h"), (4, "k")]
        asked = len(server.gets("/blocks"))
        again, _ = read_to_head(client, resumed)
        assert again.results == resumed.results
        assert len(server.gets("/blocks")) == asked + 1, "at the head already: one look at the head, nothing followed"

        server.fork(2)
        server.add_block([])
        server.commit_now({THERE: f"z {B} {A} win".encode()})
        fresh, _ = read_to_head(client, resumed, on_notice=notices.append)
        assert [(r.block_num, r.game) for r in fresh.results] == [(1, "g"), (3, "z")]
    assert notices == [f"the chain at {client.base_url} is not the one last read; reading it from its genesis block"]


def test_an_unreadable_or_unwritable_cache_costs_a_full_read_never_the_answer(tmp_path, monkeypatch):
    path = tmp_path / "book.json"
    path.write_text("{not json", encoding="utf-8")
    assert load_book(path, [TOY]).cursor is None
    path.write_text(json.dumps({"format": 1}), encoding="utf-8")
    assert load_book(path, [TOY]).results == []
    blocked = tmp_path / "file"
    blocked.write_text("", encoding="utf-8")
    why = save_book(blocked / "book.json", ResultBook([TOY]))
    assert why is not None and why.startswith(f"the ratings' cache {blocked / 'book.json'} cannot be written")
    assert sorted(tmp_path.iterdir()) == sorted([path, blocked]), "nothing left behind"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert cache_path("http://a:8008") != cache_path("http://b:8008")
    assert cache_path("http://a:8008").parent == tmp_path / "cache" / "xo" / "ratings"
    chips_only = cache_path("http://a:8008", "chips")
    assert chips_only not in (cache_path("http://a:8008"), cache_path("http://b:8008", "chips"))
