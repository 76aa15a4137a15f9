"""HammerDB 6.0's MariaDB/MySQL transactions (``mariaoltp.tcl``), re-expressed as ``HDB_*``.

The ``hammerdb`` profile (:mod:`bench_gui.agent.profiles`) calls these so a run compares like
for like with a HammerDB result on MariaDB or MySQL. They do what HammerDB's procedures do, in
the same order, with the same handlers and faults (docs/profiles.md):

- New-Order reads customer and warehouse *before* its ``START TRANSACTION``, locks and
  increments the district, then per line draws a uniform item (repeats possible), a supply
  warehouse (1% another one) and a quantity, reads item and stock (no lock), writes the new
  ``s_quantity`` only, and inserts the line; order and new-order rows come last. The rollback
  (1 in 99) is the unused item 100001: its ``SELECT ... INTO`` finds nothing and the
  ``NOT FOUND`` handler rolls everything back, district included. A duplicate key (23000)
  rolls back the same way.
- Payment updates warehouse and district first, then finds the customer (by name: the
  middle one by first name, HammerDB's count) and *adds* the amount to the balance, writing
  ``c_data`` for bad credit; history last.
- Delivery takes any new order of each district (``LIMIT 1`` with no order and no lock); a
  district without one reuses the previous district's order id, as HammerDB's does.
- Deadlocks and lock-wait timeouts have no handler: they reach the caller, and a timed-out
  statement leaves its transaction open until the next call's ``START TRANSACTION`` commits
  it, as on a HammerDB connection.

What we add: each procedure ends with one row ``(status, value)`` (status 0 done, 1 rolled
back by a handler) so the driver can count the rollback apart, as it does with ours; HammerDB
reads OUT parameters instead. The timestamps are the server's ``NOW()``, not the client's.
"""

from __future__ import annotations

from typing import Final

PROCEDURES: Final = ("HDB_NEWORD", "HDB_PAYMENT", "HDB_OSTAT", "HDB_DELIVERY", "HDB_SLEV")

_NEWORD: Final = """
CREATE PROCEDURE HDB_NEWORD(IN p_w INT, IN p_max_w INT, IN p_d INT, IN p_c INT, IN p_lines INT)
BEGIN
    DECLARE v_supply INT;
    DECLARE v_item INT;
    DECLARE v_qty INT;
    DECLARE v_local INT DEFAULT 1;
    DECLARE v_o_id INT;
    DECLARE v_next INT;
    DECLARE v_name VARCHAR(24);
    DECLARE v_price DECIMAL(5,2);
    DECLARE v_idata VARCHAR(50);
    DECLARE v_squant DECIMAL(6);
    DECLARE v_amount DECIMAL(6,2);
    DECLARE v_dist CHAR(24);
    DECLARE v_sdata VARCHAR(50);
    DECLARE v_discount DECIMAL(4,4);
    DECLARE v_last VARCHAR(16);
    DECLARE v_credit VARCHAR(2);
    DECLARE v_d_tax DECIMAL(4,4);
    DECLARE v_w_tax DECIMAL(4,4);
    DECLARE v_draw INT;
    DECLARE v_rbk INT;
    DECLARE v_line INT DEFAULT 1;
    DECLARE EXIT HANDLER FOR SQLSTATE '23000' BEGIN ROLLBACK; SELECT 1, 0; END;
    DECLARE EXIT HANDLER FOR NOT FOUND BEGIN ROLLBACK; SELECT 1, 0; END;
    SELECT c.c_discount, c.c_last, c.c_credit, w.w_tax
    INTO v_discount, v_last, v_credit, v_w_tax
    FROM customer c, warehouse w
    WHERE w.w_id = p_w AND c.c_w_id = p_w AND c.c_d_id = p_d AND c.c_id = p_c;
    START TRANSACTION;
    SELECT d_next_o_id, d_tax INTO v_next, v_d_tax
    FROM district WHERE d_id = p_d AND d_w_id = p_w FOR UPDATE;
    UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_id = p_d AND d_w_id = p_w;
    SET v_o_id = v_next;
    SET v_rbk = FLOOR(1 + RAND() * 99);
    WHILE v_line <= p_lines DO
        IF v_line = p_lines AND v_rbk = 1 THEN
            SET v_item = 100001;
        ELSE
            SET v_item = FLOOR(1 + RAND() * 100000);
        END IF;
        SET v_draw = FLOOR(1 + RAND() * 100);
        SET v_supply = p_w;
        IF v_draw <= 1 THEN
            SET v_local = 0;
            WHILE v_supply = p_w AND p_max_w <> 1 DO
                SET v_supply = FLOOR(1 + RAND() * p_max_w);
            END WHILE;
        END IF;
        SET v_qty = FLOOR(1 + RAND() * 10);
        SELECT i_price, i_name, i_data INTO v_price, v_name, v_idata
        FROM item WHERE i_id = v_item;
        SELECT s_quantity, s_data,
               CASE p_d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03
                        WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06
                        WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09
                        ELSE s_dist_10 END
        INTO v_squant, v_sdata, v_dist
        FROM stock WHERE s_i_id = v_item AND s_w_id = v_supply;
        IF v_squant > v_qty THEN
            SET v_squant = v_squant - v_qty;
        ELSE
            SET v_squant = v_squant - v_qty + 91;
        END IF;
        UPDATE stock SET s_quantity = v_squant WHERE s_i_id = v_item AND s_w_id = v_supply;
        SET v_amount = v_qty * v_price * (1 + v_w_tax + v_d_tax) * (1 - v_discount);
        INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                                ol_quantity, ol_amount, ol_dist_info)
        VALUES (v_o_id, p_d, p_w, v_line, v_item, v_supply, v_qty, v_amount, v_dist);
        SET v_line = v_line + 1;
    END WHILE;
    INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)
    VALUES (v_o_id, p_d, p_w, p_c, NOW(), p_lines, v_local);
    INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d, p_w);
    COMMIT;
    SELECT 0, v_o_id;
END
"""

_DELIVERY: Final = """
CREATE PROCEDURE HDB_DELIVERY(IN p_w INT, IN p_carrier INT)
BEGIN
    DECLARE v_o INT;
    DECLARE v_d INT DEFAULT 1;
    DECLARE v_c INT;
    DECLARE v_total INT;
    DECLARE v_note VARCHAR(100);
    DECLARE EXIT HANDLER FOR SQLSTATE '23000' BEGIN ROLLBACK; SELECT 1, 0; END;
    START TRANSACTION;
    WHILE v_d <= 10 DO
        SELECT no_o_id INTO v_o FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d LIMIT 1;
        DELETE FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d AND no_o_id = v_o;
        SELECT o_c_id INTO v_c FROM orders WHERE o_id = v_o AND o_d_id = v_d AND o_w_id = p_w;
        UPDATE orders SET o_carrier_id = p_carrier
        WHERE o_id = v_o AND o_d_id = v_d AND o_w_id = p_w;
        UPDATE order_line SET ol_delivery_d = NOW()
        WHERE ol_o_id = v_o AND ol_d_id = v_d AND ol_w_id = p_w;
        SELECT SUM(ol_amount) INTO v_total FROM order_line
        WHERE ol_o_id = v_o AND ol_d_id = v_d AND ol_w_id = p_w;
        UPDATE customer SET c_balance = c_balance + v_total
        WHERE c_id = v_c AND c_d_id = v_d AND c_w_id = p_w;
        SET v_note = CONCAT(v_d, ' ', v_o, ' ', NOW());
        SET v_d = v_d + 1;
    END WHILE;
    COMMIT;
    SELECT 0, 10;
END
"""

_PAYMENT: Final = """
CREATE PROCEDURE HDB_PAYMENT(IN p_w INT, IN p_d INT, IN p_c_w INT, IN p_c_d INT, IN p_c_id INT,
                             IN p_byname INT, IN p_amount DECIMAL(6,2), IN p_last VARCHAR(16))
BEGIN
    DECLARE v_done INT DEFAULT 0;
    DECLARE v_count INT;
    DECLARE v_n INT;
    DECLARE v_c_id INT DEFAULT p_c_id;
    DECLARE v_credit CHAR(2) DEFAULT '0';
    DECLARE v_balance DECIMAL(12,2) DEFAULT 0;
    DECLARE v_first VARCHAR(16);
    DECLARE v_middle CHAR(2);
    DECLARE v_since DATETIME;
    DECLARE v_w_name VARCHAR(11);
    DECLARE v_d_name VARCHAR(11);
    DECLARE v_data VARCHAR(500);
    DECLARE v_new VARCHAR(500);
    DECLARE v_h_data VARCHAR(30);
    DECLARE v_when DATETIME DEFAULT NOW();
    DECLARE by_name CURSOR FOR
        SELECT c_first, c_middle, c_id, c_credit, c_balance, c_since FROM customer
        WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_last = p_last ORDER BY c_first;
    DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_done = 1;
    DECLARE EXIT HANDLER FOR SQLSTATE '23000' BEGIN ROLLBACK; SELECT 1, 0; END;
    START TRANSACTION;
    UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w;
    SELECT w_name INTO v_w_name FROM warehouse WHERE w_id = p_w;
    UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w AND d_id = p_d;
    SELECT d_name INTO v_d_name FROM district WHERE d_w_id = p_w AND d_id = p_d;
    IF p_byname = 1 THEN
        SELECT COUNT(c_id) INTO v_count FROM customer
        WHERE c_last = p_last AND c_d_id = p_c_d AND c_w_id = p_c_w;
        OPEN by_name;
        IF MOD(v_count, 2) = 1 THEN
            SET v_count = v_count + 1;
        END IF;
        SET v_n = 0;
        WHILE v_n <= v_count / 2 DO
            FETCH by_name INTO v_first, v_middle, v_c_id, v_credit, v_balance, v_since;
            SET v_n = v_n + 1;
        END WHILE;
        CLOSE by_name;
    ELSE
        SELECT c_first, c_middle, c_credit, c_balance, c_since
        INTO v_first, v_middle, v_credit, v_balance, v_since
        FROM customer WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c_id;
    END IF;
    SET v_balance = v_balance + p_amount;
    SET v_h_data = CONCAT(v_w_name, ' ', v_d_name);
    IF v_credit = 'BC' THEN
        SELECT c_data INTO v_data FROM customer
        WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c_id;
        SET v_new = CONCAT(v_c_id, ' ', p_c_d, ' ', p_c_w, ' ', p_d, ' ', p_w, ' ',
                           FORMAT(p_amount, 2), CAST(v_when AS CHAR), v_h_data);
        SET v_new = SUBSTR(CONCAT(v_new, v_data), 1, 500 - LENGTH(v_new));
        UPDATE customer SET c_balance = v_balance, c_data = v_new
        WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c_id;
    ELSE
        UPDATE customer SET c_balance = v_balance
        WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c_id;
    END IF;
    INSERT INTO history (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (p_c_d, p_c_w, v_c_id, p_d, p_w, v_when, p_amount, v_h_data);
    COMMIT;
    SELECT 0, v_c_id;
END
"""

_OSTAT: Final = """
CREATE PROCEDURE HDB_OSTAT(IN p_w INT, IN p_d INT, IN p_c_id INT, IN p_byname INT,
                           IN p_last VARCHAR(16))
BEGIN
    DECLARE v_done INT DEFAULT 0;
    DECLARE v_count INT;
    DECLARE v_n INT;
    DECLARE v_c_id INT DEFAULT p_c_id;
    DECLARE v_last VARCHAR(16) DEFAULT p_last;
    DECLARE v_first VARCHAR(16);
    DECLARE v_middle CHAR(2);
    DECLARE v_balance DECIMAL(12,2);
    DECLARE v_o_id INT;
    DECLARE v_carrier INT;
    DECLARE v_entry DATETIME;
    DECLARE v_item INT;
    DECLARE v_supply INT;
    DECLARE v_qty INT;
    DECLARE v_amount INT;
    DECLARE v_delivered DATETIME;
    DECLARE v_lines INT DEFAULT 0;
    DECLARE v_items VARCHAR(200) DEFAULT 'CSV,';
    DECLARE v_status VARCHAR(100) DEFAULT '';
    DECLARE by_name CURSOR FOR
        SELECT c_balance, c_first, c_middle, c_id FROM customer
        WHERE c_last = v_last AND c_d_id = p_d AND c_w_id = p_w ORDER BY c_first;
    DECLARE line_rows CURSOR FOR
        SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line
        WHERE ol_o_id = v_o_id AND ol_d_id = p_d AND ol_w_id = p_w;
    DECLARE EXIT HANDLER FOR SQLSTATE '23000' BEGIN ROLLBACK; SELECT 1, 0; END;
    DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_done = 1;
    START TRANSACTION;
    IF p_byname = 1 THEN
        SELECT COUNT(c_id) INTO v_count FROM customer
        WHERE c_last = v_last AND c_d_id = p_d AND c_w_id = p_w;
        IF MOD(v_count, 2) = 1 THEN
            SET v_count = v_count + 1;
        END IF;
        OPEN by_name;
        SET v_n = 0;
        WHILE v_n <= v_count / 2 DO
            FETCH by_name INTO v_balance, v_first, v_middle, v_c_id;
            SET v_n = v_n + 1;
        END WHILE;
        CLOSE by_name;
    ELSE
        SELECT c_balance, c_first, c_middle, c_last INTO v_balance, v_first, v_middle, v_last
        FROM customer WHERE c_id = v_c_id AND c_d_id = p_d AND c_w_id = p_w;
    END IF;
    SET v_done = 0;
    SELECT s.o_id, s.o_carrier_id, s.o_entry_d INTO v_o_id, v_carrier, v_entry
    FROM (SELECT o_id, o_carrier_id, o_entry_d FROM orders
          WHERE o_d_id = p_d AND o_w_id = p_w AND o_c_id = v_c_id
          ORDER BY o_id DESC) AS s
    LIMIT 1;
    IF v_done THEN
        SET v_status = 'No orders for customer';
    END IF;
    SET v_done = 0;
    OPEN line_rows;
    REPEAT
        FETCH line_rows INTO v_item, v_supply, v_qty, v_amount, v_delivered;
        IF NOT v_done THEN
            SET v_items = CONCAT(v_items, ',', v_lines, ',', v_item);
            SET v_lines = v_lines + 1;
        END IF;
    UNTIL v_done END REPEAT;
    CLOSE line_rows;
    COMMIT;
    SELECT 0, v_lines;
END
"""

_SLEV: Final = """
CREATE PROCEDURE HDB_SLEV(IN p_w INT, IN p_d INT, IN p_threshold INT)
BEGIN
    DECLARE v_next INT;
    DECLARE v_count INT;
    DECLARE EXIT HANDLER FOR SQLSTATE '23000' BEGIN ROLLBACK; SELECT 1, 0; END;
    DECLARE EXIT HANDLER FOR NOT FOUND BEGIN ROLLBACK; SELECT 1, 0; END;
    START TRANSACTION;
    SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w AND d_id = p_d;
    SELECT COUNT(DISTINCT s_i_id) INTO v_count
    FROM order_line, stock
    WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id < v_next AND ol_o_id >= v_next - 20
      AND s_w_id = p_w AND s_i_id = ol_i_id AND s_quantity < p_threshold;
    COMMIT;
    SELECT 0, v_count;
END
"""

# Name -> its CREATE statement (one statement each: no DELIMITER through ODBC).
CREATE: Final[dict[str, str]] = {
    "HDB_NEWORD": _NEWORD,
    "HDB_PAYMENT": _PAYMENT,
    "HDB_OSTAT": _OSTAT,
    "HDB_DELIVERY": _DELIVERY,
    "HDB_SLEV": _SLEV,
}
