"""The per-key store: private, shared safely by several processes of one key, evidence kept within a bound."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from chips_client.store import EVIDENCE_KEPT, ChannelTerms, Secret, Store, default_path
from chips_tp.channel import Fixed
from chips_tp.ops import SignedState

CHANNEL = bytes(range(32))
TERMS = ChannelTerms("duel", Fixed(("02" + "a" * 64, "03" + "b" * 64), "xo", 10, (50, 50), 3600, 7), 3)


def test_it_lives_beside_the_key_directory_one_file_per_key(tmp_path):
    assert default_path(tmp_path / "keys", "02ab") == tmp_path.resolve() / "chips" / "02ab.sqlite"


def test_it_is_created_private_in_wal_mode_with_synchronous_commits(tmp_path):
    with Store(tmp_path / "s.sqlite") as store:
        assert (tmp_path / "s.sqlite").stat().st_mode & 0o777 == 0o600
        assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_two_processes_of_one_key_see_each_others_states_and_signatures_merge(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as player, Store(path) as challenger:
        player.remember_channel(CHANNEL, TERMS)
        player.save_state(CHANNEL, 5, SignedState(b"five", (b"a" * 64, None)))
        challenger.save_state(CHANNEL, 5, SignedState(b"five", (None, b"b" * 64)))
        assert challenger.channel(CHANNEL) == TERMS
        assert player.states(CHANNEL) == [(5, SignedState(b"five", (b"a" * 64, b"b" * 64)))]


def test_the_latest_states_come_oldest_first_and_secrets_are_kept_per_round(tmp_path):
    with Store(tmp_path / "s.sqlite") as store:
        for turn in range(4):
            store.save_state(CHANNEL, turn, SignedState(bytes([turn]), (None, None)))
        store.save_secret(CHANNEL, 2, Secret("rock", b"s" * 32))
        assert [turn for turn, _ in store.states(CHANNEL)] == [2, 3]
        assert store.secret(CHANNEL, 2) == Secret("rock", b"s" * 32) and store.secret(CHANNEL, 3) is None


def test_evidence_is_kept_newest_first_within_its_bound(tmp_path):
    with Store(tmp_path / "s.sqlite") as store:
        for n in range(EVIDENCE_KEPT + 10):
            store.keep_evidence(CHANNEL, f"junk {n}".encode(), "not a state")
        kept = store.evidence(CHANNEL)
    assert len(kept) == EVIDENCE_KEPT and kept[-1][0] == f"junk {EVIDENCE_KEPT + 9}".encode()


def test_what_is_saved_is_on_disk_for_a_new_connection(tmp_path: Path):
    with Store(tmp_path / "s.sqlite") as store:
        store.save_state(CHANNEL, 1, SignedState(b"one", (b"a" * 64, None)))
        with sqlite3.connect(tmp_path / "s.sqlite") as other:
            assert other.execute("SELECT data FROM states").fetchall() == [(b"one",)]


def test_threads_sharing_one_store_never_interleave_their_transactions(tmp_path):
    """A house plays many channels from one process and one store: each thread's writes and reads stay whole."""
    with Store(tmp_path / "s.sqlite") as store:
        failures: list[BaseException] = []

        def play(number: int) -> None:
            channel = bytes([number]) * 32
            try:
                store.remember_channel(channel, TERMS)
                for turn in range(40):
                    store.save_state(channel, turn, SignedState(bytes([number, turn]), (b"a" * 64, None)))
                    assert store.states(channel, 1) == [(turn, SignedState(bytes([number, turn]), (b"a" * 64, None)))]
            except BaseException as error:  # reported below, on the test's thread
                failures.append(error)

        threads = [threading.Thread(target=play, args=(n,)) for n in range(1, 9)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert failures == []
        assert len(store.channels()) == 8
        assert all(len(store.all_states(bytes([n]) * 32)) == 40 for n in range(1, 9))
