"""Who may do what in a team store, and who did it: the roles a team sets up, and the database
role recorded with every session, note and replaced note that reaches the store.

Anyone with a login can write what they like into a row, so a row's ``author`` (from
``BENCH_GUI_AUTHOR`` or the login name of the desktop that pushed it) is a claim. What the
store itself knows is the database role of the connection that wrote the row:
``current_user``. Schema 7 adds a ``pushed_by`` column to runs, notes and the note history,
and on PostgreSQL a trigger that sets it to ``current_user`` on every insert or update,
whatever the statement said: a colleague cannot push under another's role. In a local file the
column keeps what the team store said (a pulled session's) and is empty for what was recorded
here.

The roles (:func:`roles_sql`, run by ``bench-gui store init`` as the database's owner):

- an owner role (``bench_owner``): owns the tables and runs the migrations of a new bench-gui;
- a writer role (``bench_writer``): pushes sessions, edits tags, notes, arrays, prices; it
  cannot delete sessions, steps or the note history, nor change the schema;
- a reader role (``bench_reader``): lists, pulls and compares; a push is refused with
  "permission denied", which bench-gui says is the writer role's to do.

Colleagues' logins are members of the writer or the reader role (``GRANT bench_writer TO
alice``).
"""

from __future__ import annotations

from typing import Final

from bench_gui.store.dialect import OWNER_ROLE, DbConnection

OWNER: Final = OWNER_ROLE
WRITER: Final = "bench_writer"
READER: Final = "bench_reader"

# Tables with a pushed_by column set by the team store.
PUSHED_BY_TABLES: Final = ("runs", "run_notes", "run_note_history")
# Of a session's tables, what a writer may delete rows of: the edits people make (a tag
# removed, a note cleared, an array or storage description replaced) and price entries.
WRITER_DELETES: Final = (
    "run_tags", "run_notes", "run_arrays", "run_storage", "device_prices", "power_prices",
)  # fmt: skip

_TRIGGER_FUNCTION: Final = """
CREATE OR REPLACE FUNCTION bench_gui_pushed_by() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
    NEW.pushed_by := current_user;
    RETURN NEW;
END
$f$"""


def add_pushed_by(conn: DbConnection) -> None:
    """Migration 7's step: the pushed_by columns, and on PostgreSQL the trigger that fills
    them with the writing role (the statement run as they are: the store's translation of SQL
    is not for function bodies)."""
    raw = getattr(conn, "raw", None)  # a PostgreSQL connection (pg_connection.PgConnection)
    for table in PUSHED_BY_TABLES:
        conn.execute(f"ALTER TABLE {table} ADD COLUMN pushed_by TEXT NOT NULL DEFAULT ''", ())
    if raw is None:
        return
    raw.execute(_TRIGGER_FUNCTION)
    for table in PUSHED_BY_TABLES:
        events = "INSERT" if table == "run_note_history" else "INSERT OR UPDATE"
        raw.execute(
            f"CREATE TRIGGER {table}_pushed_by BEFORE {events} ON {table}"
            " FOR EACH ROW EXECUTE FUNCTION bench_gui_pushed_by()"
        )


def roles_sql(database: str, logins: dict[str, list[str]] | None = None) -> list[str]:
    """The statements that set up the three roles on ``database`` (whose tables exist: run
    after a first bench-gui opened it), and make the given logins members
    ({"owner": [...], "writer": [...], "reader": [...]}). Safe to run again."""
    db = _ident(database)
    out = [
        *(
            f"DO $r$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{r}') THEN"
            f" CREATE ROLE {r} NOLOGIN; END IF; END $r$"
            for r in (OWNER, WRITER, READER)
        ),
        f"GRANT CONNECT ON DATABASE {db} TO {WRITER}, {READER}",
        f"GRANT USAGE ON SCHEMA public TO {WRITER}, {READER}",
        f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {READER}, {WRITER}",
        f"GRANT INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO {WRITER}",
        f"GRANT DELETE ON {', '.join(WRITER_DELETES)} TO {WRITER}",
        f"GRANT DELETE ON deleted_prices TO {WRITER}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {WRITER}",
        f"GRANT SELECT ON ALL SEQUENCES IN SCHEMA public TO {READER}",
        f"GRANT ALL ON ALL TABLES IN SCHEMA public TO {OWNER}",
        f"GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO {OWNER}",
        f"GRANT CREATE ON SCHEMA public TO {OWNER}",
        # The tables become the owner role's (a migration of a new bench-gui, run by any login
        # of that role, may then change them), whoever's first bench-gui made them.
        f"GRANT {OWNER} TO CURRENT_USER",
        "DO $o$ DECLARE t record; BEGIN FOR t IN SELECT tablename FROM pg_tables WHERE"
        " schemaname = 'public' AND tableowner = current_user LOOP EXECUTE"
        f" format('ALTER TABLE public.%I OWNER TO {OWNER}', t.tablename); END LOOP; END $o$",
        f"ALTER FUNCTION bench_gui_pushed_by() OWNER TO {OWNER}",
        *(
            f"ALTER DEFAULT PRIVILEGES FOR ROLE {OWNER} IN SCHEMA public {grant}"
            for grant in (
                f"GRANT SELECT ON TABLES TO {READER}",
                f"GRANT SELECT, INSERT, UPDATE ON TABLES TO {WRITER}",
                f"GRANT USAGE, SELECT ON SEQUENCES TO {WRITER}",
            )
        ),
        # Tables a later migration adds (run by this login) get the same grants.
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO {READER}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE ON TABLES"
        f" TO {WRITER}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO {WRITER}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON TABLES TO {OWNER}",
    ]
    for role, names in (logins or {}).items():
        group = {"writer": WRITER, "reader": READER, "owner": OWNER}[role]
        out.extend(f"GRANT {group} TO {_ident(name)}" for name in names)
    return out


def init_roles(store_conninfo: str, database: str, logins: dict[str, list[str]]) -> list[str]:
    """Run :func:`roles_sql` on the team store (as its owner, whose tables a first bench-gui
    made); the statements run, for the record."""
    import psycopg

    statements = roles_sql(database, logins)
    with psycopg.connect(store_conninfo, autocommit=True) as conn, conn.transaction():
        for statement in statements:
            conn.execute(statement.encode())
    return statements


def _ident(name: str) -> str:
    """A role or database name quoted as an SQL identifier."""
    if not name or "\x00" in name:
        raise ValueError(f"not a PostgreSQL name: {name!r}")
    return '"' + name.replace('"', '""') + '"'
