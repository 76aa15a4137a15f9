"""The five TPROC-C transactions as MariaDB/MySQL stored procedures: the ``spec`` profile.

Each is one ``CALL`` (one round trip) that opens a transaction and commits it, and returns no
result set: the CALL's own OK is the commit's answer, one packet and one wake-up of the user.
The New-Order's intended rollback is a real ``ROLLBACK`` of everything it did (district
increment included, so NOPM never counts it): ``SIGNAL SQLSTATE '45000'`` with ``TPC01``
(:data:`ROLLBACK_MARK`) enters the exit handler, whose ``ROLLBACK`` runs before its
``RESIGNAL`` reaches the user, who counts it as a rollback, never an error.
Any other failure rolls back in an exit handler and reaches the client as an error:
``45000`` with ``TPC02`` (customer not found) or ``TPC03`` (item or stock row missing outside
the intended rollback: damaged data), or the server's own (1213 deadlock, 1205 lock wait).

Parameters are named ``p_*`` so they never shadow a column: in a stored program a variable
wins over a column of the same name. Items are drawn in the procedure with NURand(8191) like
PostgreSQL's ``neword``; lines are processed in their drawn order, so two New-Orders can
deadlock on stock rows: counted as errors, never hidden. These differ from HammerDB's own
procedures (uniform items, other updates, other handlers): those are the ``hammerdb``
profile's, :mod:`.hammerdb`, built beside these under their own names.
"""

from __future__ import annotations

from typing import Final

from bench_gui.agent import tpcc_rand
from bench_gui.engines.mariadb.agent import hammerdb

# The intended rollback's message, raised after the procedure's ROLLBACK (module docstring).
ROLLBACK_MARK: Final = "TPC01"
SPEC_PROCEDURES: Final = ("NEWORD", "PAYMENT", "OSTAT", "DELIVERY", "SLEV")
# Both profiles' procedures (bench_gui.agent.profiles): ours, then HammerDB's (HDB_*).
PROCEDURES: Final = SPEC_PROCEDURES + hammerdb.PROCEDURES

_NEWORD: Final = """
CREATE PROCEDURE NEWORD(IN p_w_id INT, IN p_max_w_id INT, IN p_d_id INT, IN p_c_id INT,
                        IN p_ol_cnt INT, IN p_rbk INT)
proc: BEGIN
    DECLARE v_c_discount DECIMAL(4,4);
    DECLARE v_c_last VARCHAR(16);
    DECLARE v_c_credit CHAR(2);
    DECLARE v_w_tax DECIMAL(4,4);
    DECLARE v_d_tax DECIMAL(4,4);
    DECLARE v_o_id INT;
    DECLARE v_all_local INT DEFAULT 1;
    DECLARE v_line INT DEFAULT 1;
    DECLARE v_item INT;
    DECLARE v_sw INT;
    DECLARE v_qty INT;
    DECLARE v_price DECIMAL(5,2);
    DECLARE v_s_qty INT;
    DECLARE v_dist CHAR(24);
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
    START TRANSACTION;
    SELECT c_discount, c_last, c_credit INTO v_c_discount, v_c_last, v_c_credit
    FROM customer WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = p_c_id;
    IF v_c_last IS NULL THEN
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'TPC02 customer not found';
    END IF;
    SELECT w_tax INTO v_w_tax FROM warehouse WHERE w_id = p_w_id;
    UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w_id AND d_id = p_d_id;
    SELECT d_next_o_id - 1, d_tax INTO v_o_id, v_d_tax
    FROM district WHERE d_w_id = p_w_id AND d_id = p_d_id;
    WHILE v_line <= p_ol_cnt DO
        IF p_rbk = 1 AND v_line = p_ol_cnt THEN
            SET v_item = 100001;
        ELSE
            SET v_item = ((CAST(FLOOR(RAND() * 8192) AS UNSIGNED)
                           | CAST(1 + FLOOR(RAND() * 100000) AS UNSIGNED)) + {c_ol_i_id})
                         MOD 100000 + 1;
        END IF;
        IF p_max_w_id > 1 AND RAND() < 0.01 THEN
            SET v_sw = 1 + FLOOR(RAND() * (p_max_w_id - 1));
            IF v_sw >= p_w_id THEN
                SET v_sw = v_sw + 1;
            END IF;
            SET v_all_local = 0;
        ELSE
            SET v_sw = p_w_id;
        END IF;
        SET v_qty = 1 + FLOOR(RAND() * 10);
        SET v_price = NULL;
        SELECT i_price INTO v_price FROM item WHERE i_id = v_item;
        IF v_price IS NULL THEN
            IF p_rbk = 1 THEN
                -- the exit handler's ROLLBACK undoes it all (one ROLLBACK, one Com_rollback)
                -- before its RESIGNAL reaches the user, who counts TPC01 as a rollback
                SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'TPC01 intended rollback';
            END IF;
            SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'TPC03 item missing';
        END IF;
        SET v_s_qty = NULL;
        SELECT s_quantity,
               CASE p_d_id WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03
                           WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06
                           WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09
                           ELSE s_dist_10 END
        INTO v_s_qty, v_dist
        FROM stock WHERE s_i_id = v_item AND s_w_id = v_sw FOR UPDATE;
        IF v_s_qty IS NULL THEN
            SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'TPC03 stock row missing';
        END IF;
        UPDATE stock
        SET s_quantity = IF(v_s_qty >= v_qty + 10, v_s_qty - v_qty, v_s_qty - v_qty + 91),
            s_ytd = s_ytd + v_qty,
            s_order_cnt = s_order_cnt + 1,
            s_remote_cnt = s_remote_cnt + IF(v_sw <> p_w_id, 1, 0)
        WHERE s_i_id = v_item AND s_w_id = v_sw;
        INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                                ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
        VALUES (v_o_id, p_d_id, p_w_id, v_line, v_item, v_sw, NULL, v_qty, v_qty * v_price,
                v_dist);
        SET v_line = v_line + 1;
    END WHILE;
    INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt,
                        o_all_local)
    VALUES (v_o_id, p_d_id, p_w_id, p_c_id, NOW(), NULL, p_ol_cnt, v_all_local);
    INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d_id, p_w_id);
    COMMIT;
END
""".replace("{c_ol_i_id}", str(tpcc_rand.C_OL_I_ID))

# The customer by last name: the row at position ceil(n/2) ordered by c_first.
_BY_NAME: Final = """
    IF p_byname = 1 THEN
        SELECT COUNT(*) INTO v_n FROM customer
        WHERE c_w_id = {w} AND c_d_id = {d} AND c_last = p_c_last;
        IF v_n = 0 THEN
            SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'TPC02 customer not found by last name';
        END IF;
        SET v_off = (v_n + 1) DIV 2 - 1;
        SELECT c_id INTO v_c_id FROM customer
        WHERE c_w_id = {w} AND c_d_id = {d} AND c_last = p_c_last
        ORDER BY c_first LIMIT v_off, 1;
    END IF;
"""

_PAYMENT: Final = (
    """
CREATE PROCEDURE PAYMENT(IN p_w_id INT, IN p_d_id INT, IN p_c_w_id INT, IN p_c_d_id INT,
                         IN p_c_id INT, IN p_byname INT, IN p_h_amount DECIMAL(6,2),
                         IN p_c_last VARCHAR(16))
BEGIN
    DECLARE v_n INT;
    DECLARE v_off INT;
    DECLARE v_c_id INT DEFAULT p_c_id;
    DECLARE v_credit CHAR(2);
    DECLARE v_w_name VARCHAR(10);
    DECLARE v_d_name VARCHAR(10);
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
    START TRANSACTION;
"""
    + _BY_NAME.format(w="p_c_w_id", d="p_c_d_id")
    + """
    SELECT c_credit INTO v_credit FROM customer
    WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id FOR UPDATE;
    IF v_credit IS NULL THEN
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'TPC02 customer not found';
    END IF;
    UPDATE customer
    SET c_balance = c_balance - p_h_amount,
        c_ytd_payment = c_ytd_payment + p_h_amount,
        c_payment_cnt = c_payment_cnt + 1,
        c_data = IF(v_credit = 'BC',
                    LEFT(CONCAT(v_c_id, ' ', p_c_d_id, ' ', p_c_w_id, ' ', p_d_id, ' ', p_w_id,
                                ' ', p_h_amount, ' | ', c_data), 500),
                    c_data)
    WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id;
    UPDATE district SET d_ytd = d_ytd + p_h_amount WHERE d_w_id = p_w_id AND d_id = p_d_id;
    SELECT d_name INTO v_d_name FROM district WHERE d_w_id = p_w_id AND d_id = p_d_id;
    UPDATE warehouse SET w_ytd = w_ytd + p_h_amount WHERE w_id = p_w_id;
    SELECT w_name INTO v_w_name FROM warehouse WHERE w_id = p_w_id;
    INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (v_c_id, p_c_d_id, p_c_w_id, p_d_id, p_w_id, NOW(), p_h_amount,
            CONCAT(v_w_name, '    ', v_d_name));
    COMMIT;
END
"""
)

_OSTAT: Final = (
    """
CREATE PROCEDURE OSTAT(IN p_w_id INT, IN p_d_id INT, IN p_c_id INT, IN p_byname INT,
                       IN p_c_last VARCHAR(16))
BEGIN
    DECLARE v_n INT;
    DECLARE v_off INT;
    DECLARE v_c_id INT DEFAULT p_c_id;
    DECLARE v_balance DECIMAL(12,2);
    DECLARE v_first VARCHAR(16);
    DECLARE v_middle CHAR(2);
    DECLARE v_last VARCHAR(16);
    DECLARE v_o_id INT;
    DECLARE v_carrier INT;
    DECLARE v_entry DATETIME;
    DECLARE v_lines INT DEFAULT 0;
    DECLARE v_item INT;
    DECLARE v_supply INT;
    DECLARE v_qty INT;
    DECLARE v_amount DECIMAL(12,2);
    DECLARE v_delivered DATETIME;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
    START TRANSACTION;
"""
    + _BY_NAME.format(w="p_w_id", d="p_d_id")
    + """
    SELECT c_balance, c_first, c_middle, c_last INTO v_balance, v_first, v_middle, v_last
    FROM customer WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = v_c_id;
    IF v_last IS NULL THEN
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'TPC02 customer not found';
    END IF;
    SELECT o_id, o_carrier_id, o_entry_d INTO v_o_id, v_carrier, v_entry
    FROM orders WHERE o_w_id = p_w_id AND o_d_id = p_d_id AND o_c_id = v_c_id
    ORDER BY o_id DESC LIMIT 1;
    IF v_o_id IS NOT NULL THEN
        SELECT COUNT(*), MAX(ol_i_id), MAX(ol_supply_w_id), SUM(ol_quantity), SUM(ol_amount),
               MAX(ol_delivery_d)
        INTO v_lines, v_item, v_supply, v_qty, v_amount, v_delivered
        FROM order_line WHERE ol_w_id = p_w_id AND ol_d_id = p_d_id AND ol_o_id = v_o_id;
    END IF;
    COMMIT;
END
"""
)

_DELIVERY: Final = """
CREATE PROCEDURE DELIVERY(IN p_w_id INT, IN p_carrier_id INT)
BEGIN
    DECLARE v_d INT DEFAULT 1;
    DECLARE v_o INT;
    DECLARE v_c INT;
    DECLARE v_amount DECIMAL(12,2);
    DECLARE v_n INT DEFAULT 0;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
    START TRANSACTION;
    WHILE v_d <= 10 DO
        SET v_o = NULL;
        SELECT no_o_id INTO v_o FROM new_order
        WHERE no_w_id = p_w_id AND no_d_id = v_d ORDER BY no_o_id LIMIT 1 FOR UPDATE;
        IF v_o IS NOT NULL THEN
            DELETE FROM new_order WHERE no_w_id = p_w_id AND no_d_id = v_d AND no_o_id = v_o;
            SELECT o_c_id INTO v_c FROM orders
            WHERE o_w_id = p_w_id AND o_d_id = v_d AND o_id = v_o;
            UPDATE orders SET o_carrier_id = p_carrier_id
            WHERE o_w_id = p_w_id AND o_d_id = v_d AND o_id = v_o;
            UPDATE order_line SET ol_delivery_d = NOW()
            WHERE ol_w_id = p_w_id AND ol_d_id = v_d AND ol_o_id = v_o;
            SELECT COALESCE(SUM(ol_amount), 0) INTO v_amount FROM order_line
            WHERE ol_w_id = p_w_id AND ol_d_id = v_d AND ol_o_id = v_o;
            UPDATE customer
            SET c_balance = c_balance + v_amount, c_delivery_cnt = c_delivery_cnt + 1
            WHERE c_w_id = p_w_id AND c_d_id = v_d AND c_id = v_c;
            SET v_n = v_n + 1;
        END IF;
        SET v_d = v_d + 1;
    END WHILE;
    COMMIT;
END
"""

_SLEV: Final = """
CREATE PROCEDURE SLEV(IN p_w_id INT, IN p_d_id INT, IN p_threshold INT)
BEGIN
    DECLARE v_next INT;
    DECLARE v_n INT;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
    START TRANSACTION;
    SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w_id AND d_id = p_d_id;
    SELECT COUNT(DISTINCT s.s_i_id) INTO v_n
    FROM order_line ol JOIN stock s ON s.s_w_id = p_w_id AND s.s_i_id = ol.ol_i_id
    WHERE ol.ol_w_id = p_w_id AND ol.ol_d_id = p_d_id
      AND ol.ol_o_id >= v_next - 20 AND ol.ol_o_id < v_next
      AND s.s_quantity < p_threshold;
    COMMIT;
END
"""

# Name -> its CREATE statement (each one statement: no DELIMITER needed through ODBC).
CREATE: Final[dict[str, str]] = {
    "NEWORD": _NEWORD,
    "PAYMENT": _PAYMENT,
    "OSTAT": _OSTAT,
    "DELIVERY": _DELIVERY,
    "SLEV": _SLEV,
    **hammerdb.CREATE,
}


def create_procedures(cursor: object) -> None:
    """(Re)create both profiles' procedures on ``cursor`` (a pyodbc cursor on the database)."""
    for name, ddl in CREATE.items():
        cursor.execute(f"DROP PROCEDURE IF EXISTS {name}")  # type: ignore[attr-defined]
        cursor.execute(ddl)  # type: ignore[attr-defined]
