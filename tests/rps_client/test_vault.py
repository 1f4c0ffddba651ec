"""The vault keeps a throw and its salt from the commit to the reveal: private, atomic, durable, found by commitment."""

from __future__ import annotations

import json
import os
import stat
import threading

import pytest

from rps_client import vault as vault_module
from rps_client.vault import Vault, VaultEntry, VaultProblem
from rps_tp.commitment import commitment, new_salt

KEY = "02" + "ab" * 32
OTHER_KEY = "03" + "cd" * 32


def entry(name: str = "g1", round_number: int = 1, throw: str = "rock") -> VaultEntry:
    return VaultEntry(name, round_number, throw, new_salt())


@pytest.fixture
def vault(tmp_path) -> Vault:
    return Vault.of(tmp_path / "keys", KEY)


def test_an_entry_is_found_by_the_commitment_the_chain_would_hold(vault):
    kept = entry()
    vault.add(kept)
    assert vault.find(commitment("g1", 1, KEY, "rock", kept.salt)) == kept
    assert vault.find(commitment("g1", 1, OTHER_KEY, "rock", kept.salt)) is None
    assert Vault.of(vault.path.parent.parent, KEY).entries() == [kept]  # a fresh process reads what was written


def test_the_vault_lives_beside_the_keys_one_file_per_public_key_private_to_its_owner(vault, tmp_path):
    vault.add(entry())
    assert vault.path == tmp_path / "keys" / "rps-vault" / f"{KEY}.json"
    assert stat.S_IMODE(vault.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(vault.path.parent.stat().st_mode) == 0o700


def test_a_write_is_atomic_a_failed_one_leaves_the_vault_as_it_was_and_no_temporary_file(vault, monkeypatch):
    first = entry()
    vault.add(first)
    before = vault.path.read_bytes()

    def crash(*_args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(vault_module.os, "replace", crash)
    with pytest.raises(VaultProblem, match=r"cannot write the rps vault .*No space left on device"):
        vault.add(entry(round_number=2))
    assert vault.path.read_bytes() == before
    assert sorted(path.name for path in vault.path.parent.iterdir()) == [f"{KEY}.json", f"{KEY}.lock"]


def test_every_write_is_flushed_to_disk_before_the_rename(vault, monkeypatch):
    calls: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(vault_module.os, "fsync", lambda fd: (calls.append("fsync"), real_fsync(fd))[1])
    monkeypatch.setattr(vault_module.os, "replace", lambda a, b: (calls.append("replace"), real_replace(a, b))[1])
    vault.add(entry())
    assert calls == ["fsync", "replace", "fsync"]  # the file, the rename, then the directory


def test_writers_at_once_lose_no_entry(vault):
    added = [entry(round_number=number % 100 + 1, name=f"g{number}") for number in range(40)]
    threads = [threading.Thread(target=vault.add, args=(kept,)) for kept in added]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert sorted(vault.entries()) == sorted(added)


def test_spent_entries_are_forgotten_and_the_rest_kept(vault):
    old, current, elsewhere = entry(round_number=1), entry(round_number=2), entry(name="g2")
    for kept in (old, current, elsewhere):
        vault.add(kept)
    vault.forget(lambda spent: spent.name == "g1" and spent.round < 2)
    assert sorted(vault.entries()) == sorted([current, elsewhere])
    newer = entry(round_number=3)
    vault.add(newer, forget=lambda spent: spent.name == "g1" and spent.round < 3)
    assert sorted(vault.entries()) == sorted([elsewhere, newer])


def test_a_vault_others_can_read_is_refused_with_the_fix(vault):
    vault.add(entry())
    vault.path.chmod(0o644)
    with pytest.raises(VaultProblem, match=r"open to others \(mode 0644\).*chmod 600 "):
        vault.find(b"\0" * 32)


@pytest.mark.parametrize(
    "content",
    [
        b"not json",
        b"[]",
        json.dumps({"format": "rps vault 1", "public_key": OTHER_KEY, "throws": []}).encode(),
        json.dumps({"format": "rps vault 1", "public_key": KEY, "throws": [{"name": "g1"}]}).encode(),
    ],
)
def test_a_vault_that_does_not_read_is_never_overwritten(vault, content):
    vault.path.parent.mkdir(parents=True)
    vault.path.write_bytes(content)
    vault.path.chmod(0o600)
    with pytest.raises(VaultProblem, match=r"does not read .* rps will not overwrite it"):
        vault.add(entry())
    assert vault.path.read_bytes() == content


def test_an_entry_whose_salt_does_not_match_its_commitment_is_refused(vault):
    vault.add(entry())
    document = json.loads(vault.path.read_text())
    document["throws"][0]["throw"] = "paper"
    vault.path.write_text(json.dumps(document))
    with pytest.raises(VaultProblem, match="commitment does not match"):
        vault.entries()


def test_the_file_holds_the_salt_only_as_the_vault_writes_it(vault):
    kept = entry()
    vault.add(kept)
    document = json.loads(vault.path.read_text())
    assert document["public_key"] == KEY
    assert document["throws"] == [
        {
            "name": "g1",
            "round": 1,
            "throw": "rock",
            "salt": kept.salt.hex(),
            "commitment": kept.commitment(KEY).hex(),
        }
    ]
