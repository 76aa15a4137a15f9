"""HammerDB 6.0's SQL Server transactions (disk-based, ``mssqlsoltp.tcl``), re-expressed.

The ``hammerdb`` profile (:mod:`bench_gui.agent.profiles`) calls these ``dbo.hdb_*``
procedures, built beside ours, so a run compares like for like with a HammerDB result on SQL
Server. They do what HammerDB's procedures do, in the same order, with the same faults
(docs/profiles.md):

- New-Order reads the customer, increments the district, draws its rollback (1 in 100), then
  per line a uniform item (repeats possible) and a supply warehouse (1% another one), reads
  the item and updates ``s_quantity`` only, writing the line through ``OUTPUT ... INTO`` (the
  amount is quantity x price, no taxes); the order and new-order rows come last. The rollback
  is real: the unused item writes no line, and ``ROLLBACK TRANSACTION`` undoes the rest.
- Payment finds a by-name customer outside the transaction (the first of the upper half by
  first name), then updates customer, history, district, warehouse in that order; ``c_data``
  of a good-credit customer is overwritten with its credit ("GC"), and the names in
  ``h_data`` are read after they are used (empty).
- Delivery locks the oldest new order of each district; a district without one still credits
  the previous district's amount to that customer id in this district, and the sum is an
  ``int``.
- Every procedure catches any error, answers it as a result set (``ErrorNumber`` ...,
  ``ErrorMessage``) and rolls back: the error never reaches the caller as an error, as in
  HammerDB; :func:`caught` finds it in the answer so the driver can count it.

What we add or leave: New-Order's answer ends with ``rolled_back`` (1 for its rollback) so the
driver counts the rollback apart; timestamps are the server's (``GETDATE()``), not a parameter;
HammerDB's ``PRINT`` lines (an informational message per district) are left out.
The line goes ``INTO order_line`` by position (our table's columns are in HammerDB's order) and
unqualified (inside a dbo procedure it resolves to dbo.order_line): sqlglot, our syntax check,
reads neither a column list nor a schema there. The layout keeps :mod:`.procedures`' rule
(one statement per ``;``, blocks on their own lines) so the same syntax check parses every
statement.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

# Parameters in call order: (name without @, T-SQL type).
PARAMETERS: Final[dict[str, tuple[tuple[str, str], ...]]] = {
    "hdb_neword": (
        ("no_w_id", "int"),
        ("no_max_w_id", "int"),
        ("no_d_id", "int"),
        ("no_c_id", "int"),
        ("no_o_ol_cnt", "int"),
    ),
    "hdb_payment": (
        ("p_w_id", "int"),
        ("p_d_id", "int"),
        ("p_c_w_id", "int"),
        ("p_c_d_id", "int"),
        ("p_c_id", "int"),
        ("byname", "int"),
        ("p_h_amount", "numeric(6, 2)"),
        ("p_c_last", "char(16)"),
    ),
    "hdb_ostat": (
        ("os_w_id", "int"),
        ("os_d_id", "int"),
        ("os_c_id", "int"),
        ("byname", "int"),
        ("os_c_last", "char(20)"),
    ),
    "hdb_delivery": (("d_w_id", "int"), ("d_o_carrier_id", "int")),
    "hdb_slev": (("st_w_id", "int"), ("st_d_id", "int"), ("threshold", "int")),
}
PROCEDURES: Final = tuple(PARAMETERS)
PROCEDURE_OF: Final[dict[str, str]] = {
    "new_order": "hdb_neword",
    "payment": "hdb_payment",
    "order_status": "hdb_ostat",
    "delivery": "hdb_delivery",
    "stock_level": "hdb_slev",
}
# The first column of the result set a caught error answers with.
ERROR_COLUMN: Final = "ErrorNumber"

# Every procedure's end: the error as a result set, a rollback, else the commit.
_CATCH: Final = """END TRY
BEGIN CATCH
SELECT ERROR_NUMBER() AS ErrorNumber, ERROR_SEVERITY() AS ErrorSeverity,
    ERROR_STATE() AS ErrorState, ERROR_PROCEDURE() AS ErrorProcedure,
    ERROR_LINE() AS ErrorLine, ERROR_MESSAGE() AS ErrorMessage;
IF @@TRANCOUNT > 0
BEGIN
ROLLBACK TRANSACTION;
END
END CATCH
IF @@TRANCOUNT > 0
BEGIN
COMMIT TRANSACTION;
END"""

_NEWORD: Final = """SET ANSI_WARNINGS OFF;
DECLARE @c_discount smallmoney, @c_last char(16), @c_credit char(2), @d_tax smallmoney;
DECLARE @w_tax smallmoney, @next_o_id int, @supply int, @item int, @qty int, @all_local int;
DECLARE @o_id int, @i_name char(24), @i_price smallmoney, @i_data char(50), @s_data char(50);
DECLARE @dist char(24), @x int, @rbk int, @line int, @now datetime2(0) = GETDATE();
BEGIN TRANSACTION;
BEGIN TRY
SET @all_local = 1;
SELECT @c_discount = c_discount, @c_last = c_last, @c_credit = c_credit
FROM dbo.customer
WHERE c_w_id = @no_w_id AND c_d_id = @no_d_id AND c_id = @no_c_id;
UPDATE dbo.district
SET @d_tax = d_tax, @o_id = d_next_o_id, @next_o_id = d_next_o_id + 1,
    d_next_o_id = d_next_o_id + 1
WHERE d_id = @no_d_id AND d_w_id = @no_w_id;
SET @rbk = CAST(100 * RAND() + 1 AS int);
SET @line = 1;
WHILE @line <= @no_o_ol_cnt
BEGIN
IF @line = @no_o_ol_cnt AND @rbk = 1
BEGIN
SET @item = 100001;
END
ELSE
BEGIN
SET @item = CAST(100000 * RAND() + 1 AS int);
END
SET @x = CAST(100 * RAND() + 1 AS int);
SET @supply = @no_w_id;
IF @x <= 1
BEGIN
SET @all_local = 0;
WHILE @supply = @no_w_id AND @no_max_w_id <> 1
BEGIN
SET @supply = CAST(@no_max_w_id * RAND() + 1 AS int);
END
END
SET @qty = CAST(10 * RAND() + 1 AS int);
SELECT @i_price = i_price, @i_name = i_name, @i_data = i_data
FROM dbo.item
WHERE i_id = @item;
UPDATE dbo.stock
SET s_quantity = s_quantity - @qty + CASE WHEN s_quantity > @qty THEN 0 ELSE 91 END,
    @s_data = s_data,
    @dist = CASE @no_d_id WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03
        WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06
        WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09
        WHEN 10 THEN s_dist_10 END
OUTPUT @o_id, @no_d_id, @no_w_id, @line, @item, NULL, @qty * @i_price, @supply, @qty,
    CASE @no_d_id WHEN 1 THEN inserted.s_dist_01 WHEN 2 THEN inserted.s_dist_02
        WHEN 3 THEN inserted.s_dist_03 WHEN 4 THEN inserted.s_dist_04
        WHEN 5 THEN inserted.s_dist_05 WHEN 6 THEN inserted.s_dist_06
        WHEN 7 THEN inserted.s_dist_07 WHEN 8 THEN inserted.s_dist_08
        WHEN 9 THEN inserted.s_dist_09 WHEN 10 THEN inserted.s_dist_10 END
INTO order_line
WHERE s_i_id = @item AND s_w_id = @supply;
SET @line = @line + 1;
END
INSERT INTO dbo.orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)
VALUES (@o_id, @no_d_id, @no_w_id, @no_c_id, @now, @no_o_ol_cnt, @all_local);
INSERT INTO dbo.new_order (no_o_id, no_d_id, no_w_id) VALUES (@o_id, @no_d_id, @no_w_id);
IF @rbk = 1
BEGIN
ROLLBACK TRANSACTION;
END
SELECT @w_tax = w_tax FROM dbo.warehouse WHERE w_id = @no_w_id;
SELECT @c_discount AS c_discount, @c_last AS c_last, @c_credit AS c_credit, @d_tax AS d_tax,
    @w_tax AS w_tax, @next_o_id AS d_next_o_id,
    CASE WHEN @rbk = 1 THEN 1 ELSE 0 END AS rolled_back;
"""

_DELIVERY: Final = """SET ANSI_WARNINGS OFF;
DECLARE @o_id int, @d int, @c_id int, @total int, @now datetime2(0) = GETDATE();
BEGIN TRANSACTION;
BEGIN TRY
SET @d = 1;
WHILE @d <= 10
BEGIN
SELECT TOP (1) @o_id = no_o_id
FROM dbo.new_order WITH (SERIALIZABLE, UPDLOCK)
WHERE no_w_id = @d_w_id AND no_d_id = @d
ORDER BY no_o_id ASC;
IF @@ROWCOUNT <> 0
BEGIN
DELETE FROM dbo.new_order WHERE no_w_id = @d_w_id AND no_d_id = @d AND no_o_id = @o_id;
UPDATE dbo.orders SET o_carrier_id = @d_o_carrier_id, @c_id = o_c_id
WHERE o_id = @o_id AND o_d_id = @d AND o_w_id = @d_w_id;
SET @total = 0;
UPDATE dbo.order_line SET ol_delivery_d = @now, @total = @total + ol_amount
WHERE ol_o_id = @o_id AND ol_d_id = @d AND ol_w_id = @d_w_id;
END
UPDATE dbo.customer SET c_balance = c_balance + @total
WHERE c_id = @c_id AND c_d_id = @d AND c_w_id = @d_w_id;
SET @d = @d + 1;
END
SELECT @d_w_id AS d_w_id, @d_o_carrier_id AS d_o_carrier_id, @now AS delivered_at;
"""

_PAYMENT: Final = """SET ANSI_WARNINGS OFF;
DECLARE @c_first char(16), @c_middle char(2), @c_credit char(32), @c_discount numeric(4, 4);
DECLARE @c_balance money, @c_since datetime2(0), @d_name char(11), @w_name char(11);
DECLARE @h_data varchar(30), @now datetime2(0) = GETDATE();
BEGIN TRY
IF @byname = 1
BEGIN
SELECT TOP (1) @p_c_id = x.c_id
FROM (SELECT TOP 50 PERCENT c_id, c_first FROM dbo.customer WITH (REPEATABLEREAD)
    WHERE c_last = @p_c_last AND c_w_id = @p_c_w_id AND c_d_id = @p_c_d_id
    ORDER BY c_first) AS x
ORDER BY x.c_first DESC;
END
BEGIN TRANSACTION;
UPDATE dbo.customer
SET c_balance = c_balance - @p_h_amount,
    @c_balance = c_balance - @p_h_amount,
    c_data = CASE WHEN c_credit <> 'BC' THEN c_credit
        ELSE LEFT(ISNULL(CAST(@p_c_id AS char(11)), '') + ' '
            + ISNULL(CAST(@p_c_d_id AS char(11)), '') + ' '
            + ISNULL(CAST(@p_c_w_id AS char(11)), '') + ' '
            + ISNULL(CAST(@p_d_id AS char(11)), '') + ' '
            + ISNULL(CAST(@p_w_id AS char(11)), '') + ' '
            + ISNULL(CAST(@p_h_amount AS char(8)), '') + ' '
            + ISNULL(CAST(@now AS char(30)), '') + ' '
            + ISNULL(@w_name, '') + ' ' + ISNULL(@d_name, '') + ' ' + c_data, 500) END,
    @c_first = c_first, @c_middle = c_middle, @p_c_last = c_last, @c_credit = c_credit,
    @c_discount = c_discount, @c_since = c_since
WHERE c_id = @p_c_id AND c_w_id = @p_c_w_id AND c_d_id = @p_c_d_id;
SET @h_data = ISNULL(@w_name, '') + ' ' + ISNULL(@d_name, '');
INSERT INTO dbo.history (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount,
    h_data)
VALUES (@p_c_d_id, @p_c_w_id, @p_c_id, @p_d_id, @p_w_id, @now, @p_h_amount, @h_data);
UPDATE dbo.district SET d_ytd = d_ytd + @p_h_amount, @d_name = d_name
WHERE d_w_id = @p_w_id AND d_id = @p_d_id;
UPDATE dbo.warehouse SET w_ytd = w_ytd + @p_h_amount, @w_name = w_name
WHERE w_id = @p_w_id;
SELECT @p_c_id AS c_id, @p_c_last AS c_last, @c_first AS c_first, @c_middle AS c_middle,
    @c_credit AS c_credit, @c_discount AS c_discount, @c_balance AS c_balance,
    @c_since AS c_since, @w_name AS w_name, @d_name AS d_name;
"""

_OSTAT: Final = """SET ANSI_WARNINGS OFF;
DECLARE @c_first char(16), @c_middle char(2), @c_balance money, @o_id int;
DECLARE @entry datetime2(0), @carrier int;
BEGIN TRANSACTION;
BEGIN TRY
IF @byname = 1
BEGIN
SELECT TOP (1) @os_c_id = x.c_id, @c_balance = x.c_balance, @c_first = x.c_first,
    @c_middle = x.c_middle, @os_c_last = x.c_last
FROM (SELECT TOP 50 PERCENT c_id, c_balance, c_first, c_middle, c_last
    FROM dbo.customer WITH (REPEATABLEREAD)
    WHERE c_last = @os_c_last AND c_w_id = @os_w_id AND c_d_id = @os_d_id
    ORDER BY c_first) AS x
ORDER BY x.c_first DESC;
END
ELSE
BEGIN
SELECT @c_balance = c_balance, @c_first = c_first, @c_middle = c_middle,
    @os_c_last = c_last
FROM dbo.customer WITH (REPEATABLEREAD)
WHERE c_id = @os_c_id AND c_d_id = @os_d_id AND c_w_id = @os_w_id;
END
SELECT TOP (1) @o_id = o_id, @carrier = o_carrier_id, @entry = o_entry_d
FROM dbo.orders WITH (SERIALIZABLE)
WHERE o_d_id = @os_d_id AND o_w_id = @os_w_id AND o_c_id = @os_c_id
ORDER BY o_id DESC;
SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d
FROM dbo.order_line WITH (REPEATABLEREAD)
WHERE ol_o_id = @o_id AND ol_d_id = @os_d_id AND ol_w_id = @os_w_id;
SELECT @os_c_id AS c_id, @os_c_last AS c_last, @c_first AS c_first, @c_middle AS c_middle,
    @c_balance AS c_balance, @o_id AS o_id, @entry AS o_entry_d, @carrier AS o_carrier_id;
"""

_SLEV: Final = """DECLARE @low int, @high int;
BEGIN TRANSACTION;
BEGIN TRY
SELECT @low = d_next_o_id - 20, @high = d_next_o_id - 1
FROM dbo.district
WHERE d_w_id = @st_w_id AND d_id = @st_d_id;
SELECT COUNT(DISTINCT stock.s_i_id) AS stock_count
FROM dbo.order_line, dbo.stock
WHERE order_line.ol_w_id = @st_w_id AND order_line.ol_d_id = @st_d_id
    AND order_line.ol_o_id BETWEEN @low AND @high
    AND stock.s_w_id = order_line.ol_w_id AND stock.s_i_id = order_line.ol_i_id
    AND stock.s_quantity < @threshold
OPTION (LOOP JOIN, MAXDOP 1);
"""

BODIES: Final[dict[str, str]] = {
    "hdb_neword": _NEWORD,
    "hdb_payment": _PAYMENT,
    "hdb_ostat": _OSTAT,
    "hdb_delivery": _DELIVERY,
    "hdb_slev": _SLEV,
}


def create_sql(name: str) -> str:
    """The whole CREATE OR ALTER PROCEDURE batch of one ``hdb_*`` procedure."""
    if name not in BODIES:
        raise ValueError(f"no HammerDB procedure named {name!r}; expected one of {PROCEDURES}")
    params = ",\n".join(f"    @{p} {t}" for p, t in PARAMETERS[name])
    body = BODIES[name].rstrip("\n")
    return f"CREATE OR ALTER PROCEDURE dbo.{name}\n{params}\nAS\nBEGIN\n{body}\n{_CATCH}\nEND"


DROP_PROCEDURES: Final = tuple(f"DROP PROCEDURE IF EXISTS dbo.{name}" for name in PROCEDURES)
CALLS: Final[dict[str, str]] = {
    kind: "{CALL dbo." + name + " (" + ", ".join("?" for _ in PARAMETERS[name]) + ")}"
    for kind, name in PROCEDURE_OF.items()
}


class Caught(RuntimeError):
    """A procedure caught an error and answered it as a result set (HammerDB's handling)."""

    def __init__(self, number: int, message: str) -> None:
        super().__init__(f"({number}) {message}")
        self.number = number


def caught(sets: Sequence[tuple[Sequence[str], list[tuple[Any, ...]]]]) -> Caught | None:
    """The error a call answered as a result set (columns, rows), if any."""
    for columns, rows in sets:
        if columns and columns[0] == ERROR_COLUMN and rows:
            number, *_rest, message = rows[0]
            return Caught(int(number), str(message))
    return None


def call(cursor: Any, kind: str, params: Sequence[Any]) -> bool:
    """Call the ``hdb_*`` procedure of ``kind``; every result set drained. True for
    New-Order's rollback; raises :class:`Caught` for an error the procedure answered."""
    cursor.execute(CALLS[kind], *params)
    sets: list[tuple[list[str], list[tuple[Any, ...]]]] = []
    while True:
        if cursor.description is not None:
            columns = [d[0] for d in cursor.description]
            sets.append((columns, [tuple(r) for r in cursor.fetchall()]))
        if not cursor.nextset():
            break
    error = caught(sets)
    if error is not None:
        raise error
    if kind == "new_order" and sets and sets[-1][0][-1:] == ["rolled_back"]:
        return bool(sets[-1][1] and sets[-1][1][0][-1] == 1)
    return False
