"""What every test gets: an isolated data directory and keyring, a real PostgreSQL, no leaks.

The shared fixtures live in ``tests/_fixtures/`` and load here as plugins, so every folder can
ask for them by name: ``pg_server`` and ``tpcc_db`` (the embedded PostgreSQL and TPROC-C
databases cloned from one build), ``sshd`` and ``sshd2`` (real OpenSSH instances on loopback,
as two machines), ``loops`` and ``loop_disk`` (loop devices), ``isolated`` (own HOME and data
directory), ``mariadb_server`` (a private MariaDB on a loopback port, reached through ODBC).
The rules below apply to every test: no test reaches the OS keyring, and none leaves a thread
running. Each run writes under a private temporary folder (its basetemp, TMPDIR,
XDG_RUNTIME_DIR), removed at its end, and each test's agents over SSH keep their state in a
folder of that test.
"""

from __future__ import annotations

import atexit
import gc
import os
import shutil
import tempfile
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

# The helpers' asserts explain themselves as the tests' do (before anything imports them).
pytest.register_assert_rewrite("tests._fixtures")

from tests._fixtures.isolation import MemoryKeyring, use_keyring  # noqa: E402

pytest_plugins = [
    "tests._fixtures.isolation",
    "tests._fixtures.loop",
    "tests._fixtures.mariadb",
    "tests._fixtures.pg",
    "tests._fixtures.pg_tcp",
    "tests._fixtures.pg_hang",
    "tests._fixtures.ssh",
]

# Qt must be offscreen before anything imports it; GUI tests depend on it.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# What programs the tests start (the CLI, the agent) use instead of the OS keyring.
FAIL_KEYRING = "keyring.backends.fail.Keyring"
# Where agents started over SSH keep their copies and runs (see bench_gui.remote.ssh_transport).
REMOTE_ROOT_ENV = "BENCH_GUI_REMOTE_ROOT"
_PRIVATE_BASE = "_bench_gui_private_base"
_BASE_PREFIX = "bench-gui-tests-"
_BASE_OWNER = "pid"
# The run's private folder, which pytest-xdist workers put theirs under.
TEST_BASE_ENV = "BENCH_GUI_TEST_BASE"


def _drop_stale_bases() -> None:
    """Remove the folders of runs that were killed before their end (their pid is gone),
    stopping the PostgreSQL servers and sshd they left running there first."""
    import psutil

    for base in Path(tempfile.gettempdir()).glob(_BASE_PREFIX + "*"):
        try:
            pid = int((base / _BASE_OWNER).read_text())
        except (OSError, ValueError):
            continue  # a run that is just starting, or not one of ours
        if psutil.pid_exists(pid):
            continue
        for proc in psutil.process_iter(["name", "cmdline"]):
            cmdline = proc.info["cmdline"] or []
            if proc.info["name"] in ("postgres", "sshd", "mariadbd") and any(
                arg.startswith(f"{base}/") for arg in cmdline
            ):
                try:
                    proc.kill()
                except psutil.Error:
                    pass
        shutil.rmtree(base, ignore_errors=True)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Everything this run writes goes under one folder of its own, removed at the end.

    Two runs on one machine must not meet: the embedded PostgreSQL library stops any server
    whose command line holds the same data path, and pytest's shared basetemp folders are
    numbered and pruned by whichever run comes next. So, unless ``--basetemp`` was given, the
    basetemp is a fresh ``mkdtemp`` folder; TMPDIR and XDG_RUNTIME_DIR (where the library and
    Qt put their sockets and locks) point there too. The folder is open for traversal: the
    embedded server runs as its own OS user.
    """
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: a folder of its own
        _isolate_worker(config)
        return
    _drop_stale_bases()
    base = Path(tempfile.mkdtemp(prefix=_BASE_PREFIX))
    (base / _BASE_OWNER).write_text(f"{os.getpid()}\n")
    base.chmod(0o755)
    setattr(config, _PRIVATE_BASE, base)
    os.environ[TEST_BASE_ENV] = str(base)  # the workers' folders go under it
    # Once more at exit, after the handlers registered later have run: the embedded
    # PostgreSQL's own atexit cleanup takes its lock file in XDG_RUNTIME_DIR, recreating it.
    atexit.register(shutil.rmtree, base, ignore_errors=True)
    if config.option.basetemp is None:
        config.option.basetemp = str(base / "pytest")
    scratch = base / "tmp"
    scratch.mkdir()
    scratch.chmod(0o1777)  # as /tmp: every user may write, nobody removes another's files
    os.environ["TMPDIR"] = str(scratch)
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again
    locks = base / "locks"  # the agents' run locks: never in the host's /run/lock
    locks.mkdir()
    locks.chmod(0o1777)
    os.environ["BENCH_GUI_LOCK_DIR"] = str(locks)
    if not os.environ.get("XDG_RUNTIME_DIR"):
        runtime = base / "runtime"
        runtime.mkdir(mode=0o700)
        os.environ["XDG_RUNTIME_DIR"] = str(runtime)


def _isolate_worker(config: pytest.Config) -> None:
    """A pytest-xdist worker's TMPDIR, run locks, XDG_RUNTIME_DIR and XDG config and data
    folders are its own (under the controller's base): two workers never share a lock, a
    socket or a settings file. Ports come free from the OS (bound to 0), so they never meet."""
    worker = str(config.workerinput["workerid"])
    base = Path(os.environ.get(TEST_BASE_ENV) or tempfile.mkdtemp(prefix=_BASE_PREFIX))
    own = base / "workers" / worker
    own.mkdir(parents=True, exist_ok=True)
    own.chmod(0o755)
    for name, mode in (("tmp", 0o1777), ("locks", 0o1777), ("runtime", 0o700)):
        (own / name).mkdir(exist_ok=True)
        (own / name).chmod(mode)
    os.environ["TMPDIR"] = str(own / "tmp")
    tempfile.tempdir = None
    os.environ["BENCH_GUI_LOCK_DIR"] = str(own / "locks")
    os.environ["XDG_RUNTIME_DIR"] = str(own / "runtime")
    os.environ["XDG_CONFIG_HOME"] = str(own / "config")
    os.environ["XDG_DATA_HOME"] = str(own / "data")


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """Whole files per worker, longest first, knob files one at a time, measuring files
    last and alone (tests/_fixtures/schedule.py)."""
    from tests._fixtures.schedule import make_scheduler

    return make_scheduler(config, log)


def pytest_unconfigure(config: pytest.Config) -> None:
    base = getattr(config, _PRIVATE_BASE, None)
    if base is not None:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def _session_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Keep every test away from the user's real sessions and settings."""
    folder = tmp_path_factory.mktemp("bench-gui-data")
    old = os.environ.get("BENCH_GUI_DATA_DIR")
    os.environ["BENCH_GUI_DATA_DIR"] = str(folder)
    yield folder
    if old is None:
        os.environ.pop("BENCH_GUI_DATA_DIR", None)
    else:
        os.environ["BENCH_GUI_DATA_DIR"] = old


@pytest.fixture(scope="session", autouse=True)
def _demo_stopped(_session_data_dir: Path) -> Iterator[None]:
    """A test that ran on the embedded demo target leaves its server running for the next
    one; it is stopped once all tests are done, as the app does when it quits (the package's
    own exit hook would run after the tests' folders are gone, and fail)."""
    yield
    from bench_gui.remote.demo import DemoUnavailable, stop_demo

    try:
        stop_demo()
    except DemoUnavailable as exc:
        warnings.warn(f"the demo server did not stop: {exc}", stacklevel=1)


@pytest.fixture(scope="session", autouse=True)
def _session_remote_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Agents started over SSH before a test's own folder exists (in fixtures of a wider
    scope) keep their state here, never in the SSH user's real ``~/.cache/bench-gui``."""
    folder = tmp_path_factory.getbasetemp() / "driver-host"
    old = os.environ.get(REMOTE_ROOT_ENV)
    os.environ[REMOTE_ROOT_ENV] = str(folder)
    yield folder
    if old is None:
        os.environ.pop(REMOTE_ROOT_ENV, None)
    else:
        os.environ[REMOTE_ROOT_ENV] = old


@pytest.fixture(autouse=True)
def _test_remote_root(
    _session_remote_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Every test's agents over SSH (the loopback sshd logs in as root) keep their copies and
    run folders in a folder of that test: no test sees another's runs, none is left behind."""
    folder = tmp_path / "driver-host"
    monkeypatch.setenv(REMOTE_ROOT_ENV, str(folder))
    return folder


@pytest.fixture(scope="session", autouse=True)
def _session_keyring() -> Iterator[MemoryKeyring]:
    """No fixture of any scope reaches the OS keyring: in this process the keyring is an
    in-memory one, and subprocesses get keyring's fail backend (what a machine without a
    keyring service has)."""
    old = os.environ.get("PYTHON_KEYRING_BACKEND")
    os.environ["PYTHON_KEYRING_BACKEND"] = FAIL_KEYRING
    with use_keyring(MemoryKeyring()) as ring:
        yield ring
    if old is None:
        os.environ.pop("PYTHON_KEYRING_BACKEND", None)
    else:
        os.environ["PYTHON_KEYRING_BACKEND"] = old


@pytest.fixture(autouse=True)
def isolated_keyring(_session_keyring: MemoryKeyring) -> Iterator[MemoryKeyring]:
    """Every test starts with an empty in-memory keyring of its own."""
    with use_keyring(MemoryKeyring()) as ring:
        yield ring


@pytest.fixture(autouse=True)
def _garbage_collected_in_teardown() -> Iterator[None]:
    """Collect a test's garbage in its own teardown, in the main thread, once its widgets are
    closed: Qt wrappers collected later, at whatever moment the collector ran, crashed a
    worker between tests with no test to name (seen in 2 of 6 runs). Set up first, so it is
    torn down last."""
    yield
    gc.collect()


@pytest.fixture(autouse=True)
def _no_thread_left_behind() -> Iterator[None]:
    """Fail a test that leaves a thread running (a worker that was never joined)."""
    before = set(threading.enumerate())
    yield
    leftover = []
    for thread in threading.enumerate():
        if thread in before or not thread.is_alive() or thread.daemon:
            continue
        thread.join(timeout=5)
        if thread.is_alive():
            leftover.append(thread.name)
    assert not leftover, f"threads left running: {leftover}"
