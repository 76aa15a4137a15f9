"""MariaDB and MySQL through pyodbc (the MariaDB or MySQL Connector/ODBC): schema, stored
procedures, bulk load, users, counters and checks (see :mod:`.engine`)."""
