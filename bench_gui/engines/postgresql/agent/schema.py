"""TPROC-C schema on PostgreSQL: tables, indexes, server-side routines, status and removal.

Tables are created bare and indexed after the load (building a btree from sorted input is far
cheaper than maintaining it row by row). The transactions run as PL/pgSQL functions so each
one is a single round trip; they are written set-based because the server CPU, not the
driver, limits the whole benchmark.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import psycopg
from psycopg import sql

from bench_gui.agent import tpcc_rand
from bench_gui.engines.postgresql.agent import hammerdb
from bench_gui.wire.tpcc_tables import ITEMS, ROWS_PER_WAREHOUSE, TABLES

# Tables updated in place get free space on each page so the updates stay HOT (no index
# maintenance). Warehouse and district are tiny and updated by every New-Order and Payment:
# kept sparse, their rows spread over more pages and their update chains have room.
_TABLE_DDL: Final[dict[str, str]] = {
    "warehouse": """
        CREATE TABLE warehouse (
            w_id integer NOT NULL,
            w_name varchar(10),
            w_street_1 varchar(20),
            w_street_2 varchar(20),
            w_city varchar(20),
            w_state char(2),
            w_zip char(9),
            w_tax numeric(4, 4),
            w_ytd numeric(12, 2)
        ) WITH (fillfactor = 10)""",
    "district": """
        CREATE TABLE district (
            d_id smallint NOT NULL,
            d_w_id integer NOT NULL,
            d_name varchar(10),
            d_street_1 varchar(20),
            d_street_2 varchar(20),
            d_city varchar(20),
            d_state char(2),
            d_zip char(9),
            d_tax numeric(4, 4),
            d_ytd numeric(12, 2),
            d_next_o_id integer
        ) WITH (fillfactor = 10)""",
    "customer": """
        CREATE TABLE customer (
            c_id integer NOT NULL,
            c_d_id smallint NOT NULL,
            c_w_id integer NOT NULL,
            c_first varchar(16),
            c_middle char(2),
            c_last varchar(16),
            c_street_1 varchar(20),
            c_street_2 varchar(20),
            c_city varchar(20),
            c_state char(2),
            c_zip char(9),
            c_phone char(16),
            c_since timestamp,
            c_credit char(2),
            c_credit_lim numeric(12, 2),
            c_discount numeric(4, 4),
            c_balance numeric(12, 2),
            c_ytd_payment numeric(12, 2),
            c_payment_cnt integer,
            c_delivery_cnt integer,
            c_data varchar(500)
        ) WITH (fillfactor = 80)""",
    "history": """
        CREATE TABLE history (
            h_c_id integer,
            h_c_d_id smallint,
            h_c_w_id integer,
            h_d_id smallint,
            h_w_id integer,
            h_date timestamp,
            h_amount numeric(6, 2),
            h_data varchar(24)
        )""",
    "orders": """
        CREATE TABLE orders (
            o_id integer NOT NULL,
            o_d_id smallint NOT NULL,
            o_w_id integer NOT NULL,
            o_c_id integer NOT NULL,
            o_entry_d timestamp,
            o_carrier_id smallint,
            o_ol_cnt smallint,
            o_all_local smallint
        ) WITH (fillfactor = 90)""",
    "new_order": """
        CREATE TABLE new_order (
            no_o_id integer NOT NULL,
            no_d_id smallint NOT NULL,
            no_w_id integer NOT NULL
        )""",
    "order_line": """
        CREATE TABLE order_line (
            ol_o_id integer NOT NULL,
            ol_d_id smallint NOT NULL,
            ol_w_id integer NOT NULL,
            ol_number smallint NOT NULL,
            ol_i_id integer,
            ol_supply_w_id integer,
            ol_delivery_d timestamp,
            ol_quantity smallint,
            ol_amount numeric(6, 2),
            ol_dist_info char(24)
        ) WITH (fillfactor = 90)""",
    "item": """
        CREATE TABLE item (
            i_id integer NOT NULL,
            i_im_id integer,
            i_name varchar(24),
            i_price numeric(5, 2),
            i_data varchar(50)
        )""",
    "stock": """
        CREATE TABLE stock (
            s_i_id integer NOT NULL,
            s_w_id integer NOT NULL,
            s_quantity smallint,
            s_dist_01 char(24),
            s_dist_02 char(24),
            s_dist_03 char(24),
            s_dist_04 char(24),
            s_dist_05 char(24),
            s_dist_06 char(24),
            s_dist_07 char(24),
            s_dist_08 char(24),
            s_dist_09 char(24),
            s_dist_10 char(24),
            s_ytd integer,
            s_order_cnt smallint,
            s_remote_cnt smallint,
            s_data varchar(50)
        ) WITH (fillfactor = 80)""",
}


@dataclass(frozen=True)
class IndexDef:
    """One index built after the load: its name, table and the statement that builds it."""

    name: str
    table: str
    ddl: str


# Largest first, so the parallel build starts the long ones early.
INDEXES: Final[tuple[IndexDef, ...]] = (
    IndexDef(
        "order_line_pkey",
        "order_line",
        "ALTER TABLE order_line ADD CONSTRAINT order_line_pkey"
        " PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)",
    ),
    IndexDef(
        "stock_pkey",
        "stock",
        "ALTER TABLE stock ADD CONSTRAINT stock_pkey PRIMARY KEY (s_w_id, s_i_id)",
    ),
    IndexDef(
        "customer_pkey",
        "customer",
        "ALTER TABLE customer ADD CONSTRAINT customer_pkey PRIMARY KEY (c_w_id, c_d_id, c_id)",
    ),
    IndexDef(
        "customer_i2",
        "customer",
        "CREATE UNIQUE INDEX customer_i2 ON customer (c_w_id, c_d_id, c_last, c_first, c_id)",
    ),
    IndexDef(
        "orders_pkey",
        "orders",
        "ALTER TABLE orders ADD CONSTRAINT orders_pkey PRIMARY KEY (o_w_id, o_d_id, o_id)",
    ),
    IndexDef(
        "orders_i2",
        "orders",
        "CREATE UNIQUE INDEX orders_i2 ON orders (o_w_id, o_d_id, o_c_id, o_id)",
    ),
    IndexDef("item_pkey", "item", "ALTER TABLE item ADD CONSTRAINT item_pkey PRIMARY KEY (i_id)"),
    IndexDef(
        "new_order_pkey",
        "new_order",
        "ALTER TABLE new_order ADD CONSTRAINT new_order_pkey"
        " PRIMARY KEY (no_w_id, no_d_id, no_o_id)",
    ),
    IndexDef(
        "district_pkey",
        "district",
        "ALTER TABLE district ADD CONSTRAINT district_pkey PRIMARY KEY (d_w_id, d_id)",
    ),
    IndexDef(
        "warehouse_pkey",
        "warehouse",
        "ALTER TABLE warehouse ADD CONSTRAINT warehouse_pkey PRIMARY KEY (w_id)",
    ),
)

# Both profiles' routines (bench_gui.agent.profiles): ours, then HammerDB's (hdb_*).
SPEC_ROUTINES: Final = ("neword", "payment", "ostat", "delivery", "slev")
ROUTINES: Final = SPEC_ROUTINES + tuple(hammerdb.ROUTINE_SIGNATURES)

# application_name of the build's connections, so they can be told apart in pg_stat_activity.
APP_NAME: Final = "bench_gui-build"


def create_tables(conn: psycopg.Connection) -> None:
    """Create the nine tables, without indexes; fails if any already exists."""
    with conn.transaction():
        for table in TABLES:
            conn.execute(_TABLE_DDL[table])


def _visible_routines(conn: psycopg.Connection) -> list[str]:
    """Every visible function or procedure named like ours, whatever its arguments."""
    return [
        signature
        for (signature,) in conn.execute(
            "SELECT p.oid::regprocedure::text FROM pg_proc p"
            " WHERE p.proname = ANY(%s) AND pg_function_is_visible(p.oid) ORDER BY 1",
            (list(ROUTINES),),
        )
    ]


def drop_schema(conn: psycopg.Connection) -> None:
    """Drop the routines (every overload of their names) and the tables that exist."""
    with conn.transaction():
        for signature in _visible_routines(conn):
            conn.execute(sql.SQL("DROP ROUTINE IF EXISTS {} CASCADE").format(sql.SQL(signature)))
        for table in TABLES:
            conn.execute(sql.SQL("DROP TABLE IF EXISTS {} CASCADE").format(sql.Identifier(table)))


class Stopped(Exception):
    """A parallel DDL step was stopped on request; finished parts stay, the rest is undone."""


def _run_parallel(
    conninfo: str,
    jobs: Sequence[Sequence[tuple[str, Any]]],
    workers: int,
    on_done: Callable[[Any], None] | None = None,
    stop: threading.Event | None = None,
) -> None:
    """Run jobs (lists of (statement, tag)) over ``workers`` connections, one thread each.

    The server does the work, so a thread per connection keeps several backends busy; the
    statements of one job run in order on one connection. ``on_done(tag)`` is called on the
    caller's thread after each statement. The first error stops the other jobs and is raised
    here; ``stop`` cancels the statements in flight and raises :class:`Stopped`.
    """
    pending = list(jobs)
    lock = threading.Lock()
    errors: list[BaseException] = []
    finished: queue.Queue[Any] = queue.Queue()
    conns: list[psycopg.Connection] = []
    halt = threading.Event()

    def run() -> None:
        try:
            with psycopg.connect(conninfo, autocommit=True, application_name=APP_NAME) as conn:
                with lock:
                    conns.append(conn)
                conn.execute("SET maintenance_work_mem = '256MB'")
                while True:
                    with lock:
                        if not pending or halt.is_set():
                            return
                        job = pending.pop(0)
                    for statement, tag in job:
                        conn.execute(statement)
                        finished.put(tag)
        except BaseException as exc:  # noqa: BLE001 - a thread's body: re-raised by the caller
            with lock:
                errors.append(exc)
            halt.set()

    threads = [
        threading.Thread(target=run, name=f"pg-ddl-{i}", daemon=True)
        for i in range(max(1, min(workers, len(pending))))
    ]
    for t in threads:
        t.start()
    stopped = False
    while any(t.is_alive() for t in threads) or not finished.empty():
        if stop is not None and stop.is_set() and not stopped:
            stopped = True
            halt.set()
            with lock:
                for conn in conns:
                    if not conn.closed:
                        conn.cancel_safe()
        try:
            tag = finished.get(timeout=0.1)
        except queue.Empty:
            continue
        if on_done is not None:
            on_done(tag)
    for t in threads:
        t.join()
    if stopped:
        raise Stopped("stopped on request")
    if errors:
        raise errors[0]


def create_indexes(
    conninfo: str,
    workers: int,
    *,
    analyze: bool = True,
    on_done: Callable[[IndexDef], None] | None = None,
    stop: threading.Event | None = None,
) -> None:
    """Build the primary keys and the two secondary indexes over ``workers`` connections.

    One job per table (largest first): two index builds on one table would only contend for
    its lock. With ``analyze`` each table is analysed right after its indexes, on the same
    connection, so statistics are ready when the build ends.
    """
    by_table: dict[str, list[tuple[str, Any]]] = {}
    for index in INDEXES:
        by_table.setdefault(index.table, []).append((index.ddl, index))
    jobs = list(by_table.values())
    if analyze:
        for table, job in by_table.items():
            job.append((f"ANALYZE {table}", None))
        jobs.append([("ANALYZE history", None)])

    def done(tag: Any) -> None:
        if tag is not None and on_done is not None:
            on_done(tag)

    _run_parallel(conninfo, jobs, workers, done, stop)


def vacuum_analyze(
    conninfo: str,
    workers: int,
    *,
    on_done: Callable[[str], None] | None = None,
    stop: threading.Event | None = None,
) -> None:
    """VACUUM (ANALYZE) every table in parallel, largest first.

    After a bulk load this sets the visibility map (index-only scans) and resets the insert
    counters, so autovacuum does not start on every table in the middle of the first run.
    """
    order = ("order_line", "stock", "customer", "orders", "history", "item", "new_order")
    rest = [t for t in TABLES if t not in order]
    jobs = [[(f"VACUUM (ANALYZE) {table}", table)] for table in (*order, *rest)]
    _run_parallel(conninfo, jobs, workers, on_done, stop)


def set_autovacuum(conn: psycopg.Connection, enabled: bool) -> None:
    """Switch autovacuum off for the tables while loading, back to the default afterwards."""
    with conn.transaction():
        for table in TABLES:
            if enabled:
                statement = "ALTER TABLE {} RESET (autovacuum_enabled)"
            else:
                statement = "ALTER TABLE {} SET (autovacuum_enabled = false)"
            conn.execute(sql.SQL(statement).format(sql.Identifier(table)))


# Server-side transactions. Conventions:
# - no EXCEPTION blocks (each would open a subtransaction per call): errors reach the client;
# - rows that several transactions lock are taken in one global order (stock rows by
#   (w, i), then district; customer, then district, then warehouse) so they cannot deadlock,
#   and the hottest rows (district, warehouse) are locked last to hold them the shortest time;
# - TPC01 marks the intended New-Order rollback, TPC02 a customer that does not exist, TPC03
#   an item or stock row missing outside the intended rollback (damaged data).
_ROUTINES_SQL: Final = r"""
CREATE OR REPLACE FUNCTION neword(no_w_id int, no_max_w_id int, no_d_id int, no_c_id int,
                                  no_o_ol_cnt int, no_rbk int)
RETURNS int LANGUAGE plpgsql AS $fn$
DECLARE
    v_items int[] := '{}';
    v_supply int[] := '{}';
    v_qty int[] := '{}';
    v_item int;
    v_sw int;
    v_all_local int := 1;
    v_line int[];
    v_li int[];
    v_lw int[];
    v_lq int[];
    v_lamount numeric[];
    v_ldist text[];
    v_count int;
    v_c_discount numeric;
    v_c_last text;
    v_c_credit text;
    v_w_tax numeric;
    v_d_tax numeric;
    v_o_id int;
BEGIN
    -- The order lines: distinct items by NURand(8191, 1, 100000), 1% remote supply.
    FOR i IN 1..no_o_ol_cnt LOOP
        IF no_rbk = 1 AND i = no_o_ol_cnt THEN
            v_item := 100001;  -- unused item number: the intended 1% rollback
        ELSE
            LOOP
                v_item := (((floor(random() * 8192)::int | (1 + floor(random() * 100000)::int))
                            + {c_ol_i_id}) % 100000) + 1;
                EXIT WHEN NOT v_item = ANY (v_items);
            END LOOP;
        END IF;
        IF no_max_w_id > 1 AND random() < 0.01 THEN
            v_sw := 1 + floor(random() * (no_max_w_id - 1))::int;
            IF v_sw >= no_w_id THEN
                v_sw := v_sw + 1;
            END IF;
            v_all_local := 0;
        ELSE
            v_sw := no_w_id;
        END IF;
        v_items := v_items || v_item;
        v_supply := v_supply || v_sw;
        v_qty := v_qty || (1 + floor(random() * 10)::int);
    END LOOP;

    -- Items and stock first, in (warehouse, item) order; the result is kept for the inserts.
    WITH l AS (
        SELECT t.i_id, t.sw, t.q, row_number() OVER (ORDER BY t.sw, t.i_id)::int AS num
        FROM unnest(v_items, v_supply, v_qty) AS t (i_id, sw, q)
        ORDER BY t.sw, t.i_id
    ), li AS (
        SELECT l.i_id, l.sw, l.q, l.num, it.i_price
        FROM l JOIN item it ON it.i_id = l.i_id
    ), s AS (
        UPDATE stock
        SET s_quantity = CASE WHEN s_quantity >= li.q + 10 THEN s_quantity - li.q
                              ELSE s_quantity - li.q + 91 END,
            s_ytd = s_ytd + li.q,
            s_order_cnt = s_order_cnt + 1,
            s_remote_cnt = s_remote_cnt + (li.sw <> no_w_id)::int
        FROM li
        WHERE s_w_id = li.sw AND s_i_id = li.i_id
        RETURNING li.num, li.i_id, li.sw, li.q, li.q * li.i_price AS amount,
            CASE no_d_id WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03
                         WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06
                         WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09
                         ELSE s_dist_10 END AS dist
    )
    SELECT count(*)::int, array_agg(s.num), array_agg(s.i_id), array_agg(s.sw), array_agg(s.q),
           array_agg(s.amount), array_agg(s.dist)
    INTO v_count, v_line, v_li, v_lw, v_lq, v_lamount, v_ldist
    FROM s;
    IF v_count < no_o_ol_cnt THEN
        IF no_rbk = 1 THEN
            RAISE EXCEPTION 'Item number is not valid' USING ERRCODE = 'TPC01';
        END IF;
        -- not the intended rollback: an item or stock row is missing, the data is damaged
        RAISE EXCEPTION 'item or stock rows missing: % of % order lines found',
            v_count, no_o_ol_cnt USING ERRCODE = 'TPC03';
    END IF;

    SELECT c.c_discount, c.c_last, c.c_credit, w.w_tax
    INTO v_c_discount, v_c_last, v_c_credit, v_w_tax
    FROM customer c, warehouse w
    WHERE c.c_w_id = no_w_id AND c.c_d_id = no_d_id AND c.c_id = no_c_id AND w.w_id = no_w_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'customer not found: id % in warehouse % district %',
            no_c_id, no_w_id, no_d_id USING ERRCODE = 'TPC02';
    END IF;

    UPDATE district SET d_next_o_id = d_next_o_id + 1
    WHERE d_w_id = no_w_id AND d_id = no_d_id
    RETURNING d_next_o_id - 1, d_tax INTO v_o_id, v_d_tax;

    WITH o AS (
        INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt,
                            o_all_local)
        VALUES (v_o_id, no_d_id, no_w_id, no_c_id, now(), NULL, no_o_ol_cnt, v_all_local)
    ), n AS (
        INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, no_d_id, no_w_id)
    )
    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                            ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
    SELECT v_o_id, no_d_id, no_w_id, t.num, t.i_id, t.sw, NULL, t.q, t.amount, t.dist
    FROM unnest(v_line, v_li, v_lw, v_lq, v_lamount, v_ldist)
        AS t (num, i_id, sw, q, amount, dist);

    RETURN v_o_id;
END
$fn$;

CREATE OR REPLACE FUNCTION payment(p_w_id int, p_d_id int, p_c_w_id int, p_c_d_id int,
                                   p_c_id int, p_byname int, p_h_amount numeric, p_c_last text)
RETURNS int LANGUAGE plpgsql AS $fn$
DECLARE
    v_ids int[];
    v_n int;
    v_c_id int := p_c_id;
    v_c record;
    v_w_name text;
    v_d_name text;
    v_w record;
    v_d record;
BEGIN
    IF p_byname = 1 THEN
        SELECT array_agg(c_id ORDER BY c_first) INTO v_ids
        FROM customer
        WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_last = p_c_last;
        v_n := coalesce(cardinality(v_ids), 0);
        IF v_n = 0 THEN
            RAISE EXCEPTION 'customer not found: last name % in warehouse % district %',
                p_c_last, p_c_w_id, p_c_d_id USING ERRCODE = 'TPC02';
        END IF;
        v_c_id := v_ids[(v_n + 1) / 2];
    END IF;

    UPDATE customer
    SET c_balance = c_balance - p_h_amount,
        c_ytd_payment = c_ytd_payment + p_h_amount,
        c_payment_cnt = c_payment_cnt + 1,
        c_data = CASE WHEN c_credit = 'BC'
                      THEN left(v_c_id || ' ' || p_c_d_id || ' ' || p_c_w_id || ' ' || p_d_id
                                || ' ' || p_w_id || ' ' || p_h_amount || ' | ' || c_data, 500)
                      ELSE c_data END
    WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id
    RETURNING c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip,
        c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance
    INTO v_c;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'customer not found: id % in warehouse % district %',
            v_c_id, p_c_w_id, p_c_d_id USING ERRCODE = 'TPC02';
    END IF;

    UPDATE district SET d_ytd = d_ytd + p_h_amount
    WHERE d_w_id = p_w_id AND d_id = p_d_id
    RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip INTO v_d;

    UPDATE warehouse SET w_ytd = w_ytd + p_h_amount
    WHERE w_id = p_w_id
    RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip INTO v_w;

    INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (v_c_id, p_c_d_id, p_c_w_id, p_d_id, p_w_id, now(), p_h_amount,
            v_w.w_name || '    ' || v_d.d_name);
    RETURN v_c_id;
END
$fn$;

CREATE OR REPLACE FUNCTION ostat(os_w_id int, os_d_id int, os_c_id int, os_byname int,
                                 os_c_last text)
RETURNS int LANGUAGE plpgsql AS $fn$
DECLARE
    v_ids int[];
    v_n int;
    v_c_id int := os_c_id;
    v_c record;
    v_o record;
    v_l record;
BEGIN
    IF os_byname = 1 THEN
        SELECT array_agg(c_id ORDER BY c_first) INTO v_ids
        FROM customer
        WHERE c_w_id = os_w_id AND c_d_id = os_d_id AND c_last = os_c_last;
        v_n := coalesce(cardinality(v_ids), 0);
        IF v_n = 0 THEN
            RAISE EXCEPTION 'customer not found: last name % in warehouse % district %',
                os_c_last, os_w_id, os_d_id USING ERRCODE = 'TPC02';
        END IF;
        v_c_id := v_ids[(v_n + 1) / 2];
    END IF;

    SELECT c_balance, c_first, c_middle, c_last INTO v_c
    FROM customer
    WHERE c_w_id = os_w_id AND c_d_id = os_d_id AND c_id = v_c_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'customer not found: id % in warehouse % district %',
            v_c_id, os_w_id, os_d_id USING ERRCODE = 'TPC02';
    END IF;

    SELECT o_id, o_carrier_id, o_entry_d INTO v_o
    FROM orders
    WHERE o_w_id = os_w_id AND o_d_id = os_d_id AND o_c_id = v_c_id
    ORDER BY o_id DESC
    LIMIT 1;
    IF NOT FOUND THEN
        RETURN 0;
    END IF;

    -- Aggregates over every column the spec returns, so each line is really read.
    SELECT count(*)::int AS n, max(ol_i_id) AS i_id, max(ol_supply_w_id) AS supply,
           sum(ol_quantity) AS qty, sum(ol_amount) AS amount, max(ol_delivery_d) AS delivered
    INTO v_l
    FROM order_line
    WHERE ol_w_id = os_w_id AND ol_d_id = os_d_id AND ol_o_id = v_o.o_id;
    RETURN v_l.n;
END
$fn$;

CREATE OR REPLACE FUNCTION delivery(d_w_id int, d_o_carrier_id int)
RETURNS int LANGUAGE plpgsql AS $fn$
DECLARE
    v_n int;
BEGIN
    -- One statement for the ten districts. A district whose oldest new order is taken by a
    -- concurrent delivery is skipped (the re-check after the row lock finds it deleted).
    WITH nod AS (
        DELETE FROM new_order n
        USING (
            SELECT g.d, (SELECT min(x.no_o_id) FROM new_order x
                         WHERE x.no_w_id = delivery.d_w_id AND x.no_d_id = g.d) AS o
            FROM generate_series(1, 10) AS g (d)
        ) m
        WHERE n.no_w_id = delivery.d_w_id AND n.no_d_id = m.d AND n.no_o_id = m.o
        RETURNING n.no_d_id AS d, n.no_o_id AS o
    ), ord AS (
        UPDATE orders SET o_carrier_id = delivery.d_o_carrier_id
        FROM nod
        WHERE o_w_id = delivery.d_w_id AND o_d_id = nod.d AND o_id = nod.o
        RETURNING o_d_id AS d, o_id AS o, o_c_id AS c
    ), lin AS (
        UPDATE order_line SET ol_delivery_d = now()
        FROM nod
        WHERE ol_w_id = delivery.d_w_id AND ol_d_id = nod.d AND ol_o_id = nod.o
        RETURNING ol_d_id AS d, ol_o_id AS o, ol_amount AS amount
    ), cus AS (
        UPDATE customer
        SET c_balance = c_balance + t.amount, c_delivery_cnt = c_delivery_cnt + 1
        FROM (
            SELECT ord.d, ord.c, coalesce(sum(lin.amount), 0) AS amount
            FROM ord LEFT JOIN lin ON lin.d = ord.d AND lin.o = ord.o
            GROUP BY ord.d, ord.c
        ) t
        WHERE c_w_id = delivery.d_w_id AND c_d_id = t.d AND c_id = t.c
    )
    SELECT count(*)::int INTO v_n FROM nod;
    RETURN v_n;
END
$fn$;

CREATE OR REPLACE FUNCTION slev(st_w_id int, st_d_id int, threshold int)
RETURNS int LANGUAGE plpgsql AS $fn$
DECLARE
    v_next int;
    v_n int;
BEGIN
    SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = st_w_id AND d_id = st_d_id;
    SELECT count(DISTINCT s.s_i_id)::int INTO v_n
    FROM order_line ol
    JOIN stock s ON s.s_w_id = st_w_id AND s.s_i_id = ol.ol_i_id
    WHERE ol.ol_w_id = st_w_id AND ol.ol_d_id = st_d_id
      AND ol.ol_o_id >= v_next - 20 AND ol.ol_o_id < v_next
      AND s.s_quantity < threshold;
    RETURN v_n;
END
$fn$;
""".replace("{c_ol_i_id}", str(tpcc_rand.C_OL_I_ID))


def create_routines(conn: psycopg.Connection) -> None:
    """(Re)create both profiles' transaction functions: ours and HammerDB's (``hdb_*``)."""
    with conn.transaction():
        conn.execute(_ROUTINES_SQL)
        conn.execute(hammerdb.ROUTINES_SQL)


# Exact signatures the driver relies on (both profiles).
ROUTINE_SIGNATURES: Final[dict[str, str]] = {
    "neword": "neword(integer, integer, integer, integer, integer, integer)",
    "payment": "payment(integer, integer, integer, integer, integer, integer, numeric, text)",
    "ostat": "ostat(integer, integer, integer, integer, text)",
    "delivery": "delivery(integer, integer)",
    "slev": "slev(integer, integer, integer)",
    **hammerdb.ROUTINE_SIGNATURES,
}


@dataclass
class SchemaStatus:
    """What a database holds of the TPROC-C schema.

    ``state`` is ``missing`` (no table at all), ``partial`` (something is missing or
    inconsistent: see ``problems``) or ``complete``.
    """

    state: str
    warehouses: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.state == "complete"


def _estimate(conn: psycopg.Connection, table: str) -> int | None:
    """Row estimate from the catalog (None if the table was never vacuumed or analysed)."""
    row = conn.execute(
        "SELECT reltuples::bigint, relpages FROM pg_class WHERE oid = to_regclass(%s)", (table,)
    ).fetchone()
    if row is None or row[0] is None or row[0] < 0 or (row[0] == 0 and row[1] == 0):
        return None
    return int(row[0])


def schema_status(conn: psycopg.Connection) -> SchemaStatus:
    """Inspect the schema cheaply: catalog lookups, small counts and index probes only.

    A build that stopped part-way always leaves a trace here: a missing table, index or
    routine, fewer rows than the warehouse count implies, or autovacuum still switched off.
    """
    with conn.transaction():
        return _schema_status(conn)


def _schema_status(conn: psycopg.Connection) -> SchemaStatus:
    present = {
        name
        for (name,) in conn.execute(
            "SELECT c.relname FROM pg_class c"
            " WHERE c.relname = ANY(%s) AND c.relkind IN ('r', 'p') AND pg_table_is_visible(c.oid)",
            (list(TABLES),),
        )
    }
    routines = {
        name
        for name, signature in ROUTINE_SIGNATURES.items()
        if conn.execute("SELECT to_regprocedure(%s)", (signature,)).fetchone() != (None,)
    }
    if not present and not routines:
        return SchemaStatus("missing", 0, ["no TPROC-C tables"])

    problems: list[str] = []
    missing_tables = [t for t in TABLES if t not in present]
    if missing_tables:
        problems.append("missing tables: " + ", ".join(missing_tables))
    indexes = {
        name
        for (name,) in conn.execute(
            "SELECT c.relname FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid"
            " WHERE c.relname = ANY(%s) AND pg_table_is_visible(c.oid) AND i.indisvalid",
            ([ix.name for ix in INDEXES],),
        )
    }
    missing_indexes = [ix.name for ix in INDEXES if ix.name not in indexes]
    if missing_indexes:
        problems.append("missing indexes: " + ", ".join(missing_indexes))
    missing_routines = [name for name in ROUTINES if name not in routines]
    if missing_routines:
        problems.append(
            "missing routines: " + ", ".join(ROUTINE_SIGNATURES[name] for name in missing_routines)
        )
    no_autovacuum = [
        name
        for (name,) in conn.execute(
            "SELECT c.relname FROM pg_class c WHERE c.relname = ANY(%s)"
            " AND pg_table_is_visible(c.oid) AND 'autovacuum_enabled=false' = ANY(c.reloptions)",
            (list(TABLES),),
        )
    ]
    if no_autovacuum:
        problems.append(
            "autovacuum still off (the build did not finish): " + ", ".join(sorted(no_autovacuum))
        )

    warehouses = 0
    if "warehouse" in present:
        count, low, high = conn.execute(
            "SELECT count(*), min(w_id), max(w_id) FROM warehouse"
        ).fetchone() or (0, None, None)
        warehouses = int(count)
        if warehouses == 0:
            problems.append("table warehouse is empty")
        elif (low, high) != (1, warehouses):
            problems.append(
                f"warehouse ids run from {low} to {high} for {warehouses} warehouses,"
                f" expected 1 to {warehouses}"
            )
    if warehouses:
        problems += _count_problems(conn, present, indexes, warehouses)
    return SchemaStatus("partial" if problems else "complete", warehouses, problems)


def _count_problems(
    conn: psycopg.Connection, present: set[str], indexes: set[str], warehouses: int
) -> list[str]:
    problems: list[str] = []
    w = warehouses
    if "district" in present:
        (n,) = conn.execute("SELECT count(*) FROM district").fetchone() or (0,)
        if n != 10 * w:
            problems.append(f"table district has {n} rows for {w} warehouses, expected {10 * w}")
    if "item" in present:
        (n,) = conn.execute("SELECT count(*) FROM item").fetchone() or (0,)
        if n != ITEMS:
            problems.append(f"table item has {n} rows, expected {ITEMS}")
    # Big tables: the highest warehouse through the primary key (one index probe), and the
    # catalog's row estimate. Orders, lines and history grow during runs: lower bound only.
    probes: tuple[tuple[str, str, str, bool], ...] = (
        ("stock", "stock_pkey", "s_w_id", True),
        ("customer", "customer_pkey", "c_w_id", True),
        ("orders", "orders_pkey", "o_w_id", False),
        ("order_line", "order_line_pkey", "ol_w_id", False),
        ("history", "", "", False),
    )
    for table, index, column, exact in probes:
        if table not in present:
            continue
        if index and index in indexes:
            (high,) = conn.execute(
                sql.SQL("SELECT max({}) FROM {}").format(
                    sql.Identifier(column), sql.Identifier(table)
                )
            ).fetchone() or (None,)
            if high != w:
                problems.append(f"table {table} holds warehouses up to {high}, expected {w}")
        expected = ROWS_PER_WAREHOUSE[table] * w
        estimate = _estimate(conn, table)
        if estimate is None:
            continue
        low_limit = expected * 0.9 if table != "order_line" else expected * 0.8
        if estimate < low_limit or (exact and estimate > expected * 1.1):
            problems.append(
                f"table {table} has about {estimate} rows for {w} warehouses, expected {expected}"
            )
    return problems
