"""Packaging for xo: the XO transaction processor, the xo client and the xo-devnet ledger."""

import re
from pathlib import Path

from setuptools import find_packages, setup

HERE = Path(__file__).parent
VERSION = re.search(r'__version__ = "([^"]+)"', (HERE / "xo_core" / "__init__.py").read_text()).group(1)

setup(
    name="xo-sawtooth",
    version=VERSION,
    description="Hyperledger Sawtooth XO, rps and chips families: processors, clients, web page, one-node ledger",
    long_description=(HERE / "README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    python_requires=">=3.11",
    packages=find_packages(
        include=[
            "xo_core", "xo_core.*", "tp_runtime", "tp_runtime.*", "client_core", "client_core.*",
            "xo_tp", "xo_tp.*", "xo_client", "xo_client.*", "xo_cli", "xo_cli.*",
            "rps_tp", "rps_tp.*", "rps_client", "rps_client.*", "rps_cli", "rps_cli.*",
            "chips_tp", "chips_tp.*", "chips_client", "chips_client.*", "chips_cli", "chips_cli.*",
            "xo_devnet", "xo_devnet.*", "xo_web", "xo_web.*", "xo_aries", "xo_aries.*",
        ]
    ),
    package_data={
        "xo_core": ["protobuf/*.proto", "protobuf/*.pyi", "py.typed"],
        "xo_devnet": ["rest/*.yaml"],
        "xo_web": ["static/*.html", "static/*.css", "static/*.svg", "static/js/*.js"],
    },
    install_requires=[
        "protobuf>=6.30,<8",
        "pyzmq>=25,<28",
        "coincurve>=20,<22",
        "cbor2>=5.6,<7",
        "aiohttp>=3.9,<4",
        "sawtooth-sdk>=1.2.5,<1.3",
        "greenlet>=3.0,<4",
        "PyYAML>=6,<7",
        "wcwidth>=0.2.13,<1",
        "google-re2>=1.1,<2",
        "prometheus-client>=0.20,<1",
        "paho-mqtt>=2.1,<3",
        "amqtt>=0.12.1,<0.13",
        "openskill>=6.2,<7",
    ],
    extras_require={
        # What tests/integration needs and no more: the integration-tests image installs it (docker/Dockerfile).
        "integration": ["pytest>=8,<10", "pytest-xdist>=3.5,<4", "pytest-timeout>=2.3,<3"],
        "test": [
            "pytest>=8,<10",
            "pytest-xdist>=3.5,<4",
            "pytest-timeout>=2.3,<3",
            "hypothesis>=6.100,<7",
            "ruff>=0.6,<1",
            "check-jsonschema>=0.29,<1",
            "PyYAML>=6,<7",
            "jsonschema>=4.18,<5",
            "playwright>=1.44,<2",
        ],
        "aries": ["acapy-agent>=1.3,<1.5; python_version >= '3.12'"],
    },
    entry_points={
        "console_scripts": [
            "xo-tp=xo_tp.cli:main",
            "rps-tp=rps_tp.cli:main",
            "chips-tp=chips_tp.cli:main",
            "xo=xo_cli.main:main",
            "rps=rps_cli.main:main",
            "chips=chips_cli.main:main",
            "xo-devnet=xo_devnet.cli:main",
        ],
    },
    classifiers=[
        "Programming Language :: Python :: 3.11",
        "Programming Language :: Python :: 3.12",
        "Programming Language :: Python :: 3.13",
    ],
)
