"""PostgreSQL onto a prepared volume, and back: tablespace, data directory relocation, WAL.

The seeds move "the PostgreSQL metadata" to the new volume before loading. Three ways, each
with its undo ("restore original location"):

- **tablespace** (default, non-invasive): an empty directory on the mount owned by the
  server's OS user, ``CREATE TABLESPACE``, then ``ALTER DATABASE ... SET TABLESPACE`` for each
  named database that exists (nobody may be connected to it) or ``CREATE DATABASE ...
  TABLESPACE`` for one that does not yet (the load then fills it there). Undo moves every
  database of the tablespace back to ``pg_default`` and drops the tablespace.
- **datadir**: stop the server, copy the data directory preserving owners, modes, hard links,
  ACLs and xattrs (``rsync -aHAX``, or ``cp -a`` where rsync is missing), point the server at
  the copy (``pg_ctl -D`` with the server's own start options from ``postmaster.opts``; the
  ``data_directory`` line of a Debian cluster's ``postgresql.conf``; a systemd drop-in that
  sets ``PGDATA``), start it and check ``SHOW data_directory``. The original stays untouched
  until the undo copies the (changed) data back, or, with ``discard_changes``, just points the
  server at it again.
- **WAL on its own device** (with either): ``pg_wal`` copied to a directory on another mounted
  layout and replaced by a symlink; undone by copying it back.

What was done is written to ``<mount>/.bench-gui-placement.json`` on the host, so the undo
works from any machine. SQL goes to ``psql`` on the host through its stdin (run as the
server's OS user: peer or trust on the local socket), names are checked and quoted, and every
command is an argument list in the session's command log.
"""

from __future__ import annotations

import json
import re
import shlex
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from bench_gui.core.storage import DatabaseSpec, Layout
from bench_gui.remote.storage import (
    PLACEMENT_FILE,
    LogFn,
    Runner,
    StorageError,
    update_recorded_database,
)

WAL_ORIGINAL_SUFFIX: Final = ".bench-gui-orig"
START_TIMEOUT_S: Final = 120


class PlacementError(StorageError):
    """Moving the database (or moving it back) did not work; the message says what to do."""


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def quote_literal(text: str) -> str:
    if "\\" in text or "\x00" in text:
        raise PlacementError(f"{text!r} cannot be used in SQL here")
    return "'" + text.replace("'", "''") + "'"


class PgHost:
    """The server's host as the placement needs it: psql, file commands, server control."""

    def __init__(self, runner: Runner, spec: DatabaseSpec, log: LogFn | None = None) -> None:
        self.runner = runner
        self.spec = spec
        self._log = log or (lambda _line: None)

    def log(self, text: str) -> None:
        self._log(text)

    def tool(self, name: str) -> str:
        return f"{self.spec.bin_dir.rstrip('/')}/{name}" if self.spec.bin_dir else name

    def as_owner(self, argv: list[str], timeout: float = 60.0, input: str | None = None) -> Any:
        """Run a command as the server's OS user (``runuser`` unless we log in as it)."""
        user = self.spec.os_user
        if user and user != self.runner.user:
            return self.runner.run(
                ["runuser", "-u", user, "--", *argv], sudo=True, timeout=timeout, input=input
            )
        return self.runner.run(argv, timeout=timeout, input=input)

    def root(self, argv: list[str], timeout: float = 600.0, what: str = "") -> str:
        """Run a command as root; a failure raises PlacementError naming it."""
        self.log(f"$ {shlex.join(argv)}")
        result = self.runner.run(argv, sudo=True, timeout=timeout)
        if not result.ok:
            raise PlacementError(
                f"{what or argv[0]} failed on {self.runner.label}: {result.first_error_line()}"
            )
        return str(result.stdout)

    def psql(self, sql: str, database: str = "") -> list[str]:
        """Run SQL (through stdin) as the OS user; the rows, one a line (unaligned)."""
        target = self.spec.conninfo or "postgres"
        argv = [self.tool("psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", target]
        if database:
            argv = [self.tool("psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"]
            argv += ["-d", _with_dbname(target, database)]
        argv += ["-f", "-"]
        for line in sql.strip().splitlines():
            self.log(f"sql> {line}")
        result = self.as_owner(argv, timeout=3600, input=sql)
        if not result.ok:
            detail = next(
                (ln.strip() for ln in result.stderr.splitlines() if "ERROR" in ln or "FATAL" in ln),
                result.first_error_line(),
            )
            raise PlacementError(f"psql on {self.runner.label}: {detail}")
        return [line for line in result.stdout.splitlines() if line.strip()]

    def value(self, sql: str) -> str:
        rows = self.psql(sql)
        return rows[0].strip() if rows else ""

    def data_directory(self) -> str:
        return self.value("SHOW data_directory;")

    def exists(self, path: str) -> bool:
        return bool(self.runner.run(["test", "-e", path], sudo=True, timeout=30).ok)

    def is_empty_dir(self, path: str) -> bool:
        result = self.runner.run(
            ["find", path, "-mindepth", "1", "-maxdepth", "1", "-print", "-quit"],
            sudo=True,
            timeout=60,
        )
        return bool(result.ok and not result.stdout.strip())

    def read(self, path: str) -> str:
        result = self.runner.run(["cat", "--", path], sudo=True, timeout=60)
        if not result.ok:
            raise PlacementError(f"cannot read {path}: {result.first_error_line()}")
        return str(result.stdout)

    def write(self, path: str, text: str) -> None:
        self.log(f"$ tee {shlex.quote(path)}  ({len(text)} bytes)")
        result = self.runner.run(["tee", "--", path], sudo=True, timeout=60, input=text)
        if not result.ok:
            raise PlacementError(f"cannot write {path}: {result.first_error_line()}")

    def owner_dir(self, path: str) -> None:
        """An empty directory for the server: created, given to its user, mode 0700."""
        if self.exists(path) and not self.is_empty_dir(path):
            raise PlacementError(f"{path} exists and is not empty: choose another directory")
        self.root(["mkdir", "-p", "--", path], what=f"mkdir {path}")
        self.root(["chown", "--", f"{self.spec.os_user}:", path], what=f"chown {path}")
        self.root(["chmod", "--", "0700", path], what=f"chmod {path}")

    def copy_tree(self, source: str, dest: str) -> None:
        """``source``'s contents into the existing ``dest``, preserving everything."""
        if self.runner.run(["sh", "-c", "command -v rsync"], timeout=30).ok:
            argv = ["rsync", "-aHAX", "--numeric-ids", "--", source.rstrip("/") + "/"]
            self.root([*argv, dest.rstrip("/") + "/"], timeout=48 * 3600, what="rsync")
        else:
            argv = ["cp", "-a", "--", source.rstrip("/") + "/.", dest]
            self.root(argv, timeout=48 * 3600, what="cp -a")

    def mounted(self, point: str) -> bool:
        return bool(self.runner.run(["mountpoint", "-q", "--", point], timeout=30).ok)


def _with_dbname(conninfo: str, database: str) -> str:
    if "://" in conninfo:
        head, sep, query = conninfo.partition("?")
        scheme, _, rest = head.partition("://")
        hostpart = rest.split("/", 1)[0]
        return f"{scheme}://{hostpart}/{database}" + (sep + query if sep else "")
    if conninfo and "=" in conninfo:
        text = re.sub(r"\bdbname\s*=\s*('[^']*'|\S+)", "", conninfo).strip()
        return f"{text} dbname={database}".strip()
    return database


# ---- server control ------------------------------------------------------------------------


class Control:
    """Stops and starts the server, and points it at a data directory."""

    def __init__(self, pg: PgHost) -> None:
        self.pg = pg
        self.spec = pg.spec

    def describe(self) -> dict[str, Any]:
        return {"control": self.spec.control}

    def stop(self, data_dir: str) -> None:
        raise NotImplementedError

    def start(self, data_dir: str) -> None:
        raise NotImplementedError

    def point(self, data_dir: str, record: dict[str, Any]) -> None:
        """Make the next start use ``data_dir`` (record what to undo in ``record``)."""

    def unpoint(self, record: dict[str, Any]) -> None:
        """Undo :meth:`point`."""


class PgCtl(Control):
    """``pg_ctl`` as the OS user, with the server's own options (``postmaster.opts``)."""

    def __init__(self, pg: PgHost, data_dir: str, record: dict[str, Any] | None = None) -> None:
        super().__init__(pg)
        record = record or {}
        self.options: list[str] = list(record.get("options") or [])
        self.pg_ctl: str = str(record.get("pg_ctl") or "")
        if not record:
            self._read_opts(data_dir)

    def _read_opts(self, data_dir: str) -> None:
        text = ""
        try:
            text = self.pg.read(f"{data_dir.rstrip('/')}/postmaster.opts").strip()
        except PlacementError:
            pass
        words = shlex.split(text) if text else []
        program = words[0] if words else ""
        rest = words[1:]
        options: list[str] = []
        i = 0
        while i < len(rest):
            word = rest[i]
            if word == "-D" and i + 1 < len(rest):
                i += 2
                continue
            if word.startswith("--pgdata=") or (word.startswith("-D") and len(word) > 2):
                i += 1
                continue
            options.append(word)
            i += 1
        self.options = options
        _kind, _, path = self.spec.control.partition(":")
        if path:
            self.pg_ctl = path
        elif self.spec.bin_dir:
            self.pg_ctl = self.pg.tool("pg_ctl")
        elif program.startswith("/"):
            self.pg_ctl = str(Path(program).parent / "pg_ctl")
        else:
            self.pg_ctl = "pg_ctl"

    def describe(self) -> dict[str, Any]:
        return {"control": "pg_ctl", "pg_ctl": self.pg_ctl, "options": self.options}

    def _run(self, argv: list[str], what: str) -> None:
        self.pg.log(f"$ {shlex.join(argv)}")
        result = self.pg.as_owner(argv, timeout=START_TIMEOUT_S + 60)
        if not result.ok:
            raise PlacementError(f"{what} failed: {result.first_error_line()}")

    def stop(self, data_dir: str) -> None:
        argv = [self.pg_ctl, "-D", data_dir, "-w", "-t", str(START_TIMEOUT_S), "-m", "fast"]
        self._run([*argv, "stop"], f"stopping the server on {data_dir}")

    def start(self, data_dir: str) -> None:
        argv = [self.pg_ctl, "-D", data_dir, "-l", f"{data_dir.rstrip('/')}/log", "-w"]
        argv += ["-t", str(START_TIMEOUT_S)]
        if self.options:
            # pg_ctl hands -o to /bin/sh: quoted for it.
            argv += ["-o", shlex.join(self.options)]
        self._run([*argv, "start"], f"starting the server on {data_dir}")


class PgCtlCluster(Control):
    """Debian's clusters: ``pg_ctlcluster`` and ``data_directory`` in ``postgresql.conf``."""

    def __init__(self, pg: PgHost) -> None:
        super().__init__(pg)
        version, _, cluster = self.spec.control.partition(":")[2].partition("/")
        self.version, self.cluster = version, cluster
        self.conf = f"/etc/postgresql/{version}/{cluster}/postgresql.conf"

    def stop(self, data_dir: str) -> None:
        self.pg.root(["pg_ctlcluster", self.version, self.cluster, "stop"], what="pg_ctlcluster")

    def start(self, data_dir: str) -> None:
        self.pg.root(["pg_ctlcluster", self.version, self.cluster, "start"], what="pg_ctlcluster")

    def point(self, data_dir: str, record: dict[str, Any]) -> None:
        text = self.pg.read(self.conf)
        record["conf_file"] = self.conf
        record["conf_text"] = text
        self.pg.write(self.conf, set_data_directory(text, data_dir))

    def unpoint(self, record: dict[str, Any]) -> None:
        if record.get("conf_text") is not None:
            self.pg.write(str(record["conf_file"]), str(record["conf_text"]))


def set_data_directory(conf: str, data_dir: str) -> str:
    """``postgresql.conf`` with its ``data_directory`` line set to ``data_dir``."""
    line = f"data_directory = {quote_literal(data_dir)}\t\t# set by bench-gui"
    pattern = re.compile(r"^\s*data_directory\s*=.*$", re.MULTILINE)
    if pattern.search(conf):
        return pattern.sub(lambda _m: line, conf, count=1)
    return conf.rstrip("\n") + "\n" + line + "\n"


class Systemd(Control):
    """A systemd unit whose ExecStart uses ``$PGDATA``: a drop-in sets it."""

    def __init__(self, pg: PgHost) -> None:
        super().__init__(pg)
        self.unit = self.spec.control.partition(":")[2]
        self.dropin = f"/etc/systemd/system/{self.unit}.d/bench-gui-pgdata.conf"

    def stop(self, data_dir: str) -> None:
        self.pg.root(["systemctl", "stop", self.unit], what=f"systemctl stop {self.unit}")

    def start(self, data_dir: str) -> None:
        self.pg.root(["systemctl", "start", self.unit], what=f"systemctl start {self.unit}")

    def point(self, data_dir: str, record: dict[str, Any]) -> None:
        self.pg.root(["mkdir", "-p", "--", str(Path(self.dropin).parent)])
        self.pg.write(self.dropin, f"[Service]\nEnvironment=PGDATA={data_dir}\n")
        self.pg.root(["systemctl", "daemon-reload"])
        record["dropin"] = self.dropin

    def unpoint(self, record: dict[str, Any]) -> None:
        if record.get("dropin"):
            self.pg.root(["rm", "-f", "--", str(record["dropin"])])
            self.pg.root(["systemctl", "daemon-reload"])


def make_control(pg: PgHost, data_dir: str, record: dict[str, Any] | None = None) -> Control:
    kind = pg.spec.control.partition(":")[0]
    if kind == "pg_ctlcluster":
        return PgCtlCluster(pg)
    if kind == "systemctl":
        return Systemd(pg)
    return PgCtl(pg, data_dir, record)


# ---- placement -----------------------------------------------------------------------------


@dataclass
class PlacementResult:
    """What a move (or its undo) did; ``record`` is what the host keeps for the undo."""

    action: str  # place | restore
    placement: str
    record: dict[str, Any]
    data_directory: str
    messages: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "placement": self.placement,
            "data_directory": self.data_directory,
            "record": self.record,
            "messages": self.messages,
        }


def _record_path(layout: Layout) -> str:
    return f"{layout.mount.point.rstrip('/')}/{PLACEMENT_FILE}"


def read_placement(runner: Runner, layout: Layout) -> dict[str, Any] | None:
    """The placement record on the volume, or None if the database was not moved there."""
    result = runner.run(["cat", "--", _record_path(layout)], sudo=True, timeout=30)
    if not result.ok:
        return None
    try:
        data = json.loads(result.stdout)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _summary(record: dict[str, Any]) -> dict[str, Any]:
    """What the session's layout description shows of the placement."""
    out: dict[str, Any] = {"placement": record.get("placement")}
    for key in ("tablespace", "location", "data_directory", "original", "databases"):
        if record.get(key):
            out[key] = record[key]
    wal = record.get("wal") or {}
    if wal.get("directory"):
        out["wal_directory"] = wal["directory"]
    return out


def _wait_ready(pg: PgHost, expected: str, seconds: float = 60.0) -> str:
    """``SHOW data_directory`` once the server answers (systemd returns before it does)."""
    deadline = time.monotonic() + seconds
    last = ""
    while True:
        try:
            value = pg.data_directory()
        except PlacementError as exc:
            last = str(exc)
        else:
            if value.rstrip("/") != expected.rstrip("/"):
                raise PlacementError(
                    f"the server came back on {value}, not on {expected}: check its"
                    " configuration (data_directory, PGDATA)"
                )
            return value
        if time.monotonic() > deadline:
            raise PlacementError(f"the server does not answer after its start: {last}")
        time.sleep(1)


def place_database(
    runner: Runner,
    layout: Layout,
    *,
    on_log: LogFn | None = None,
    state_dir: Path | None = None,
    placement: str | None = None,
) -> PlacementResult:
    """Put the database on the layout's mounted volume (see the module docstring)."""
    spec = layout.database
    kind = placement or spec.placement
    if kind == "none":
        raise PlacementError("database.placement is none: nothing to move")
    pg = PgHost(runner, spec, on_log)
    point = layout.mount.point
    if not pg.mounted(point):
        raise PlacementError(f"{point} is not mounted on {runner.label}: apply the layout first")
    existing = read_placement(runner, layout)
    if existing is not None:
        raise PlacementError(
            f"the database was already moved to {point} ({existing.get('placement')}):"
            " restore it first"
        )
    if spec.wal_directory:
        wal_mount = spec.wal_directory.rstrip("/").rsplit("/", 1)[0] or "/"
        if not pg.mounted(wal_mount) and not pg.mounted(spec.wal_directory):
            raise PlacementError(
                f"{spec.wal_directory} is not on a mounted volume: apply the WAL layout first"
                f" (its mount point should be {wal_mount})"
            )
    current = pg.data_directory()
    if spec.data_directory and current.rstrip("/") != spec.data_directory.rstrip("/"):
        raise PlacementError(
            f"the server runs on {current}, not on database.data_directory"
            f" ({spec.data_directory}): check the layout's [database] section"
        )
    target_dir = f"{point}/{spec.directory}"
    messages: list[str] = []
    record: dict[str, Any] = {
        "placement": kind,
        "layout": layout.name,
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "server_data_directory": current,
    }
    if kind == "tablespace":
        _place_tablespace(pg, spec, target_dir, record, messages)
        data_dir = current
    elif kind == "datadir":
        data_dir = _relocate(pg, current, target_dir, record, messages)
    else:
        raise PlacementError(f"unknown placement {kind!r}")
    _save_record(pg, layout, record)
    if spec.wal_directory:
        try:
            _move_wal(pg, data_dir, spec.wal_directory, record, messages)
        finally:
            _save_record(pg, layout, record)
    if state_dir is not None:
        update_recorded_database(state_dir, layout.target, point, _summary(record))
    return PlacementResult("place", kind, record, data_dir, messages)


def _save_record(pg: PgHost, layout: Layout, record: dict[str, Any]) -> None:
    pg.write(_record_path(layout), json.dumps(record, indent=1) + "\n")


def _sessions(pg: PgHost, database: str) -> int:
    value = pg.value(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = "
        f"{quote_literal(database)} AND pid <> pg_backend_pid();"
    )
    return int(value or 0)


def _place_tablespace(
    pg: PgHost, spec: DatabaseSpec, directory: str, record: dict[str, Any], messages: list[str]
) -> None:
    name = spec.tablespace
    if pg.value(f"SELECT 1 FROM pg_tablespace WHERE spcname = {quote_literal(name)};"):
        raise PlacementError(f"the tablespace {name} already exists: restore it first, or rename")
    present = set(pg.psql("SELECT datname FROM pg_database;"))
    for db in spec.databases:
        if db in present:
            busy = _sessions(pg, db)
            if busy:
                raise PlacementError(
                    f"{busy} session(s) are connected to {db}: ALTER DATABASE ... SET TABLESPACE"
                    " needs it idle (stop the benchmark or close them)"
                )
    pg.owner_dir(directory)
    pg.psql(f"CREATE TABLESPACE {quote_ident(name)} LOCATION {quote_literal(directory)};")
    record.update(tablespace=name, location=directory, moved=[], created=[], databases=[])
    for db in spec.databases:
        if db in present:
            pg.psql(f"ALTER DATABASE {quote_ident(db)} SET TABLESPACE {quote_ident(name)};")
            record["moved"].append(db)
            messages.append(f"database {db} moved to the tablespace {name} ({directory})")
        else:
            pg.psql(f"CREATE DATABASE {quote_ident(db)} TABLESPACE {quote_ident(name)};")
            record["created"].append(db)
            messages.append(f"database {db} created in the tablespace {name} ({directory})")
        record["databases"].append(db)


def _relocate(
    pg: PgHost, current: str, new: str, record: dict[str, Any], messages: list[str]
) -> str:
    control = make_control(pg, current)
    pg.owner_dir(new)
    record.update(original=current, data_directory=new)
    control.stop(current)
    record.update(control.describe())
    try:
        pg.copy_tree(current, new)
        pg.root(["chmod", "--", "0700", new])
        control.point(new, record)
        control.start(new)
        shown = _wait_ready(pg, new)
    except PlacementError as exc:
        pg.log(f"the move failed ({exc}); starting the server on {current} again")
        try:
            control.unpoint(record)
            control.start(current)
        except PlacementError as again:
            raise PlacementError(
                f"{exc}; and the server did not start again on {current}: {again}"
            ) from exc
        raise PlacementError(f"{exc} (the server runs on {current} again)") from exc
    messages.append(f"data directory copied from {current} to {new}; SHOW data_directory = {shown}")
    return shown


def _move_wal(
    pg: PgHost, data_dir: str, wal_dir: str, record: dict[str, Any], messages: list[str]
) -> None:
    pg_wal = f"{data_dir.rstrip('/')}/pg_wal"
    if pg.runner.run(["test", "-L", pg_wal], sudo=True, timeout=30).ok:
        raise PlacementError(f"{pg_wal} is already a symbolic link: WAL has been moved before")
    control = make_control(pg, data_dir, record if record.get("control") == "pg_ctl" else None)
    pg.owner_dir(wal_dir)
    control.stop(data_dir)
    original = pg_wal + WAL_ORIGINAL_SUFFIX
    try:
        pg.copy_tree(pg_wal, wal_dir)
        pg.root(["mv", "--", pg_wal, original])
        pg.root(["ln", "-s", "--", wal_dir, pg_wal])
        pg.root(["chown", "-h", "--", f"{pg.spec.os_user}:", pg_wal])
        record["wal"] = {"directory": wal_dir, "data_directory": data_dir, "original": original}
        control.start(data_dir)
        _wait_ready(pg, data_dir)
    except PlacementError as exc:
        if pg.exists(original):
            pg.runner.run(["rm", "-f", "--", pg_wal], sudo=True, timeout=60)
            pg.runner.run(["mv", "--", original, pg_wal], sudo=True, timeout=60)
        record.pop("wal", None)
        control.start(data_dir)
        raise PlacementError(f"moving WAL failed: {exc} (WAL stays in {pg_wal})") from exc
    messages.append(f"WAL moved to {wal_dir} ({pg_wal} is a link to it)")


# ---- restore -------------------------------------------------------------------------------


def restore_database(
    runner: Runner,
    layout: Layout,
    *,
    on_log: LogFn | None = None,
    state_dir: Path | None = None,
    discard_changes: bool = False,
) -> PlacementResult:
    """Undo :func:`place_database`: the database back where it was, verified.

    A relocated data directory is copied back (the benchmark changed it) unless
    ``discard_changes``: then the server is just pointed at the untouched original.
    """
    spec = layout.database
    pg = PgHost(runner, spec, on_log)
    record = read_placement(runner, layout)
    if record is None:
        raise PlacementError(
            f"nothing to restore: {layout.mount.point} has no {PLACEMENT_FILE} (the database"
            " was not moved there by this app)"
        )
    messages: list[str] = []
    kind = str(record.get("placement"))
    if record.get("wal"):
        _restore_wal(pg, record, messages)
        _save_record(pg, layout, record)
    if kind == "tablespace":
        _restore_tablespace(pg, record, messages)
        data_dir = pg.data_directory()
    elif kind == "datadir":
        data_dir = _restore_datadir(pg, record, messages, discard_changes)
    else:
        raise PlacementError(f"unknown placement {kind!r} in {PLACEMENT_FILE}")
    pg.root(["rm", "-f", "--", _record_path(layout)])
    if state_dir is not None:
        update_recorded_database(state_dir, layout.target, layout.mount.point, None)
    return PlacementResult("restore", kind, record, data_dir, messages)


def _restore_wal(pg: PgHost, record: dict[str, Any], messages: list[str]) -> None:
    wal = record["wal"]
    data_dir = str(wal["data_directory"])
    wal_dir = str(wal["directory"])
    pg_wal = f"{data_dir.rstrip('/')}/pg_wal"
    original = str(wal.get("original") or pg_wal + WAL_ORIGINAL_SUFFIX)
    control = make_control(pg, data_dir, record if record.get("control") == "pg_ctl" else None)
    control.stop(data_dir)
    pg.root(["rm", "-f", "--", pg_wal])
    pg.root(["cp", "-a", "--", wal_dir, pg_wal], timeout=48 * 3600, what="copying WAL back")
    pg.root(["rm", "-rf", "--", original])
    control.start(data_dir)
    _wait_ready(pg, data_dir)
    pg.root(["rm", "-rf", "--", wal_dir])
    record.pop("wal", None)
    messages.append(f"WAL copied back to {pg_wal}")


def _restore_tablespace(pg: PgHost, record: dict[str, Any], messages: list[str]) -> None:
    name = str(record["tablespace"])
    rows = pg.psql(
        "SELECT d.datname FROM pg_database d JOIN pg_tablespace t ON d.dattablespace = t.oid"
        f" WHERE t.spcname = {quote_literal(name)} ORDER BY 1;"
    )
    for db in rows:
        busy = _sessions(pg, db)
        if busy:
            raise PlacementError(
                f"{busy} session(s) are connected to {db}: it cannot move back while in use"
            )
    for db in rows:
        pg.psql(f"ALTER DATABASE {quote_ident(db)} SET TABLESPACE pg_default;")
        messages.append(f"database {db} moved back to pg_default")
    try:
        pg.psql(f"DROP TABLESPACE {quote_ident(name)};")
    except PlacementError as exc:
        raise PlacementError(
            f"{exc}: objects of other databases still live in {name}; move them and retry"
        ) from exc
    messages.append(f"tablespace {name} dropped")
    location = str(record.get("location") or "")
    if location:
        pg.runner.run(["rmdir", "--", location], sudo=True, timeout=30)


def _restore_datadir(
    pg: PgHost, record: dict[str, Any], messages: list[str], discard_changes: bool
) -> str:
    original = str(record["original"])
    new = str(record["data_directory"])
    control = make_control(pg, new, record if record.get("control") == "pg_ctl" else None)
    if not pg.exists(f"{original.rstrip('/')}/PG_VERSION"):
        raise PlacementError(f"the original data directory {original} is gone: cannot restore")
    control.stop(new)
    if discard_changes:
        messages.append(f"the changes made on {new} are dropped (discard_changes)")
    else:
        if pg.runner.run(["sh", "-c", "command -v rsync"], timeout=30).ok:
            # --ignore-times: a page changed in the same second as the first copy keeps its
            # size and mtime, and rsync's quick check would skip it, losing the change.
            argv = ["rsync", "-aHAX", "--numeric-ids", "--delete", "--ignore-times", "--"]
            pg.root([*argv, new.rstrip("/") + "/", original.rstrip("/") + "/"], 48 * 3600)
        else:
            pg.root(["find", original, "-mindepth", "1", "-delete"], what="emptying the original")
            pg.root(["cp", "-a", "--", new.rstrip("/") + "/.", original], 48 * 3600)
        messages.append(f"data directory copied back from {new} to {original}")
    try:
        control.unpoint(record)
        control.start(original)
        shown = _wait_ready(pg, original)
    except PlacementError as exc:
        raise PlacementError(
            f"{exc}; the copy on {new} is kept: start the server there to recover"
        ) from exc
    pg.root(["rm", "-rf", "--", new], what=f"removing {new}")
    messages.append(f"the server runs on {shown} again (SHOW data_directory)")
    return shown


__all__ = [
    "PlacementError",
    "PlacementResult",
    "place_database",
    "read_placement",
    "restore_database",
    "set_data_directory",
]
