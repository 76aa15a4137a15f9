"""The five TPROC-C transactions as T-SQL stored procedures (SQL Server 2016 SP1 and later).

Each procedure opens its own transaction (BEGIN TRANSACTION ... COMMIT) inside TRY/CATCH with
XACT_ABORT on; the CATCH block rolls back whatever is open and re-raises the error (``THROW``),
so a deadlock (1205), a lock timeout or a missing customer reaches the client as an ODBC error
with SQL Server's own error number. The intended New-Order rollback is no error: NEWORD rolls
back and answers with ``committed = 0`` (the item 100001 does not exist, so fewer stock rows
are updated than lines were asked for). Errors raised on purpose use RAISERROR (number 50000)
with messages that start with ``customer not found`` or ``item or stock rows missing``.

Result sets, one call each (NOCOUNT is on, so no row-count messages come in between; the
caller still drains with ``nextset()`` until it returns False, which also surfaces an error
raised after a result set):

- NEWORD: 1 set, 1 row: committed (1, or 0 for the intended rollback), o_id, ol_cnt,
  total_amount, c_last, c_credit, c_discount, w_tax, d_tax (all but committed and ol_cnt
  NULL when rolled back).
- PAYMENT: 1 set, 1 row: c_id, c_first, c_middle, c_last, c_balance, c_credit, c_discount,
  w_name, d_name, h_amount.
- OSTAT: 2 sets: (1) 1 row: c_id, c_first, c_middle, c_last, c_balance, o_id, o_entry_d,
  o_carrier_id (order columns NULL when the customer has no order); (2) the order's lines:
  ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d (0 to 15 rows).
- DELIVERY: 1 set, 1 row: delivered (districts that had an order to deliver, 0..10).
- SLEV: 1 set, 1 row: low_stock.

Layout rule (checked by the syntax tests, which parse every inner statement on its own): in a
body, ``BEGIN``, ``END``, ``BEGIN TRY``, ``END TRY``, ``BEGIN CATCH``, ``END CATCH``, ``ELSE``,
``IF <condition>`` and ``WHILE <condition>`` stand alone on their line (``END;`` too, before
``THROW``); IF, ELSE and WHILE are
always followed by a BEGIN ... END block; every other statement ends with ``;`` at the end of
its last line.
"""

from __future__ import annotations

from typing import Final

from bench_gui.agent import tpcc_rand
from bench_gui.engines.mssql.agent import hammerdb

# Parameters in call order: (name without @, T-SQL type).
PARAMETERS: Final[dict[str, tuple[tuple[str, str], ...]]] = {
    "neword": (
        ("no_w_id", "int"),
        ("no_max_w_id", "int"),
        ("no_d_id", "int"),
        ("no_c_id", "int"),
        ("no_o_ol_cnt", "int"),
        ("no_rbk", "int"),
    ),
    "payment": (
        ("p_w_id", "int"),
        ("p_d_id", "int"),
        ("p_c_w_id", "int"),
        ("p_c_d_id", "int"),
        ("p_c_id", "int"),
        ("p_byname", "int"),
        ("p_h_amount", "numeric(6, 2)"),
        ("p_c_last", "char(16)"),
    ),
    "ostat": (
        ("os_w_id", "int"),
        ("os_d_id", "int"),
        ("os_c_id", "int"),
        ("os_byname", "int"),
        ("os_c_last", "char(16)"),
    ),
    "delivery": (("d_w_id", "int"), ("d_o_carrier_id", "int")),
    "slev": (("st_w_id", "int"), ("st_d_id", "int"), ("threshold", "int")),
}


# Result sets each procedure returns, in order: the column names of each.
def _columns(text: str) -> tuple[str, ...]:
    return tuple(text.split(", "))


RESULT_SETS: Final[dict[str, tuple[tuple[str, ...], ...]]] = {
    "neword": (
        _columns(
            "committed, o_id, ol_cnt, total_amount, c_last, c_credit, c_discount, w_tax, d_tax"
        ),
    ),
    "payment": (
        _columns(
            "c_id, c_first, c_middle, c_last, c_balance, c_credit, c_discount, w_name, d_name,"
            " h_amount"
        ),
    ),
    "ostat": (
        _columns("c_id, c_first, c_middle, c_last, c_balance, o_id, o_entry_d, o_carrier_id"),
        _columns("ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d"),
    ),
    "delivery": (("delivered",),),
    "slev": (("low_stock",),),
}

PROCEDURES: Final = tuple(PARAMETERS)

# The CATCH block every procedure ends with: roll back what is open, re-raise the error. THROW
# needs the statement before it ended by ';', hence END; (a BEGIN ... END block is one).
_CATCH: Final = """END TRY
BEGIN CATCH
IF @@TRANCOUNT > 0
BEGIN
ROLLBACK TRANSACTION;
END;
THROW;
END CATCH"""

_NEWORD: Final = """SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @lines TABLE (supply_w_id int NOT NULL, i_id int NOT NULL, ol_number int NOT NULL,
    quantity int NOT NULL, PRIMARY KEY (supply_w_id, i_id));
DECLARE @priced TABLE (ol_number int NOT NULL, i_id int NOT NULL, supply_w_id int NOT NULL,
    quantity int NOT NULL, amount smallmoney NOT NULL, dist_info char(24) NOT NULL);
DECLARE @i int = 1, @item int, @sw int, @all_local int = 1, @found int, @o_id int;
DECLARE @c_discount smallmoney, @c_last char(16), @c_credit char(2);
DECLARE @w_tax smallmoney, @d_tax smallmoney, @total money;
-- The lines first, outside the transaction: distinct items by NURand(8191, 1, 100000),
-- supplied by another warehouse 1% of the time; the last line of an intended rollback
-- names item 100001, which does not exist.
WHILE @i <= @no_o_ol_cnt
BEGIN
IF @no_rbk = 1 AND @i = @no_o_ol_cnt
BEGIN
SET @item = 100001;
END
ELSE
BEGIN
SET @item = 0;
WHILE @item = 0 OR EXISTS (SELECT 1 FROM @lines WHERE i_id = @item)
BEGIN
SET @item = (((CAST(RAND() * 8192 AS int) | (1 + CAST(RAND() * 100000 AS int)))
    + {c_ol_i_id}) % 100000) + 1;
END
END
SET @sw = @no_w_id;
IF @no_max_w_id > 1 AND RAND() < 0.01
BEGIN
SET @sw = 1 + CAST(RAND() * (@no_max_w_id - 1) AS int);
IF @sw >= @no_w_id
BEGIN
SET @sw = @sw + 1;
END
SET @all_local = 0;
END
INSERT INTO @lines (supply_w_id, i_id, ol_number, quantity)
VALUES (@sw, @item, @i, 1 + CAST(RAND() * 10 AS int));
SET @i = @i + 1;
END
BEGIN TRY
BEGIN TRANSACTION;
-- Stock rows in (warehouse, item) order, priced from item in the same statement.
UPDATE s
SET s_quantity = CASE WHEN s.s_quantity >= l.quantity + 10 THEN s.s_quantity - l.quantity
        ELSE s.s_quantity - l.quantity + 91 END,
    s_ytd = s.s_ytd + l.quantity,
    s_order_cnt = s.s_order_cnt + 1,
    s_remote_cnt = s.s_remote_cnt + CASE WHEN l.supply_w_id <> @no_w_id THEN 1 ELSE 0 END
OUTPUT l.ol_number, l.i_id, l.supply_w_id, l.quantity, l.quantity * it.i_price,
    CASE @no_d_id WHEN 1 THEN inserted.s_dist_01 WHEN 2 THEN inserted.s_dist_02
        WHEN 3 THEN inserted.s_dist_03 WHEN 4 THEN inserted.s_dist_04
        WHEN 5 THEN inserted.s_dist_05 WHEN 6 THEN inserted.s_dist_06
        WHEN 7 THEN inserted.s_dist_07 WHEN 8 THEN inserted.s_dist_08
        WHEN 9 THEN inserted.s_dist_09 ELSE inserted.s_dist_10 END
INTO @priced
FROM dbo.stock AS s
JOIN @lines AS l ON s.s_w_id = l.supply_w_id AND s.s_i_id = l.i_id
JOIN dbo.item AS it ON it.i_id = l.i_id;
SET @found = @@ROWCOUNT;
IF @found < @no_o_ol_cnt
BEGIN
IF @no_rbk = 1
BEGIN
ROLLBACK TRANSACTION;
SELECT CAST(0 AS int) AS committed, CAST(NULL AS int) AS o_id, @no_o_ol_cnt AS ol_cnt,
    CAST(NULL AS money) AS total_amount, CAST(NULL AS char(16)) AS c_last,
    CAST(NULL AS char(2)) AS c_credit, CAST(NULL AS smallmoney) AS c_discount,
    CAST(NULL AS smallmoney) AS w_tax, CAST(NULL AS smallmoney) AS d_tax;
RETURN;
END
RAISERROR(N'item or stock rows missing: %d of %d order lines found', 16, 1,
    @found, @no_o_ol_cnt);
END
SELECT @c_discount = c_discount, @c_last = c_last, @c_credit = c_credit
FROM dbo.customer
WHERE c_w_id = @no_w_id AND c_d_id = @no_d_id AND c_id = @no_c_id;
IF @@ROWCOUNT = 0
BEGIN
RAISERROR(N'customer not found: id %d in warehouse %d district %d', 16, 1,
    @no_c_id, @no_w_id, @no_d_id);
END
SELECT @w_tax = w_tax FROM dbo.warehouse WHERE w_id = @no_w_id;
-- The hottest row last, held the shortest time.
UPDATE dbo.district
SET @d_tax = d_tax, @o_id = d_next_o_id, d_next_o_id = d_next_o_id + 1
WHERE d_w_id = @no_w_id AND d_id = @no_d_id;
INSERT INTO dbo.orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt,
    o_all_local)
VALUES (@o_id, @no_d_id, @no_w_id, @no_c_id, GETDATE(), NULL, @no_o_ol_cnt, @all_local);
INSERT INTO dbo.new_order (no_o_id, no_d_id, no_w_id) VALUES (@o_id, @no_d_id, @no_w_id);
INSERT INTO dbo.order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
    ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
SELECT @o_id, @no_d_id, @no_w_id, p.ol_number, p.i_id, p.supply_w_id, NULL, p.quantity,
    p.amount, p.dist_info
FROM @priced AS p;
SELECT @total = SUM(p.amount) * (1 - @c_discount) * (1 + @w_tax + @d_tax) FROM @priced AS p;
COMMIT TRANSACTION;
SELECT CAST(1 AS int) AS committed, @o_id AS o_id, @no_o_ol_cnt AS ol_cnt,
    @total AS total_amount, @c_last AS c_last, @c_credit AS c_credit,
    @c_discount AS c_discount, @w_tax AS w_tax, @d_tax AS d_tax;
""".replace("{c_ol_i_id}", str(tpcc_rand.C_OL_I_ID))

# By name: the customer at position ceil(n/2) of those with the last name, ordered by c_first.
_PAYMENT: Final = """SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @n int, @c_first char(16), @c_middle char(2), @c_balance money, @c_credit char(2);
DECLARE @c_discount smallmoney, @w_name char(10), @d_name char(10);
BEGIN TRY
BEGIN TRANSACTION;
IF @p_byname = 1
BEGIN
SELECT @n = COUNT(*) FROM dbo.customer
WHERE c_w_id = @p_c_w_id AND c_d_id = @p_c_d_id AND c_last = @p_c_last;
IF @n = 0
BEGIN
RAISERROR(N'customer not found: last name %s in warehouse %d district %d', 16, 1,
    @p_c_last, @p_c_w_id, @p_c_d_id);
END
SELECT @p_c_id = c_id FROM dbo.customer
WHERE c_w_id = @p_c_w_id AND c_d_id = @p_c_d_id AND c_last = @p_c_last
ORDER BY c_first OFFSET (@n - 1) / 2 ROWS FETCH NEXT 1 ROWS ONLY;
END
UPDATE dbo.customer
SET c_balance = c_balance - @p_h_amount,
    c_ytd_payment = c_ytd_payment + @p_h_amount,
    c_payment_cnt = c_payment_cnt + 1,
    c_data = CASE WHEN c_credit = 'BC'
        THEN LEFT(CAST(@p_c_id AS varchar(10)) + ' ' + CAST(@p_c_d_id AS varchar(10)) + ' '
            + CAST(@p_c_w_id AS varchar(10)) + ' ' + CAST(@p_d_id AS varchar(10)) + ' '
            + CAST(@p_w_id AS varchar(10)) + ' ' + CAST(@p_h_amount AS varchar(10)) + ' | '
            + c_data, 500)
        ELSE c_data END,
    @c_first = c_first, @c_middle = c_middle, @p_c_last = c_last,
    @c_balance = c_balance - @p_h_amount, @c_credit = c_credit, @c_discount = c_discount
WHERE c_w_id = @p_c_w_id AND c_d_id = @p_c_d_id AND c_id = @p_c_id;
IF @@ROWCOUNT = 0
BEGIN
RAISERROR(N'customer not found: id %d in warehouse %d district %d', 16, 1,
    @p_c_id, @p_c_w_id, @p_c_d_id);
END
UPDATE dbo.district SET d_ytd = d_ytd + @p_h_amount, @d_name = d_name
WHERE d_w_id = @p_w_id AND d_id = @p_d_id;
UPDATE dbo.warehouse SET w_ytd = w_ytd + @p_h_amount, @w_name = w_name
WHERE w_id = @p_w_id;
INSERT INTO dbo.history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount,
    h_data)
VALUES (@p_c_id, @p_c_d_id, @p_c_w_id, @p_d_id, @p_w_id, GETDATE(), @p_h_amount,
    @w_name + '    ' + @d_name);
COMMIT TRANSACTION;
SELECT @p_c_id AS c_id, @c_first AS c_first, @c_middle AS c_middle, @p_c_last AS c_last,
    @c_balance AS c_balance, @c_credit AS c_credit, @c_discount AS c_discount,
    @w_name AS w_name, @d_name AS d_name, @p_h_amount AS h_amount;
"""

_OSTAT: Final = """SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @n int, @c_first char(16), @c_middle char(2), @c_balance money;
DECLARE @o_id int, @o_entry_d datetime, @o_carrier_id int;
BEGIN TRY
BEGIN TRANSACTION;
IF @os_byname = 1
BEGIN
SELECT @n = COUNT(*) FROM dbo.customer
WHERE c_w_id = @os_w_id AND c_d_id = @os_d_id AND c_last = @os_c_last;
IF @n = 0
BEGIN
RAISERROR(N'customer not found: last name %s in warehouse %d district %d', 16, 1,
    @os_c_last, @os_w_id, @os_d_id);
END
SELECT @os_c_id = c_id FROM dbo.customer
WHERE c_w_id = @os_w_id AND c_d_id = @os_d_id AND c_last = @os_c_last
ORDER BY c_first OFFSET (@n - 1) / 2 ROWS FETCH NEXT 1 ROWS ONLY;
END
SELECT @c_balance = c_balance, @c_first = c_first, @c_middle = c_middle,
    @os_c_last = c_last
FROM dbo.customer
WHERE c_w_id = @os_w_id AND c_d_id = @os_d_id AND c_id = @os_c_id;
IF @@ROWCOUNT = 0
BEGIN
RAISERROR(N'customer not found: id %d in warehouse %d district %d', 16, 1,
    @os_c_id, @os_w_id, @os_d_id);
END
SELECT TOP (1) @o_id = o_id, @o_entry_d = o_entry_d, @o_carrier_id = o_carrier_id
FROM dbo.orders
WHERE o_w_id = @os_w_id AND o_d_id = @os_d_id AND o_c_id = @os_c_id
ORDER BY o_id DESC;
SELECT @os_c_id AS c_id, @c_first AS c_first, @c_middle AS c_middle, @os_c_last AS c_last,
    @c_balance AS c_balance, @o_id AS o_id, @o_entry_d AS o_entry_d,
    @o_carrier_id AS o_carrier_id;
SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d
FROM dbo.order_line
WHERE ol_w_id = @os_w_id AND ol_d_id = @os_d_id AND ol_o_id = @o_id;
COMMIT TRANSACTION;
"""

# District by district, as the spec describes it; a district with no new order is skipped
# (HammerDB's version credits the previous district's customer again in that case).
_DELIVERY: Final = """SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @d int = 1, @o_id int, @c_id int, @total money, @delivered int = 0;
BEGIN TRY
BEGIN TRANSACTION;
WHILE @d <= 10
BEGIN
SET @o_id = NULL;
SELECT TOP (1) @o_id = no_o_id
FROM dbo.new_order WITH (SERIALIZABLE, UPDLOCK)
WHERE no_w_id = @d_w_id AND no_d_id = @d
ORDER BY no_o_id ASC;
IF @o_id IS NOT NULL
BEGIN
DELETE FROM dbo.new_order WHERE no_w_id = @d_w_id AND no_d_id = @d AND no_o_id = @o_id;
UPDATE dbo.orders SET o_carrier_id = @d_o_carrier_id, @c_id = o_c_id
WHERE o_w_id = @d_w_id AND o_d_id = @d AND o_id = @o_id;
SELECT @total = ISNULL(SUM(ol_amount), 0) FROM dbo.order_line
WHERE ol_w_id = @d_w_id AND ol_d_id = @d AND ol_o_id = @o_id;
UPDATE dbo.order_line SET ol_delivery_d = GETDATE()
WHERE ol_w_id = @d_w_id AND ol_d_id = @d AND ol_o_id = @o_id;
UPDATE dbo.customer
SET c_balance = c_balance + @total, c_delivery_cnt = c_delivery_cnt + 1
WHERE c_w_id = @d_w_id AND c_d_id = @d AND c_id = @c_id;
SET @delivered = @delivered + 1;
END
SET @d = @d + 1;
END
COMMIT TRANSACTION;
SELECT @delivered AS delivered;
"""

_SLEV: Final = """SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @next int, @low_stock int;
BEGIN TRY
BEGIN TRANSACTION;
SELECT @next = d_next_o_id FROM dbo.district WHERE d_w_id = @st_w_id AND d_id = @st_d_id;
SELECT @low_stock = COUNT(DISTINCT s.s_i_id)
FROM dbo.order_line AS ol
JOIN dbo.stock AS s ON s.s_w_id = ol.ol_w_id AND s.s_i_id = ol.ol_i_id
WHERE ol.ol_w_id = @st_w_id AND ol.ol_d_id = @st_d_id
    AND ol.ol_o_id >= @next - 20 AND ol.ol_o_id < @next
    AND s.s_quantity < @threshold
OPTION (LOOP JOIN, MAXDOP 1);
COMMIT TRANSACTION;
SELECT @low_stock AS low_stock;
"""

BODIES: Final[dict[str, str]] = {
    "neword": _NEWORD,
    "payment": _PAYMENT,
    "ostat": _OSTAT,
    "delivery": _DELIVERY,
    "slev": _SLEV,
}


def header(name: str) -> str:
    """``CREATE OR ALTER PROCEDURE dbo.name`` with its parameter list and ``AS``."""
    params = ",\n".join(f"    @{p} {t}" for p, t in PARAMETERS[name])
    return f"CREATE OR ALTER PROCEDURE dbo.{name}\n{params}\nAS"


def create_sql(name: str) -> str:
    """The whole CREATE OR ALTER PROCEDURE batch of one procedure (send it on its own)."""
    if name not in BODIES:
        raise ValueError(f"no TPROC-C procedure named {name!r}; expected one of {PROCEDURES}")
    body = BODIES[name].rstrip("\n")
    if "BEGIN TRY" in body:
        body = f"{body}\n{_CATCH}"
    return f"{header(name)}\nBEGIN\n{body}\nEND"


DROP_PROCEDURES: Final = tuple(f"DROP PROCEDURE IF EXISTS dbo.{name}" for name in PROCEDURES)

# Both profiles' procedures, built together: ours, then HammerDB's (hdb_*: .hammerdb).
ALL_PROCEDURES: Final = PROCEDURES + hammerdb.PROCEDURES


def create_any_sql(name: str) -> str:
    """The CREATE OR ALTER batch of any procedure of :data:`ALL_PROCEDURES`."""
    return hammerdb.create_sql(name) if name in hammerdb.BODIES else create_sql(name)


def call_sql(name: str) -> str:
    """The ODBC call escape for one procedure, one marker per parameter (a direct RPC)."""
    if name not in PARAMETERS:
        raise ValueError(f"no TPROC-C procedure named {name!r}; expected one of {PROCEDURES}")
    marks = ", ".join("?" for _ in PARAMETERS[name])
    return f"{{CALL dbo.{name} ({marks})}}"


def exec_sql(name: str) -> str:
    """The same call as an EXEC batch with named parameters (for tools and FreeTDS)."""
    if name not in PARAMETERS:
        raise ValueError(f"no TPROC-C procedure named {name!r}; expected one of {PROCEDURES}")
    return f"EXEC dbo.{name} " + ", ".join(f"@{p} = ?" for p, _t in PARAMETERS[name])
