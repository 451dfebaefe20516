"""sync: generated schemas are deterministic, up to date, and scaffolding works."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from conftest import ORDERS_TOPIC, PRODUCTS_TOPIC, SAMPLE_LANDING

from python_helpers.connect_schema import ConnectSchema, SchemaError, merge_schemas, parse_schema
from python_helpers.generate import GENERATED_MACRO, SpecError, read_macro, render_macro
from python_helpers.landing import topic_files
from python_helpers.project_check import ProjectError
from python_helpers.schema_evolution import QUARANTINE, evolve
from python_helpers.sync import sync
from python_helpers.topic_schema import TopicSchemas, scan_file
from python_helpers.upgrade import upgrade_current_models


def test_generated_schemas_are_up_to_date(project: Path) -> None:
    result = sync(project, SAMPLE_LANDING, check=True)
    assert not result.generated_changed, "run `python -m python_helpers sync`"
    topics = {p.name for p in SAMPLE_LANDING.iterdir() if p.is_dir()}
    assert set(result.specs) == topics and {PRODUCTS_TOPIC, ORDERS_TOPIC} <= topics


def test_render_is_deterministic_and_round_trips(project: Path) -> None:
    text = (project / GENERATED_MACRO).read_text(encoding="utf-8")
    specs = read_macro(text)
    assert render_macro(specs) == text
    assert text.startswith("{#-\n    GENERATED")


def test_orders_spec_merges_schema_versions(project: Path) -> None:
    specs = read_macro((project / GENERATED_MACRO).read_text(encoding="utf-8"))
    orders = specs[ORDERS_TOPIC]
    assert orders.primary_key == ("order_id",)  # from the key schema
    assert specs[PRODUCTS_TOPIC].primary_key == ("id",)  # from topic.yml
    after = orders.value_schema.field_named("after")
    assert after is not None
    coupon = after.schema.field_named("coupon")
    assert coupon is not None and coupon.schema.optional  # added by a later version


def test_sync_scaffolds_a_new_topic_once(tmp_path: Path, project: Path) -> None:
    landing = tmp_path / "landing"
    shutil.copytree(SAMPLE_LANDING / ORDERS_TOPIC, landing / "shop.sales.orders")
    result = sync(tmp_path, landing)
    written = {p.relative_to(tmp_path).as_posix() for p in result.scaffolded}
    assert "models/staging/postgres/stg_postgres__shop_sales_orders.sql" in written
    assert "models/current/postgres/postgres__shop_sales_orders.sql" in written
    models = yaml.safe_load(
        (tmp_path / "models/staging/postgres/_stg_postgres__shop_sales_orders.yml").read_text()
    )["models"]
    metas = {m["name"]: m["config"]["meta"] for m in models}
    assert metas["stg_postgres__shop_sales_orders"] == {
        "cdc_topic": "shop.sales.orders",
        "cdc_layer": "staging",
    }
    current = tmp_path / "models/current/postgres"
    state_sql = (current / "postgres__shop_sales_orders__state.sql").read_text()
    assert "unique_key=['order_id'], cdc_delete_markers=true" in state_sql
    view_sql = (current / "postgres__shop_sales_orders.sql").read_text()
    assert "ref('postgres__shop_sales_orders__state')" in view_sql
    assert "materialized='view'" in view_sql
    again = sync(tmp_path, landing)
    assert again.scaffolded == [] and not again.generated_changed


def test_history_true_scaffolds_a_history_model_once(tmp_path: Path) -> None:
    """`history: true` in topic.yml adds the SCD type 2 model (named after
    the current-state view, documented column by column); a topic that was
    synced before gets it
    at the next sync; an edited history model is never rewritten; a wrong
    value stops sync naming the file; MongoDB topics are warned about."""
    landing = tmp_path / "landing"
    shutil.copytree(SAMPLE_LANDING / ORDERS_TOPIC, landing / "shop.sales.orders")
    shutil.copytree(SAMPLE_LANDING / "mongo2.shop.customers", landing / "mongo2.shop.customers")
    first = sync(tmp_path, landing)
    assert not any("history" in p.parts for p in first.scaffolded)
    for topic in ("shop.sales.orders", "mongo2.shop.customers"):
        (landing / topic / "topic.yml").write_text("history: true\n", encoding="utf-8")
    second = sync(tmp_path, landing)
    folder = tmp_path / "models/history/postgres"
    assert sorted(p.relative_to(folder).as_posix() for p in second.scaffolded) == [
        "_postgres__shop_sales_orders__history.yml",
        "postgres__shop_sales_orders__history.sql",
    ]
    sql = (folder / "postgres__shop_sales_orders__history.sql").read_text()
    assert "config(unique_key=['order_id', 'valid_from_position'])" in sql
    assert "ref('stg_postgres__shop_sales_orders')" in sql
    assert "cdc_history('changes', ['order_id'])" in sql
    (model,) = yaml.safe_load((folder / "_postgres__shop_sales_orders__history.yml").read_text())[
        "models"
    ]
    assert model["config"]["meta"] == {"cdc_topic": "shop.sales.orders", "cdc_layer": "history"}
    columns = {c["name"]: c for c in model["columns"]}
    assert {"order_id", "_cdc_position", "valid_from_position", "is_current"} <= set(columns)
    assert all(c["description"] for c in columns.values())
    assert second.warnings == [
        "mongo2.shop.customers: history: true ignored: MongoDB topics have no history"
        " model (documents are replayed, not merged)"
    ]
    (folder / "postgres__shop_sales_orders__history.sql").write_text(sql + "-- mine\n")
    assert sync(tmp_path, landing).scaffolded == []
    assert (folder / "postgres__shop_sales_orders__history.sql").read_text().endswith("mine\n")
    (landing / "shop.sales.orders" / "topic.yml").write_text("history: yes please\n")
    with pytest.raises(SpecError, match=r"shop.sales.orders/topic.yml: history is 'yes please'"):
        sync(tmp_path, landing)


def test_upgrade_turns_old_current_models_into_state_table_and_view(tmp_path: Path) -> None:
    """A current model scaffolded before delete markers (one incremental
    table, deletes removing rows) becomes the __state table + view pair,
    its properties kept on the view and copied to the table."""
    landing = tmp_path / "landing"
    shutil.copytree(SAMPLE_LANDING / ORDERS_TOPIC, landing / "shop.sales.orders")
    sync(tmp_path, landing)
    current = tmp_path / "models/current/postgres"
    (current / "postgres__shop_sales_orders__state.sql").unlink()
    old_sql = (
        "{{ config(unique_key=['order_id']) }}\nwith changes as (select * from"
        " {{ ref('stg_postgres__shop_sales_orders') }}),\nfinal as ("
        "{{ cdc_current_state('changes', ['order_id']) }})\nselect * from final\n"
    )
    (current / "postgres__shop_sales_orders.sql").write_text(old_sql)
    properties = current / "_postgres__shop_sales_orders.yml"
    loaded = yaml.safe_load(properties.read_text())
    view_entry = next(m for m in loaded["models"] if m["name"] == "postgres__shop_sales_orders")
    view_entry["description"] = "Orders, as analysts know them."
    properties.write_text(yaml.safe_dump({"version": 2, "models": [view_entry]}))
    assert upgrade_current_models(tmp_path) == ["postgres__shop_sales_orders"]
    state_sql = (current / "postgres__shop_sales_orders__state.sql").read_text()
    assert "cdc_delete_markers=true" in state_sql
    assert "ref('stg_postgres__shop_sales_orders')" in state_sql
    assert "cdc_current_view" in (current / "postgres__shop_sales_orders.sql").read_text()
    models = {m["name"]: m for m in yaml.safe_load(properties.read_text())["models"]}
    assert models["postgres__shop_sales_orders"]["description"].startswith("Orders, as")
    assert models["postgres__shop_sales_orders__state"]["config"]["meta"]["cdc_layer"] == "state"
    assert upgrade_current_models(tmp_path) == []  # idempotent


def _model_names(project: Path) -> list[str]:
    names = []
    for path in sorted((project / "models").rglob("*.yml")):
        names += [m["name"] for m in (yaml.safe_load(path.read_text()) or {}).get("models") or []]
    return names


def test_same_table_from_two_servers_gets_distinct_models(tmp_path: Path) -> None:
    """prod.tpcch.customer next to postgres.tpcch.customer: one model set each."""
    landing = tmp_path / "landing"
    for topic in ("prod.tpcch.customer", "postgres.tpcch.customer"):
        shutil.copytree(SAMPLE_LANDING / "postgres.tpcch.customer", landing / topic)
    sync(tmp_path, landing)
    names = _model_names(tmp_path)
    assert len(names) == len(set(names))
    assert {"postgres__prod_tpcch_customer", "postgres__postgres_tpcch_customer"} <= set(names)
    sources = yaml.safe_load(
        (tmp_path / "models/staging/postgres/_postgres__sources.yml").read_text()
    )
    tables = [t["name"] for t in sources["sources"][0]["tables"]]
    assert tables == ["postgres_tpcch_customer", "prod_tpcch_customer"]


def test_reformatted_sources_file_survives_the_next_sync(tmp_path: Path) -> None:
    landing = tmp_path / "landing"
    shutil.copytree(SAMPLE_LANDING / ORDERS_TOPIC, landing / ORDERS_TOPIC)
    sync(tmp_path, landing)
    sources = tmp_path / "models/staging/postgres/_postgres__sources.yml"
    loaded = yaml.safe_load(sources.read_text())
    # the user re-indents the file (4 spaces, no indented sequences) and comments it
    sources.write_text("# our landing\n" + yaml.safe_dump(loaded, indent=4, sort_keys=False))
    shutil.copytree(SAMPLE_LANDING / "shop.public.coupons", landing / "shop.public.coupons")
    sync(tmp_path, landing)
    text = sources.read_text()
    assert text.startswith("# our landing\n")
    tables = [t["name"] for t in yaml.safe_load(text)["sources"][0]["tables"]]
    assert tables == ["shop_public_orders", "shop_public_coupons"]
    names = _model_names(tmp_path)
    assert "stg_postgres__shop_public_coupons" in names and len(names) == len(set(names))


def test_sync_fails_naming_the_file_that_would_break_the_project(tmp_path: Path) -> None:
    landing = tmp_path / "landing"
    shutil.copytree(SAMPLE_LANDING / ORDERS_TOPIC, landing / ORDERS_TOPIC)
    sync(tmp_path, landing)
    broken = tmp_path / "models/current/postgres/_extra.yml"
    broken.write_text("version: 2\nmodels:\n  - name: postgres__shop_public_orders\n")
    with pytest.raises(ProjectError, match="declared in .*_extra.yml too"):
        sync(tmp_path, landing)
    broken.write_text("version: 2\nmodels: [\n")
    with pytest.raises(ProjectError, match="_extra.yml: not valid YAML"):
        sync(tmp_path, landing)


def test_topic_without_schema_blocks_is_reported(tmp_path: Path) -> None:
    landing = tmp_path / "landing"
    (landing / "bare").mkdir(parents=True)
    (landing / "bare" / "a.jsonl").write_text('{"op": "c", "after": {"id": 1}}\n')
    result = sync(tmp_path, landing)
    reason = result.skipped["bare"]
    assert "schema block" in reason and "schema_from" in reason and "value-schema.json" in reason


def test_topic_of_an_unsupported_connector_is_skipped_not_half_written(tmp_path: Path) -> None:
    landing = tmp_path / "landing"
    source = SAMPLE_LANDING / "dbserver1.inventory.customers" / "rw-mysql-customers-schema.jsonl"
    event = json.loads(source.read_text().splitlines()[0])
    event["payload"]["source"]["connector"] = "oracle"
    (landing / "oracle1.HR.EMP").mkdir(parents=True)
    (landing / "oracle1.HR.EMP" / "a.jsonl").write_text(json.dumps(event) + "\n")
    shutil.copytree(source.parent, landing / source.parent.name)
    result = sync(tmp_path, landing)
    reason = result.skipped["oracle1.HR.EMP"]
    assert reason.startswith("unsupported connector 'oracle' (supported: cdl, debezium,")
    assert "not landed" in reason
    assert list(result.specs) == ["dbserver1.inventory.customers"]
    assert "oracle" not in (tmp_path / GENERATED_MACRO).read_text()


def test_topic_without_schema_blocks_takes_a_given_schema(tmp_path: Path) -> None:
    landing = tmp_path / "landing"
    bare = SAMPLE_LANDING / "noschema.inventory.customers"
    shutil.copytree(bare, landing / "borrowed")  # topic.yml: schema_from the schema topic
    shutil.copytree(
        SAMPLE_LANDING / "dbserver1.inventory.customers", landing / "dbserver1.inventory.customers"
    )
    (landing / "filed").mkdir()
    shutil.copy(bare / "rw-mysql-customers-noschema.jsonl", landing / "filed")
    (landing / "filed" / "topic.yml").write_text("primary_key: id\n")
    first = SAMPLE_LANDING / "dbserver1.inventory.customers" / "rw-mysql-customers-schema.jsonl"
    event = json.loads(first.read_text().splitlines()[0])
    (landing / "filed" / "value-schema.json").write_text(json.dumps(event["schema"]))
    result = sync(tmp_path, landing)
    assert not result.skipped
    schema = result.specs["dbserver1.inventory.customers"].value_schema
    assert result.specs["borrowed"].value_schema == schema
    assert result.specs["filed"].value_schema == parse_schema(event["schema"])
    assert result.specs["filed"].connector == result.specs["borrowed"].connector == "mysql"
    assert result.specs["filed"].primary_key == ("id",)


def test_decimal_format_is_read_from_topic_yml_and_checked(tmp_path: Path) -> None:
    topic = "sqlserver_transaction_log_source.dbo.full_types_1"
    landing = tmp_path / "landing"
    shutil.copytree(SAMPLE_LANDING / topic, landing / topic)
    assert sync(tmp_path, landing).specs[topic].decimal_format == "numeric"
    config = landing / topic / "topic.yml"
    config.write_text(config.read_text().replace("decimal_format: numeric", "decimal_format: hex"))
    with pytest.raises(SpecError, match=r"topic.yml: decimal_format is 'hex'.*base64, numeric"):
        sync(tmp_path, landing)


def _full_parse(topic_dir: Path) -> tuple[ConnectSchema | None, ConnectSchema | None]:
    """Independent reference for the scan: parse every event whole, merge
    every readable block by the same version rule (schema_evolution.evolve,
    tested on its own in test_schema_versions)."""
    value = key = None
    for path in sorted(topic_dir.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):
                continue
            texts = [(record, None)]
            if isinstance(record, dict) and "partition" in record and "offset" in record:
                texts = [(record.get("payload"), "v"), (record.get("key"), "k")]
            for text, kind in texts:
                try:
                    message = json.loads(text) if isinstance(text, str) else text
                except (ValueError, RecursionError):
                    continue
                if not (isinstance(message, dict) and isinstance(message.get("schema"), dict)):
                    continue
                try:
                    block = parse_schema(message["schema"])
                except SchemaError:
                    continue  # an unreadable block: its records are quarantined
                if kind == "k":
                    key = block if key is None else merge_schemas(key, block)
                else:
                    value = evolve(value, block, QUARANTINE)[0]
    return value, key


@pytest.mark.parametrize("topic", sorted(p.name for p in SAMPLE_LANDING.iterdir() if p.is_dir()))
def test_text_cut_scan_matches_a_full_parse(topic: str) -> None:
    collected = TopicSchemas(topic)
    for item in topic_files(SAMPLE_LANDING / topic):
        scan_file(item.path, item.is_kcat, collected)
    value, key = _full_parse(SAMPLE_LANDING / topic)
    assert collected.value_schema == value
    assert collected.key_schema == key
    assert (value is None) == (topic in WITHOUT_SCHEMA_BLOCKS)
    assert collected.connector == CONNECTORS.get(topic, "postgresql")


# topics whose events carry no schema blocks ("schema": null, or bare values)
WITHOUT_SCHEMA_BLOCKS = {
    "noschema.inventory.customers",
    "mongodb_bigdata_test.bigdata_test.sync_test_table",
    "server1",
    "server1.transaction",
    "RW_CDC_0",
    "RW_CDC_1001.transaction",
    "mysql_binlog_source.column_type_test.full_types",
    "sqlserver_transaction_log_source.dbo.full_types_1",
}
CONNECTORS = {
    "mysql_binlog_source.column_type_test.full_types": "mysql",
    "sqlserver_transaction_log_source.dbo.full_types_1": "sqlserver",
    "mongo2.shop.customers": "mongodb",
    "fullfillment1.inventory.inventory": "mongodb",
    "mongodb_bigdata_test.bigdata_test.sync_test_table": "mongodb",
    "rw_mongo.inventory.customers": "mongodb",
    "server1.testDB.dbo.customers": "sqlserver",
    "server1.testDB.dbo.tablea": "sqlserver",
    "server1": "sqlserver",
    "server1.transaction": "debezium",
    "RW_CDC_0": "mysql",
    "mysql_cdc_1.mysql_cdc.mysql_cdc_e2e_source_table": "mysql",
    "RW_CDC_1001.transaction": "debezium",
    "dbserver1.inventory.customers": "mysql",
    "noschema.inventory.customers": "mysql",
    "shopdb.shop.accounts": "mysql",
    "cdl_json.public.ct_pg2hudi": "cdl",
    "cdl_debezium.public.ct_pg2hudi": "cdl",
}


def test_sync_scans_only_what_is_new(tmp_path: Path, project: Path) -> None:
    landing = tmp_path / "landing"
    shutil.copytree(SAMPLE_LANDING / ORDERS_TOPIC, landing / ORDERS_TOPIC)
    state = tmp_path / "state"
    first = sync(tmp_path, landing, state_dir=state)
    files = (landing / ORDERS_TOPIC).glob("*.jsonl")
    assert first.bytes_scanned == sum(path.stat().st_size for path in files)
    again = sync(tmp_path, landing, state_dir=state)
    assert (again.bytes_scanned, again.files_unchanged) == (0, 1)
    line = (SAMPLE_LANDING / ORDERS_TOPIC / "orders-kcat.jsonl").read_text().splitlines()[0]
    with (landing / ORDERS_TOPIC / "orders-kcat.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")
    grown = sync(tmp_path, landing, state_dir=state)
    assert grown.bytes_scanned == len(line.encode()) + 1
    assert grown.specs[ORDERS_TOPIC] == first.specs[ORDERS_TOPIC]
