"""What sync reads of a topic landed from a Kafka-source table: its newest
batch's values and keys, read back from its raw table through Spark (its
records are in no file sync could scan).

One record for each distinct schema text of value and key (the text
before the JsonConverter's `"payload"`) stands for the others, with their
count: a schema version is learnt from one of its records, and a batch of
millions sends a handful of rows to Python. Documents (a MongoDB topic's
values, whose fields are learnt from every value) are read one by one.
Records the landing could not read (``landing_error``) are left to the
base model's quarantine.
"""

from __future__ import annotations

from python_helpers.engine.sql_engine import SqlEngine
from python_helpers.land.raw_tables import RAW_SCHEMA
from python_helpers.naming import raw_table_name

Records = list[tuple[str | None, str | None, int]]


def _schema_text(column: str) -> str:
    return f"substring_index({column}, '\"payload\"', 1)"


def batch_records(engine: SqlEngine, topic: str, documents: bool = False) -> Records:
    """(value, key, how many records it stands for) of ``topic``'s newest
    landing batch."""
    table = f"{RAW_SCHEMA}.{raw_table_name(topic)}"
    newest = f"landing_batch = (select max(landing_batch) from {table})"
    if documents:
        query = (
            f"select kafka_value as value, kafka_key as key, 1 as records from {table}"
            f" where {newest} and landing_error is null"
        )
    else:
        query = (
            "select max_by(kafka_value, kafka_offset) as value,"
            " max_by(kafka_key, kafka_offset) as key, count(*) as records"
            f" from {table} where {newest} and landing_error is null"
            f" group by {_schema_text('kafka_value')}, {_schema_text('kafka_key')}"
        )
    return [(row["value"], row["key"], int(row["records"])) for row in engine.sql(query)]
