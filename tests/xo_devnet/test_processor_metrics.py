"""Where xo-devnet's processors serve their metrics, by the processor's own rule: its variable, else its file."""

import pytest

from xo_devnet.processor_metrics import metrics_address

ENDPOINT = "tcp://127.0.0.1:4004"


@pytest.mark.parametrize(
    ("environment", "shown"),
    [
        ({}, None),
        ({"XO_TP_METRICS": "127.0.0.1:9401"}, "http://127.0.0.1:9401/metrics"),
        ({"XO_TP_METRICS": "0.0.0.0:9401"}, "http://127.0.0.1:9401/metrics"),
        ({"XO_TP_METRICS": "[::]:9401"}, "http://[::1]:9401/metrics"),
        ({"XO_TP_METRICS": "127.0.0.1:0"}, "a free port of 127.0.0.1 (port 0)"),
        ({"RPS_TP_METRICS": "127.0.0.1:9402"}, None),
    ],
)
def test_the_processors_own_variable_decides(tmp_path, environment, shown):
    assert metrics_address("xo-tp", ENDPOINT, {"SAWTOOTH_HOME": str(tmp_path), **environment}) == shown


def test_its_settings_file_counts_too_and_a_bad_setting_is_named(tmp_path):
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "chips.toml").write_text('metrics = "127.0.0.1:9403"\n')
    home = {"SAWTOOTH_HOME": str(tmp_path)}
    assert metrics_address("chips-tp", ENDPOINT, home) == "http://127.0.0.1:9403/metrics"
    refused = metrics_address("chips-tp", ENDPOINT, {**home, "CHIPS_TP_METRICS": "9403"})
    assert refused is not None and refused.startswith("none: CHIPS_TP_METRICS")
