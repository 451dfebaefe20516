"""Workloads run on a real PostgreSQL while Debezium captures it
(real_producer.py): each a schema, the rows the snapshot reads, and the
transactions streamed after it. The expected result is never computed
here: it is the database's own tables, read at the end.

``COMPACT`` is the suite's case (tests/e2e/test_real_postgres.py): the
four defects issue 70 found with the real producer, each made once,
among ordinary changes on a table of one key and one of a composite key."""

from __future__ import annotations

from postgres_cluster import Cluster
from real_producer import MARKER_TABLE

# a TOASTed text: large and hardly compressible, so PostgreSQL stores it
# out of line, and an update leaving it alone sends Debezium's placeholder
TOASTED = "(select string_agg(md5(i::text || {seed}), '') from generate_series(1, 400) as i)"

SCHEMA = f"""
create table {MARKER_TABLE} (n serial primary key, at timestamptz);
create table customers (
    id int primary key,
    name text,
    note text,
    balance numeric(38, 10),
    ratio numeric,
    born date,
    seen_at timestamptz
);
create table order_lines (
    order_id int,
    line int,
    qty int,
    price numeric(12, 2),
    primary key (order_id, line)
);
insert into customers
select i, 'customer ' || i, {TOASTED.format(seed="i")}, i * 1000.5, i / 7.0,
    date '1960-01-01' + i * 400, timestamptz '2030-01-01 00:00:00+00' + i * interval '1 day'
from generate_series(1, 8) as i;
insert into order_lines select o, l, o * l, o + l / 100.0
from generate_series(1, 4) as o, generate_series(1, 3) as l;
"""


def compact_workload(cluster: Cluster) -> None:
    """Streamed changes: each of issue 70's four defects once (a
    numeric(38,10) past 64 bits, a variable-scale numeric past
    decimal(38,18), a primary-key change leaving a TOASTed value alone,
    deletes with their tombstones), among ordinary inserts, updates,
    deletes, a delete and re-insert of one key in one transaction, a
    multi-table transaction and a composite-key change."""
    statements = [
        # an update leaving the TOASTed note alone: the placeholder
        "update customers set name = 'renamed' where id = 1;",
        # the primary key changed, the TOASTed note left alone
        "update customers set id = 1006 where id = 2;",
        # a key change and an update of the new key in one transaction
        "begin; update customers set id = 1007 where id = 3;"
        " update customers set name = 'moved' where id = 1007; commit;",
        # deletes, each followed by its tombstone
        "delete from customers where id = 4;",
        "delete from order_lines where order_id = 1 and line = 2;",
        # decimals past 64 bits and at the 38-digit boundary
        "update customers set balance = 12345678901234567890.0123456789 where id = 7;",
        "update customers set balance = -9999999999999999999999999999.9999999999 where id = 6;",
        "insert into customers (id, name, balance, ratio) values"
        " (20, 'big', 1234567890123456789012345678.0000000001, 2.5);",
        # variable-scale numerics that decimal(38,18) cannot hold exactly
        "update customers set ratio = 3.14159265358979323846264338327950288 where id = 7;",
        "update customers set ratio = 123456789012345678901234.5 where id = 8;",
        "insert into customers (id, name, ratio) values (21, 'fits', -0.000000000000000001);",
        # delete and re-insert of one key in one transaction
        "begin; delete from customers where id = 5;"
        " insert into customers (id, name, note, balance)"
        f" values (5, 'again', {TOASTED.format(seed=99)}, 1.5); commit;",
        # a multi-table transaction and a composite-key change
        "begin; update order_lines set qty = qty + 100 where order_id = 2;"
        " update customers set seen_at = now() where id = 6;"
        " update order_lines set line = 9 where order_id = 3 and line = 1; commit;",
        "insert into order_lines values (5, 1, 7, 9.99);",
        "update customers set name = 'moved too' where id = 1006;",
        "update customers set note = null where id = 8;",
    ]
    for statement in statements:
        cluster.sql(statement)
