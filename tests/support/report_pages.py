"""The report page (`report --html`) as Chromium lays it out at 1280 × 800:
what the page tests assert on, read in one browser session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

# what each figure is, read from the laid-out page
FIGURES = {
    "widths": "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]",
    "chart_rights": "() => [...document.querySelectorAll('svg.chart')]"
    ".map(s => s.getBoundingClientRect().right)",
    "topics": "() => [...document.querySelectorAll('section.topic h3')].map(h => h.textContent)",
    "run_rate_points": "() => document.querySelectorAll('#runs circle.rate').length",
    "lag_points": "() => document.querySelectorAll('circle.lag').length",
    "quarantine_bars": "() => document.querySelectorAll('rect.q0, rect.q1').length",
    # elements made of a name from the data (an HTML topic name): none
    "injected": "() => document.querySelectorAll('img, script').length"
    " + [...document.querySelectorAll('b')].filter(b => b.textContent === 'bold').length",
}


def read_report_page(page: Path, screenshot: str) -> dict[str, Any]:
    """The page's figures, its attention section's text, its title; a
    full-page screenshot into the artifacts folder as ``screenshot``."""
    from playwright.sync_api import sync_playwright
    from test_docs_site import ARTIFACTS, CHROMIUM, CHROMIUM_FLAGS

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
        )
        tab = browser.new_page(viewport={"width": 1280, "height": 800})
        tab.goto(page.as_uri())
        found = {name: tab.evaluate(script) for name, script in FIGURES.items()}
        found["attention"] = tab.inner_text("section.attention")
        found["title"] = tab.title()
        tab.screenshot(path=str(ARTIFACTS / screenshot), full_page=True)
        browser.close()
    found["charts"] = len(found["chart_rights"])
    return found
