"""TPROC-C schema on MariaDB/MySQL (InnoDB): tables, secondary indexes, status and removal.

The tables are created with their primary keys (InnoDB keeps rows in primary-key order, and
the loader writes them in that order, so the clustered index grows at its end); the two
secondary indexes HammerDB adds (customer by last name, orders by customer) are built after
the load. Column order matches PostgreSQL's, so the loader's rows
(:class:`bench_gui.agent.tpcc_data.DataGen`) load into either.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from bench_gui.engines.mariadb.agent.procedures import PROCEDURES
from bench_gui.wire.tpcc_tables import ITEMS, ROWS_PER_WAREHOUSE, TABLES

_ADDRESS: Final = "{p}_street_1 VARCHAR(20), {p}_street_2 VARCHAR(20), {p}_city VARCHAR(20), {p}_state CHAR(2), {p}_zip CHAR(9)"  # noqa: E501

TABLE_DDL: Final[dict[str, str]] = {
    "warehouse": f"""CREATE TABLE warehouse (w_id INT NOT NULL, w_name VARCHAR(10),
        {_ADDRESS.format(p="w")}, w_tax DECIMAL(4,4), w_ytd DECIMAL(12,2),
        PRIMARY KEY (w_id)) ENGINE=InnoDB""",
    "district": f"""CREATE TABLE district (d_id TINYINT NOT NULL, d_w_id INT NOT NULL,
        d_name VARCHAR(10), {_ADDRESS.format(p="d")}, d_tax DECIMAL(4,4), d_ytd DECIMAL(12,2),
        d_next_o_id INT, PRIMARY KEY (d_w_id, d_id)) ENGINE=InnoDB""",
    "customer": f"""CREATE TABLE customer (c_id INT NOT NULL, c_d_id TINYINT NOT NULL,
        c_w_id INT NOT NULL, c_first VARCHAR(16), c_middle CHAR(2), c_last VARCHAR(16),
        {_ADDRESS.format(p="c")}, c_phone CHAR(16), c_since DATETIME, c_credit CHAR(2),
        c_credit_lim DECIMAL(12,2), c_discount DECIMAL(4,4), c_balance DECIMAL(12,2),
        c_ytd_payment DECIMAL(12,2), c_payment_cnt INT, c_delivery_cnt INT,
        c_data VARCHAR(500), PRIMARY KEY (c_w_id, c_d_id, c_id)) ENGINE=InnoDB""",
    "history": """CREATE TABLE history (h_c_id INT, h_c_d_id TINYINT, h_c_w_id INT,
        h_d_id TINYINT, h_w_id INT, h_date DATETIME, h_amount DECIMAL(6,2),
        h_data VARCHAR(24)) ENGINE=InnoDB""",
    "orders": """CREATE TABLE orders (o_id INT NOT NULL, o_d_id TINYINT NOT NULL,
        o_w_id INT NOT NULL, o_c_id INT NOT NULL, o_entry_d DATETIME, o_carrier_id TINYINT,
        o_ol_cnt TINYINT, o_all_local TINYINT,
        PRIMARY KEY (o_w_id, o_d_id, o_id)) ENGINE=InnoDB""",
    "new_order": """CREATE TABLE new_order (no_o_id INT NOT NULL, no_d_id TINYINT NOT NULL,
        no_w_id INT NOT NULL, PRIMARY KEY (no_w_id, no_d_id, no_o_id)) ENGINE=InnoDB""",
    "order_line": """CREATE TABLE order_line (ol_o_id INT NOT NULL, ol_d_id TINYINT NOT NULL,
        ol_w_id INT NOT NULL, ol_number TINYINT NOT NULL, ol_i_id INT, ol_supply_w_id INT,
        ol_delivery_d DATETIME, ol_quantity SMALLINT, ol_amount DECIMAL(6,2),
        ol_dist_info CHAR(24),
        PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)) ENGINE=InnoDB""",
    "item": """CREATE TABLE item (i_id INT NOT NULL, i_im_id INT, i_name VARCHAR(24),
        i_price DECIMAL(5,2), i_data VARCHAR(50), PRIMARY KEY (i_id)) ENGINE=InnoDB""",
    "stock": """CREATE TABLE stock (s_i_id INT NOT NULL, s_w_id INT NOT NULL,
        s_quantity SMALLINT, s_dist_01 CHAR(24), s_dist_02 CHAR(24), s_dist_03 CHAR(24),
        s_dist_04 CHAR(24), s_dist_05 CHAR(24), s_dist_06 CHAR(24), s_dist_07 CHAR(24),
        s_dist_08 CHAR(24), s_dist_09 CHAR(24), s_dist_10 CHAR(24), s_ytd INT,
        s_order_cnt SMALLINT, s_remote_cnt SMALLINT, s_data VARCHAR(50),
        PRIMARY KEY (s_w_id, s_i_id)) ENGINE=InnoDB""",
}

# Built after the load: (name, table, statement).
INDEXES: Final[tuple[tuple[str, str, str], ...]] = (
    (
        "customer_i2",
        "customer",
        "ALTER TABLE customer ADD UNIQUE INDEX customer_i2 (c_w_id, c_d_id, c_last, c_first, c_id)",
    ),
    (
        "orders_i2",
        "orders",
        "ALTER TABLE orders ADD UNIQUE INDEX orders_i2 (o_w_id, o_d_id, o_c_id, o_id)",
    ),
)


@dataclass
class SchemaStatus:
    """What a database holds of the TPROC-C schema: ``missing``, ``partial`` (see
    ``problems``) or ``complete``."""

    state: str
    warehouses: int = 0
    problems: list[str] = field(default_factory=list)


def _one(cursor: Any, query: str, *params: Any) -> Any:
    cursor.execute(query, *params)
    row = cursor.fetchone()
    while cursor.nextset():
        pass
    return row


def create_tables(cursor: Any) -> None:
    for table in TABLES:
        cursor.execute(f"DROP TABLE IF EXISTS {table}")
        cursor.execute(TABLE_DDL[table])


def schema_status(cursor: Any) -> SchemaStatus:
    """Inspect the schema cheaply: the catalog, small counts and primary-key probes."""
    cursor.execute(
        "SELECT LOWER(table_name) FROM information_schema.tables WHERE table_schema = DATABASE()"
    )
    present = {str(r[0]) for r in cursor.fetchall()} & set(TABLES)
    cursor.execute(
        "SELECT UPPER(routine_name) FROM information_schema.routines"
        " WHERE routine_schema = DATABASE() AND routine_type = 'PROCEDURE'"
    )
    routines = {str(r[0]) for r in cursor.fetchall()} & set(PROCEDURES)
    if not present and not routines:
        return SchemaStatus("missing", 0, ["no TPROC-C tables"])
    problems: list[str] = []
    missing = [t for t in TABLES if t not in present]
    if missing:
        problems.append("missing tables: " + ", ".join(missing))
    cursor.execute(
        "SELECT DISTINCT LOWER(index_name) FROM information_schema.statistics"
        " WHERE table_schema = DATABASE()"
    )
    indexes = {str(r[0]) for r in cursor.fetchall()}
    lost = [name for name, _table, _ddl in INDEXES if name not in indexes]
    if lost:
        problems.append("missing indexes: " + ", ".join(lost))
    lost = [name for name in PROCEDURES if name not in routines]
    if lost:
        problems.append("missing procedures: " + ", ".join(lost))
    warehouses = 0
    if "warehouse" in present:
        count, low, high = _one(cursor, "SELECT COUNT(*), MIN(w_id), MAX(w_id) FROM warehouse")
        warehouses = int(count)
        if warehouses == 0:
            problems.append("table warehouse is empty")
        elif (low, high) != (1, warehouses):
            problems.append(
                f"warehouse ids run from {low} to {high} for {warehouses} warehouses,"
                f" expected 1 to {warehouses}"
            )
    if warehouses:
        problems += _count_problems(cursor, present, warehouses)
    return SchemaStatus("partial" if problems else "complete", warehouses, problems)


def _count_problems(cursor: Any, present: set[str], w: int) -> list[str]:
    problems: list[str] = []
    if "district" in present:
        (n,) = _one(cursor, "SELECT COUNT(*) FROM district")
        if n != 10 * w:
            problems.append(f"table district has {n} rows for {w} warehouses, expected {10 * w}")
    if "item" in present:
        (n,) = _one(cursor, "SELECT COUNT(*) FROM item")
        if n != ITEMS:
            problems.append(f"table item has {n} rows, expected {ITEMS}")
    # A warehouse's rows commit together with its warehouse row (the loader's transaction):
    # the highest warehouse of each big table (a primary-key probe) must be the count.
    for table, column in (("stock", "s_w_id"), ("customer", "c_w_id"), ("orders", "o_w_id")):
        if table in present:
            (high,) = _one(cursor, f"SELECT MAX({column}) FROM {table}")
            if high != w:
                problems.append(f"table {table} holds warehouses up to {high}, expected {w}")
    if "stock" in present:
        (n,) = _one(cursor, "SELECT COUNT(*) FROM stock WHERE s_w_id = ?", w)
        if n != ROWS_PER_WAREHOUSE["stock"]:
            problems.append(f"warehouse {w} has {n} stock rows, expected 100000")
    return problems


def drop_schema(cursor: Any) -> None:
    for name in PROCEDURES:
        cursor.execute(f"DROP PROCEDURE IF EXISTS {name}")
    for table in TABLES:
        cursor.execute(f"DROP TABLE IF EXISTS {table}")
