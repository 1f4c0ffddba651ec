"""Where a processor's settings come from: --connect, then its <PREFIX>_CONNECT, then its TOML file, then the default.

Shown with xo-tp's names (XO_TP_CONNECT, xo.toml); rps-tp differs only in those.
"""

from pathlib import Path

import pytest

from tp_runtime.config import (
    DEFAULT_CONNECT,
    DEFAULT_MAX_OCCUPANCY,
    ConfigError,
    MetricsAddress,
    Settings,
    check_url,
    default_config_path,
    resolve,
)

FILE_URL = "tcp://from-file:4004"
ENV_URL = "tcp://from-env:4004"
FLAG_URL = "tcp://from-flag:4004"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "etc").mkdir()
    return tmp_path


def write_config(home: Path, text: str) -> Path:
    path = home / "etc" / "xo.toml"
    path.write_text(text)
    return path


def settings(home: Path, *, flag: str | None = None, env: str | None = None, **options) -> Settings:
    environ = {"SAWTOOTH_HOME": str(home)}
    if env is not None:
        environ["XO_TP_CONNECT"] = env
    return resolve(
        connect_env="XO_TP_CONNECT",
        config_name="xo.toml",
        connect_flag=flag,
        max_occupancy_flag=options.get("max_occupancy"),
        config_flag=options.get("config"),
        environ=environ,
    )


def test_defaults_when_nothing_is_configured(home):
    assert settings(home) == Settings(connect=DEFAULT_CONNECT, max_occupancy=DEFAULT_MAX_OCCUPANCY)


def test_the_flag_beats_the_environment_which_beats_the_file(home):
    write_config(home, f'connect = "{FILE_URL}"\n')

    assert settings(home).connect == FILE_URL
    assert settings(home, env=ENV_URL).connect == ENV_URL
    assert settings(home, flag=FLAG_URL, env=ENV_URL).connect == FLAG_URL


def test_an_empty_environment_variable_counts_as_unset(home):
    write_config(home, f'connect = "{FILE_URL}"\n')

    assert settings(home, env="").connect == FILE_URL


def test_max_occupancy_comes_from_the_flag_or_the_file(home):
    write_config(home, "max_occupancy = 4\n")

    assert settings(home).max_occupancy == 4
    assert settings(home, max_occupancy=12).max_occupancy == 12


def test_the_default_file_lives_under_sawtooth_home_or_etc_sawtooth():
    assert default_config_path("xo.toml", {"SAWTOOTH_HOME": "/opt/st"}) == Path("/opt/st/etc/xo.toml")
    assert default_config_path("xo.toml", {}) == Path("/etc/sawtooth/xo.toml")


def test_an_explicit_config_file_replaces_the_default_one_and_must_exist(home, tmp_path):
    write_config(home, f'connect = "{FILE_URL}"\n')
    other = tmp_path / "other.toml"
    other.write_text('connect = "tcp://other:4004"\n')

    assert settings(home, config=other).connect == "tcp://other:4004"
    with pytest.raises(ConfigError, match="does not exist"):
        settings(home, config=tmp_path / "missing.toml")


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("connect = ", "not valid TOML"),
        ('conect = "tcp://x:1"\n', "unknown key(s) conect"),
        ("connect = 4004\n", "is not a validator URL"),
        ('connect = "validator:4004"\n', "is not a validator URL"),
        ("max_occupancy = 0\n", "from 1 to 1024"),
        ("max_occupancy = true\n", "from 1 to 1024"),
        ('max_occupancy = "8"\n', "from 1 to 1024"),
    ],
)
def test_a_bad_config_file_is_an_error_naming_the_file(home, text, complaint):
    path = write_config(home, text)

    with pytest.raises(ConfigError) as raised:
        settings(home)

    assert complaint in str(raised.value)
    assert str(path) in str(raised.value)


def test_a_config_file_that_is_not_utf8_is_an_error(home):
    (home / "etc" / "xo.toml").write_bytes(b'connect = "\xff"\n')

    with pytest.raises(ConfigError, match="cannot be read"):
        settings(home)


@pytest.mark.parametrize(
    "url", ["tcp://127.0.0.1:4004", "tcp://validator:4004", "tcp://[::1]:4004", "ipc:///tmp/validator"]
)
def test_accepts_the_endpoints_a_validator_binds(url):
    assert check_url(url, "--connect") == url


@pytest.mark.parametrize(
    "url",
    [
        "validator:4004",
        "http://validator:4004",
        "tcp://validator",
        "tcp://:4004",
        "tcp://a b:4004",
        "tcp://validator:0",
        "tcp://validator:65536",
        "tcp://validator:40 04",
        "tcp://validator:٤٠٠٤",
        "tcp://*:4004",
        "tcp://-validator:4004",
        "ipc://",
        "",
    ],
)
def test_refuses_what_is_not_a_validator_endpoint_naming_the_source(url):
    with pytest.raises(ConfigError) as raised:
        check_url(url, "XO_TP_CONNECT")

    assert str(raised.value).startswith("XO_TP_CONNECT: ")
    assert repr(url) in str(raised.value)


# --metrics HOST:PORT, XO_TP_METRICS, metrics = "HOST:PORT": off unless one of them says where.


def metrics_settings(home: Path, *, flag: str | None = None, env: str | None = None) -> Settings:
    environ = {"SAWTOOTH_HOME": str(home)}
    if env is not None:
        environ["XO_TP_METRICS"] = env
    return resolve(
        connect_env="XO_TP_CONNECT",
        config_name="xo.toml",
        connect_flag=None,
        max_occupancy_flag=None,
        config_flag=None,
        metrics_env="XO_TP_METRICS",
        metrics_flag=flag,
        environ=environ,
    )


def test_metrics_are_off_unless_asked_for(home):
    assert metrics_settings(home).metrics is None


def test_the_metrics_flag_beats_the_environment_which_beats_the_file(home):
    write_config(home, 'metrics = "127.0.0.1:9401"\n')

    assert metrics_settings(home).metrics == MetricsAddress("127.0.0.1", 9401)
    assert metrics_settings(home, env="0.0.0.0:9402").metrics == MetricsAddress("0.0.0.0", 9402)
    assert metrics_settings(home, flag="[::1]:9403", env="0.0.0.0:9402").metrics == MetricsAddress("::1", 9403)


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("9400", "is not a metrics address"),
        (":9400", "is not a metrics address"),
        ("localhost:", "has no valid port"),
        ("localhost:http", "has no valid port"),
        ("localhost:65536", "has no valid port"),
        ("local host:9400", "is not a metrics address"),
    ],
)
def test_a_metrics_address_needs_a_host_and_a_port(home, text, complaint):
    with pytest.raises(ConfigError, match=f"--metrics: .*{complaint}"):
        metrics_settings(home, flag=text)


def test_a_bad_metrics_address_in_the_file_names_the_file(home):
    path = write_config(home, "metrics = 9400\n")

    with pytest.raises(ConfigError, match=f"{path} metrics: 9400 is not a metrics address"):
        metrics_settings(home)


def test_a_metrics_address_prints_as_it_is_written():
    assert str(MetricsAddress("::1", 9400)) == "[::1]:9400"
    assert str(MetricsAddress("127.0.0.1", 0)) == "127.0.0.1:0"
