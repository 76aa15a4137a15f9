"""Engines shipped with the agent: a real third-party plugin distribution (built by pip from
``tests/_fixtures/thirdparty``, installed into the test's own folder on ``sys.path``) found
through its ``bench_gui.agent_engines`` entry point here and, once deployed over the loopback
sshd, on the driver host; pyodbc shipped to a host whose Python lacks it; a host without
unixODBC told what to install.

The "driver host" is this machine through the real sshd: its ``/usr/bin/python3`` has neither
psycopg nor pyodbc, the venv's Python has both.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench_gui.agent.engines import known_engines, open_engine
from bench_gui.remote.deploy import Deployment, bundle_for, local_python
from bench_gui.remote.errors import DeployError
from bench_gui.remote.ssh_transport import SSHTransport
from bench_gui.wire.engine_errors import EngineError
from tests._fixtures import plugin_dist

HOST_PYTHON = "/usr/bin/python3"


@pytest.fixture(scope="session")
def acme_wheels(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return plugin_dist.build_wheels(tmp_path_factory.mktemp("acme-build"))


@pytest.fixture
def acme_site(
    acme_wheels: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """The plugin installed for this test only: its folder first on ``sys.path``."""
    site = plugin_dist.install(acme_wheels, tmp_path / "site")
    monkeypatch.syspath_prepend(str(site))
    yield site
    for name in [n for n in sys.modules if n.split(".")[0] in ("acme_engine", "acme_helpers")]:
        del sys.modules[name]


@pytest.fixture
def ssh_session(sshd: Any) -> Iterator[Any]:
    """A connection to the driver host, to run Python there as the agent would."""
    from bench_gui.remote.connection import connect

    sshd.trust()
    session = connect(sshd.target())
    try:
        yield session
    finally:
        session.close()


def deploy_to(sshd: Any, python: str, root: Path) -> Deployment:
    sshd.trust()
    transport = SSHTransport(sshd.target(python=python), remote_root=str(root))
    try:
        return transport.deploy()
    finally:
        transport.close()


def run_on_host(session: Any, deployment: Deployment, script: str, *args: str) -> Any:
    """Run ``script`` with the deployment's Python and PYTHONPATH on the host; its last
    stdout line as JSON."""
    result = session.run(
        [
            "env",
            f"PYTHONPATH={deployment.pythonpath}",
            deployment.python,
            "-c",
            textwrap.dedent(script),
            *args,
        ],
        timeout=120,
    )
    assert result.exit_status == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


OPEN_ACME = """
    import json, sys, pyodbc
    from importlib.metadata import entry_points
    from bench_gui.agent.engines import open_engine
    conninfo = sys.argv[1]
    engine = open_engine("acme", conninfo, conninfo, "postgres")
    eps = [ep.value for ep in entry_points(group="bench_gui.agent_engines")]
    print(json.dumps({
        "class": type(engine).__module__ + "." + type(engine).__qualname__,
        "file": sys.modules[type(engine).__module__].__file__,
        "label": engine.label,
        "exists": engine.database_exists("postgres"),
        "missing": engine.database_exists("no_such_database"),
        "entry_points": eps,
        "pyodbc": pyodbc.__file__,
        "drivers": pyodbc.drivers(),
    }))
"""


def test_open_engine_finds_a_plugin_through_its_entry_point(
    acme_site: Path, pg_server: Any
) -> None:
    assert plugin_dist.ENGINE in known_engines()
    engine = open_engine("acme", pg_server.uri(), pg_server.uri(), "postgres")
    assert type(engine).__name__ == "AcmeAgentEngine"
    assert engine.label == "acme (by acme-helpers)"  # type: ignore[attr-defined]
    assert engine.database_exists("postgres")
    # The agent's own engines come first: a plugin cannot take their names.
    assert type(open_engine("postgresql", "host=/x", "host=/x", "x")).__name__ == "PgEngine"


def test_an_engine_no_one_provides_names_the_plugins_too(acme_site: Path) -> None:
    with pytest.raises(EngineError) as caught:
        open_engine("db2", "", "", "tpcc")
    message = str(caught.value)
    assert "does not know engine 'db2' (it knows acme, mariadb, mssql, mysql, postgresql)" in (
        message
    )
    assert "'bench_gui.agent_engines' entry point" in message


def test_the_bundle_carries_the_plugin_and_its_requirement_and_its_hash_follows_them(
    acme_site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    host = local_python()  # has psycopg, hdrhistogram and pyodbc: only the plugin goes
    bundle = bundle_for(host, None)
    names = set(bundle.files)
    assert bundle.plugins == [plugin_dist.PLUGIN]
    assert bundle.engines == [plugin_dist.ENGINE]
    assert bundle.with_deps
    assert {
        "deps/acme_engine/agent/engine.py",
        "deps/acme_engine/connection.py",
        "deps/acme_engine/kit.py",
        "deps/acme_helpers.py",
        "deps/bench_gui_acme_engine-1.0.dist-info/entry_points.txt",
        "deps/bench_gui_acme_engine-1.0.dist-info/METADATA",
        "deps/acme_helpers-1.0.dist-info/METADATA",
    } <= names
    # Its other requirements come with the agent (or are the host's): never copied again.
    assert not [
        n for n in names if n.startswith(("deps/psycopg", "deps/pyodbc", "deps/bench_gui/"))
    ]
    assert not [n for n in names if n.endswith(("/RECORD", "/direct_url.json", ".pyc"))]
    first = bundle.digest

    # The same plugin, one line changed: another bundle, so another folder on the host.
    agent_py = acme_site / "acme_engine" / "agent" / "engine.py"
    agent_py.write_text(agent_py.read_text() + "# 1.0.1: a comment changed\n")
    changed = bundle_for(host, None)
    assert changed.digest != first
    assert changed.files["deps/acme_engine/agent/engine.py"].endswith(b"a comment changed\n")

    # Without the plugin: the agent alone, as before plugins existed.
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(acme_site)])
    alone = bundle_for(host, None)
    assert alone.plugins == []
    assert not alone.with_deps
    assert alone.digest not in {first, changed.digest}


def test_a_requirement_that_cannot_be_shipped_is_named(acme_site: Path) -> None:
    metadata = plugin_dist.dist_info(acme_site) / "METADATA"
    original = metadata.read_text()
    metadata.write_text(original + "Requires-Dist: acme-absent>=2\n")
    with pytest.raises(DeployError) as caught:
        bundle_for(local_python(), None)
    message = str(caught.value)
    assert "the engine plugin bench-gui-acme-engine needs acme-absent" in message
    assert "not installed on this desktop" in message
    assert "pip install acme-absent" in message

    # One under a marker this desktop did not meet, or for an extra: not needed here.
    metadata.write_text(
        original
        + 'Requires-Dist: acme-absent>=2; python_version < "3"\n'
        + 'Requires-Dist: acme-extra; extra == "fast"\n'
    )
    assert bundle_for(local_python(), None).plugins == [plugin_dist.PLUGIN]


def test_a_plugin_module_that_does_not_load_on_the_host_stops_the_deployment(
    acme_site: Path, sshd: Any, tmp_path: Path
) -> None:
    (acme_site / "acme_engine" / "agent" / "engine.py").write_text("import acme_not_shipped\n")
    with pytest.raises(DeployError) as caught:
        deploy_to(sshd, sys.executable, tmp_path / "host")
    message = str(caught.value)
    assert "engine plugins were copied to 127.0.0.1 but do not load there" in message
    assert "acme (acme_engine.agent.engine:AcmeAgentEngine): ModuleNotFoundError" in message
    assert "acme_not_shipped" in message


@pytest.mark.integration
def test_a_bare_host_gets_the_agent_pyodbc_and_the_plugin(
    acme_site: Path, sshd: Any, ssh_session: Any, pg_server: Any, tmp_path: Path
) -> None:
    """Debian's python3 has no psycopg and no pyodbc: everything comes from this desktop, and
    the plugin's engine opens and queries a real PostgreSQL on the host."""
    deployment = deploy_to(sshd, HOST_PYTHON, tmp_path / "host")
    assert not deployment.python_info.has_deps
    assert not deployment.python_info.has_pyodbc
    assert deployment.plugins == (plugin_dist.PLUGIN,)
    assert deployment.notes == ()
    deps = Path(deployment.agent_dir, "deps")
    assert any(deps.glob("pyodbc*.so"))
    assert any(deps.glob("pyodbc-*.dist-info"))
    assert (deps / "acme_engine" / "agent" / "engine.py").is_file()
    assert (deps / "acme_helpers.py").is_file()

    seen = run_on_host(ssh_session, deployment, OPEN_ACME, pg_server.uri())
    assert seen["class"] == "acme_engine.agent.engine.AcmeAgentEngine"
    assert seen["file"] == str(deps / "acme_engine" / "agent" / "engine.py")
    assert seen["label"] == "acme (by acme-helpers)"
    assert seen["exists"] is True
    assert seen["missing"] is False
    assert seen["entry_points"] == ["acme_engine.agent.engine:AcmeAgentEngine"]
    # The shipped pyodbc, and through it this host's unixODBC and its MariaDB driver.
    assert seen["pyodbc"].startswith(str(deps) + "/")
    assert any("mariadb" in d.lower() for d in seen["drivers"])


@pytest.mark.integration
def test_a_host_with_its_own_packages_keeps_them_and_gets_the_plugin(
    acme_site: Path, sshd: Any, ssh_session: Any, pg_server: Any, tmp_path: Path
) -> None:
    deployment = deploy_to(sshd, sys.executable, tmp_path / "host")
    assert deployment.python_info.has_deps
    assert deployment.python_info.has_pyodbc
    deps = Path(deployment.agent_dir, "deps")
    shipped = sorted(p.name for p in deps.iterdir() if p.name != "__pycache__")
    assert shipped == [
        "acme_engine",
        "acme_helpers-1.0.dist-info",
        "acme_helpers.py",
        "bench_gui_acme_engine-1.0.dist-info",
    ]
    seen = run_on_host(ssh_session, deployment, OPEN_ACME, pg_server.uri())
    assert seen["class"] == "acme_engine.agent.engine.AcmeAgentEngine"
    assert seen["exists"] is True
    assert not seen["pyodbc"].startswith(deployment.agent_dir)  # the host's own


MISSING_PYODBC = """
    import json
    from bench_gui.agent.engines import open_engine
    from bench_gui.wire.engine_errors import EngineError
    from bench_gui.engines.mssql.shared.connect import installed_driver
    messages = {}
    try:
        open_engine("mysql", "SERVER=127.0.0.1;UID=u", "SERVER=127.0.0.1;UID=u", "tpcc")
    except EngineError as exc:
        messages["mysql"] = str(exc)
    try:
        installed_driver()
    except EngineError as exc:
        messages["mssql"] = str(exc)
    print(json.dumps(messages))
"""


@pytest.mark.integration
def test_a_host_without_pyodbc_is_told_to_install_it(
    sshd: Any, ssh_session: Any, tmp_path: Path
) -> None:
    """Debian's python3 with psycopg and hdrhistogram but no pyodbc (as when no copy of
    pyodbc fits the host's Python): the shipped packages but pyodbc, linked into a folder."""
    deployment = deploy_to(sshd, HOST_PYTHON, tmp_path / "host")
    own = tmp_path / "host-packages"
    own.mkdir()
    for path in Path(deployment.agent_dir, "deps").iterdir():
        if not path.name.startswith("pyodbc"):
            (own / path.name).symlink_to(path)
    bare = Deployment(
        agent_dir=deployment.agent_dir,
        pythonpath=f"{deployment.agent_dir}:{own}",
        python=HOST_PYTHON,
        python_info=deployment.python_info,
        uploaded_bytes=0,
        with_deps=False,
    )
    messages = run_on_host(ssh_session, bare, MISSING_PYODBC)
    mysql = messages["mysql"]
    assert mysql.startswith("pyodbc is not installed on ")
    assert f"for {HOST_PYTHON} (the MySQL engine needs it)" in mysql
    assert f"{HOST_PYTHON} -m pip install pyodbc" in mysql
    assert "apt-get install unixodbc odbc-mariadb" in mysql
    assert "the SQL Server engine needs it" in messages["mssql"]


def _libodbc() -> Path | None:
    out = subprocess.run(
        ["ldconfig", "-p"], capture_output=True, text=True, check=False
    ).stdout.splitlines()
    for line in out:
        if line.strip().startswith("libodbc.so.2 ") and "x86-64" in line:
            return Path(line.rsplit("=>", 1)[1].strip()).resolve()
    return None


@pytest.fixture
def python_without_unixodbc(tmp_path: Path) -> str:
    """``/usr/bin/python3`` in a mount namespace of its own where unixODBC's library is an
    empty file: a driver host whose unixODBC is missing, for that interpreter only."""
    lib = _libodbc()
    unshare = shutil.which("unshare")
    if lib is None or unshare is None:
        pytest.skip("needs unixODBC's libodbc.so.2 and unshare(1) on this machine")
    wrapper = tmp_path / "python-without-unixodbc"
    wrapper.write_text(
        "#!/bin/sh\n"
        f"exec {unshare} -m sh -c 'mount --bind /dev/null {lib} && exec {HOST_PYTHON}"
        ' "$@"\' python3 "$@"\n'
    )
    wrapper.chmod(0o755)
    probe = subprocess.run(
        [str(wrapper), "-c", "import ctypes; ctypes.CDLL('libodbc.so.2')"],
        capture_output=True,
        text=True,
        check=False,
    )
    if "mount" in probe.stderr or "unshare" in probe.stderr:
        pytest.skip(f"cannot hide libodbc here: {probe.stderr.strip()}")
    assert probe.returncode != 0, "libodbc.so.2 still loads inside the namespace"
    return str(wrapper)


@pytest.mark.integration
def test_a_host_without_unixodbc_is_told_what_to_install(
    sshd: Any, ssh_session: Any, python_without_unixodbc: str, tmp_path: Path
) -> None:
    """pyodbc is shipped, yet cannot load: one line naming the host, the engine and the system
    packages, not a traceback; PostgreSQL runs are not affected (the deployment succeeds)."""
    deployment = deploy_to(sshd, python_without_unixodbc, tmp_path / "host")
    assert any(Path(deployment.agent_dir, "deps").glob("pyodbc*.so"))
    messages = run_on_host(ssh_session, deployment, MISSING_PYODBC)
    mysql, mssql = messages["mysql"], messages["mssql"]
    assert mysql.startswith("pyodbc needs unixODBC on ")
    assert "libodbc.so.2" in mysql
    assert "the MySQL engine needs unixODBC and its ODBC driver" in mysql
    assert "apt-get install unixodbc odbc-mariadb (Debian, Ubuntu)" in mysql
    assert "dnf install unixODBC mariadb-connector-odbc" in mysql
    assert "\n" not in mysql
    assert "the SQL Server engine needs unixODBC" in mssql
    assert "msodbcsql18" in mssql


def test_the_third_party_engine_is_a_kit_of_the_built_in_shape(acme_site: Path) -> None:
    """The vendor's package is laid out as a built-in kit (agent/, connection.py, kit.py), each
    part registered by its entry point, and its kit gives every face the desktop asks for."""
    from importlib.metadata import entry_points

    from bench_gui.engines.base import FACES

    def entry(group: str) -> Any:
        return next(ep for ep in entry_points(group=group) if ep.name == plugin_dist.ENGINE)

    assert entry("bench_gui.agent_engines").value.startswith("acme_engine.agent.")
    assert entry("bench_gui.engines").value.startswith("acme_engine.connection:")
    kit = entry("bench_gui.engine_kits").load()
    assert kit.name == plugin_dist.ENGINE
    assert plugin_dist.ENGINE in kit.kinds
    for face in FACES:
        assert kit.face(face) is not None, face
    connection = entry("bench_gui.engines").load()()
    assert connection.name == plugin_dist.ENGINE
