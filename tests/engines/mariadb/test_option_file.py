"""Setting variables in a DBA's option file keeps everything else in it (issue 26), checked
with MariaDB's own reader of option files (``my_print_defaults``) for what the server sees."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from bench_gui.engines.mariadb.option_file import edit_cnf, parse_cnf

DBA_FILE = """\
# Tuned by the DBA, 2024-03: do not remove the client section.
[client]
port = 3306
socket = /run/mysqld/mysqld.sock

[mysqld]
# networking
skip-name-resolve
bind-address = 0.0.0.0
innodb-buffer-pool-size = 8G   # half the RAM
!includedir /etc/mysql/conf.d/

[mysqldump]
quick
max_allowed_packet = 16M

[mariadbd]
loose-innodb_io_capacity = 400
"""


def seen_by_server(text: str, tmp_path: Path) -> list[str]:
    """The options mariadbd would take from this file, in order (``my_print_defaults``)."""
    tool = shutil.which("my_print_defaults")
    if tool is None:
        pytest.fail("my_print_defaults (mariadb-client) is needed: scripts/install-system-deps.sh")
    path = tmp_path / "my.cnf"
    path.write_text(text.replace("!includedir /etc/mysql/conf.d/\n", ""))
    proc = subprocess.run(
        [tool, f"--defaults-file={path}", "mysqld", "server", "mariadb", "mariadbd"],
        capture_output=True,
        text=True,
        check=True,
    )
    return proc.stdout.splitlines()


def test_a_dba_file_keeps_every_other_line(tmp_path: Path) -> None:
    values = {"innodb_buffer_pool_size": "1G", "innodb_io_capacity": "2000",
              "innodb_flush_method": "O_DIRECT"}  # fmt: skip
    edited = edit_cnf(DBA_FILE, values, {"innodb_io_capacity": "nvme"})
    before, after = DBA_FILE.splitlines(), edited.splitlines()
    changed = [line for line in before if line not in after]
    # Only the two lines that set our variables changed; one line was added.
    assert changed == ["innodb-buffer-pool-size = 8G   # half the RAM",
                       "loose-innodb_io_capacity = 400"]  # fmt: skip
    assert len(after) == len(before) + 1
    for kept in ("[client]", "port = 3306", "skip-name-resolve", "quick", "[mariadbd]",
                 "!includedir /etc/mysql/conf.d/", "# networking"):  # fmt: skip
        assert kept in after
    # The new variable goes at the end of the first server section, before [mysqldump].
    assert after.index("innodb_flush_method = O_DIRECT") < after.index("[mysqldump]")
    assert "innodb_io_capacity = 2000  # bench-gui: nvme" in after
    assert parse_cnf(edited) == {"bind_address": "0.0.0.0", **values}
    options = seen_by_server(edited, tmp_path)
    assert "--skip-name-resolve" in options
    assert "--innodb_buffer_pool_size=1G" in options
    assert "--innodb_io_capacity=2000" in options
    assert not any(o.endswith("=8G") or o.endswith("=400") for o in options)


def test_every_setting_of_a_name_changes_so_the_last_one_wins(tmp_path: Path) -> None:
    text = "[mysqld]\nmax_connections = 500\n[mariadbd]\nmax-connections=800\n"
    edited = edit_cnf(text, {"max_connections": "200"}, {})
    assert seen_by_server(edited, tmp_path) == ["--max_connections=200"] * 2


def test_line_endings_and_a_file_without_a_server_section(tmp_path: Path) -> None:
    crlf = "[mysqld]\r\nmax_connections = 500\r\n"
    assert edit_cnf(crlf, {"max_connections": "200"}, {}) == "[mysqld]\r\nmax_connections = 200\r\n"
    client_only = "[client]\nuser = dba"  # no final newline
    edited = edit_cnf(client_only, {"max_connections": "200"}, {})
    assert edited == "[client]\nuser = dba\n\n[mysqld]\nmax_connections = 200\n"
    assert seen_by_server(edited, tmp_path) == ["--max_connections=200"]


def test_no_file_gives_one_of_our_own() -> None:
    written = edit_cnf(None, {"max_connections": "200"}, {"max_connections": "users"})
    assert written.startswith("# Written by bench-gui")
    assert parse_cnf(written) == {"max_connections": "200"}
