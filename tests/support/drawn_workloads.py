"""Workloads drawn by hypothesis for the real-producer lane
(tests/real/test_real_drawn.py): several tables, each a history of
transactions of inserts, updates of each column kind (numerics at full
precision and at the 64-bit and 38-digit bounds, negative; text empty,
unicode or TOASTed; timestamps before 1970 and after 2038, infinity),
updates leaving the TOASTed column alone, primary-key changes, deletes,
delete + re-insert of a key in one transaction, and transactions over two
tables. Each drawn statement is plain SQL run on the real database; the
expected result is the tables as PostgreSQL holds them afterwards."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

TABLES = 3

NUMERICS = st.one_of(
    st.decimals(min_value=-(10**28) + 1, max_value=10**28 - 1, places=10, allow_nan=False),
    st.sampled_from(
        [
            "9223372036854775807.0000000001",
            "-9223372036854775808.9999999999",
            "9999999999999999999999999999.9999999999",
            "-9999999999999999999999999999.9999999999",
            "0.0000000001",
            "0",
        ]
    ),
)
RATIOS = st.one_of(
    st.decimals(min_value=-(10**6), max_value=10**6, places=6, allow_nan=False),
    st.sampled_from(
        [
            "3.14159265358979323846264338327950288",
            "123456789012345678901234.5",
            "-0.000000000000000000001",
            "1e-30",
            "100000000000000000000",
        ]
    ),
)
TEXTS = st.one_of(
    st.just(""),
    st.text(alphabet=st.characters(exclude_categories=("Cs", "Cc")), max_size=30),
    st.sampled_from(["café ✓ 日本", "a'b\"c\\d", "${x}", "{{ y }}"]),
)
TIMES = st.one_of(
    st.datetimes(min_value=__import__("datetime").datetime(1901, 1, 1)).map(
        lambda t: t.strftime("%Y-%m-%d %H:%M:%S.%f") + "+00"
    ),
    st.sampled_from(["infinity", "-infinity", "1969-12-31 23:59:59.999999+00",
                     "2038-01-19 03:14:08+00", "2100-02-28 00:00:00+00"]),
)  # fmt: skip


def literal(value: object) -> str:
    """A SQL literal of a drawn value (text dollar-quoted: any character)."""
    if value is None:
        return "null"
    text = str(value)
    tag = "$v$"
    while tag in text:
        tag = tag[:-1] + "v$"
    return f"{tag}{text}{tag}"


def toasted(seed: int) -> str:
    """A TOASTed text: large, hardly compressible (stored out of line)."""
    return f"(select string_agg(md5(i::text || '{seed}'), '') from generate_series(1, 400) as i)"


@dataclass(frozen=True)
class Step:
    """One drawn change: a statement template naming table `T` and an id."""

    kind: str
    values: tuple[object, ...] = ()


STEPS = st.one_of(
    st.tuples(st.just("insert"), NUMERICS, RATIOS, TEXTS, TIMES, st.integers(0, 99)),
    st.tuples(st.just("amount"), NUMERICS),
    st.tuples(st.just("ratio"), RATIOS),
    st.tuples(st.just("name"), TEXTS),
    st.tuples(st.just("seen"), TIMES),
    st.tuples(st.just("note"), st.integers(0, 99)),
    st.tuples(st.just("rekey")),
    st.tuples(st.just("delete")),
    st.tuples(st.just("reinsert"), TEXTS),
).map(lambda drawn: Step(drawn[0], tuple(drawn[1:])))
# a transaction: steps on one table, or on two (table index, step index)
TRANSACTIONS = st.lists(
    st.lists(st.tuples(st.integers(0, TABLES - 1), st.integers(0, 50), STEPS), min_size=1,
             max_size=3),
    min_size=5,
    max_size=14,
)  # fmt: skip


def schema() -> str:
    return "".join(
        f"create table drawn_{n} (id int primary key, name text, note text,"
        f" amount numeric(38, 10), ratio numeric, seen timestamptz);\n"
        f"insert into drawn_{n} select i, 'row ' || i, {toasted(n)}, i, i / 3.0, null"
        " from generate_series(1, 4) as i;\n"
        for n in range(TABLES)
    )


def statements(transactions: list[list[tuple[int, int, Step]]]) -> list[str]:
    """The drawn transactions as SQL scripts, one per transaction. A step
    names a row by its index among the table's rows (in key order, modulo
    their count), so every drawn step applies to a row that exists."""
    scripts = []
    next_id = 1000
    for transaction in transactions:
        parts = ["begin;"]
        for table, index, step in transaction:
            name = f"drawn_{table}"
            row = (
                f"(select id from {name} order by id offset"
                f" {index} % greatest((select count(*) from {name}), 1) limit 1)"
            )
            values = step.values
            if step.kind == "insert":
                next_id += 1
                amount, ratio, text, seen, seed = values
                note = toasted(int(str(seed)))
                parts.append(
                    f"insert into {name} values ({next_id}, {literal(text)}, {note},"
                    f" {literal(amount)}::numeric, {literal(ratio)}::numeric,"
                    f" {literal(seen)}::timestamptz);"
                )
            elif step.kind in ("amount", "ratio", "name", "seen"):
                kinds = {"amount": "numeric", "ratio": "numeric", "name": "text",
                         "seen": "timestamptz"}  # fmt: skip
                parts.append(
                    f"update {name} set {step.kind} = {literal(values[0])}::{kinds[step.kind]}"
                    f" where id = {row};"
                )
            elif step.kind == "note":
                note = toasted(int(str(values[0])))
                parts.append(f"update {name} set note = {note} where id = {row};")
            elif step.kind == "rekey":
                next_id += 1
                parts.append(f"update {name} set id = {next_id} where id = {row};")
            elif step.kind == "delete":
                parts.append(f"delete from {name} where id = {row};")
            else:  # delete and re-insert of one key in one transaction
                parts.append(
                    f"do $do$ declare k int; begin delete from {name} where id = {row}"
                    f" returning id into k; if k is not null then insert into {name} (id, name)"
                    f" values (k, {literal(values[0])}); end if; end $do$;"
                )
        parts.append("commit;")
        scripts.append("\n".join(parts))
    return scripts
