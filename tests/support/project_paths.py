"""Where the suite finds the project, its sample landing and the test
fixtures; and a sample topic copied into a test's own landing."""

from __future__ import annotations

import shutil
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
SAMPLE_LANDING = PROJECT / "sample_landing"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
EXPECTED = FIXTURES / "expected"
PRODUCTS_TOPIC = "fullfillment.inventory.products"
ORDERS_TOPIC = "shop.public.orders"
# The in-process session has a metastore of its own: the end-to-end tests
# run dbt in other processes on another state folder.
UNIT_STATE = PROJECT / ".state" / "pytest-unit"


def copy_sample_topic(topic: str, landing: Path, name: str | None = None) -> Path:
    """A sample topic's folder copied into ``landing`` (as ``name``), with
    the project's declaration of it as the folder's topic.yml: how a user's
    landing brings its settings to a project that has not declared it."""
    target = landing / (name or topic)
    shutil.copytree(SAMPLE_LANDING / topic, target)
    declaration = PROJECT / "topics" / f"{topic}.yml"
    if declaration.exists():
        shutil.copy(declaration, target / "topic.yml")
    return target
