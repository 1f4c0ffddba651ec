"""The networks the compose files describe hang together: every component reaches a validator that exists,
on the port that validator listens on; the PBFT network is fully peered and every node has its own
components; images are Sawtooth 1.2 "chime" or ours; nothing is published beyond 127.0.0.1."""

import shlex

import pytest

from tests.docker.build_sources import dockerfile
from tests.docker.compose_files import (
    COMPOSE_FILES,
    DOCKER_DIR,
    NETWORKS,
    PBFT,
    SINGLE_NODE,
    TESTS,
    argv,
    connect_targets,
    flag_values,
    program,
    services,
    validator_binds,
    validators,
)

SAWTOOTH_CHIME_IMAGES = {
    "sawtooth-validator": "hyperledger/sawtooth-validator:chime",
    "devmode-engine-rust": "hyperledger/sawtooth-devmode-engine-rust:chime",
    "pbft-engine": "hyperledger/sawtooth-pbft-engine:chime",
    "settings-tp": "hyperledger/sawtooth-settings-tp:chime",
    "sawtooth-rest-api": "hyperledger/sawtooth-rest-api:chime",
}
# Which validator endpoint each kind of component connects to.
ENDPOINT_ROLE = {
    "devmode-engine-rust": "consensus",
    "pbft-engine": "consensus",
    "settings-tp": "component",
    "sawtooth-rest-api": "component",
    "xo-tp": "component",
}


def components(file_name: str, program_name: str) -> dict[str, list[str]]:
    """Validator name -> the services running ``program_name`` connected to it."""
    by_validator: dict[str, list[str]] = {name: [] for name in validators(file_name)}
    for name, service in services(file_name).items():
        if program(service) == program_name:
            for host, _ in connect_targets(service):
                by_validator[host].append(name)
    return by_validator


@pytest.mark.parametrize("compose_file", NETWORKS)
def test_sawtooth_services_use_the_chime_images(compose_file: str) -> None:
    for name, service in services(compose_file).items():
        if "build" not in service:
            assert service["image"] == SAWTOOTH_CHIME_IMAGES[program(service)], name


@pytest.mark.parametrize("compose_file", COMPOSE_FILES)
def test_our_services_are_built_from_a_stage_of_the_dockerfile(compose_file: str) -> None:
    stages = {stage.name for stage in dockerfile().stages}
    for name, service in services(compose_file).items():
        if "build" in service:
            build = service["build"]
            assert (build["context"], build["dockerfile"]) == ("..", "docker/Dockerfile"), name
            assert build["target"] in stages, name
            assert service["image"].endswith(":local"), name


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
def test_files_mounted_from_the_repository_exist(compose_file: str) -> None:
    for service in services(compose_file).values():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                assert (DOCKER_DIR / source).is_file(), volume


@pytest.mark.parametrize("compose_file", NETWORKS)
def test_the_shell_plays_through_a_rest_api_of_the_network(compose_file: str) -> None:
    shell = services(compose_file)["shell"]
    host = shell["environment"]["XO_URL"].removeprefix("http://").partition(":")[0]

    assert program(services(compose_file)[host]) == "sawtooth-rest-api"


def test_the_single_node_runs_devmode_with_one_of_each_component() -> None:
    (validator,) = validators(SINGLE_NODE).values()
    assert argv(validator)[:4] == ["bash", "/xo-docker/start-validator.sh", "devmode", "--"]
    for program_name in ("devmode-engine-rust", "settings-tp", "sawtooth-rest-api", "xo-tp"):
        assert [len(names) for names in components(SINGLE_NODE, program_name).values()] == [1], program_name


def test_the_pbft_network_has_at_least_four_nodes_each_with_all_its_components() -> None:
    names = list(validators(PBFT))
    assert len(names) >= 4
    for program_name in ("pbft-engine", "settings-tp", "sawtooth-rest-api", "xo-tp"):
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


def test_the_test_service_runs_the_integration_suite_against_the_single_node_by_default() -> None:
    (service,) = services(TESTS).values()
    assert service["build"]["target"] == "integration-tests"
    assert shlex.split(service["command"])[-1] == "tests/integration"

    default_url = service["environment"]["XO_REST_URL"].removeprefix("${XO_REST_URL:-").removesuffix("}")
    host = default_url.removeprefix("http://").partition(":")[0]
    assert program(services(SINGLE_NODE)[host]) == "sawtooth-rest-api"
