"""Shared paths for the Python tests."""

from __future__ import annotations

from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]
SAMPLE_LANDING = PROJECT / "sample_landing"
PRODUCTS_TOPIC = "fullfillment.inventory.products"
ORDERS_TOPIC = "shop.public.orders"


@pytest.fixture()
def project() -> Path:
    return PROJECT
