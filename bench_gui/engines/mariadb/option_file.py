"""MariaDB/MySQL option files (``my.cnf``): read the server's values, and set some of them
while keeping everything else of the file as it was.

A DBA's file holds comments, other programs' sections (``[client]``, ``[mysqldump]``), flags
without a value (``skip-name-resolve``), ``!include`` lines and sections the server reads
besides ``[mysqld]`` (``[server]``, ``[mariadb]``, ``[mariadbd]``, ``[mariadb-10.11]``). An
edit changes only the lines that set one of our variables (their value, in place) and adds the
variables the file did not set at the end of its first server section; every other byte stays.
The server reads its sections in file order, the last value of a name winning, so every line
that sets one of ours in a server section is changed, not only the first.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

# Sections mariadbd/mysqld read (besides versioned [mariadb-X.Y] / [mysqld-X.Y]).
SERVER_SECTIONS: Final = ("mysqld", "server", "mariadb", "mariadbd")
_VERSIONED: Final = re.compile(r"^(mysqld|mariadb|mariadbd)-\d+(\.\d+)*$")
_HEADER: Final = (
    "# Written by bench-gui (InnoDB tuning). Roll back with `bench-gui tune rollback` or",
    "# the Database page; the previous content is kept in the tuning history.",
)


def is_server_section(name: str) -> bool:
    """Whether the server reads options from the section ``[name]``."""
    name = name.strip().lower()
    return name in SERVER_SECTIONS or bool(_VERSIONED.match(name))


def option_name(text: str) -> str:
    """An option's canonical name: dashes as underscores, lower case, no ``loose-`` prefix."""
    name = text.strip().replace("-", "_").lower()
    return name.removeprefix("loose_")


def _section_of(line: str) -> str | None:
    stripped = line.strip()
    if stripped.startswith("[") and "]" in stripped:
        return stripped[1 : stripped.index("]")]
    return None


def _assignment(line: str) -> tuple[str, str] | None:
    """(canonical name, value) of a ``name = value`` line; None for anything else."""
    body = line.split("#", 1)[0].strip()
    if not body or body.startswith((";", "!", "[")):
        return None
    name, sep, value = body.partition("=")
    if not sep:
        return None
    return option_name(name), value.strip().strip("'\"")


def parse_cnf(text: str) -> dict[str, str]:
    """``name = value`` lines of the server's sections of an option file (dashes read as
    underscores, the last one of a name wins)."""
    out: dict[str, str] = {}
    section = ""
    for raw in text.splitlines():
        found = _section_of(raw)
        if found is not None:
            section = found
            continue
        pair = _assignment(raw) if is_server_section(section) else None
        if pair is not None:
            out[pair[0]] = pair[1]
    return out


def _line(name: str, value: str, rule: str, indent: str = "") -> str:
    return f"{indent}{name} = {value}" + (f"  # bench-gui: {rule}" if rule else "")


def render_cnf(values: Mapping[str, str], rules: Mapping[str, str]) -> str:
    """A new option file of our own: a header saying who wrote it, one ``[mysqld]``."""
    lines = [*_HEADER, "[mysqld]"]
    lines += [_line(name, value, rules.get(name, "")) for name, value in values.items()]
    return "\n".join(lines) + "\n"


def edit_cnf(text: str | None, values: Mapping[str, str], rules: Mapping[str, str]) -> str:
    """``text`` with ``values`` set and nothing else changed (see the module docstring); a
    new file of our own when there was none."""
    if text is None or not text.strip():
        return render_cnf(values, rules)
    lines = text.splitlines(keepends=True)
    wanted = {option_name(n): n for n in values}
    seen: set[str] = set()
    section = ""
    first_server_end: int | None = None  # the index after the first server section's last line
    in_first = False
    for index, raw in enumerate(lines):
        found = _section_of(raw)
        if found is not None:
            if in_first:
                in_first = False
            section = found
            if first_server_end is None and is_server_section(section):
                in_first = True
                first_server_end = index + 1
            continue
        if in_first and raw.strip():
            first_server_end = index + 1
        pair = _assignment(raw) if is_server_section(section) else None
        if pair is None or pair[0] not in wanted:
            continue
        name = wanted[pair[0]]
        ending = raw[len(raw.rstrip("\r\n")) :]
        indent = raw[: len(raw) - len(raw.lstrip())]
        lines[index] = _line(name, values[name], rules.get(name, ""), indent) + (ending or "\n")
        seen.add(name)
    added = [_line(n, v, rules.get(n, "")) + "\n" for n, v in values.items() if n not in seen]
    if not added:
        return "".join(lines)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n"
    if first_server_end is None:
        return "".join([*lines, "\n[mysqld]\n", *added])
    return "".join([*lines[:first_server_end], *added, *lines[first_server_end:]])
