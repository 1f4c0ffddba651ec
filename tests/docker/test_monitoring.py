"""Each network's Prometheus scrapes every processor it runs, on the port that processor serves its metrics on,
and its Grafana opens ready: the data source is that Prometheus, the dashboard is provisioned and is the home
page, and every query of the dashboard names metrics our processors (or Prometheus itself) report."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client import CollectorRegistry, generate_latest

from tests.docker.compose_files import DOCKER_DIR, NETWORKS, argv, flag_values, program, services, url_host
from tests.scraping import families
from tp_runtime.metrics import ProcessorCollector
from tp_runtime.tallies import ProcessorTallies

PROMETHEUS, GRAFANA = "/bin/prometheus", "/run.sh"
PROMETHEUS_PORT = 9090  # Prometheus listens there unless --web.listen-address says otherwise
PROMETHEUS_OWN = {"up"}  # what Prometheus records of every scrape itself
ANY_FAMILY = re.compile(r'__name__=~"\.\+_tp_(\w+)"')
PLAIN_NAME = re.compile(r"(?<![\w{\"$.])([a-z_][a-z0-9_]*)(?=\s*[{\[)]|\s*$)")


def the_service(network: str, program_name: str) -> tuple[str, dict[str, Any]]:
    (found,) = [(name, service) for name, service in services(network).items() if program(service) == program_name]
    return found


def mounted(service: dict[str, Any]) -> dict[str, Path]:
    """Where each file of the repository is mounted in the container: container path -> file."""
    files = {}
    for volume in service.get("volumes", []):
        source, target = volume.split(":")[:2]
        if source.startswith("."):
            files[target] = DOCKER_DIR / source
    return files


def image_processors(network: str) -> dict[str, dict[str, Any]]:
    """The *-tp services run from our image."""
    return {
        name: service
        for name, service in services(network).items()
        if "build" in service and program(service).endswith("-tp")
    }


def prometheus_config(network: str) -> dict[str, Any]:
    _, prometheus = the_service(network, PROMETHEUS)
    [path] = flag_values(argv(prometheus), "--config.file")
    return yaml.safe_load(mounted(prometheus)[path].read_text(encoding="utf-8"))


def grafana_file(network: str, directory: str) -> dict[str, Any]:
    """The one provisioning file Grafana finds in /etc/grafana/provisioning/<directory>."""
    _, grafana = the_service(network, GRAFANA)
    folder = f"/etc/grafana/provisioning/{directory}/"
    [path] = [file for target, file in mounted(grafana).items() if target.startswith(folder)]
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def dashboards(network: str) -> dict[str, Path]:
    """The dashboards mounted where the provisioned provider reads them: container path -> file."""
    [provider] = grafana_file(network, "dashboards")["providers"]
    folder = provider["options"]["path"].rstrip("/")
    _, grafana = the_service(network, GRAFANA)
    return {target: file for target, file in mounted(grafana).items() if target.startswith(folder + "/")}


def processor_sample_names(namespace: str) -> set[str]:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(ProcessorCollector(namespace, ProcessorTallies(), ["1.0"], lambda: 0))
    scraped = families(generate_latest(registry).decode())
    return {sample.name for family in scraped.values() for sample in family.samples}


@pytest.mark.parametrize("network", NETWORKS)
def test_every_processor_of_the_image_serves_metrics_on_every_interface_of_its_container(network: str) -> None:
    processors = image_processors(network)

    assert processors
    for name, service in processors.items():
        assert flag_values(argv(service), "--metrics") == ["0.0.0.0:9400"], name
        assert not service.get("ports"), f"{name} publishes a port: metrics stay on the compose network"


@pytest.mark.parametrize("network", NETWORKS)
def test_prometheus_scrapes_every_processor_replica_by_its_service_name_and_metrics_port(network: str) -> None:
    jobs = {job["job_name"]: job for job in prometheus_config(network)["scrape_configs"]}
    expected: dict[str, set[tuple[str, int]]] = {}
    for name, service in image_processors(network).items():
        port = int(flag_values(argv(service), "--metrics")[0].rpartition(":")[2])
        expected.setdefault(program(service), set()).add((name, port))

    assert set(jobs) == set(expected), "one job per processor program, and nothing else"
    for job_name, job in jobs.items():
        scraped = {(dns_name, lookup["port"]) for lookup in job["dns_sd_configs"] for dns_name in lookup["names"]}
        assert all(lookup["type"] == "A" for lookup in job["dns_sd_configs"]), "A records: every replica"
        assert scraped == expected[job_name], job_name
        assert {"source_labels": ["__meta_dns_name"], "target_label": "service"} in job["relabel_configs"]


@pytest.mark.parametrize("network", NETWORKS)
def test_grafanas_data_source_is_the_networks_prometheus(network: str) -> None:
    [source] = grafana_file(network, "datasources")["datasources"]
    prometheus_name, prometheus = the_service(network, PROMETHEUS)

    assert source["type"] == "prometheus"
    assert source["isDefault"] is True
    assert url_host(source["url"]) == prometheus_name
    assert source["url"] == f"http://{prometheus_name}:{PROMETHEUS_PORT}"
    assert not flag_values(argv(prometheus), "--web.listen-address")
    _, grafana = the_service(network, GRAFANA)
    assert prometheus_name in grafana["depends_on"]


@pytest.mark.parametrize("network", NETWORKS)
def test_grafana_opens_on_the_provisioned_dashboard_without_a_login(network: str) -> None:
    _, grafana = the_service(network, GRAFANA)
    environment = grafana["environment"]

    assert environment["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"] in dashboards(network)
    assert environment["GF_AUTH_ANONYMOUS_ENABLED"] == "true"
    assert environment["GF_AUTH_ANONYMOUS_ORG_ROLE"] == "Viewer", "anonymous visitors only look"


def test_both_networks_show_the_same_dashboard_from_the_same_data_source() -> None:
    single, pbft = NETWORKS
    assert dashboards(single) == dashboards(pbft)
    assert grafana_file(single, "datasources") == grafana_file(pbft, "datasources")


@pytest.fixture(scope="module")
def dashboard() -> dict[str, Any]:
    [path] = dashboards(NETWORKS[0]).values()
    return json.loads(path.read_text(encoding="utf-8"))


def test_every_panel_queries_the_provisioned_data_source(dashboard: dict[str, Any]) -> None:
    [source] = grafana_file(NETWORKS[0], "datasources")["datasources"]
    wanted = {"type": "prometheus", "uid": source["uid"]}

    assert dashboard["panels"]
    for panel in dashboard["panels"]:
        assert panel["datasource"] == wanted, panel["title"]
        assert panel["targets"], panel["title"]
        assert all(target["datasource"] == wanted for target in panel["targets"]), panel["title"]


def test_panels_have_unique_ids_and_places_and_their_queries_unique_ref_ids(dashboard: dict[str, Any]) -> None:
    panels = dashboard["panels"]
    assert len({panel["id"] for panel in panels}) == len(panels)
    cells = [
        (panel["gridPos"]["x"] + dx, panel["gridPos"]["y"] + dy)
        for panel in panels
        for dx in range(panel["gridPos"]["w"])
        for dy in range(panel["gridPos"]["h"])
    ]
    assert len(cells) == len(set(cells)), "two panels overlap"
    assert all(panel["gridPos"]["x"] + panel["gridPos"]["w"] <= 24 for panel in panels)
    for panel in panels:
        ref_ids = [target["refId"] for target in panel["targets"]]
        assert len(ref_ids) == len(set(ref_ids)), panel["title"]


def test_every_metric_a_query_names_is_one_every_processor_reports(dashboard: dict[str, Any]) -> None:
    namespaces = {
        program(service).replace("-", "_") for network in NETWORKS for service in image_processors(network).values()
    }
    reported = {namespace: processor_sample_names(namespace) for namespace in namespaces}
    named = 0
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            expression = ANY_FAMILY.sub("", target["expr"])
            for suffix in ANY_FAMILY.findall(target["expr"]):
                named += 1
                for namespace, names in reported.items():
                    assert f"{namespace}_{suffix}" in names, (panel["title"], namespace, suffix)
            for name in PLAIN_NAME.findall(expression):
                if name in {"sum", "by", "rate", "increase", "count", "histogram_quantile", "job", "le", "result",
                            "service", "instance"}:
                    continue
                assert name in PROMETHEUS_OWN, (panel["title"], name)
    assert named >= len(dashboard["panels"]) - 1
