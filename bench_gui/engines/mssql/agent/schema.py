"""TPROC-C schema on SQL Server, as HammerDB builds it (src/mssqlserver/mssqlsoltp.tcl).

HammerDB's disk-based layout (the tables, keys and lock options; the transactions are ours
unless the plan asks for the hammerdb profile, :mod:`bench_gui.agent.profiles`): tables that the
load fills in key order are created with their clustered primary key (warehouse, district,
item, stock); the others get their clustered index after the load (customer, new_order,
orders, order_line, history), plus the two secondary indexes (customer by last name, orders
by customer). Warehouse and district carry a padding column (4,000 and 6,000 bytes) so each
row sits on a page of its own: every New-Order and Payment updates them, and rows sharing a
page would contend on its latch. Lock escalation is off on every table, and the hot tables
refuse page or row locks exactly as HammerDB sets them.

Statements are plain T-SQL strings, one statement each (no ``GO``): the caller sends them one
at a time. The stored procedures are in :mod:`bench_gui.engines.mssql.agent.procedures`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from bench_gui.engines.mssql.agent import rows
from bench_gui.engines.mssql.shared.names import quote_name
from bench_gui.wire.tpcc_tables import TABLES

_LOCKS_ROW: Final = "ALLOW_ROW_LOCKS = ON, ALLOW_PAGE_LOCKS = OFF"
_LOCKS_PAGE: Final = "ALLOW_ROW_LOCKS = OFF, ALLOW_PAGE_LOCKS = ON"

TABLE_DDL: Final[dict[str, str]] = {
    "customer": (
        "CREATE TABLE dbo.customer (c_id int NOT NULL, c_d_id tinyint NOT NULL,"
        " c_w_id int NOT NULL, c_discount smallmoney NULL, c_credit_lim money NULL,"
        " c_last char(16) NULL, c_first char(16) NULL, c_credit char(2) NULL,"
        " c_balance money NULL, c_ytd_payment money NULL, c_payment_cnt smallint NULL,"
        " c_delivery_cnt smallint NULL, c_street_1 char(20) NULL, c_street_2 char(20) NULL,"
        " c_city char(20) NULL, c_state char(2) NULL, c_zip char(9) NULL,"
        " c_phone char(16) NULL, c_since datetime NULL, c_middle char(2) NULL,"
        " c_data char(500) NULL)"
    ),
    "district": (
        "CREATE TABLE dbo.district (d_id tinyint NOT NULL, d_w_id int NOT NULL,"
        " d_ytd money NOT NULL, d_next_o_id int NULL, d_tax smallmoney NULL,"
        " d_name char(10) NULL, d_street_1 char(20) NULL, d_street_2 char(20) NULL,"
        " d_city char(20) NULL, d_state char(2) NULL, d_zip char(9) NULL,"
        " padding char(6000) NOT NULL CONSTRAINT df_district_padding"
        " DEFAULT (REPLICATE('X', 6000)),"
        " CONSTRAINT pk_district PRIMARY KEY CLUSTERED (d_w_id ASC, d_id ASC)"
        f" WITH ({_LOCKS_ROW}))"
    ),
    "history": (
        "CREATE TABLE dbo.history (h_c_id int NULL, h_c_d_id tinyint NULL, h_c_w_id int NULL,"
        " h_d_id tinyint NULL, h_w_id int NULL, h_date datetime NULL, h_amount smallmoney NULL,"
        " h_data char(24) NULL)"
    ),
    "item": (
        "CREATE TABLE dbo.item (i_id int NOT NULL, i_name char(24) NULL, i_price smallmoney NULL,"
        " i_data char(50) NULL, i_im_id int NULL,"
        f" CONSTRAINT pk_item PRIMARY KEY CLUSTERED (i_id ASC) WITH ({_LOCKS_ROW}))"
    ),
    "new_order": (
        "CREATE TABLE dbo.new_order (no_o_id int NOT NULL, no_d_id tinyint NOT NULL,"
        " no_w_id int NOT NULL)"
    ),
    "orders": (
        "CREATE TABLE dbo.orders (o_id int NOT NULL, o_d_id tinyint NOT NULL,"
        " o_w_id int NOT NULL, o_c_id int NOT NULL, o_carrier_id tinyint NULL,"
        " o_ol_cnt tinyint NULL, o_all_local tinyint NULL, o_entry_d datetime NULL)"
    ),
    "order_line": (
        "CREATE TABLE dbo.order_line (ol_o_id int NOT NULL, ol_d_id tinyint NOT NULL,"
        " ol_w_id int NOT NULL, ol_number tinyint NOT NULL, ol_i_id int NULL,"
        " ol_delivery_d datetime NULL, ol_amount smallmoney NULL, ol_supply_w_id int NULL,"
        " ol_quantity smallint NULL, ol_dist_info char(24) NULL)"
    ),
    "stock": (
        "CREATE TABLE dbo.stock (s_i_id int NOT NULL, s_w_id int NOT NULL,"
        " s_quantity smallint NOT NULL, s_ytd int NOT NULL, s_order_cnt smallint NULL,"
        " s_remote_cnt smallint NULL, s_data char(50) NULL, "
        + ", ".join(f"s_dist_{i:02d} char(24) NULL" for i in range(1, 11))
        + ", CONSTRAINT pk_stock PRIMARY KEY CLUSTERED (s_w_id ASC, s_i_id ASC)"
        f" WITH ({_LOCKS_ROW}))"
    ),
    "warehouse": (
        "CREATE TABLE dbo.warehouse (w_id int NOT NULL, w_ytd money NOT NULL,"
        " w_tax smallmoney NOT NULL, w_name char(10) NULL, w_street_1 char(20) NULL,"
        " w_street_2 char(20) NULL, w_city char(20) NULL, w_state char(2) NULL,"
        " w_zip char(9) NULL,"
        " padding char(4000) NOT NULL CONSTRAINT df_warehouse_padding"
        " DEFAULT (REPLICATE('x', 4000)),"
        f" CONSTRAINT pk_warehouse PRIMARY KEY CLUSTERED (w_id ASC) WITH ({_LOCKS_ROW}))"
    ),
}

LOCK_ESCALATION_DDL: Final = tuple(
    f"ALTER TABLE dbo.{table} SET (LOCK_ESCALATION = DISABLE)" for table in TABLES
)


@dataclass(frozen=True)
class IndexDef:
    """One index built after the load: its name, table and the statement that builds it."""

    name: str
    table: str
    ddl: str


# Largest first, as the PostgreSQL build orders them; HammerDB's names and options.
INDEXES: Final[tuple[IndexDef, ...]] = (
    IndexDef(
        "order_line_i1",
        "order_line",
        "CREATE UNIQUE CLUSTERED INDEX order_line_i1 ON dbo.order_line"
        f" (ol_w_id ASC, ol_d_id ASC, ol_o_id ASC, ol_number ASC) WITH ({_LOCKS_PAGE})",
    ),
    IndexDef(
        "customer_i1",
        "customer",
        "CREATE UNIQUE CLUSTERED INDEX customer_i1 ON dbo.customer"
        f" (c_w_id ASC, c_d_id ASC, c_id ASC) WITH ({_LOCKS_ROW})",
    ),
    IndexDef(
        "customer_c_last",
        "customer",
        "CREATE NONCLUSTERED INDEX customer_c_last ON dbo.customer"
        f" (c_w_id ASC, c_d_id ASC, c_last ASC, c_first ASC, c_id ASC) WITH ({_LOCKS_ROW})",
    ),
    IndexDef(
        "orders_i1",
        "orders",
        "CREATE UNIQUE CLUSTERED INDEX orders_i1 ON dbo.orders"
        f" (o_w_id ASC, o_d_id ASC, o_id ASC) WITH ({_LOCKS_PAGE})",
    ),
    IndexDef(
        "orders_i2",
        "orders",
        "CREATE NONCLUSTERED INDEX orders_i2 ON dbo.orders"
        f" (o_w_id ASC, o_d_id ASC, o_c_id ASC, o_id ASC) WITH ({_LOCKS_PAGE})",
    ),
    IndexDef(
        "history_i1",
        "history",
        "CREATE CLUSTERED INDEX history_i1 ON dbo.history"
        " (h_c_w_id ASC, h_date ASC, h_c_d_id ASC, h_c_id ASC, h_amount ASC)",
    ),
    IndexDef(
        "new_order_i1",
        "new_order",
        "CREATE UNIQUE CLUSTERED INDEX new_order_i1 ON dbo.new_order"
        f" (no_w_id ASC, no_d_id ASC, no_o_id ASC) WITH ({_LOCKS_PAGE})",
    ),
    IndexDef(
        "district_d_id",
        "district",
        f"CREATE NONCLUSTERED INDEX district_d_id ON dbo.district (d_id ASC) WITH ({_LOCKS_ROW})",
    ),
)

DROP_TABLES: Final = tuple(f"DROP TABLE IF EXISTS dbo.{table}" for table in TABLES)

# One statement: which of our tables exist (the caller compares with TABLES).
TABLES_PRESENT_SQL: Final = (
    "SELECT t.name FROM sys.tables AS t WHERE t.schema_id = SCHEMA_ID(N'dbo') AND t.name IN ("
    + ", ".join(f"N'{table}'" for table in TABLES)
    + ")"
)
# Statistics after the load: HammerDB runs sp_updatestats.
UPDATE_STATISTICS_SQL: Final = "EXEC sp_updatestats"


def insert_sql(table: str) -> str:
    """The parameterised INSERT of one table's load rows (columns in :data:`rows.COLUMNS`)."""
    try:
        columns = rows.COLUMNS[table]
    except KeyError:
        raise ValueError(f"no TPROC-C table named {table!r}") from None
    names = ", ".join(name for name, _kind in columns)
    marks = ", ".join("?" for _ in columns)
    return f"INSERT INTO dbo.{table} ({names}) VALUES ({marks})"


def database_sql(database: str) -> tuple[str, str]:
    """(exists query, CREATE DATABASE) for ``database``; the name is checked, then bracketed."""
    name = quote_name(database)
    literal = database.replace("'", "''")
    return (f"SELECT DB_ID(N'{literal}')", f"CREATE DATABASE {name}")


def create_tables(execute: Callable[[str], Any]) -> None:
    """Create the nine tables (four with their clustered key) and switch off lock escalation.

    ``execute`` runs one statement (e.g. ``cursor.execute``) with autocommit on.
    """
    for table in TABLES:
        execute(TABLE_DDL[table])
    for statement in LOCK_ESCALATION_DDL:
        execute(statement)


def create_indexes(execute: Callable[[str], Any], on_done: Callable[[IndexDef], None]) -> None:
    """Build the indexes HammerDB adds after the load, one by one."""
    for index in INDEXES:
        execute(index.ddl)
        on_done(index)


def drop_tables(execute: Callable[[str], Any]) -> None:
    """Drop the nine tables that exist (the procedures go with procedures.drop_procedures)."""
    for statement in DROP_TABLES:
        execute(statement)


def all_statements() -> list[str]:
    """Every schema statement this module can send (for the syntax tests)."""
    return [
        *TABLE_DDL.values(),
        *LOCK_ESCALATION_DDL,
        *(index.ddl for index in INDEXES),
        *DROP_TABLES,
        TABLES_PRESENT_SQL,
        UPDATE_STATISTICS_SQL,
        *(insert_sql(table) for table in TABLES),
        *database_sql("tpcc"),
    ]
