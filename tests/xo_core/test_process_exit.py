"""A process that asked to skip the last collection exits without it, once registered however often it asked."""

from __future__ import annotations

import subprocess
import sys
import textwrap

CYCLE_WITH_FINALIZER = """
    class Cycle:
        def __del__(self):
            print("collected at exit", flush=True)

    cycle = Cycle()
    cycle.itself = cycle
"""


def run(code: str) -> str:
    script = textwrap.dedent(CYCLE_WITH_FINALIZER) + textwrap.dedent(code)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    return done.stdout


def test_without_it_the_interpreter_collects_a_cycle_at_exit():
    assert run("") == "collected at exit\n"


def test_with_it_the_cycle_is_left_to_the_operating_system_and_one_handler_is_added_however_often_asked():
    out = run("""
        import atexit
        import gc

        from xo_core.process_exit import skip_final_collection

        frozen = []
        freeze = gc.freeze
        gc.freeze = lambda: frozen.append(freeze())
        atexit.register(lambda: print(f"frozen {len(frozen)} time(s)", flush=True))  # runs after the handler below
        skip_final_collection()
        skip_final_collection()
    """)
    assert out == "frozen 1 time(s)\n"
