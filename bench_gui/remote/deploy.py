"""Deploying the agent to a driver host over SFTP, without the host needing the internet.

The agent (``bench_gui/agent`` with each kit's agent side,
``bench_gui/engines/<kit>/agent`` and ``bench_gui/workloads/<kit>/agent``, the code a kit's
agent and desktop sides share, ``<kit>/shared``, and their contract ``bench_gui/wire``:
stdlib + psycopg + hdrhistogram; pyodbc for the ODBC engines) goes into a
versioned cache on the host, ``~/.cache/bench-gui/agent-<version>-<hash>/`` (the
folder is the transport's ``remote_root``: ``$BENCH_GUI_REMOTE_ROOT`` when set), as one archive
unpacked there. Its Python dependencies are either the host's own (when ``import psycopg, hdrh``
works there; pyodbc likewise, judged on its own) or copied from this desktop's site-packages
into ``deps/``, which only works when the host runs the same Python (implementation,
major.minor) on the same platform with a C library at least as new as the binary wheels need;
otherwise the message says what the host runs and what to install. pyodbc is only needed by
the MariaDB/MySQL and SQL Server engines: when no copy fits the host it is left out with a
note, and the agent says what to install if such a run comes. It loads unixODBC
(``libodbc.so.2``) and the engine's ODBC driver, system packages no deployment ships; the
agent names them when they are missing (:func:`bench_gui.wire.odbc.pyodbc_module`, with the
packages each kit's ``shared/`` folder names).

Third-party engines (:mod:`bench_gui.remote.agent_plugins`): every distribution installed here
that declares a ``bench_gui.agent_engines`` entry point is shipped into ``deps/`` too, with its
``.dist-info`` (the host's ``importlib.metadata`` finds the entry point there, ``deps/`` being
on the agent's ``PYTHONPATH``) and the requirements the agent does not bring. They are part of
the bundle's hash: a changed plugin is a new folder on the host, uploaded once.

A desktop whose packages cannot be copied (the PyInstaller bundle) ships the wheels it was built
with instead (:mod:`bench_gui.remote.agent_wheels`): the ones that fit the host's Python.

A directory whose name carries the bundle's hash is complete only once its ``.complete`` marker
is there (it is unpacked next to it and renamed), so an interrupted upload is redone and an
unchanged agent is never uploaded twice. After an upload the agent, its packages and every
shipped plugin engine are imported there once, so a deployment that cannot start fails here.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import io
import json
import platform
import re
import sys
import sysconfig
import tarfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from bench_gui.remote import agent_plugins, agent_wheels
from bench_gui.remote.connection import SSHConnection
from bench_gui.remote.errors import DeployError, RemotePythonUnsupported, SSHError
from bench_gui.remote.python_info import PythonInfo
from bench_gui.wire.names import AGENT_VERSION

MIN_PYTHON: Final = (3, 10)  # the agent uses zip(strict=...) and X | Y in isinstance
# What the agent imports besides the stdlib, as distributions. hdrhistogram declares pbr and
# setuptools as requirements but imports neither at run time (it needs its pyhdrh extension).
DEP_DISTRIBUTIONS: Final = ("psycopg", "hdrhistogram", "typing_extensions")
# The ODBC engines' driver module: shipped unless the host's Python has its own (it needs
# unixODBC and the engine's ODBC driver there, system packages the agent names when missing).
ODBC_DISTRIBUTION: Final = "pyodbc"
PSYCOPG_IMPLS: Final = ("psycopg-binary", "psycopg-c")
DEPS_DIR: Final = "deps"
MARKER: Final = ".complete"
# The kit families whose kits may carry an agent side in an ``agent/`` folder of their own.
KIT_FAMILIES: Final = ("bench_gui.engines", "bench_gui.workloads")
# A kit's folders the host gets: its agent side and the code both its sides run.
KIT_SIDES: Final = ("agent", "shared")
_KIT_STUB: Final = '"""Reduced to the agent sides of its kits on a driver host."""\n'
_BUNDLE_STUB: Final = (
    '"""bench_gui, reduced to its agent for a driver host (deployed by bench-gui)."""\n\n'
    f'__version__ = "{AGENT_VERSION}"\n'
)

# Runs on the host with any Python 3: no f-strings, so an old interpreter still reports itself.
PROBE_SCRIPT: Final = r"""
import json, os, platform, sys, sysconfig
info = {
    "version": list(sys.version_info[:3]),
    "impl": sys.implementation.name,
    "cache_tag": sys.implementation.cache_tag,
    "platform": sysconfig.get_platform(),
    "machine": platform.machine(),
    "libc": list(platform.libc_ver()),
    "executable": sys.executable,
}
try:
    import importlib.util
    info["has_pyodbc"] = importlib.util.find_spec("pyodbc") is not None
except Exception:
    info["has_pyodbc"] = False
try:
    import psycopg, hdrh.histogram
    psycopg.pq.version()
    info["has_deps"] = True
    info["psycopg"] = psycopg.__version__
except Exception as exc:
    info["has_deps"] = False
    info["deps_error"] = "%s: %s" % (type(exc).__name__, exc)
print(json.dumps(info))
"""

# argv: archive, final directory, digest. Unpacks next to the final directory, then renames.
UNPACK_SCRIPT: Final = r"""
import os, shutil, sys, tarfile, tempfile
archive, final, digest = sys.argv[1:4]
parent = os.path.dirname(final)
os.makedirs(parent, mode=0o700, exist_ok=True)
tmp = tempfile.mkdtemp(prefix=".unpack-", dir=parent)
try:
    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(tmp, filter="data")
        else:
            tar.extractall(tmp)
    with open(os.path.join(tmp, ".complete"), "w") as fh:
        fh.write(digest + "\n")
    try:
        os.rename(tmp, final)
    except OSError:
        if not os.path.exists(os.path.join(final, ".complete")):
            raise
        shutil.rmtree(tmp, ignore_errors=True)
finally:
    if os.path.isdir(tmp):
        shutil.rmtree(tmp, ignore_errors=True)
    os.unlink(archive)
"""


def local_python() -> PythonInfo:
    """This desktop's interpreter, in the probe's terms."""
    libc = platform.libc_ver()
    return PythonInfo(
        executable=sys.executable,
        version=tuple(sys.version_info[:3]),
        impl=sys.implementation.name,
        cache_tag=sys.implementation.cache_tag or "",
        platform=sysconfig.get_platform(),
        machine=platform.machine(),
        libc=(libc[0], libc[1]),
        has_deps=True,
        has_pyodbc=importlib.util.find_spec(ODBC_DISTRIBUTION) is not None,
    )


def probe_python(session: SSHConnection, python: str) -> PythonInfo:
    """Run the probe with the target's interpreter; a missing one raises a clear error."""
    result = session.run([python, "-c", PROBE_SCRIPT], timeout=60)
    if result.exit_status == 127 or ("not found" in result.stderr and not result.stdout):
        raise RemotePythonUnsupported(
            f"{session.host} has no {python!r}: the agent needs Python"
            f" {'.'.join(map(str, MIN_PYTHON))} or newer there (install it, or set the target's"
            " python to an interpreter that exists)"
        )
    try:
        line = result.stdout.strip().splitlines()[-1]
        return PythonInfo.from_probe(json.loads(line))
    except (IndexError, ValueError) as exc:
        raise RemotePythonUnsupported(
            f"{python} on {session.host} could not be probed ({result.first_error_line()});"
            f" the agent needs Python {'.'.join(map(str, MIN_PYTHON))} or newer"
        ) from exc


def check_python_version(info: PythonInfo, host: str) -> None:
    if info.version[:2] < MIN_PYTHON:
        raise RemotePythonUnsupported(
            f"the driver host {host} runs Python {info.version_text} ({info.executable}); the"
            f" agent needs Python {'.'.join(map(str, MIN_PYTHON))} or newer: install a newer"
            " Python there and set the target's python to it (for example python3.11)"
        )


# -- the bundle ------------------------------------------------------------------------------


@dataclass
class Bundle:
    """Files to ship (archive name -> content) and the digest that names the cache directory."""

    files: dict[str, bytes]
    digest: str
    with_deps: bool
    binary_tags: dict[str, list[str]] = field(default_factory=dict)  # dist -> wheel tags
    notes: list[str] = field(default_factory=list)  # what was left out, and what that means
    plugins: list[str] = field(default_factory=list)  # engine plugins shipped (distributions)
    engines: list[str] = field(default_factory=list)  # their agent engines' names

    def archive(self) -> bytes:
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz", compresslevel=6) as tar:
            for name in sorted(self.files):
                data = self.files[name]
                info = tarfile.TarInfo(name)
                info.size = len(data)
                info.mode = 0o755 if name.endswith(".so") or ".so." in name else 0o644
                info.mtime = 0
                tar.addfile(info, io.BytesIO(data))
        return buf.getvalue()


def _package_folder(name: str) -> Path:
    """Where a package's files are, found without importing it: the desktop ships the agent's
    files and never runs them (the contract "the desktop imports the wire, not the agent")."""
    spec = importlib.util.find_spec(name)
    places = list(spec.submodule_search_locations or []) if spec is not None else []
    if not places:
        raise DeployError(f"the package {name} is not installed beside bench_gui: reinstall it")
    return Path(places[0])


def _kit_sides() -> list[tuple[str, Path]]:
    """Each kit's agent side, ``bench_gui/<engines|workloads>/<kit>/agent/``, and the code
    its two sides share, ``<kit>/shared/``, found on disk: the host gets these folders and
    stub ``__init__`` files above them, never a kit's desktop modules."""
    found = []
    for family in KIT_FAMILIES:
        root = _package_folder(family)
        for side in KIT_SIDES:
            for init in sorted(root.glob(f"*/{side}/__init__.py")):
                found.append((f"bench_gui/{root.name}/{init.parent.parent.name}", init.parent))
    return found


def _tree(folder: Path, prefix: str) -> dict[str, bytes]:
    return {
        prefix + path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


def _agent_files() -> dict[str, bytes]:
    """The agent's package, each kit's agent side and shared code, and the contract they
    import (bench_gui.wire), as the host gets them."""
    files = {"bench_gui/__init__.py": _BUNDLE_STUB.encode()}
    for package in ("bench_gui.agent", "bench_gui.wire"):
        root = _package_folder(package)
        files.update(_tree(root, "bench_gui/" + root.name + "/"))
    for kit, folder in _kit_sides():
        family = kit.rsplit("/", 1)[0]
        files.setdefault(f"{family}/__init__.py", _KIT_STUB.encode())
        files[f"{kit}/__init__.py"] = _KIT_STUB.encode()
        files.update(_tree(folder, f"{kit}/{folder.name}/"))
    return files


@functools.cache
def _copied(names: tuple[str, ...]) -> tuple[dict[str, bytes], dict[str, list[str]]]:
    """This desktop's installed copies of ``names`` (files under deps/) and the wheel tags of
    the binary ones; DeployError naming one that is not installed here."""
    files: dict[str, bytes] = {}
    tags: dict[str, list[str]] = {}
    for name in names:
        dist = agent_plugins.distribution(name)
        if dist is None:
            raise DeployError(f"this desktop lacks {name}, which the agent needs")
        files.update(agent_plugins.dist_files(dist, DEPS_DIR))
        dist_tags = agent_plugins.wheel_tags(dist)
        if agent_plugins.is_binary(dist_tags):
            tags[name] = dist_tags
    return files, tags


def _core_names() -> tuple[str, ...]:
    """The agent's own dependencies as this desktop has them (psycopg's C part: either)."""
    impl = next((n for n in PSYCOPG_IMPLS if agent_plugins.distribution(n) is not None), None)
    if impl is None:
        raise DeployError(
            "this desktop has no psycopg-binary or psycopg-c to copy to the driver host:"
            " install psycopg[binary] here, or psycopg[binary] and hdrhistogram there"
        )
    return (*DEP_DISTRIBUTIONS, impl)


def _make_bundle(
    files: dict[str, bytes],
    tags: dict[str, list[str]],
    notes: list[str] | None = None,
    payload: agent_plugins.PluginPayload | None = None,
) -> Bundle:
    return Bundle(
        files=files,
        digest=_digest(files),
        with_deps=any(name.startswith(f"{DEPS_DIR}/") for name in files),
        binary_tags=tags,
        notes=list(notes or []),
        plugins=list(payload.plugins) if payload else [],
        engines=list(payload.engines) if payload else [],
    )


def build_bundle(with_deps: bool) -> Bundle:
    """The agent (and the engine plugins installed here) alone, or with this desktop's copies
    of the agent's dependencies and pyodbc."""
    files = _agent_files()
    tags: dict[str, list[str]] = {}
    if with_deps:
        names = _core_names()
        if agent_plugins.distribution(ODBC_DISTRIBUTION) is not None:
            names = (*names, ODBC_DISTRIBUTION)
        dep_files, dep_tags = _copied(names)
        files.update(dep_files)
        tags.update(dep_tags)
    payload = agent_plugins.plugin_payload(DEPS_DIR)
    files.update(payload.files)
    tags.update(payload.binary_tags)
    return _make_bundle(files, tags, payload=payload)


def _digest(files: dict[str, bytes]) -> str:
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + hashlib.sha256(files[name]).digest())
    return digest.hexdigest()


@functools.cache
def _wheel_files(
    wheels: Path, host: PythonInfo, needed: tuple[str, ...], optional: tuple[str, ...]
) -> dict[str, bytes]:
    return agent_wheels.wheel_deps(wheels, host, DEPS_DIR, needed, optional)


def bundle_for(host: PythonInfo, wheels: Path | None, host_name: str = "the driver host") -> Bundle:
    """What ``host`` needs: the agent; psycopg and hdrhistogram unless it has them; pyodbc
    unless it has its own (left out with a note when no copy fits it: only the ODBC engines
    need it); every engine plugin installed here with its requirements. From the wheels in
    ``wheels`` when given (the desktop bundle's way: it has no site-packages to copy), else
    from this desktop's site-packages, which only fit a host with the same Python."""
    files = _agent_files()
    tags: dict[str, list[str]] = {}
    notes: list[str] = []
    local = local_python()
    want_core, want_odbc = not host.has_deps, not host.has_pyodbc
    if wheels is not None and (want_core or want_odbc):
        needed = agent_wheels.NEEDED if want_core else ()
        optional = agent_wheels.OPTIONAL if want_odbc else ()
        files.update(_wheel_files(wheels, host, needed, optional))
    elif wheels is None:
        if want_core:
            core_files, core_tags = _copied(_core_names())
            problem = binary_problem(host, local, core_tags)
            if problem:
                raise DeployError(
                    f"the driver host {host_name} runs Python {host.describe()}, without the"
                    f" agent's packages ({host.deps_error}); the copies on this desktop need"
                    f" {problem}. Install them on the driver host ({host.executable or 'python3'}"
                    " -m pip install 'psycopg[binary]' hdrhistogram), or point the target's"
                    f" python at an interpreter that matches this desktop ({local.describe()})"
                )
            files.update(core_files)
            tags.update(core_tags)
        if want_odbc and agent_plugins.distribution(ODBC_DISTRIBUTION) is not None:
            odbc_files, odbc_tags = _copied((ODBC_DISTRIBUTION,))
            if binary_problem(host, local, odbc_tags) is None:
                files.update(odbc_files)
                tags.update(odbc_tags)
    if want_odbc and not any(n.startswith(f"{DEPS_DIR}/pyodbc") for n in files):
        notes.append(
            f"pyodbc was not shipped to {host_name}: no copy of it here fits its Python"
            f" ({host.describe()}); the MariaDB, MySQL and SQL Server engines need it there"
            f" ({host.executable or 'python3'} -m pip install pyodbc, with unixODBC)"
        )
    payload = agent_plugins.plugin_payload(DEPS_DIR)
    problem = binary_problem(host, local, payload.binary_tags)
    if problem:
        raise DeployError(
            f"an engine plugin cannot be shipped to {host_name}, which runs Python"
            f" {host.describe()}: this desktop's copy needs {problem}. Point the target's"
            f" python at an interpreter that matches this desktop ({local.describe()}), or"
            " uninstall that plugin here"
        )
    files.update(payload.files)
    tags.update(payload.binary_tags)
    return _make_bundle(files, tags, notes, payload)


def _glibc_needed(tags: list[str]) -> tuple[int, int] | None:
    """The oldest glibc any of a wheel's tags accepts (None: not a manylinux wheel)."""
    best: tuple[int, int] | None = None
    for tag in tags:
        platform_tag = tag.split("-")[-1]
        m = re.match(r"manylinux_(\d+)_(\d+)_", platform_tag)
        if m:
            need = (int(m.group(1)), int(m.group(2)))
        elif platform_tag.startswith("manylinux2014_"):
            need = (2, 17)
        elif platform_tag.startswith("manylinux2010_"):
            need = (2, 12)
        elif platform_tag.startswith("manylinux1_"):
            need = (2, 5)
        else:
            continue
        best = need if best is None or need < best else best
    return best


def copy_problem(remote: PythonInfo, local: PythonInfo, bundle: Bundle) -> str | None:
    """Why this desktop's dependencies cannot run on the host (None: they can)."""
    return binary_problem(remote, local, bundle.binary_tags)


def binary_problem(
    remote: PythonInfo, local: PythonInfo, binary_tags: dict[str, list[str]]
) -> str | None:
    """Why this desktop's copies of binary distributions (name -> wheel tags) cannot run on
    the host (None: they can, or there are none)."""
    if not binary_tags:
        return None
    if remote.impl != local.impl or remote.cache_tag != local.cache_tag:
        return f"a {local.impl} {'.'.join(map(str, local.version[:2]))} like this desktop's"
    if remote.platform != local.platform:
        return f"the platform of this desktop ({local.platform})"
    for dist, tags in binary_tags.items():
        need = _glibc_needed(tags)
        if need is None:
            # Built on this machine, not a manylinux wheel: only the same C library will do.
            if remote.libc != local.libc:
                return f"the C library of this desktop ({' '.join(local.libc)}) for {dist}"
            continue
        if remote.libc[0] != "glibc":
            return f"glibc {need[0]}.{need[1]} or newer for {dist}"
        try:
            have = tuple(int(x) for x in remote.libc[1].split(".")[:2])
        except ValueError:
            have = (0, 0)
        if have < need:
            return f"glibc {need[0]}.{need[1]} or newer for {dist}"
    return None


@dataclass(frozen=True)
class Deployment:
    """Where the agent is on a host and how to start it."""

    agent_dir: str
    pythonpath: str
    python: str
    python_info: PythonInfo
    uploaded_bytes: int  # 0 when the cached copy was reused
    with_deps: bool
    notes: tuple[str, ...] = ()  # e.g. pyodbc left out: no copy fits the host's Python
    plugins: tuple[str, ...] = ()  # third-party engine distributions shipped with the agent

    def command(self, *args: str) -> list[str]:
        """argv that runs the agent (``env PYTHONPATH=... python -m bench_gui.agent ...``)."""
        return ["env", f"PYTHONPATH={self.pythonpath}", self.python, "-m", "bench_gui.agent", *args]


def _exists(session: SSHConnection, path: str) -> bool:
    try:
        session.sftp().stat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        if exc.errno == 2:
            return False
        raise SSHError(f"cannot look at {path} on {session.label}: {exc}") from None
    return True


def deploy(session: SSHConnection, python: str, remote_root: str) -> Deployment:
    """Make the agent runnable on the host (uploading it only if needed) and say how."""
    info = probe_python(session, python)
    check_python_version(info, session.host)
    bundle = bundle_for(info, agent_wheels.wheel_dir(), session.host)
    root = session.abspath(remote_root)
    agent_dir = f"{root}/agent-{AGENT_VERSION}-{bundle.digest[:12]}"
    pythonpath = agent_dir + (f":{agent_dir}/{DEPS_DIR}" if bundle.with_deps else "")
    uploaded = 0
    if not _exists(session, f"{agent_dir}/{MARKER}"):
        session.run(["mkdir", "-p", "-m", "700", root], check=True)
        data = bundle.archive()
        archive = f"{root}/.upload-{uuid.uuid4().hex[:8]}.tar.gz"
        session.put_bytes(data, archive, 0o600)
        uploaded = len(data)
        result = session.run(
            [python, "-c", UNPACK_SCRIPT, archive, agent_dir, bundle.digest], timeout=120
        )
        if not result.ok:
            raise DeployError(
                f"unpacking the agent into {agent_dir} on {session.host} failed:"
                f" {result.first_error_line()}"
            )
    deployment = Deployment(
        agent_dir=agent_dir,
        pythonpath=pythonpath,
        python=python,
        python_info=info,
        uploaded_bytes=uploaded,
        with_deps=bundle.with_deps,
        notes=tuple(bundle.notes),
        plugins=tuple(bundle.plugins),
    )
    if uploaded:
        _check_started(session, deployment, bundle.engines)
    return deployment


# argv: the engine plugins' agent engines as JSON. Prints the problems as JSON (one line).
CHECK_SCRIPT: Final = r"""
import json, sys
import bench_gui.agent.__main__, psycopg, hdrh.histogram
from importlib.metadata import entry_points
psycopg.pq.version()
found = dict((ep.name, ep) for ep in entry_points(group="bench_gui.agent_engines"))
problems = []
for name in json.loads(sys.argv[1]):
    if name not in found:
        problems.append("%s: no bench_gui.agent_engines entry point found" % name)
        continue
    try:
        found[name].load()
    except Exception as exc:
        problems.append("%s (%s): %s: %s" % (name, found[name].value, type(exc).__name__, exc))
print(json.dumps(problems))
"""


def _check_started(session: SSHConnection, deployment: Deployment, engines: list[str]) -> None:
    """The agent, its packages and every shipped plugin engine import on the host."""
    check = session.run(
        [
            "env",
            f"PYTHONPATH={deployment.pythonpath}",
            deployment.python,
            "-c",
            CHECK_SCRIPT,
            json.dumps(engines),
        ],
        timeout=60,
    )
    if not check.ok:
        raise DeployError(
            f"the agent was copied to {session.host} but does not start there with"
            f" {deployment.python} ({deployment.python_info.describe()}):"
            f" {check.stderr.strip().splitlines()[-1:]}"
        )
    try:
        problems = json.loads(check.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        problems = [f"no answer from the check ({check.stdout.strip()[-200:]!r})"]
    if problems:
        raise DeployError(
            f"the engine plugins were copied to {session.host} but do not load there with"
            f" {deployment.python}: {'; '.join(map(str, problems))}"
        )
