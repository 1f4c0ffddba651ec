"""Key files as sawtooth keygen writes them: <dir>/<name>.priv (0600) and .pub, hex."""

import os
import stat
from pathlib import Path

import pytest
from sawtooth_signing import create_context

from xo_core.keyfiles import DEFAULT_KEY_DIR, KeyFileError, key_paths, load_signer, write_key_pair
from xo_core.signing import Signer


def test_the_default_directory_is_sawtooths():
    assert Path("~/.sawtooth/keys") == DEFAULT_KEY_DIR


def test_key_paths_expand_the_home_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert key_paths(Path("~/keys"), "alice") == (tmp_path / "keys/alice.priv", tmp_path / "keys/alice.pub")


def test_a_written_pair_loads_back_and_the_private_file_is_0600_whatever_the_umask(tmp_path):
    signer = Signer.generate()
    old_umask = os.umask(0)
    try:
        private_path, public_path = write_key_pair(tmp_path / "new", "alice", signer)
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(private_path.stat().st_mode) == 0o600
    assert private_path.read_text() == signer.private_key_hex + "\n"
    assert public_path.read_text() == signer.public_key + "\n"
    assert load_signer(tmp_path / "new", "alice").public_key == signer.public_key


def test_existing_files_are_not_overwritten_unless_asked(tmp_path):
    first, second = Signer.generate(), Signer.generate()
    write_key_pair(tmp_path, "alice", first)
    with pytest.raises(KeyFileError, match="already exists"):
        write_key_pair(tmp_path, "alice", second)
    assert load_signer(tmp_path, "alice").public_key == first.public_key
    write_key_pair(tmp_path, "alice", second, overwrite=True)
    assert load_signer(tmp_path, "alice").public_key == second.public_key


def test_a_lone_public_file_also_blocks_writing_and_no_private_file_is_left(tmp_path):
    (tmp_path / "alice.pub").write_text("something\n")
    with pytest.raises(KeyFileError, match=r"alice\.pub already exists"):
        write_key_pair(tmp_path, "alice", Signer.generate())
    assert sorted(path.name for path in tmp_path.iterdir()) == ["alice.pub"]


def test_a_dangling_link_in_place_of_the_public_file_counts_as_taken(tmp_path):
    """exists() says False for a dangling link, but creating through it is not safe either."""
    (tmp_path / "alice.pub").symlink_to(tmp_path / "missing-dir" / "alice.pub")
    with pytest.raises(KeyFileError, match=r"alice\.pub already exists"):
        write_key_pair(tmp_path, "alice", Signer.generate())
    assert not (tmp_path / "alice.priv").exists()


def test_when_the_public_file_cannot_be_written_the_new_private_file_is_removed(tmp_path):
    (tmp_path / "alice.pub").symlink_to(tmp_path / "missing-dir" / "alice.pub")
    with pytest.raises(FileNotFoundError):
        write_key_pair(tmp_path, "alice", Signer.generate(), overwrite=True)
    assert not (tmp_path / "alice.priv").exists()


def test_a_key_written_by_sawtooth_tools_loads(tmp_path):
    context = create_context("secp256k1")
    private_key = context.new_random_private_key()
    (tmp_path / "bob.priv").write_text(private_key.as_hex() + "\n")
    assert load_signer(tmp_path, "bob").public_key == context.get_public_key(private_key).as_hex()


def test_a_missing_key_names_the_file_and_how_to_create_it(tmp_path):
    with pytest.raises(KeyFileError) as error:
        load_signer(tmp_path, "carol")
    assert str(tmp_path / "carol.priv") in str(error.value)
    assert "xo keygen carol" in str(error.value)


@pytest.mark.parametrize("content", [b"", b"not hex at all\n", b"\xff\xfe binary", b"00" * 32])
def test_a_file_that_holds_no_key_is_a_key_file_error(tmp_path, content):
    (tmp_path / "dave.priv").write_bytes(content)
    with pytest.raises(KeyFileError, match=r"dave\.priv"):
        load_signer(tmp_path, "dave")


def test_a_directory_in_place_of_the_file_is_a_key_file_error(tmp_path):
    (tmp_path / "erin.priv").mkdir()
    with pytest.raises(KeyFileError, match="cannot read"):
        load_signer(tmp_path, "erin")
