"""The installed distributions never overwrite one another's modules.

Two distributions that ship the same top-level package install over each other, and
whichever pip installs last wins; ``pip check`` does not notice. That is how a
``sawtooth-signing`` from the test extra once replaced the ``sawtooth_signing`` that
``sawtooth-sdk`` ships (and needs) with code for another ``secp256k1``. These tests
read what every installed distribution owns, so the class of defect fails here
instead of in a user's second set-up command.
"""

from collections import defaultdict
from importlib import metadata

from sawtooth_signing import create_context


def _top_level_modules(dist: metadata.Distribution) -> set[str]:
    """The importable top-level names a distribution's files put into site-packages."""
    names: set[str] = set()
    for file in dist.files or ():
        parts = file.parts
        if not parts or parts[0].endswith((".dist-info", ".egg-info", ".data")) or parts[0] in {"..", "__pycache__"}:
            continue
        top = parts[0]
        if len(parts) == 1:
            if not top.endswith(".py"):
                continue
            top = top.removesuffix(".py")
        names.add(top)
    return names


def test_no_two_installed_distributions_ship_the_same_module():
    owners: dict[str, set[str]] = defaultdict(set)
    for dist in metadata.distributions():
        for module in _top_level_modules(dist):
            owners[module].add(dist.metadata["Name"].lower())
    shared = {module: sorted(dists) for module, dists in owners.items() if len(dists) > 1}
    assert shared == {}, f"modules installed by more than one distribution: {shared}"


def test_sawtooth_signing_is_the_copy_sawtooth_sdk_ships_and_it_signs():
    owner = {
        dist.metadata["Name"].lower()
        for dist in metadata.distributions()
        if "sawtooth_signing" in _top_level_modules(dist)
    }
    assert owner == {"sawtooth-sdk"}

    context = create_context("secp256k1")
    key = context.new_random_private_key()
    signature = context.sign(b"header bytes", key)
    assert context.verify(signature, b"header bytes", context.get_public_key(key))
