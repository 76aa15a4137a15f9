"""SQL Server as a TPROC-C engine for the agent: schema, procedures, load, calls, counters.

What is verified here, and what is not:

- **Syntax, by a parser.** Every statement this package can send (tables and indexes, each
  statement inside the five procedure bodies, the loader's inserts, the counter and check
  queries, the settings and their rollback) is parsed with sqlglot's T-SQL dialect in
  ``tests/engines/mssql/agent``. A statement sqlglot can only keep as an opaque command, or
  misreads,
  fails the test, except a handful of fixed forms it cannot represent, each matched whole by
  a pattern there (bare ``THROW`` and ``RETURN``, ``RECONFIGURE``, ``RAISERROR(N'...', 16,
  1, ...)``, ``ALTER DATABASE [db] SET RECOVERY|TARGET_RECOVERY_TIME`` and ``SET TRANSACTION
  ISOLATION LEVEL SNAPSHOT``). The procedure bodies follow a line layout
  (:mod:`bench_gui.engines.mssql.agent.procedures`) that lets the test check their BEGIN/END and
  TRY/CATCH structure and that every variable is declared.
- **The pure parts, for real:** row generation and its counts, connection strings (no password
  in them), the TPM/NOPM arithmetic from two counter readings, the settings rollback. Draining
  result sets and connecting with the password from the environment run through pyodbc and a
  real ODBC driver (MariaDB's, standing in for the transport only).
- **The engine and its users** (:mod:`.engine`, :mod:`.vu`): every statement they send is
  written down through a recording connection (a test seam, no server) and parsed the same
  way; the users' worker process runs through a real ODBC driver against stand-in procedures
  on MariaDB (the process, the pipe protocol, draining and counting; not the T-SQL).
- **Never run against a live SQL Server here.** No server can be installed on our machines, so
  semantics (locking, plans, a procedure's behaviour, ODBC type conversions) are unproven until
  the integration tests run with ``BENCH_GUI_TEST_MSSQL`` pointing at a real server.

pyodbc is imported only inside the functions that open connections, so this package imports
without it (and without unixODBC).
"""
