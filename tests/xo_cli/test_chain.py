"""`xo chain blocks|transactions` and `xo status` by a shortened id, on an xo-devnet played on by the commands.

One ledger for the module: alice takes a space, the issuer issues chips, alice opens a channel and bob
joins it, alice creates an rps game, each with the command a player types (run in-process, their output
captured); then the chain is read back. docs/xo-command.md's examples of `xo chain` are this very chain's.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from chips_cli.main import main as chips
from rps_cli.main import main as rps
from tests.integration.devnet import running_devnet
from xo_cli.main import main as xo
from xo_tp.family import game_address

BATCH = re.compile(r"batch ([0-9a-f]{128})")


@dataclass(frozen=True)
class Played:
    flags: list[str]
    """--url and --key-dir of the devnet."""
    batches: dict[str, str]
    """The full batch id each command printed, by the command."""
    waiting_line: str
    """What ``xo take ... --wait`` wrote to stderr while it waited: ``waiting for batch 67ab4f0c1d2e3f40... ...``."""


def captured(command: Callable[[list[str]], int], argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = command(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    workdir = tmp_path_factory.mktemp("chain")
    with running_devnet(workdir) as url:
        flags = ["--url", url, "--key-dir", str(workdir / "devnet-keys")]
        steps: list[tuple[str, Callable[[list[str]], int], list[str]]] = [
            ("xo create", xo, ["create", "g1", "--username", "alice", "--wait"]),
            ("xo take", xo, ["take", "g1", "5", "--username", "alice", "--wait"]),
            ("chips issue", chips, ["issue", "bob", "5", "--username", "chips-issuer", "--wait", "--json"]),
            ("chips open", chips, ["open", "duel", "--with", "bob", "--game", "xo", "--stake", "10", "--deposit",
                                   "50", "--username", "alice", "--wait", "--json"]),
            ("chips join", chips, ["join", "duel", "--username", "bob", "--wait", "--json"]),
            ("rps create", rps, ["create", "m1", "--username", "alice", "--wait"]),
        ]  # fmt: skip
        batches, waiting = {}, ""
        for what, command, argv in steps:
            code, out, err = captured(command, [*argv, *flags])
            assert code == 0, (what, out, err)
            found = BATCH.search(out) or re.search(r'"batch(?:_id)?": "([0-9a-f]{128})"', out)
            assert found, (what, out)
            batches[what] = found.group(1)
            waiting = next((line for line in err.splitlines() if line.startswith("waiting for batch ")), waiting)
        yield Played(flags, batches, waiting)


def run(played: Played, *argv: str) -> tuple[int, str, str]:
    return captured(xo, [*argv, *played.flags])


def test_the_chips_a_match_cost_on_chain_are_listed_in_words_newest_first(played):
    code, out, err = run(played, "chain", "transactions", "--family", "chips")
    assert (code, err) == (0, "")
    heading, *rows = out.splitlines()
    assert heading.split() == ["BLOCK", "TRANSACTION", "SIGNER", "WHAT"]
    said = [re.split(r"\)  +", row, maxsplit=1)[1] for row in rows]
    assert len(said) == 3
    assert re.fullmatch(r"chips join [0-9a-f]{8}", said[0])
    assert re.fullmatch(r"chips open [0-9a-f]{8}: xo with bob, stake 10, deposits 50 and 50", said[1])
    assert said[0].split()[2] == said[1].split()[2].rstrip(":"), "the channel opened is the one joined"
    assert said[2] == "chips issue 5 to bob"
    assert [row.split()[2] for row in rows] == ["bob", "alice", "chips-issuer"]


def test_json_gives_each_transaction_its_block_batch_signer_and_words(played):
    code, out, _ = run(played, "chain", "transactions", "--limit", "0", "--json")
    listed = json.loads(out)
    assert code == 0
    by_batch = {entry["batch_id"]: entry for entry in listed}
    for what, batch_id in played.batches.items():
        assert by_batch[batch_id]["family"] == what.split()[0], what
    assert by_batch[played.batches["xo take"]]["words"] == "xo take g1 5"
    assert by_batch[played.batches["xo take"]]["signer_name"] == "alice"
    assert by_batch[played.batches["rps create"]]["words"] == "rps create m1 (first to 1 point, 300 seconds to act)"
    numbers = [entry["block_num"] for entry in listed]
    assert numbers == sorted(numbers, reverse=True), "newest first"
    _, out, _ = run(played, "chain", "blocks", "--limit", "0", "--json")
    blocks = json.loads(out)
    assert [block["block_num"] for block in blocks] == list(range(numbers[0], -1, -1)), "every block, to genesis"
    assert len(listed) == sum(len(batch["transactions"]) for block in blocks for batch in block["batches"])
    assert sum(entry["family"] == "block_info" for entry in listed) == numbers[0], "BlockInfo opens every block"


def test_blocks_are_listed_newest_first_with_their_counts_and_families(played):
    code, out, _ = run(played, "chain", "blocks", "--limit", "3")
    heading, *rows = out.splitlines()
    assert code == 0 and heading.split() == ["NUM", "TIME", "BLOCK", "BATCHES", "TXNS", "SIGNER", "FAMILIES"]
    assert len(rows) == 3
    numbers = [int(row.split()[0]) for row in rows]
    assert numbers == list(range(numbers[0], numbers[0] - 3, -1))
    assert rows[0].split()[3:5] == ["2", "2"] and rows[0].endswith("block_info, rps")
    times = [row.split()[1] for row in rows]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", time) for time in times), times
    assert times == sorted(times, reverse=True), "newest first, so latest time first"
    _, out, _ = run(played, "chain", "blocks", "--limit", "1", "--json")
    [block] = json.loads(out)
    assert block["block_num"] == numbers[0]
    assert (block["time"], len(block["state_root"])) == (times[0], 64)
    assert [batch["batch_id"] for batch in block["batches"]][-1] == played.batches["rps create"]
    assert block["batches"][-1]["transactions"][0]["words"].startswith("rps create m1")


def test_a_family_that_does_not_exist_is_refused_naming_those_that_do(played):
    code, out, err = run(played, "chain", "transactions", "--family", "chip")
    assert (code, out) == (1, "")
    assert err == (
        "xo: error: there is no transaction family 'chip' (families: block_info, chips, rps, xo); "
        "did you mean 'chips'?\n"
    )
    assert run(played, "chain", "transactions", "--family", "xo", "--limit", "1")[0] == 0


def test_one_block_by_number_or_id_shows_its_time_signer_state_root_and_transactions_in_words(played):
    _, out, _ = run(played, "chain", "blocks", "--limit", "1", "--json")
    [newest] = json.loads(out)
    code, by_number, err = run(played, "chain", "block", str(newest["block_num"]))
    assert (code, err) == (0, "")
    lines = by_number.splitlines()
    assert lines[:7] == [
        f"BLOCK        : {newest['block_num']}",
        f"ID           : {newest['block_id']}",
        f"TIME         : {newest['time']}",
        f"SIGNER       : {newest['signer'][:6]}...",
        f"PREVIOUS     : {newest['previous_block_id']}",
        f"STATE ROOT   : {newest['state_root']}",
        "BATCHES      : 2, holding 2 transactions",
    ]
    assert lines[-1].endswith("rps create m1 (first to 1 point, 300 seconds to act)")
    assert run(played, "chain", "block", newest["block_id"][:16] + "...")[1] == by_number, "the id as the table cuts it"
    assert run(played, "chain", "block", newest["block_id"])[1] == by_number
    assert json.loads(run(played, "chain", "block", "0", "--json")[1])["time"] is None, "genesis opens with no clock"
    code, out, err = run(played, "chain", "block", "999999")
    assert (code, out) == (1, "")
    assert err == "xo: error: there is no block 999999 on this chain yet (see 'xo chain blocks' for the newest)\n"


def test_one_transaction_says_what_it_did_its_block_and_the_state_it_changed(played):
    _, out, _ = run(played, "chain", "transactions", "--family", "xo", "--json")
    take = next(entry for entry in json.loads(out) if entry["words"] == "xo take g1 5")
    code, shown, err = run(played, "chain", "transaction", take["transaction_id"][:16] + "...")
    assert (code, err) == (0, "")
    must = [
        f"TRANSACTION  : {take['transaction_id']}", "FAMILY       : xo 1.0", "WHAT         : xo take g1 5",
        "SIGNER       : alice (", f"BLOCK        : {take['block_num']} ({take['block_id'][:16]}...), 20",
        f"BATCH        : {take['batch_id']}", "OUTCOME      : committed (valid); it changed 1 address of state:",
        f"  set {game_address('g1')}",
    ]  # fmt: skip
    must_not = ["payload", "HTTP", "GET ", "/transactions", "b'"]
    assert [word for word in must if word not in shown] == []
    assert [word for word in must_not if word in shown] == []
    document = json.loads(run(played, "chain", "transaction", take["transaction_id"], "--json")[1])
    assert {key: document[key] for key in ("block_num", "batch_id", "words", "status", "signer_name")} == {
        "block_num": take["block_num"], "batch_id": take["batch_id"], "words": "xo take g1 5",
        "status": "COMMITTED", "signer_name": "alice",
    }  # fmt: skip
    assert document["state_changes"] == [{"address": game_address("g1"), "type": "SET"}]


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["chain", "transaction", "zz"], "'zz' is not a transaction id: it is 128 hex characters, or its first 6"),
        (["chain", "transaction", "0123"], "'0123' is not a transaction id"),
        (["chain", "block", "g1"], "'g1' is not a block id"),
    ],
)
def test_what_names_no_block_or_transaction_is_refused_with_what_one_is(played, argv, said):
    code, out, err = run(played, *argv)
    assert (code, out) == (1, "") and err.startswith(f"xo: error: {said}")


def test_status_takes_the_short_id_the_waiting_line_prints(played):
    line = re.compile(r"waiting for batch ([0-9a-f]{16}\.\.\.) to commit \(Ctrl-C stops waiting\)")
    short = line.fullmatch(played.waiting_line)
    assert short, played.waiting_line
    full = next(batch_id for batch_id in played.batches.values() if batch_id.startswith(short.group(1)[:16]))
    assert run(played, "status", short.group(1)) == (0, f"batch {full}: COMMITTED\n", "")
    assert run(played, "status", full[:6] + "..." + full[-4:], "--json")[1] == json.dumps(
        {"batch_id": full, "status": "COMMITTED", "reasons": []}, indent=2
    ) + "\n"


def test_status_of_an_id_no_committed_batch_has_says_so(played):
    taken = {batch_id[:8] for batch_id in played.batches.values()}
    unknown = next(f"{n:08x}" for n in range(1000) if f"{n:08x}" not in taken)
    code, out, err = run(played, "status", unknown)
    assert (code, out) == (1, "")
    assert f"no committed batch has the id '{unknown}'" in err and err.count("\n") == 1


@pytest.mark.parametrize("argv", [["chain", "blocks", "--limit", "-1"], ["chain", "transactions", "--limit", "x"],
                                  ["chain"], ["chain", "games"]])
def test_usage_errors_exit_2(played, argv):
    code, out, err = run(played, *argv)
    assert (code, out) == (2, "") and err.startswith("xo: error:")


def documented(command: str) -> list[str]:
    """What docs/xo-command.md shows ``$ command`` print."""
    text = (Path(__file__).parents[2] / "docs" / "xo-command.md").read_text(encoding="utf-8")
    after = text.split(f"$ {command}\n", 1)[1].split("```", 1)[0].splitlines()
    return after[: next((i for i, line in enumerate(after) if line.startswith("$ ")), len(after))]


def plain(lines: list[str]) -> list[str]:
    """Without what differs from ledger to ledger: ids and keys (hex), BlockInfo's times."""
    lines = [re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "TIME", line) for line in lines]
    return [re.sub(r"[0-9a-f]{6,}", lambda found: "x" * len(found.group()), line) for line in lines]


@pytest.mark.parametrize(
    "command", ["xo chain transactions --limit 6", "xo chain blocks --limit 2", "xo chain block 6"]
)
def test_the_examples_of_xo_command_md_are_what_the_commands_print(played, command):
    code, out, _ = run(played, *command.split()[1:])
    assert code == 0
    assert plain(out.splitlines()) == plain(documented(command))
