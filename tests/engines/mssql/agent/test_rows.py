"""The SQL Server loader's rows: counts, types and the TPC-C rules, without a server."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from decimal import Decimal

import pytest

from bench_gui.agent import tpcc_rand
from bench_gui.engines.mssql.agent import loader, rows, schema
from bench_gui.wire.tpcc_tables import ITEMS


@pytest.fixture(scope="module")
def gen() -> rows.RowGen:
    return rows.RowGen(seed=3, now=dt.datetime(2026, 11, 23, 12, 0, 0, 123456))


def _check_types(table: str, row: tuple[object, ...], nullable: set[str] = frozenset()) -> None:
    columns = rows.COLUMNS[table]
    assert len(row) == len(columns), table
    for (name, kind), value in zip(columns, row, strict=True):
        if value is None:
            assert name in nullable, f"{table}.{name} is NULL"
            continue
        if kind[0] == "int":
            assert type(value) is int, (name, value)
        elif kind[0] == "char":
            assert isinstance(value, str), (name, value)
            assert len(value) <= kind[1], (name, value)
        elif kind[0] == "dec":
            assert isinstance(value, Decimal), (name, value)
            assert -value.as_tuple().exponent <= kind[2], (name, value)
            assert len(value.as_tuple().digits) <= kind[1], (name, value)
        else:
            assert isinstance(value, dt.datetime), (name, value)
            assert value.microsecond == 0, (name, value)


def test_items(gen: rows.RowGen) -> None:
    items = list(gen.item())
    assert len(items) == ITEMS
    assert [r[0] for r in items[:3]] == [1, 2, 3]
    for row in items[:2000]:
        _check_types("item", row)
        assert Decimal("1.00") <= row[3] <= Decimal("100.00")
        assert 26 <= len(row[4]) <= 50
        assert 14 <= len(row[2]) <= 24
    original = sum("ORIGINAL" in r[4] for r in items) / len(items)
    assert 0.08 < original < 0.12


def test_one_warehouse_has_the_spec_counts(gen: rows.RowGen) -> None:
    w = 2
    stock = list(gen.stock(w))
    assert len(stock) == 100_000
    assert {r[1] for r in stock} == {w}
    assert [r[0] for r in stock] == list(range(1, 100_001))
    _check_types("stock", stock[0])
    assert all(10 <= r[2] <= 100 for r in stock[:5000])
    districts = list(gen.district(w))
    assert [r[0] for r in districts] == list(range(1, 11))
    assert all(r[-1] == 3001 and r[-2] == Decimal("30000.00") for r in districts)
    _check_types("district", districts[0])
    warehouse = gen.warehouse(w)
    _check_types("warehouse", warehouse)
    assert warehouse[-1] == Decimal("300000.00") == sum(r[-2] for r in districts)

    customers = history = orders = new_orders = lines = 0
    for d in range(1, 11):
        cust = list(gen.customer(w, d))
        customers += len(cust)
        history += len(list(gen.history(w, d)))
        o, n, ol = gen.orders(w, d)
        orders, new_orders, lines = orders + len(o), new_orders + len(n), lines + len(ol)
        # Each order's lines match its o_ol_cnt; orders from 2101 on are undelivered.
        counts = Counter(r[0] for r in ol)
        assert all(counts[r[0]] == r[6] and 5 <= r[6] <= 15 for r in o)
        assert sorted(r[3] for r in o) == list(range(1, 3001))  # a permutation of customers
        assert [r[0] for r in n] == list(range(2101, 3001))
        assert all((r[5] is None) == (r[0] >= 2101) for r in o)
        assert all((r[6] is None) == (r[0] >= 2101) for r in ol)
        assert all((r[8] == 0) == (r[0] < 2101) for r in ol)
        _check_types("orders", o[-1], {"o_carrier_id"})
        _check_types("order_line", ol[-1], {"ol_delivery_d"})
        _check_types("new_order", n[0])
        _check_types("customer", cust[0])
    assert (customers, history, orders, new_orders) == (30_000, 30_000, 30_000, 9_000)
    assert 5 * 30_000 <= lines <= 15 * 30_000


def test_customer_last_names_and_credit(gen: rows.RowGen) -> None:
    cust = list(gen.customer(1, 1))
    last = [r[5] for r in cust]
    assert last[:1000] == list(tpcc_rand.LAST_NAMES)
    assert set(last[1000:]) <= set(tpcc_rand.LAST_NAMES)
    bad = sum(r[13] == "BC" for r in cust) / len(cust)
    assert 0.07 < bad < 0.13
    assert all(300 <= len(r[-1]) <= 500 for r in cust)


def test_insert_statements_cover_every_column() -> None:
    for table in schema.TABLES:
        sql = schema.insert_sql(table)
        assert sql.count("?") == len(rows.COLUMNS[table])
        for name, _kind in rows.COLUMNS[table]:
            assert name in schema.TABLE_DDL[table], (table, name)
    with pytest.raises(ValueError, match="no TPROC-C table named 'itme'"):
        schema.insert_sql("itme")


def test_every_column_is_bound_with_an_explicit_type() -> None:
    """fast_executemany must not guess from the first row (a NULL there breaks later rows)."""
    for table in schema.TABLES:
        sizes = loader.input_sizes(table)
        assert len(sizes) == len(rows.COLUMNS[table])
        for (_name, kind), (_sql_type, size, digits) in zip(
            rows.COLUMNS[table], sizes, strict=True
        ):
            if kind[0] in ("char", "dec"):
                assert size == kind[1]
            if kind[0] == "dec":
                assert digits == kind[2]
    assert set(loader.WAREHOUSE_TABLES) | {"item"} == set(schema.TABLES)
    assert loader.WAREHOUSE_TABLES[-1] == "warehouse"  # a committed warehouse row: all there
