"""Keep a pristine copy of a built database and restore it between runs.

Rebuilding thousands of warehouses takes far longer than copying their files: after a build
the database is cloned into a template once, and each run can start again from the exact
same data with ``reset_from_template``. PostgreSQL refuses to clone a database anyone is
connected to, so both functions check first and name the sessions in the way.
"""

from __future__ import annotations

import time

import psycopg
from psycopg import sql

# The longest a drop or a copy waits for a lock another session holds.
LOCK_TIMEOUT_S = 30.0


class TemplateError(RuntimeError):
    """The template could not be made or restored; the message says why and what to do."""


def _sessions(conn: psycopg.Connection, database: str) -> list[str]:
    rows = conn.execute(
        "SELECT pid, usename, application_name, client_addr::text FROM pg_stat_activity"
        " WHERE datname = %s AND pid <> pg_backend_pid()"
        # Autovacuum workers are not users: CREATE DATABASE ends them itself.
        " AND backend_type = 'client backend'",
        (database,),
    ).fetchall()
    return [
        f"pid {pid} user {user or '?'} application {app or '?'} from {addr or 'local socket'}"
        for pid, user, app, addr in rows
    ]


def _exists(conn: psycopg.Connection, database: str) -> bool:
    return (
        conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (database,)).fetchone()
        is not None
    )


def _admin(admin_conninfo: str, *databases: str) -> psycopg.Connection:
    conn = psycopg.connect(admin_conninfo, autocommit=True)
    # A lock someone else holds on the database or the template (an open transaction that
    # touched it) must not hold the run forever.
    conn.execute(f"SET lock_timeout = {int(LOCK_TIMEOUT_S * 1000)}")
    current = conn.info.dbname
    if current in databases:
        conn.close()
        raise TemplateError(
            f"the admin connection uses database {current!r}: connect to another one"
            " (e.g. postgres) to copy or replace it"
        )
    return conn


def _create_from(conn: psycopg.Connection, database: str, template: str) -> None:
    # FILE_COPY copies the files after a checkpoint; the default since PostgreSQL 15
    # (WAL_LOG) writes the whole database to the WAL, far slower for a large one.
    strategy = (
        sql.SQL(" STRATEGY = FILE_COPY") if conn.info.server_version >= 150000 else sql.SQL("")
    )
    conn.execute(
        sql.SQL("CREATE DATABASE {} TEMPLATE {}{}").format(
            sql.Identifier(database), sql.Identifier(template), strategy
        )
    )


def _refuse_sessions(
    conn: psycopg.Connection, database: str, action: str, grace_s: float = 3.0
) -> None:
    # A client that has just closed its connection can still be listed for a moment while
    # its backend exits: give such sessions a short grace before refusing.
    deadline = time.monotonic() + grace_s
    sessions = _sessions(conn, database)
    while sessions and time.monotonic() < deadline:
        time.sleep(0.1)
        sessions = _sessions(conn, database)
    if sessions:
        raise TemplateError(
            f"cannot {action}: {len(sessions)} session(s) connected to database {database!r}"
            " (close them and retry): " + "; ".join(sessions)
        )


def make_template(admin_conninfo: str, database: str, template: str) -> None:
    """Copy ``database`` into a new database ``template`` (replacing an older template)."""
    if database == template:
        raise TemplateError("the template must have a different name than the database")
    with _admin(admin_conninfo, database, template) as conn:
        if not _exists(conn, database):
            raise TemplateError(f"database {database!r} does not exist")
        _refuse_sessions(conn, database, f"copy {database!r}")
        if _exists(conn, template):
            _refuse_sessions(conn, template, f"replace template {template!r}")
            conn.execute(sql.SQL("DROP DATABASE {}").format(sql.Identifier(template)))
        try:
            conn.execute("CHECKPOINT")  # the copy must see the build's pages on disk
        except psycopg.errors.InsufficientPrivilege:
            pass  # CREATE DATABASE ... FILE_COPY checkpoints by itself
        try:
            _create_from(conn, template, database)
        except psycopg.errors.ObjectInUse as exc:
            raise TemplateError(
                f"cannot copy {database!r}: someone connected meanwhile ({exc})"
            ) from exc


def reset_from_template(admin_conninfo: str, database: str, template: str) -> None:
    """Replace ``database`` with a fresh copy of ``template``.

    Sessions on ``database`` are ended (DROP ... WITH (FORCE)); sessions on the template are
    not touched, so they make this fail before anything is dropped.
    """
    if database == template:
        raise TemplateError("the template must have a different name than the database")
    with _admin(admin_conninfo, database, template) as conn:
        if not _exists(conn, template):
            raise TemplateError(f"template database {template!r} does not exist")
        _refuse_sessions(conn, template, f"copy template {template!r}")
        if conn.info.server_version >= 130000:
            drop = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)")
        else:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (database,),
            )
            drop = sql.SQL("DROP DATABASE IF EXISTS {}")
        conn.execute(drop.format(sql.Identifier(database)))
        try:
            _create_from(conn, database, template)
        except psycopg.errors.ObjectInUse as exc:
            raise TemplateError(
                f"database {database!r} was dropped but could not be copied again from"
                f" {template!r}, someone connected to it: {exc}; retry once they are gone"
            ) from exc
