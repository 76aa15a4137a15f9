"""HammerDB 6.0's PostgreSQL transactions (its default: functions, not procedures), re-expressed.

The ``hammerdb`` profile (:mod:`bench_gui.agent.profiles`) runs these so a run compares like
for like with a HammerDB result on PostgreSQL. They do what HammerDB's ``pgoltp.tcl``
functions do, in the same order, with the same faults (docs/profiles.md):

- New-Order reads customer and warehouse, draws its rollback (1 in 100), uniform items (which
  may repeat) and supply warehouses (1% "remote", which may be the home one) itself, then
  increments the district, inserts the order, updates stock (``s_quantity`` only) in one
  statement and inserts the lines. The intended rollback is **not** rolled back: the unused
  item only leaves a line without amount, and the order commits (counted by the district like
  any other). A repeated item is updated once, and its line's amount and district info come
  from the shortened update result, as in HammerDB.
- Payment updates warehouse, district, then the customer's balance only (``c_data`` for bad
  credit); by name it receives the literal text ``$8`` (HammerDB's prepared statement quotes
  its parameter), finds nobody, and sets the customer drawn by id to minus the amount.
- Order-Status by name likewise receives ``$5`` and returns no rows.
- Delivery takes the oldest new order of each district in one statement, adds the amounts to
  the customers' balances (not ``c_delivery_cnt``).
- Every function catches serialization failures, deadlocks and ``no_data_found`` with a
  ``ROLLBACK``, which PostgreSQL refuses inside a function: the caller gets SQLSTATE 2D000
  (invalid transaction termination) instead of 40P01, as HammerDB's users do.
"""

from __future__ import annotations

from typing import Final

# HammerDB's DBMS_RANDOM(a, b): an integer in [a, b].
_RANDOM: Final = r"""
CREATE OR REPLACE FUNCTION hdb_random(lo int, hi int) RETURNS int
LANGUAGE plpgsql STRICT AS $fn$
BEGIN
    RETURN trunc(random() * (hi - lo + 1) + lo);
END
$fn$;
"""

_NEWORD: Final = r"""
CREATE OR REPLACE FUNCTION hdb_neword(p_w int, p_max_w int, p_d int, p_c int, p_lines int)
RETURNS numeric LANGUAGE plpgsql AS $fn$
DECLARE
    v_discount numeric;
    v_last varchar;
    v_credit varchar;
    v_w_tax numeric;
    v_d_tax numeric;
    v_o_id int;
    v_local smallint := 1;
    v_rbk smallint;
    v_items int[];
    v_supply int[];
    v_qty smallint[];
    v_num smallint[];
    v_price numeric(5, 2)[];
    v_dist char(24)[];
    v_squant smallint[];
    v_amount numeric(6, 2)[];
    v_total numeric := 0;
BEGIN
    SELECT c.c_discount, c.c_last, c.c_credit, w.w_tax
    INTO v_discount, v_last, v_credit, v_w_tax
    FROM customer c, warehouse w
    WHERE w.w_id = p_w AND c.c_w_id = p_w AND c.c_d_id = p_d AND c.c_id = p_c;

    v_rbk := hdb_random(1, 100);
    FOR n IN 1 .. p_lines LOOP
        IF n = p_lines AND v_rbk = 1 THEN
            v_items[n] := 100001;
        ELSE
            v_items[n] := hdb_random(1, 100000);
        END IF;
        IF hdb_random(1, 100) > 1 THEN
            v_supply[n] := p_w;
        ELSE
            v_local := 0;
            v_supply[n] := 1 + mod(p_w + hdb_random(0, p_max_w - 1), p_max_w);
        END IF;
        v_qty[n] := hdb_random(1, 10);
        v_num[n] := n;
    END LOOP;

    UPDATE district SET d_next_o_id = d_next_o_id + 1
    WHERE d_id = p_d AND d_w_id = p_w
    RETURNING d_next_o_id - 1, d_tax INTO v_o_id, v_d_tax;

    INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)
    VALUES (v_o_id, p_d, p_w, p_c, current_timestamp, p_lines, v_local);
    INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d, p_w);

    SELECT array_agg(it.i_price) INTO v_price
    FROM unnest(v_items) AS wanted (id) LEFT JOIN item it ON it.i_id = wanted.id;

    WITH moved AS (
        UPDATE stock s
        SET s_quantity = CASE WHEN s.s_quantity < l.q + 10 THEN s.s_quantity + 91
                              ELSE s.s_quantity END - l.q
        FROM unnest(v_items, v_supply, v_qty, v_price) AS l (id, sw, q, price)
        WHERE s.s_i_id = l.id AND s.s_w_id = l.sw AND s.s_w_id = ANY (v_supply)
        RETURNING CASE p_d WHEN 1 THEN s.s_dist_01 WHEN 2 THEN s.s_dist_02
                           WHEN 3 THEN s.s_dist_03 WHEN 4 THEN s.s_dist_04
                           WHEN 5 THEN s.s_dist_05 WHEN 6 THEN s.s_dist_06
                           WHEN 7 THEN s.s_dist_07 WHEN 8 THEN s.s_dist_08
                           WHEN 9 THEN s.s_dist_09 WHEN 10 THEN s.s_dist_10 END AS dist,
                  s.s_quantity AS squant,
                  l.q * l.price * (1 + v_w_tax + v_d_tax) * (1 - v_discount) AS amount
    )
    SELECT array_agg(dist), array_agg(squant), array_agg(amount)
    INTO v_dist, v_squant, v_amount
    FROM moved;

    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                            ol_quantity, ol_amount, ol_dist_info)
    SELECT v_o_id, p_d, p_w, x.num, x.id, x.sw, x.q, x.amount, x.dist
    FROM unnest(v_num, v_items, v_supply, v_qty, v_amount, v_dist)
        AS x (num, id, sw, q, amount, dist);

    FOR n IN 1 .. p_lines LOOP
        v_total := v_total + v_amount[n]::numeric;
    END LOOP;
    RETURN v_total;
EXCEPTION
    WHEN serialization_failure OR deadlock_detected OR no_data_found THEN
        ROLLBACK;
END
$fn$;
"""

_DELIVERY: Final = r"""
CREATE OR REPLACE FUNCTION hdb_delivery(p_w int, p_carrier int)
RETURNS int LANGUAGE plpgsql AS $fn$
DECLARE
    v_o int[];
    v_d smallint[];
    v_c int[];
    v_sum numeric[];
BEGIN
    WITH taken AS (
        DELETE FROM new_order n
        USING unnest(ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]::smallint[]) AS ds (d)
        WHERE n.no_d_id = ds.d AND n.no_w_id = p_w
          AND n.no_o_id = (SELECT min(o.no_o_id) FROM new_order o
                           WHERE o.no_d_id = ds.d AND o.no_w_id = p_w)
        RETURNING n.no_o_id, n.no_d_id
    )
    SELECT array_agg(no_o_id), array_agg(no_d_id) INTO v_o, v_d FROM taken;

    UPDATE orders SET o_carrier_id = p_carrier
    FROM unnest(v_o, v_d) AS k (o, d)
    WHERE orders.o_id = k.o AND orders.o_d_id = k.d AND orders.o_w_id = p_w;

    WITH lines AS (
        UPDATE order_line SET ol_delivery_d = current_timestamp
        FROM unnest(v_o, v_d) AS k (o, d)
        WHERE ol_o_id = k.o AND ol_d_id = k.d AND ol_w_id = p_w
        RETURNING ol_d_id, ol_o_id, ol_amount
    )
    SELECT array_agg(t.d), array_agg(t.c), array_agg(t.total) INTO v_d, v_c, v_sum
    FROM (SELECT lines.ol_d_id AS d,
                 (SELECT DISTINCT o.o_c_id FROM orders o
                  WHERE o.o_id = lines.ol_o_id AND o.o_d_id = lines.ol_d_id
                    AND o.o_w_id = p_w) AS c,
                 sum(lines.ol_amount) AS total
          FROM lines GROUP BY lines.ol_d_id, lines.ol_o_id) AS t;

    UPDATE customer SET c_balance = coalesce(c_balance, 0) + k.total
    FROM unnest(v_d, v_c, v_sum) AS k (d, c, total)
    WHERE customer.c_id = k.c AND customer.c_d_id = k.d AND customer.c_w_id = p_w;
    RETURN 1;
EXCEPTION
    WHEN serialization_failure OR deadlock_detected OR no_data_found THEN
        ROLLBACK;
END
$fn$;
"""

_PAYMENT: Final = r"""
CREATE OR REPLACE FUNCTION hdb_payment(p_w int, p_d int, p_c_w int, p_c_d int, p_c_id int,
                                       p_byname int, p_amount numeric, p_last varchar,
                                       p_credit varchar, p_balance numeric)
RETURNS int LANGUAGE plpgsql AS $fn$
DECLARE
    v_c_id int := p_c_id;
    v_balance numeric(12, 2) := p_balance;
    v_credit char(2) := p_credit;
    v_last varchar(16) := p_last;
    v_w_name varchar(11);
    v_d_name varchar(11);
    v_first varchar(16);
    v_other record;
    v_count smallint;
    v_when timestamp := current_timestamp;
    by_name CURSOR FOR
        SELECT c_first, c_id, c_credit, c_balance FROM customer
        WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_last = v_last
        ORDER BY c_first;
BEGIN
    UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w
    RETURNING w_name INTO v_w_name;
    UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w AND d_id = p_d
    RETURNING d_name INTO v_d_name;

    IF p_byname = 1 THEN
        SELECT count(c_last) INTO v_count FROM customer
        WHERE c_last = v_last AND c_d_id = p_c_d AND c_w_id = p_c_w;
        OPEN by_name;
        FOR n IN 1 .. (v_count / 2)::int LOOP
            FETCH by_name INTO v_first, v_c_id, v_credit, v_balance;
        END LOOP;
        CLOSE by_name;
    ELSE
        SELECT c_first, c_last, c_credit, c_balance INTO v_first, v_last, v_credit, v_balance
        FROM customer WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c_id;
    END IF;

    IF v_credit = 'BC' THEN
        UPDATE customer
        SET c_balance = v_balance - p_amount,
            c_data = substr(v_c_id || ' ' || p_c_d || ' ' || p_c_w || ' ' || p_d || ' ' || p_w
                            || ' ' || to_char(p_amount, '9999.99') || ' | ' || c_data, 1, 500)
        WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c_id;
    ELSE
        UPDATE customer SET c_balance = v_balance - p_amount
        WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c_id;
    END IF;

    INSERT INTO history (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (p_c_d, p_c_w, v_c_id, p_d, p_w, v_when, p_amount, v_w_name || ' ' || v_d_name);
    RETURN v_c_id;
EXCEPTION
    WHEN serialization_failure OR deadlock_detected OR no_data_found THEN
        ROLLBACK;
END
$fn$;
"""

_OSTAT: Final = r"""
CREATE OR REPLACE FUNCTION hdb_ostat(p_w int, p_d int, p_c_id int, p_byname int, p_last varchar)
RETURNS TABLE (ol_i_id int, ol_supply_w_id int, ol_quantity smallint, ol_amount numeric,
               ol_delivery_d timestamp, c_first varchar, c_middle varchar, c_balance numeric,
               o_id int, o_entry_d timestamp, o_carrier_id int)
LANGUAGE plpgsql AS $fn$
DECLARE
    v_c_id int := p_c_id;
    v_last varchar := p_last;
    v_first varchar;
    v_middle varchar;
    v_balance numeric;
    v_o_id int;
    v_entry timestamp;
    v_carrier int;
    v_count int;
    by_name CURSOR FOR
        SELECT c.c_balance, c.c_first, c.c_middle, c.c_id FROM customer c
        WHERE c.c_last = v_last AND c.c_d_id = p_d AND c.c_w_id = p_w
        ORDER BY c.c_first;
BEGIN
    IF p_byname = 1 THEN
        SELECT count(c.c_id) INTO v_count FROM customer c
        WHERE c.c_last = v_last AND c.c_d_id = p_d AND c.c_w_id = p_w;
        IF mod(v_count, 2) = 1 THEN
            v_count := v_count + 1;
        END IF;
        OPEN by_name;
        FOR n IN 0 .. (v_count / 2)::int LOOP
            FETCH by_name INTO v_balance, v_first, v_middle, v_c_id;
        END LOOP;
        CLOSE by_name;
    ELSE
        SELECT c.c_balance, c.c_first, c.c_middle, c.c_last
        INTO v_balance, v_first, v_middle, v_last
        FROM customer c WHERE c.c_id = v_c_id AND c.c_d_id = p_d AND c.c_w_id = p_w;
    END IF;
    SELECT r.o_id, r.o_carrier_id, r.o_entry_d INTO v_o_id, v_carrier, v_entry
    FROM (SELECT o.o_id, o.o_carrier_id, o.o_entry_d FROM orders o
          WHERE o.o_d_id = p_d AND o.o_w_id = p_w AND o.o_c_id = v_c_id
          ORDER BY o.o_id DESC) AS r
    LIMIT 1;
    RETURN QUERY
        SELECT l.ol_i_id, l.ol_supply_w_id, l.ol_quantity, l.ol_amount, l.ol_delivery_d,
               v_first, v_middle, v_balance, v_o_id, v_entry, v_carrier
        FROM order_line l
        WHERE l.ol_o_id = v_o_id AND l.ol_d_id = p_d AND l.ol_w_id = p_w;
EXCEPTION
    WHEN serialization_failure OR deadlock_detected OR no_data_found THEN
        ROLLBACK;
END
$fn$;
"""

_SLEV: Final = r"""
CREATE OR REPLACE FUNCTION hdb_slev(p_w int, p_d int, p_threshold int)
RETURNS int LANGUAGE plpgsql AS $fn$
DECLARE
    v_n int;
BEGIN
    SELECT count(DISTINCT s.s_i_id) INTO v_n
    FROM order_line ol, stock s, district d
    WHERE ol.ol_w_id = p_w AND ol.ol_d_id = p_d
      AND d.d_w_id = p_w AND d.d_id = p_d
      AND ol.ol_o_id < d.d_next_o_id AND ol.ol_o_id >= d.d_next_o_id - 20
      AND s.s_w_id = p_w AND s.s_i_id = ol.ol_i_id AND s.s_quantity < p_threshold;
    RETURN v_n;
EXCEPTION
    WHEN serialization_failure OR deadlock_detected OR no_data_found THEN
        ROLLBACK;
END
$fn$;
"""

ROUTINES_SQL: Final = _RANDOM + _NEWORD + _DELIVERY + _PAYMENT + _OSTAT + _SLEV

ROUTINE_SIGNATURES: Final[dict[str, str]] = {
    "hdb_random": "hdb_random(integer, integer)",
    "hdb_neword": "hdb_neword(integer, integer, integer, integer, integer)",
    "hdb_payment": (
        "hdb_payment(integer, integer, integer, integer, integer, integer, numeric,"
        " character varying, character varying, numeric)"
    ),
    "hdb_ostat": "hdb_ostat(integer, integer, integer, integer, character varying)",
    "hdb_delivery": "hdb_delivery(integer, integer)",
    "hdb_slev": "hdb_slev(integer, integer, integer)",
}

# What the users prepare. Payment and Order-Status pass the last name as the quoted text
# '$8' / '$5' (not a parameter), as HammerDB's prepared statements do: by name finds nobody.
STATEMENTS: Final[dict[str, bytes]] = {
    "new_order": b"SELECT hdb_neword($1,$2,$3,$4,$5)",
    "payment": b"SELECT hdb_payment($1,$2,$3,$4,$5,$6,$7,'$8','0',0)",
    "delivery": b"SELECT hdb_delivery($1,$2)",
    "stock_level": b"SELECT hdb_slev($1,$2,$3)",
    "order_status": b"SELECT * FROM hdb_ostat($1,$2,$3,$4,'$5')",
}
