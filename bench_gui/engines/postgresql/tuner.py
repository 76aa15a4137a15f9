"""Tune a real PostgreSQL: diff, apply with ALTER SYSTEM, reload or restart, verify, roll back.

The flow of :meth:`PgTuner.apply`:

1. read the proposal's settings from ``pg_settings`` and compare them unit-aware (``128MB``
   proposed against ``16384`` × ``8kB`` is no change); values the server would refuse (an enum
   it was built without, a number out of range, a setting it does not have) are reported by
   name before anything changes;
2. keep a :class:`Snapshot`: ``postgresql.auto.conf`` as it is, and every touched setting's
   value and source;
3. ``ALTER SYSTEM SET`` each change (a value the server rejects restores the snapshot and is
   reported by name), ``pg_reload_conf()``;
4. settings of context ``postmaster`` (or ``pending_restart``) need a restart, done through a
   :class:`ServerControl` when allowed (a control that cannot work there, such as systemctl
   on a host without systemd or a Debian cluster that does not hold this server's data, is
   refused before anything changes). A server that does not come back gets the snapshot's
   ``postgresql.auto.conf`` back and is started again; the error names the setting that failed
   (from the server log);
5. verify: a fresh connection reads every setting back.

:meth:`PgTuner.rollback` restores a snapshot: ``ALTER SYSTEM`` back to the old values, the
file written back byte for byte when the control has file access, reload or restart as needed,
and verified against the snapshot's values.

Server control: :class:`PgCtlControl` (``pg_ctl`` on a data directory: the embedded demo and
the tests, locally or over SSH), :class:`SystemdControl` (``systemctl``) and
:class:`PgCtlClusterControl` (Debian's ``pg_ctlcluster``), each over a
:class:`~bench_gui.remote.host_access.HostIO`.

The kit's other modules are named for what they hold: :mod:`.settings` (the ``pg_settings``
rows, the diff, the snapshot), :mod:`.control` (the server controls and the failed start's
log), :mod:`.targets` (which server to tune); :mod:`~bench_gui.remote.machine_facts` reads RAM,
CPUs and storage from ``/proc`` and ``/sys``, and :mod:`~bench_gui.remote.db_tuner` holds the
flow and the types every engine's tuner shares (errors, diff rows, results).
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import sql

from bench_gui.engines.postgresql.control import (
    ControlResult,
    RestartFailed,
    ServerControl,
    blame_setting,
    first_fatal,
)
from bench_gui.engines.postgresql.pgtune import PgVersion, same_value
from bench_gui.engines.postgresql.settings import (
    AUTO_CONF,
    SETTINGS_SQL,
    ServerSetting,
    Snapshot,
    diff_settings,
    parse_auto_conf,
)
from bench_gui.engines.postgresql.shared.liveness import with_liveness
from bench_gui.engines.tuning_terms import TunedSetting
from bench_gui.remote.db_tuner import (
    ApplyResult,
    DbTuner,
    DiffRow,
    HostFacts,
    NoServerControl,
    NotEnoughPrivileges,
    TuningError,
    first_line,
    set_each,
    taken_at,
)
from bench_gui.remote.machine_facts import (
    mount_device,
    parse_cpu_list,
    parse_meminfo_total,
    storage_kind,
)


@dataclass
class PgState:
    """What the steps read on the connection: the server's facts and the touched settings."""

    facts: dict[str, Any]
    current: dict[str, ServerSetting]


class PgTuner(DbTuner[psycopg.Connection[Any], PgState, Snapshot]):
    """Diff, apply and roll back settings on one PostgreSQL server."""

    identity_words = "its system identifier is"
    control: ServerControl | None

    def __init__(
        self,
        conninfo: str,
        control: ServerControl | None = None,
        *,
        password: str | None = None,
        verify_timeout: float = 15.0,
    ) -> None:
        self.conninfo = conninfo
        self.control = control
        self.password = password
        self.verify_timeout = verify_timeout

    # ---- connections and facts ----------------------------------------------------------------

    def _open(self) -> psycopg.Connection[Any]:
        kwargs: dict[str, Any] = {"autocommit": True, "connect_timeout": 10}
        if self.password:
            kwargs["password"] = self.password
        try:
            # Keepalives and a TCP user timeout: a vanished server is given up on, not waited on.
            conn = psycopg.connect(with_liveness(self.conninfo), **kwargs)
        except psycopg.OperationalError as exc:
            text = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
            raise TuningError(f"cannot connect to the server: {text}") from exc
        return conn

    def _facts(self, conn: psycopg.Connection[Any]) -> dict[str, Any]:
        """Version, user, privileges, data directory and cluster identity."""
        row = conn.execute(
            "SELECT version(), current_setting('server_version_num')::int, current_user,"
            " (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)"
        ).fetchone()
        assert row is not None
        facts: dict[str, Any] = {
            "server": row[0],
            "server_version_num": row[1],
            "version": str(PgVersion.from_num(row[1])),
            "user": row[2],
            "superuser": bool(row[3]),
            "data_directory": None,
            "system_identifier": None,
        }
        for key, query in (
            ("data_directory", "SELECT setting FROM pg_settings WHERE name = 'data_directory'"),
            ("system_identifier", "SELECT system_identifier::text FROM pg_control_system()"),
        ):
            try:  # what the server will not say is left None
                found = conn.execute(query).fetchone()
                facts[key] = found[0] if found else None
            except psycopg.Error:
                pass
        return facts

    def read_settings(self, names: list[str] | None = None) -> dict[str, ServerSetting]:
        with self.connect() as conn:
            return self._read_settings(conn, names)

    @staticmethod
    def _read_settings(
        conn: psycopg.Connection[Any], names: list[str] | None
    ) -> dict[str, ServerSetting]:
        num = int(conn.execute("SHOW server_version_num").fetchone()[0])  # type: ignore[index]
        pending = "pending_restart" if num >= 90500 else "false"
        query = SETTINGS_SQL.format(pending=pending)
        if names is None:
            query = query.replace(" WHERE lower(name) = ANY(%s)", "")
            rows = conn.execute(query).fetchall()
        else:
            rows = conn.execute(query, ([n.lower() for n in names],)).fetchall()
        out: dict[str, ServerSetting] = {}
        for r in rows:
            enumvals = r[9]
            if isinstance(enumvals, str):  # an array psycopg did not adapt
                enumvals = [x for x in enumvals.strip("{}").split(",") if x]
            # Keyed in lower case: setting names are case-insensitive (TimeZone, DateStyle).
            out[r[0].lower()] = ServerSetting(
                name=r[0],
                setting=r[1] or "",
                unit=r[2],
                context=r[3],
                vartype=r[4],
                source=r[5],
                boot_val=r[6],
                reset_val=r[7],
                pending_restart=bool(r[8]),
                enumvals=list(enumvals or []),
                min_val=r[10],
                max_val=r[11],
                sourcefile=r[12],
            )
        return out

    def _state(self, conn: psycopg.Connection[Any], names: list[str]) -> PgState:
        return PgState(self._facts(conn), self._read_settings(conn, names))

    def _diff(self, items: list[TunedSetting], state: PgState) -> list[DiffRow]:
        return diff_settings(items, state.current)

    def host_facts(self) -> HostFacts:
        """RAM, CPUs and storage of the server's machine, read through the server.

        ``pg_read_file`` on ``/proc`` and ``/sys`` needs a superuser (or pg_read_server_files);
        what cannot be read is left None with a note, and the caller may fall back on the
        host's own files when the server is local.
        """
        facts = HostFacts()
        with self.connect() as conn:

            def read(path: str) -> str | None:
                try:
                    row = conn.execute("SELECT pg_read_file(%s)", (path,)).fetchone()
                except psycopg.Error as exc:
                    text = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
                    facts.notes.append(f"{path}: {text}")
                    return None
                return str(row[0]) if row and row[0] is not None else None

            meminfo = read("/proc/meminfo")
            if meminfo:
                facts.ram_bytes = parse_meminfo_total(meminfo)
            online = read("/sys/devices/system/cpu/online")
            if online:
                facts.cpus = parse_cpu_list(online)
            data_dir = self._facts(conn).get("data_directory")
            mountinfo = read("/proc/self/mountinfo") if data_dir else None
            dev = mount_device(mountinfo, data_dir) if mountinfo and data_dir else None
            if dev is not None and dev[0] != 0:
                base = f"/sys/dev/block/{dev[0]}:{dev[1]}"
                uevent = read(f"{base}/uevent") or ""
                name = re.search(r"^DEVNAME=(\S+)", uevent, re.MULTILINE)
                partition = read(f"{base}/partition") if "DEVTYPE=partition" in uevent else None
                queue = f"{base}/../queue" if partition is not None else f"{base}/queue"
                rotational = read(f"{queue}/rotational")
                facts.device = name.group(1) if name else f"{dev[0]}:{dev[1]}"
                facts.storage = storage_kind(facts.device, rotational)
            elif dev is not None:
                facts.notes.append("the data directory is not on a block device")
        return facts

    # ---- privileges ---------------------------------------------------------------------------

    def _check_privileges(
        self, conn: psycopg.Connection[Any], names: list[str], facts: dict[str, Any]
    ) -> None:
        if facts["superuser"]:
            return
        user = facts["user"]
        if facts["server_version_num"] >= 150000:
            missing = []
            for name in names:
                row = conn.execute(
                    "SELECT has_parameter_privilege(%s, 'ALTER SYSTEM')", (name,)
                ).fetchone()
                if not (row and row[0]):
                    missing.append(name)
            reload_ok = conn.execute(
                "SELECT has_function_privilege('pg_reload_conf()', 'EXECUTE')"
            ).fetchone()
            if not missing and reload_ok and reload_ok[0]:
                return
            what = ", ".join(missing) if missing else "pg_reload_conf()"
            raise NotEnoughPrivileges(
                f"database user {user!r} may not change server settings ({what}): ALTER"
                " SYSTEM needs a superuser, or GRANT ALTER SYSTEM ON PARAMETER ... and EXECUTE"
                " on pg_reload_conf(); connect as a superuser such as postgres"
            )
        raise NotEnoughPrivileges(
            f"database user {user!r} may not change server settings: ALTER SYSTEM needs a"
            " superuser on this PostgreSQL version; connect as a superuser such as postgres"
        )

    # ---- snapshots ------------------------------------------------------------------------------

    def _read_auto_conf(self, conn: psycopg.Connection[Any]) -> str | None:
        try:
            row = conn.execute("SELECT pg_read_file(%s)", (AUTO_CONF,)).fetchone()
            if row is not None and row[0] is not None:
                return str(row[0])
        except psycopg.Error:
            pass
        if self.control is not None:
            return self.control.read_auto_conf()
        return None

    def snapshot(self, names: list[str]) -> Snapshot:
        with self.connect() as conn:
            return self._snapshot_of(conn, names, self._facts(conn))

    def _take_snapshot(
        self, conn: psycopg.Connection[Any], state: PgState, todo: list[DiffRow]
    ) -> Snapshot:
        return self._snapshot_of(conn, [r.name for r in todo], state.facts)

    def _snapshot_of(
        self, conn: psycopg.Connection[Any], names: list[str], facts: dict[str, Any]
    ) -> Snapshot:
        current = self._read_settings(conn, names)
        text = self._read_auto_conf(conn)
        return Snapshot(
            taken_at=taken_at(),
            server=facts["server"],
            server_version_num=facts["server_version_num"],
            system_identifier=facts["system_identifier"],
            data_directory=facts["data_directory"],
            auto_conf=text,
            auto_conf_settings=parse_auto_conf(text) if text is not None else {},
            values={
                name: {
                    "setting": row.setting,
                    "unit": row.unit,
                    "vartype": row.vartype,
                    "context": row.context,
                    "source": row.source,
                    "display": row.display,
                    "enumvals": row.enumvals,
                }
                for name, row in current.items()
            },
        )

    # ---- ALTER SYSTEM ---------------------------------------------------------------------------

    @staticmethod
    def _alter(conn: psycopg.Connection[Any], name: str, value: str | None) -> str:
        """ALTER SYSTEM SET/RESET one setting; '' or the server's reason for refusing it."""
        if value is None:
            statement = sql.SQL("ALTER SYSTEM RESET {}").format(sql.Identifier(name))
        else:
            statement = sql.SQL("ALTER SYSTEM SET {} = {}").format(
                sql.Identifier(name), sql.Literal(value)
            )
        try:
            conn.execute(statement)
        except psycopg.errors.InsufficientPrivilege as exc:
            raise NotEnoughPrivileges(
                f"the server refused to change {name}: {_first_line(exc)}; connect as a"
                " superuser such as postgres"
            ) from exc
        except psycopg.Error as exc:
            return _first_line(exc)
        return ""

    def _restore_file(self, conn: psycopg.Connection[Any], snapshot: Snapshot) -> bool | None:
        """Put the snapshot's file back byte for byte if it differs; True if it now matches."""
        if snapshot.auto_conf is None:
            return None
        now = self._read_auto_conf(conn)
        if now == snapshot.auto_conf:
            return True
        if self.control is None:
            return False
        try:
            self.control.write_auto_conf(snapshot.auto_conf)
        except OSError:
            return False
        return self._read_auto_conf(conn) == snapshot.auto_conf

    def _undo(self, conn: psycopg.Connection[Any], snapshot: Snapshot, names: list[str]) -> None:
        for name in names:
            self._alter(conn, name, snapshot.auto_conf_settings.get(name))
        self._restore_file(conn, snapshot)

    # ---- apply ----------------------------------------------------------------------------------

    def _may_apply(
        self, conn: psycopg.Connection[Any], state: PgState, todo: list[DiffRow], restart: bool
    ) -> None:
        """The privileges to ALTER SYSTEM each setting; for a restart, a control that works."""
        self._check_privileges(conn, [r.name for r in todo], state.facts)
        needs_restart = [r.name for r in todo if r.action == "restart"]
        if needs_restart and restart and self.control is None:
            raise NoServerControl(
                f"{', '.join(needs_restart)} need(s) a server restart, and there is no way"
                " to restart this server from here (no server control: give its data"
                " directory, or a systemd unit over SSH)"
            )
        if needs_restart and restart and self.control is not None:
            self.control.check()

    def _change(
        self,
        conn: psycopg.Connection[Any],
        state: PgState,
        todo: list[DiffRow],
        snapshot: Snapshot,
        result: ApplyResult,
    ) -> list[str]:
        """ALTER SYSTEM SET each (a refusal restores the snapshot), then pg_reload_conf()."""
        done: list[str] = []
        set_each(
            todo,
            lambda row: self._alter(conn, row.name, row.proposed),
            done,
            lambda: self._undo(conn, snapshot, done),
        )
        conn.execute("SELECT pg_reload_conf()")
        result.reloaded = True
        return done

    def _settle(
        self, result: ApplyResult, todo: list[DiffRow], snapshot: Snapshot, restart: bool
    ) -> None:
        """Wait for the reload; restart when asked and needed (a failed start restores the
        snapshot: :meth:`_recover`), else say what waits for one; verify."""
        needs_restart = [r.name for r in todo if r.action == "restart"]
        expected = {r.name: r.proposed for r in todo}
        self._wait_reload(expected)
        current = self.read_settings(list(expected))
        pending = [n for n in expected if current[n].pending_restart or n in needs_restart]
        if pending and restart:
            assert self.control is not None
            outcome = self.control.restart()
            if not outcome.ok:
                self._recover(snapshot, list(expected), outcome)
            result.restarted = True
        elif pending:
            result.pending_restart = pending
        self._verify(result, expected, skip=set(result.pending_restart))

    def _recover(self, snapshot: Snapshot, names: list[str], outcome: ControlResult) -> None:
        """The restart failed: restore the previous settings and raise RestartFailed.

        Usually the server did not start with the new settings: the old file is written back
        and the server started. But a control can also fail before it stops anything (pg_ctl
        refused, a wrong unit): the server then still runs with the new reloadable values, so
        they are undone through SQL and reloaded, and the message says what really happened.
        """
        assert self.control is not None
        if self._answers():
            self._recover_running(snapshot, names, outcome)
        culprit = blame_setting(outcome.log + "\n" + outcome.detail, names)
        reason = first_fatal(outcome.log, outcome.detail)
        restored = False
        if snapshot.auto_conf is not None:
            try:
                self.control.write_auto_conf(snapshot.auto_conf)
                restored = self.control.start().ok
            except OSError:
                restored = False
        which = (
            f"the setting that failed: {culprit}"
            if culprit
            else ("the log names none of the changed settings (" + ", ".join(names) + ")")
        )
        if restored:
            message = (
                f"the server did not start with the new settings ({reason}); {which}. The"
                " previous settings were restored and the server runs again."
            )
        else:
            message = (
                f"the server did not start with the new settings ({reason}); {which}. The"
                f" previous settings could NOT be restored automatically: put back"
                f" {AUTO_CONF} in {snapshot.data_directory} from the snapshot and start the"
                " server."
            )
        raise RestartFailed(message, culprit, restored, outcome.log)

    def _answers(self) -> bool:
        """Whether the server accepts a connection right now."""
        try:
            with self.connect() as conn:
                conn.execute("SELECT 1")
        except (TuningError, psycopg.Error):
            return False
        return True

    def _recover_running(
        self, snapshot: Snapshot, names: list[str], outcome: ControlResult
    ) -> None:
        assert self.control is not None
        detail = (outcome.detail or outcome.log).strip().splitlines()
        why = detail[-1] if detail else "it failed"
        try:
            with self.connect() as conn:
                self._undo(conn, snapshot, names)
                conn.execute("SELECT pg_reload_conf()")
            restored = True
        except (TuningError, psycopg.Error):
            restored = False
        what = (
            "the previous settings were put back and reloaded"
            if restored
            else f"the previous settings could NOT be put back: restore {AUTO_CONF} in"
            f" {snapshot.data_directory} from the snapshot and reload"
        )
        raise RestartFailed(
            f"the restart through {self.control.label} failed ({why}) and the server kept"
            f" running, so nothing needing a restart took effect; {what}.",
            None,
            restored,
            outcome.log,
        )

    def _wait_reload(self, expected: Mapping[str, str]) -> None:
        """After pg_reload_conf(): wait until a new session sees the reloadable values."""
        deadline = time.monotonic() + self.verify_timeout
        while True:
            current = self.read_settings(list(expected))
            waiting = [
                n
                for n, value in expected.items()
                if n in current
                and not current[n].needs_restart
                and not current[n].pending_restart
                and not same_value(
                    value,
                    current[n].setting,
                    current[n].unit,
                    current[n].vartype,
                    current[n].enumvals,
                )
            ]
            if not waiting or time.monotonic() > deadline:
                return
            time.sleep(0.1)

    def _verify(self, result: ApplyResult, expected: Mapping[str, str], skip: set[str]) -> None:
        current = self.read_settings(list(expected))
        for name, value in expected.items():
            row = current.get(name)
            if row is None:
                result.mismatches[name] = "no such setting"
                continue
            result.verified[name] = row.display
            if name in skip:
                continue
            if not same_value(value, row.setting, row.unit, row.vartype, row.enumvals):
                where = f", set from {row.source}" if row.source != "configuration file" else ""
                result.mismatches[name] = f"{row.display}{where}"

    # ---- rollback -------------------------------------------------------------------------------

    def _snapshot_names(self, snapshot: Snapshot) -> list[str]:
        return list(snapshot.values)

    def _identity(self, state: PgState, snapshot: Snapshot) -> tuple[str | None, str | None]:
        now = state.facts["system_identifier"]
        return (str(now) if now else None), snapshot.system_identifier

    def _may_restore(
        self, conn: psycopg.Connection[Any], state: PgState, snapshot: Snapshot, restart: bool
    ) -> None:
        """The privileges; for a restart (a value in effect differs from the snapshot's and
        needs one), a control that works."""
        self._check_privileges(conn, list(snapshot.values), state.facts)
        if (
            restart
            and self.control is not None
            and any(
                row.needs_restart and row.setting != str(snapshot.values[n]["setting"])
                for n, row in state.current.items()
                if n in snapshot.values
            )
        ):
            self.control.check()

    def _restore_all(
        self,
        conn: psycopg.Connection[Any],
        state: PgState,
        snapshot: Snapshot,
        result: ApplyResult,
    ) -> None:
        """ALTER SYSTEM back to the file's old values, the file byte for byte, a reload."""
        names = list(snapshot.values)
        for name in names:
            reason = self._alter(conn, name, snapshot.auto_conf_settings.get(name))
            if reason:
                result.skipped[name] = reason
        result.auto_conf_restored = self._restore_file(conn, snapshot)
        if result.auto_conf_restored is False:
            result.messages.append(
                f"{AUTO_CONF} differs from the snapshot's (it could not be written back"
                " byte for byte); the values are restored"
            )
        result.changed = [n for n in names if n not in result.skipped]
        conn.execute("SELECT pg_reload_conf()")
        result.reloaded = True

    def _settle_rollback(
        self, result: ApplyResult, state: PgState, snapshot: Snapshot, restart: bool
    ) -> None:
        """Wait for the reload, restart if a value needs it, and compare with the snapshot."""
        names = list(snapshot.values)
        # Snapshot values are pg_settings' own: numbers in the setting's base unit.
        expected = {n: str(v["setting"]) for n, v in snapshot.values.items()}
        self._wait_reload(expected)
        current = self.read_settings(names)
        pending = [
            n
            for n in names
            if n in current
            and (
                current[n].pending_restart
                or (current[n].needs_restart and current[n].setting != expected[n])
            )
        ]
        if pending and restart and self.control is not None:
            outcome = self.control.restart()
            if not outcome.ok:
                raise TuningError(
                    "the server did not restart with the previous settings: "
                    + first_fatal(outcome.log, outcome.detail)
                )
            result.restarted = True
        elif pending:
            result.pending_restart = pending
        now = self.read_settings(names)
        for name in names:
            row = now.get(name)
            if row is None:
                continue
            result.verified[name] = row.display
            if name in result.pending_restart:
                continue
            if row.setting != snapshot.values[name]["setting"]:
                result.mismatches[name] = f"{row.display} (was {snapshot.values[name]['display']})"


def _first_line(exc: BaseException) -> str:
    return first_line(str(exc), exc)
