"""The networks the compose files describe hang together: every component reaches a validator that exists,
on the port that validator listens on; the PBFT network is fully peered and every node has its own
components; images are Sawtooth 1.2 "chime" or ours; nothing is published beyond 127.0.0.1, on host ports that
variables move. Each network with its test override, merged as `docker compose -f NETWORK -f OVERRIDE` merges them,
names only services that exist, plays through a REST API of that network, and starts with `run` everything a move
needs: the genesis block's settings-tp, the consensus engine, every processor and the broker. The files run under
docker-compose 1.29 too: no top-level `name:`."""

import json

import pytest

from tests.docker.build_sources import DOCKERFILE, SETUP_PY, dockerfile
from tests.docker.compose_files import (
    COMPOSE_FILES,
    DOCKER_DIR,
    LOCAL_IMAGES,
    MOVABLE_PORT,
    NETWORKS,
    PBFT,
    SINGLE_NODE,
    TEST_OVERRIDES,
    TEST_SERVICE,
    argv,
    closure,
    connect_targets,
    dependencies,
    document,
    flag_values,
    program,
    raw_document,
    services,
    url_host,
    validator_binds,
    validators,
)
from tests.integration.players import Rejections

SAWTOOTH_CHIME_IMAGES = {
    "sawtooth-validator": "hyperledger/sawtooth-validator:chime",
    "devmode-engine-rust": "hyperledger/sawtooth-devmode-engine-rust:chime",
    "pbft-engine": "hyperledger/sawtooth-pbft-engine:chime",
    "settings-tp": "hyperledger/sawtooth-settings-tp:chime",
    "block-info-tp": "hyperledger/sawtooth-block-info-tp:chime",
    "sawtooth-rest-api": "hyperledger/sawtooth-rest-api:chime",
}
# Which validator endpoint each kind of component connects to.
ENDPOINT_ROLE = {
    "devmode-engine-rust": "consensus",
    "pbft-engine": "consensus",
    "settings-tp": "component",
    "block-info-tp": "component",
    "sawtooth-rest-api": "component",
    "xo-tp": "component",
    "rps-tp": "component",
    "chips-tp": "component",
}
# What a player (the shell, the suite) waits for on every node, by program, and how. The validator makes the genesis
# block only once settings-tp has registered, and the next blocks only with its consensus engine; every block starts
# with a block_info transaction; moves need our processors, which report their registration through their health
# checks (Sawtooth's images have none); chips' off-chain moves need the broker.
PLAYERS_WAIT_FOR = {
    "settings-tp": "service_started",
    "devmode-engine-rust": "service_started",
    "pbft-engine": "service_started",
    "sawtooth-rest-api": "service_started",
    "xo-tp": "service_healthy",
    "rps-tp": "service_healthy",
    "chips-tp": "service_healthy",
    "block-info-tp": "service_started",
    "/usr/sbin/mosquitto": "service_started",
}
NODE_COMPONENTS = ("settings-tp", "block-info-tp", "sawtooth-rest-api", "xo-tp", "rps-tp", "chips-tp")


def components(file_name: str, program_name: str) -> dict[str, list[str]]:
    """Validator name -> the services running ``program_name`` connected to it."""
    by_validator: dict[str, list[str]] = {name: [] for name in validators(file_name)}
    for name, service in services(file_name).items():
        if program(service) == program_name:
            for host, _ in connect_targets(service):
                by_validator[host].append(name)
    return by_validator


# The monitoring services: Prometheus scrapes the processors, Grafana shows them (tests/docker/test_monitoring.py).
MONITORING_IMAGES = {"/bin/prometheus": "prom/prometheus:v2.53.0", "/run.sh": "grafana/grafana:11.1.0"}
# The players' MQTT broker (tests/docker/test_mqtt_broker.py).
BROKER_IMAGES = {"/usr/sbin/mosquitto": "eclipse-mosquitto:2.0.20"}


@pytest.mark.parametrize("compose_file", NETWORKS)
def test_sawtooth_services_use_the_chime_images_and_monitoring_its_pinned_ones(compose_file: str) -> None:
    for name, service in services(compose_file).items():
        if "build" not in service:
            expected = SAWTOOTH_CHIME_IMAGES.get(program(service)) or {**MONITORING_IMAGES, **BROKER_IMAGES}[
                program(service)
            ]
            assert service["image"] == expected, name


@pytest.mark.parametrize("compose_file", COMPOSE_FILES)
def test_our_services_are_built_from_a_stage_of_the_dockerfile(compose_file: str) -> None:
    stages = {stage.name for stage in dockerfile().stages}
    for name, service in services(compose_file).items():
        if "build" in service:
            build = service["build"]
            context = (DOCKER_DIR / build["context"]).resolve()
            assert context == SETUP_PY.parent, f"{name} is not built from the directory that holds setup.py"
            assert context / build["dockerfile"] == DOCKERFILE, name
            assert build["target"] in stages, name
            assert service["image"].endswith(":local"), name


# The build arguments compose passes (docker/Dockerfile) and the variables that set them on a machine with no
# registry: the base image, and where the wheels come from.
BUILD_VARIABLES = {"BASE_IMAGE": "XO_BASE_IMAGE", "WHEELS": "XO_WHEELS"}


@pytest.mark.parametrize("compose_file", COMPOSE_FILES)
def test_our_images_are_built_as_the_dockerfile_builds_them_unless_variables_say_otherwise(compose_file: str) -> None:
    """Unset, the variables give the Dockerfile's own defaults (Docker Hub's Python image, wheels built by pip)."""
    local = {"XO_BASE_IMAGE": "xo-base:bookworm", "XO_WHEELS": "context"}
    built = {name: service for name, service in services(compose_file).items() if "build" in service}
    moved = services(compose_file, environment=local)

    assert built
    for name, service in built.items():
        assert service["build"]["args"] == {arg: dockerfile().global_args[arg] for arg in BUILD_VARIABLES}, name
        assert moved[name]["build"]["args"] == {arg: local[variable] for arg, variable in BUILD_VARIABLES.items()}


@pytest.mark.parametrize("compose_file", NETWORKS)
def test_every_component_connects_to_a_validator_on_the_port_it_listens_on(compose_file: str) -> None:
    listening = {name: validator_binds(service) for name, service in validators(compose_file).items()}
    for name, service in services(compose_file).items():
        role = ENDPOINT_ROLE.get(program(service))
        if role is None:
            continue
        targets = connect_targets(service)
        assert len(targets) == 1, name
        host, port = targets[0]
        assert host in listening, f"{name} connects to {host}, which is no validator"
        assert listening[host][role] == port, f"{name} connects to {host}:{port}, not its {role} port"


@pytest.mark.parametrize("compose_file", NETWORKS)
def test_ports_are_published_on_localhost_only(compose_file: str) -> None:
    published = [port for service in services(compose_file).values() for port in service.get("ports", [])]

    assert published
    assert all(port.startswith("127.0.0.1:") for port in published), published


@pytest.mark.parametrize("compose_file", NETWORKS)
def test_every_published_port_moves_with_a_variable_of_its_own(compose_file: str) -> None:
    """So that a network starts beside an xo-devnet, or the other network, on ports its user picks."""
    written = [port for service in raw_document(compose_file)["services"].values() for port in service.get("ports", [])]
    matches = [MOVABLE_PORT.fullmatch(port) for port in written]

    assert written and all(matches), written
    variables = [match["variable"] for match in matches if match]
    assert len(variables) == len(set(variables)), variables
    moved = {variable: str(20000 + index) for index, variable in enumerate(variables)}
    published = [
        port for service in services(compose_file, environment=moved).values() for port in service.get("ports", [])
    ]
    assert sorted(port.split(":")[1] for port in published) == sorted(moved.values())


@pytest.mark.parametrize("compose_file", (*COMPOSE_FILES, LOCAL_IMAGES))
def test_no_file_names_its_project(compose_file: str) -> None:
    """docker-compose 1.29 refuses a top-level `name:`; the project is named with -p (docs/docker.md)."""
    assert "name" not in raw_document(compose_file)


@pytest.mark.parametrize("compose_file", NETWORKS)
def test_every_sawtooth_service_runs_under_an_init_so_that_it_stops_when_told(compose_file: str) -> None:
    """As process 1 of its container a Sawtooth program ignores SIGTERM: `down` would wait 10 s to kill each."""
    for name, service in services(compose_file).items():
        if program(service) in SAWTOOTH_CHIME_IMAGES or "build" in service:
            assert service.get("init") is True, name


@pytest.mark.parametrize("compose_file", NETWORKS)
def test_files_mounted_from_the_repository_exist(compose_file: str) -> None:
    for service in services(compose_file).values():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                assert (DOCKER_DIR / source).is_file(), volume


@pytest.mark.parametrize("compose_file", NETWORKS)
def test_the_shell_plays_through_a_rest_api_of_the_network(compose_file: str) -> None:
    shell = services(compose_file)["shell"]

    assert program(services(compose_file)[url_host(shell["environment"]["XO_URL"])]) == "sawtooth-rest-api"


def test_the_single_node_runs_devmode_with_one_of_each_component() -> None:
    (validator,) = validators(SINGLE_NODE).values()
    assert argv(validator)[:4] == ["bash", "/xo-docker/start-validator.sh", "devmode", "--"]
    for program_name in ("devmode-engine-rust", *NODE_COMPONENTS):
        assert [len(names) for names in components(SINGLE_NODE, program_name).values()] == [1], program_name


def test_the_pbft_network_has_at_least_four_nodes_each_with_all_its_components() -> None:
    names = list(validators(PBFT))
    assert len(names) >= 4
    for program_name in ("pbft-engine", *NODE_COMPONENTS):
        attached = components(PBFT, program_name)
        assert all(len(attached[name]) == 1 for name in names), (program_name, attached)


def test_one_pbft_node_makes_the_genesis_block_naming_every_validator_a_member() -> None:
    nodes = validators(PBFT)
    genesis = {name: flag_values(argv(service), "--genesis") for name, service in nodes.items()}
    makers = [name for name, members in genesis.items() if members]

    assert len(makers) == 1
    assert genesis[makers[0]][0].split(",") == list(nodes)
    for name, service in nodes.items():
        assert argv(service)[:4] == ["bash", "/xo-docker/start-validator.sh", "pbft", name]


def test_the_pbft_validators_are_statically_and_fully_peered() -> None:
    nodes = validators(PBFT)
    links = set()
    for name, service in nodes.items():
        arguments = argv(service)
        assert flag_values(arguments, "--peering") == ["static"], name
        assert flag_values(arguments, "--endpoint") == [f"tcp://{name}:{validator_binds(service)['network']}"]
        for peers in flag_values(arguments, "--peers"):
            for peer in peers.split(","):
                host, _, port = peer.removeprefix("tcp://").partition(":")
                assert validator_binds(nodes[host])["network"] == int(port), peer
                links.add(frozenset((name, host)))

    assert links == {frozenset((a, b)) for a in nodes for b in nodes if a != b}


# What a network's REST APIs report of a rejected batch follows from its consensus. With Devmode the one
# validator executes every batch, so its REST API knows each INVALID batch and why. With PBFT only the
# primary executes a batch in a candidate block; the other nodes' REST APIs keep an invalid batch PENDING.
REJECTIONS_BY_CONSENSUS = {"devmode": Rejections.ALWAYS, "pbft": Rejections.PRIMARY_ONLY}


def consensus(network: str) -> str:
    """The consensus every validator of the network is started with (start-validator.sh's first argument)."""
    (chosen,) = {argv(service)[2] for service in validators(network).values()}
    return chosen


@pytest.mark.parametrize("network", NETWORKS)
def test_a_test_override_adds_the_test_service_and_lowers_only_the_genesis_challenge_floor(network: str) -> None:
    """Beside its own service, it sets one variable of the validator that makes the genesis block, which compose
    merges into that validator's environment key by key."""
    override = TEST_OVERRIDES[network]
    added = services(override)
    (maker,) = [name for name in added if name != TEST_SERVICE]

    assert set(document(override)) == {"services"}, "an override that sets more than services merges differently"
    assert TEST_SERVICE in added and TEST_SERVICE not in services(network)
    assert added[maker] == {"environment": {"XO_CHIPS_MIN_CHALLENGE_SECONDS": "1"}}
    assert "XO_CHIPS_ISSUER_KEY_FILE" in services(network)[maker]["environment"], "the validator that makes the genesis"
    assert services(network, override)[maker]["environment"] == {
        **services(network)[maker]["environment"], "XO_CHIPS_MIN_CHALLENGE_SECONDS": "1"
    }  # fmt: skip


@pytest.mark.parametrize("network", NETWORKS)
def test_a_network_with_its_tests_names_only_services_that_exist(network: str) -> None:
    merged = services(network, TEST_OVERRIDES[network])
    for name, service in merged.items():
        named = set(dependencies(service)) | {host for host, _ in connect_targets(service)}
        named |= {url_host(value) for value in service.get("environment", {}).values() if value.startswith("http")}
        assert named <= set(merged), f"{name} names services that do not exist: {sorted(named - set(merged))}"


@pytest.mark.parametrize("network", NETWORKS)
def test_the_suite_plays_through_a_rest_api_of_its_network(network: str) -> None:
    environment = services(network, TEST_OVERRIDES[network])[TEST_SERVICE]["environment"]
    host = url_host(environment["XO_REST_URL"])

    assert program(services(network)[host]) == "sawtooth-rest-api"


@pytest.mark.parametrize("network", NETWORKS)
def test_the_suite_takes_its_settings_from_the_file_not_from_the_host_environment(network: str) -> None:
    """Compose fills ${VAR} from the host, where XO_REST_URL may name 127.0.0.1: the container's own loopback."""
    environment = raw_document(TEST_OVERRIDES[network])["services"][TEST_SERVICE]["environment"]

    assert environment
    assert not [value for value in environment.values() if "$" in value], environment


@pytest.mark.parametrize("network", NETWORKS)
def test_the_suite_expects_the_rejection_reports_the_network_consensus_gives(network: str) -> None:
    environment = services(TEST_OVERRIDES[network])[TEST_SERVICE]["environment"]

    assert Rejections(environment["XO_REJECTIONS_REPORTED"]) == REJECTIONS_BY_CONSENSUS[consensus(network)]


def test_the_test_services_of_both_networks_differ_only_in_what_names_the_network() -> None:
    network_specific = ("environment", "depends_on")
    single, pbft = (services(TEST_OVERRIDES[network])[TEST_SERVICE] for network in (SINGLE_NODE, PBFT))

    assert {k: v for k, v in single.items() if k not in network_specific} == {
        k: v for k, v in pbft.items() if k not in network_specific
    }
    assert set(single["environment"]) == set(pbft["environment"])
    assert single["environment"]["XO_REST_READY_SECONDS"] == pbft["environment"]["XO_REST_READY_SECONDS"]
    assert argv(single)[-1] == "tests/integration"


@pytest.mark.parametrize("network", NETWORKS)
@pytest.mark.parametrize("player", ["shell", TEST_SERVICE])
def test_players_wait_for_everything_a_move_needs_on_every_node(network: str, player: str) -> None:
    merged = services(network, TEST_OVERRIDES[network])
    waits_for = dependencies(merged[player])
    needed = {name: program(service) for name, service in merged.items() if program(service) in PLAYERS_WAIT_FOR}
    engine = {"devmode": "devmode-engine-rust", "pbft": "pbft-engine"}[consensus(network)]

    assert set(needed.values()) == set(PLAYERS_WAIT_FOR) - ({"devmode-engine-rust", "pbft-engine"} - {engine})
    assert {name: waits_for.get(name) for name in needed} == {
        name: PLAYERS_WAIT_FOR[program_name] for name, program_name in needed.items()
    }


# What a player's `run` need not start: the monitoring, and the other player.
NOT_NEEDED_TO_PLAY = {"/bin/prometheus", "/run.sh", "sleep", "pytest"}


@pytest.mark.parametrize("network", NETWORKS)
@pytest.mark.parametrize("player", ["shell", TEST_SERVICE])
def test_run_starts_every_service_of_the_network_a_player_needs(network: str, player: str) -> None:
    """`docker compose run PLAYER` starts PLAYER's dependencies and theirs, and nothing else: anything left out (the
    genesis block's settings-tp once was) leaves the validator waiting for ever."""
    merged = services(network, TEST_OVERRIDES[network])
    needed = {name for name, service in merged.items() if program(service) not in NOT_NEEDED_TO_PLAY}

    assert closure(merged, player) == needed


@pytest.mark.parametrize("network", NETWORKS)
def test_the_suite_starts_when_the_shell_would(network: str) -> None:
    """Both play through the network as soon as they start: they wait for the same services."""
    merged = services(network, TEST_OVERRIDES[network])

    assert dependencies(merged[TEST_SERVICE]) == dependencies(merged["shell"])


@pytest.mark.parametrize("network", NETWORKS)
def test_each_processor_run_from_our_image_is_checked_by_its_own_health_check(network: str) -> None:
    """The image's HEALTHCHECK is xo-tp's: a service running another processor names it in its own check, and
    sets nothing else, so that it keeps the image's timings (Docker inherits what a container leaves unset)."""
    stages = {stage.name: stage for stage in dockerfile().stages}
    checked = 0
    for name, service in services(network).items():
        if "build" not in service or not program(service).endswith("-tp"):
            continue
        image_check = json.loads(stages[service["build"]["target"]].one("HEALTHCHECK").arguments.split(" CMD ")[1])
        compose_check = service.get("healthcheck", {})
        assert set(compose_check) <= {"test"}, f"{name} changes the image's health check timings: {compose_check}"
        test = compose_check.get("test", ["CMD", *image_check])
        assert test == ["CMD", "tp-healthcheck", program(service)], name
        checked += 1

    assert checked


@pytest.mark.parametrize("network", NETWORKS)
def test_a_service_waited_for_as_healthy_has_a_health_check(network: str) -> None:
    merged = services(network, TEST_OVERRIDES[network])
    stages = {stage.name: stage for stage in dockerfile().stages}
    awaited = {
        name for service in merged.values() for name, why in dependencies(service).items() if why == "service_healthy"
    }

    assert awaited
    for name in awaited:
        service = merged[name]
        compose_check = service.get("healthcheck", {})
        assert not compose_check.get("disable", False), name
        image_check = "build" in service and stages[service["build"]["target"]].all("HEALTHCHECK")
        assert compose_check.get("test") or image_check, f"{name} has no health check to wait for"
