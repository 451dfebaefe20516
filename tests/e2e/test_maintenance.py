"""Compaction on real Spark and Iceberg: a pass rewrites the data files that
have a delete and packs the small ones; a file past the small-file size with
no delete is left as it is (a pass costs what was written since the last one,
not the table's size), and no row changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from python_helpers.engine.sql_engine import SessionEngine
from python_helpers.run.maintenance import Policy, maintain

pytestmark = pytest.mark.spark

TABLE = "cdc_landing.maintenance_probe"


def _files(spark: Any) -> dict[str, int]:
    rows = spark.sql(f"select file_path, file_size_in_bytes from {TABLE}.data_files").collect()
    return {row.file_path: row.file_size_in_bytes for row in rows}


def _rows(spark: Any) -> list[tuple[int, str]]:
    return sorted((r.id, r.value) for r in spark.table(TABLE).collect())


@pytest.fixture()
def table(spark: Any) -> Any:
    spark.sql(f"drop table if exists {TABLE} purge")
    spark.sql(
        f"create table {TABLE} (id bigint, value string) using iceberg tblproperties"
        " ('format-version' = '2', 'write.delete.mode' = 'merge-on-read',"
        " 'write.update.mode' = 'merge-on-read', 'write.merge.mode' = 'merge-on-read',"
        " 'write.distribution-mode' = 'none')"
    )
    yield spark
    spark.sql(f"drop table if exists {TABLE} purge")


def _insert(spark: Any, first: int, count: int) -> None:
    spark.sql(
        f"insert into {TABLE} select /*+ coalesce(1) */ id, repeat(md5(cast(id as string)), 4)"
        f" from range({first}, {first + count})"
    )


def _maintain(spark: Any, small_file_bytes: int, state: Path) -> None:
    rules = Policy(compact_small_file_mb=small_file_bytes / 1024 / 1024)
    maintain(SessionEngine(spark), [TABLE], rules, state, force=True)


def _delete_paths(spark: Any) -> set[str]:
    return {r.file_path for r in spark.sql(f"select file_path from {TABLE}.delete_files").collect()}


def test_an_append_only_table_has_its_small_files_packed_and_a_large_one_kept(
    table: Any, tmp_path: Path
) -> None:
    spark = table
    _insert(spark, 0, 20_000)
    ((large, large_size),) = _files(spark).items()
    for first in (100_000, 100_010, 100_020):
        _insert(spark, first, 10)
    small = set(_files(spark)) - {large}
    assert len(small) == 3 and max(_files(spark)[f] for f in small) * 10 < large_size
    before = _rows(spark)
    _maintain(spark, large_size // 2, tmp_path)  # between the small files and the large one
    after = _files(spark)
    assert large in after  # not rewritten: the pass cost what was written since
    assert len(after) == 2 and not small & set(after)  # the three packed into one
    assert _rows(spark) == before


def test_a_table_with_deletes_has_its_large_file_rewritten_with_them_applied(
    table: Any, tmp_path: Path
) -> None:
    spark = table
    _insert(spark, 0, 20_000)
    ((large, large_size),) = _files(spark).items()
    _insert(spark, 100_000, 10)
    spark.sql(f"delete from {TABLE} where id < 5")  # the last commit before the pass
    assert len(_delete_paths(spark)) == 1
    before = _rows(spark)
    _maintain(spark, large_size // 2, tmp_path)
    assert large not in _files(spark) and len(_files(spark)) == 1
    assert _rows(spark) == before and len(before) == 20_005
    # issue 43: no delete file is left that no data file needs, the last
    # commit's included
    assert _delete_paths(spark) == set()


def test_a_merged_table_keeps_no_delete_file_after_compaction(table: Any, tmp_path: Path) -> None:
    """Six merges of updates (a state table's runs: a position-delete file
    each), then a pass: one data file, no delete file, the same rows."""
    spark = table
    _insert(spark, 0, 1_000)
    for run in range(6):
        spark.sql(
            f"merge into {TABLE} as t using (select id, 'run {run}' as value"
            f" from range({run * 10}, {run * 10 + 20})) as s on t.id = s.id"
            " when matched then update set t.value = s.value"
            " when not matched then insert *"
        )
    assert len(_delete_paths(spark)) == 6
    before = _rows(spark)
    _maintain(spark, 32 * 1024 * 1024, tmp_path)
    assert len(_files(spark)) == 1 and _delete_paths(spark) == set()
    assert _rows(spark) == before
