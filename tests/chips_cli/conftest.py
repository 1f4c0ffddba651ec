"""Fixtures of the ``chips`` command's tests: the command run in-process against the real handler."""

from __future__ import annotations

import contextlib

import pytest

from chips_cli import context
from tests.chips_cli.ledger import HandlerChain, Table, chain_at


@pytest.fixture
def table(tmp_path, monkeypatch, capsys) -> Table:
    chain = HandlerChain()
    monkeypatch.setattr(context, "chain", chain_at(chain))
    monkeypatch.setattr(context, "followed", lambda _where, _address, _say: contextlib.nullcontext(None))
    return Table(chain, str(tmp_path / "keys"), capsys)
