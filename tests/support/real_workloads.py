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
        # PostgreSQL's infinities: Debezium's sentinels, the bounds of Spark's range
        "update customers set born = 'infinity', seen_at = '-infinity' where id = 8;",
        "update customers set born = '-infinity', seen_at = 'infinity' where id = 21;",
        "update customers set name = 'moved too' where id = 1006;",
        "update customers set note = null where id = 8;",
    ]
    for statement in statements:
        cluster.sql(statement)


# the lane's tables beside the compact ones: one column per PostgreSQL type
# a schema commonly holds, a table without a primary key, one with
# REPLICA IDENTITY FULL, and a partitioned table published through its root
LANE_SCHEMA = """
create type mood as enum ('sad', 'ok', 'happy');
create table kinds (
    id int primary key,
    c_smallint smallint, c_bigint bigint, c_real real, c_double double precision,
    c_numeric_5_2 numeric(5, 2), c_money money, c_char char(4), c_varchar varchar(20),
    c_bytea bytea, c_bool boolean, c_date date, c_time time, c_timetz timetz,
    c_ts3 timestamp(3), c_ts6 timestamp(6), c_tstz timestamptz, c_interval interval,
    c_uuid uuid, c_json json, c_jsonb jsonb, c_xml xml, c_inet inet, c_cidr cidr,
    c_macaddr macaddr, c_bit bit(8), c_varbit bit varying(16), c_ints int[],
    c_texts text[], c_mood mood, c_point point, c_int4range int4range, c_tsrange tsrange,
    c_oid oid
);
create table keyless (a int, b text);
alter table keyless replica identity full;
create table full_identity (id int primary key, body text, n int);
alter table full_identity replica identity full;
create table measures (id int, at date, v numeric(10, 3), primary key (id, at))
    partition by range (at);
create table measures_2025 partition of measures for values from ('2025-01-01') to ('2026-01-01');
create table measures_2026 partition of measures for values from ('2026-01-01') to ('2027-01-01');
insert into full_identity
select i, TOASTED_TEXT, i from generate_series(1, 4) as i;
insert into measures values (1, '2025-03-01', 1.5), (2, '2026-03-01', 2.25), (4, '2025-06-01', 4.5);
insert into keyless values (1, 'one'), (2, 'two');
insert into kinds (id, c_smallint, c_bigint, c_real, c_double, c_numeric_5_2, c_money, c_char,
    c_varchar, c_bytea, c_bool, c_date, c_time, c_timetz, c_ts3, c_ts6, c_tstz, c_interval,
    c_uuid, c_json, c_jsonb, c_xml, c_inet, c_cidr, c_macaddr, c_bit, c_varbit, c_ints, c_texts,
    c_mood, c_point, c_int4range, c_tsrange, c_oid)
values
    (1, -32768, 9223372036854775807, 1.5, 2.25, -999.99, 12.34, 'ab', 'héllo ✓',
     '\\x00ff10', true, '1969-07-20', '23:59:59.999999', '10:00:00+02', '1950-01-01 00:00:00.123',
     '2040-02-29 12:34:56.654321', '2038-01-19 03:14:08+00', '1 year 2 mons 3 days 04:05:06.5',
     'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": [1, 2]}', '{"b": {"c": null}}',
     '<a>x</a>', '192.168.0.1', '10.0.0.0/8', '08:00:2b:01:02:03', B'10100101', B'101',
     '{1,2,NULL}', '{"x","y z"}', 'happy', '(1.5,-2)', '[1,10)', '[2020-01-01,2021-01-01)', 42),
    (2, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
     null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
     null, null, null),
    (3, 0, -1, -0.0, 1e300, 0, -5, '', '', '\\x', false, 'infinity', '00:00:00', '00:00:00+00',
     '-infinity', 'infinity', '1901-12-13 20:45:52+00', '-3 days',
     '00000000-0000-0000-0000-000000000000',
     '[]', '[]', '', '::1', '::/0', 'ff:ff:ff:ff:ff:ff', B'00000000', B'', '{}', '{}', 'sad',
     '(0,0)', 'empty', '(,)', 0);
insert into kinds (id, c_date, c_ts3, c_ts6, c_tstz, c_bit, c_varbit)
values (5, '-infinity', 'infinity', '-infinity', 'infinity', B'10000000', B'1000000000000000'),
    (6, '0001-01-01', '0001-01-01 00:00:00', '9999-12-31 23:59:59.999999', '-infinity', B'00000001',
     B'1');
""".replace("TOASTED_TEXT", TOASTED.format(seed="i"))


def lane_workload(cluster: Cluster) -> None:
    """The compact workload, then: DDL mid-stream (a column added, an int
    widened to bigint), TRUNCATE and re-insert, updates and deletes on the
    keyless, REPLICA IDENTITY FULL and partitioned tables, and updates of
    the types table."""
    compact_workload(cluster)
    statements = [
        "alter table customers add column tier text;",
        "update customers set tier = 'gold' where id = 1;",
        "insert into customers (id, name, tier) values (30, 'after ddl', 'silver');",
        "alter table order_lines alter column qty type bigint;",
        "update order_lines set qty = 5000000000 where order_id = 2 and line = 1;",
        "truncate order_lines;",
        "insert into order_lines values (7, 1, 1, 0.01), (7, 2, 2, 0.02);",
        "update keyless set b = 'uno' where a = 1;",
        "delete from keyless where a = 2;",
        "update full_identity set n = n + 10 where id = 1;",
        "update full_identity set id = 40 where id = 2;",
        "delete from full_identity where id = 3;",
        "update measures set v = 9.875 where id = 1;",
        "insert into measures values (3, '2026-06-01', 3.125);",
        "delete from measures where id = 2;",
        "update kinds set c_varchar = 'changed', c_ints = '{7}' where id = 1;",
        "update kinds set c_numeric_5_2 = 1.01, c_tstz = now() where id = 2;",
        "insert into kinds (id, c_varchar) values (4, 'short-lived');",
        "delete from kinds where id = 4;",
    ]
    for statement in statements:
        cluster.sql(statement)
