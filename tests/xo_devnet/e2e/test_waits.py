"""``--processor-wait``: how long a batch may wait for a processor of its family, as a player meets it."""

from __future__ import annotations


def test_a_move_with_no_processor_is_invalid_after_the_processor_wait_the_command_line_set(start_devnet, xo_for):
    devnet = start_devnet("--ephemeral", "--no-tp", "--processor-wait", "0.5")
    created = xo_for(devnet.rest_url, devnet.key_dir)("create", "lonely")
    assert created.returncode != 0
    assert "no transaction processor for xo 1.0 registered within 0.5 s" in created.stderr
