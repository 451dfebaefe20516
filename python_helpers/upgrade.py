"""Upgrade current-state models scaffolded before delete markers.

Before, each topic's current-state model was one incremental table whose
merge deleted rows: a deleted key left nothing behind, so an older event of
it landing later brought it back. Now a topic has a ``<model>__state`` table
that keeps deletes as rows (delete markers) and the analysts' ``<model>``
view without them (the ``state`` and ``current`` model templates).

``upgrade_current_models`` rewrites every old-style current model it finds
(a model whose SQL calls ``cdc_current_state`` and has no ``__state``
sibling) into that pair, keeping the properties written for it (columns,
tests, descriptions) on the view and copying them to the state table.
After it, run ``dbt build --full-refresh --select <model>__state+`` for the
upgraded models (their tables are new).
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import yaml

from python_helpers import model_templates
from python_helpers.scaffold import (
    SOFT_DELETES_WHERE,
    STATE_OPS,
    _write_sql,
)

_CALL = re.compile(r"cdc_current_state\('changes', (\[[^\]]*\])\)")
_REF = re.compile(r"ref\('([^']+)'\)")
_TOPIC = re.compile(r"`([^`]+)`")


def _old_style(sql: str) -> bool:
    return "cdc_current_state(" in sql and "cdc_delete_markers" not in sql


def _set_op_tests(columns: list[dict[str, Any]], values: list[str], where: str | None) -> None:
    for column in columns:
        if column.get("name") != "_cdc_op":
            continue
        for test in column.get("data_tests") or []:
            if isinstance(test, dict) and "accepted_values" in test:
                accepted = test["accepted_values"]
                accepted.setdefault("arguments", {})["values"] = list(values)
                if where is None:
                    accepted.pop("config", None)
                else:
                    accepted["config"] = {"where": where}


def _state_entry(current: dict[str, Any], state_name: str, topic: str) -> dict[str, Any]:
    state = copy.deepcopy(current)
    state["name"] = state_name
    state["description"] = (
        f"Merged state of topic `{topic}`: one row per key ever seen, the newest change"
        " in source order; a deleted key keeps its delete as a row (`_cdc_op = 'd'`, a"
        " delete marker) so that an older event landing later cannot bring it back."
        " Purge old markers with `dbt run-operation cdc_purge_delete_markers`."
    )
    state.setdefault("config", {}).setdefault("meta", {})["cdc_layer"] = "state"
    _set_op_tests(state.get("columns") or [], STATE_OPS, None)
    return state


def upgrade_current_models(project: Path) -> list[str]:
    """Rewrite old-style current models into state table + view; returns
    the names of the models upgraded."""
    current_dir = project / "models" / "current"
    upgraded: list[str] = []
    for properties in sorted(current_dir.rglob("*.yml")):
        loaded = yaml.safe_load(properties.read_text(encoding="utf-8")) or {}
        models = loaded.get("models") or []
        rewritten: list[dict[str, Any]] = []
        for entry in models:
            sql_path = properties.parent / f"{entry.get('name')}.sql"
            sql = sql_path.read_text(encoding="utf-8") if sql_path.exists() else ""
            call, ref = _CALL.search(sql), _REF.search(sql)
            if not (_old_style(sql) and call and ref):
                rewritten.append(entry)
                continue
            name = str(entry["name"])
            topic = str(((entry.get("config") or {}).get("meta") or {}).get("cdc_topic", name))
            unique_key = call.group(1)
            keys = [k.strip().strip("'\"") for k in unique_key.strip("[]").split(",")]
            formats = {
                "topic": topic,
                "key_list": ", ".join(keys),
                "unique_key": unique_key,
                "staging": ref.group(1),
                "current": name,
                "state": f"{name}__state",
            }
            _write_sql(
                properties.parent / f"{name}__state.sql", model_templates.render("state", **formats)
            )
            _write_sql(sql_path, model_templates.render("current", **formats))
            _set_op_tests(entry.get("columns") or [], ["c", "r", "u"], SOFT_DELETES_WHERE)
            entry["description"] = (
                f"{entry.get('description', '')} A view of `{name}__state` without its"
                " delete markers; with the variable `cdc_soft_deletes: true` deleted keys"
                " stay, flagged `is_deleted`."
            ).strip()
            rewritten += [_state_entry(entry, f"{name}__state", topic), entry]
            upgraded.append(name)
        if len(rewritten) != len(models):
            loaded["models"] = rewritten
            text = yaml.safe_dump(loaded, sort_keys=False, width=88, allow_unicode=True)
            properties.write_text(text, encoding="utf-8")
    return upgraded
