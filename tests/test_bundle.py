"""The desktop bundle, as a user meets it: the tarball that ``scripts/bundle.sh`` builds is
unpacked into an empty HOME and installed with its own script; the installed app opens its
window, runs the demo sweep on its embedded PostgreSQL (headless, and on the Present view with
its charts), writes a report from its templates; the desktop entry validates; the agent's wheels
it carries deploy to a driver host; and uninstall removes exactly what install put there.

The bundle is built once per test session (a few minutes). The programs run with a bare
environment (no venv, no PYTHONPATH), as from a desktop menu, and a PATH without GTK's
gtk-update-icon-cache (as on a bare desktop: xdg-icon-resource then links ~/.icons). As root,
the demo runs where the system's copies of libraries the bundle carries cannot be loaded, and
install.sh is tried where the system lacks EGL and fonts (private mount namespaces).
"""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import tarfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests._fixtures.isolation import MemoryKeyring
from tests._fixtures.wait import wait_until

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
BUILD_TIMEOUT_S = 1800
RUN_TIMEOUT_S = 900
WINDOW_WAIT_S = 240
UP = "bench-gui is up"
SHOWN = re.compile(r"startup: window shown t=\S+ heavy=(\S+) pages=(\S+)")
# Passed on from the test run: its private temporary, runtime and lock folders and the keyring
# that never reaches the OS's (see tests/conftest.py).
PASSED_ON = ("TMPDIR", "XDG_RUNTIME_DIR", "BENCH_GUI_LOCK_DIR", "PYTHON_KEYRING_BACKEND")
# Left out of the programs' PATH: its absence is what a desktop without GTK looks like.
NOT_ON_PATH = {"gtk-update-icon-cache"}
LIB_DIRS = ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64")
# What a bare Debian lacked while the bundle carries it (issue 33: its agent could not start).
BUNDLED_NOT_ON_BARE = ("libexpat.so.1", "libssl.so.3")
# Never in the bundle: GTK and what it brings (the build host's, through a dropped Qt plugin).
NOT_BUNDLED = re.compile(r"lib(gtk|gdk|cairo|pango|atk|gdk_pixbuf|epoxy)[-_.]")


def system_copies(name: str) -> list[str]:
    """The system's files of the library ``name`` (their real paths, once each)."""
    found = {os.path.realpath(Path(d, name)) for d in LIB_DIRS if Path(d, name).exists()}
    return sorted(found)


def namespaced(argv: list[str], hide: Sequence[str], empty_dirs: Sequence[str] = ()) -> list[str]:
    """``argv`` run in a private mount namespace where each file of ``hide`` reads as empty
    (the dynamic loader cannot load it) and each folder of ``empty_dirs`` is empty."""
    mounts = [f"mount --bind /dev/null {shlex.quote(f)}" for f in hide]
    mounts += [f"mount -t tmpfs none {shlex.quote(d)}" for d in empty_dirs if Path(d).is_dir()]
    script = " && ".join([*mounts, 'exec "$@"'])
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", *argv]


@functools.cache
def can_namespace() -> bool:
    """Whether a private mount namespace with a bind mount can be made here (root, and a
    container that allows it)."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        namespaced(["true"], ["/dev/null"]), capture_output=True, timeout=60, check=False
    )
    return probe.returncode == 0


@pytest.fixture(scope="session")
def bundle_tarball() -> Path:
    """dist/bench-gui-VERSION-linux-x86_64.tar.gz, built by scripts/bundle.sh (once)."""
    for tool in ("objdump", "desktop-file-validate"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is missing: sh scripts/install-system-deps.sh --test")
    proc = subprocess.run(
        ["sh", str(REPO / "scripts/bundle.sh")],
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    found = re.search(r"^bundle: (\S+\.tar\.gz)$", proc.stdout, re.MULTILINE)
    assert found, proc.stdout[-3000:]
    tarball = Path(found.group(1))
    assert re.fullmatch(r"bench-gui-[0-9][^-]*-linux-x86_64\.tar\.gz", tarball.name)
    assert tarball.parent == REPO / "dist"
    return tarball


class Installed:
    """The bundle unpacked and installed in a HOME of its own."""

    def __init__(self, root: Path, tarball: Path) -> None:
        self.root = root
        self.home = root / "home"
        self.home.mkdir()
        self.tools = root / "bin"
        self.tools.mkdir()
        for tool in Path("/usr/bin").iterdir():
            if tool.name not in NOT_ON_PATH:
                (self.tools / tool.name).symlink_to(tool)
        self.unpacked = root / "unpacked"
        with tarfile.open(tarball) as tar:
            if hasattr(tarfile, "tar_filter"):  # Python 3.11.4 and later (Debian 12: 3.11.2)
                tar.extractall(self.unpacked, filter="tar")
            else:
                tar.extractall(self.unpacked)
        (self.folder,) = self.unpacked.iterdir()
        self.prefix = self.home / ".local/opt/bench-gui"
        self.apps = self.home / ".local/share/applications"
        self.before_install = snapshot(self.home)
        self.install = self.script(self.folder / "install.sh")
        self.after_install = snapshot(self.home)

    def env(self, **extra: str) -> dict[str, str]:
        env = {"HOME": str(self.home), "PATH": str(self.tools), "LANG": "C.UTF-8"}
        env.update({k: os.environ[k] for k in PASSED_ON if k in os.environ})
        env.update(extra)
        return env

    def script(self, path: Path) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            ["sh", str(path)], capture_output=True, text=True, env=self.env(), timeout=600
        )
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        return proc

    def run(
        self, *args: str, timeout: float = RUN_TIMEOUT_S, hide: Sequence[str] = ()
    ) -> subprocess.CompletedProcess[str]:
        argv = [str(self.prefix / "bench-gui"), *args]
        proc = subprocess.run(
            namespaced(argv, hide) if hide else argv,
            capture_output=True,
            text=True,
            env=self.env(QT_QPA_PLATFORM="offscreen"),
            cwd=self.root,
            timeout=timeout,
        )
        assert proc.returncode == 0, f"bench-gui {args}: {proc.stdout[-2000:]}{proc.stderr[-3000:]}"
        return proc


def snapshot(root: Path) -> set[str]:
    """Every file, link and folder under ``root`` (as paths)."""
    return {str(p) for p in root.rglob("*")}


@pytest.fixture(scope="module")
def installed(
    bundle_tarball: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Installed]:
    root = tmp_path_factory.mktemp("bundle-user")
    root.chmod(0o755)  # the embedded server runs as its own OS user under root
    yield Installed(root, bundle_tarball)
    shutil.rmtree(root, ignore_errors=True)


def test_install_puts_the_app_and_its_menu_entry_in_place(installed: Installed) -> None:
    added = installed.after_install - installed.before_install
    manifest = installed.prefix / "install-manifest.txt"
    assert set(manifest.read_text().splitlines()) == added
    desktop = installed.apps / "bench-gui.desktop"
    assert str(desktop) in added
    text = desktop.read_text()
    assert "Name=bench_gui\n" in text
    assert f"Exec={installed.prefix / 'bench-gui-desktop'}\n" in text
    assert f"TryExec={installed.prefix / 'bench-gui-desktop'}\n" in text
    for icon in ("256x256/apps/bench-gui.png", "scalable/apps/bench-gui.svg"):
        assert (installed.home / ".local/share/icons/hicolor" / icon).is_file()
    check = subprocess.run(
        ["desktop-file-validate", str(desktop)], capture_output=True, text=True, check=False
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert "error" not in (check.stdout + check.stderr).lower()
    # Nothing lands outside the install folder, the menus (xdg-desktop-menu's legacy GNOME
    # copy included) and the icons.
    outside = {
        p
        for p in added
        if not p.startswith(str(installed.prefix))
        and not p.startswith(str(installed.home / ".local/share"))
        and not p.startswith(str(installed.home / ".config/menus"))
        and not p.startswith(str(installed.home / ".gnome"))
    }
    # xdg-icon-resource's ~/.icons link (no gtk-update-icon-cache on the PATH) is listed too.
    assert str(installed.home / ".icons") in added
    assert (installed.home / ".icons").is_symlink()
    assert outside <= {
        str(installed.home / d) for d in (".local", ".local/opt", ".config", ".icons")
    }


def test_the_bundle_holds_its_declared_set(installed: Installed) -> None:
    """What the build host has installed besides (GTK, cairo, pango) stays out, and the
    libraries a bare desktop lacks are in."""
    internal = installed.prefix / "_internal"
    names = [p.name for p in internal.rglob("*.so*")]
    assert names
    assert not [n for n in names if NOT_BUNDLED.match(n)]
    for name in BUNDLED_NOT_ON_BARE:
        assert (internal / name).exists(), name


def test_install_refuses_a_system_without_egl_and_fonts(installed: Installed) -> None:
    """As on a bare Debian: no libEGL, no font. install.sh names the packages and installs
    nothing (here into another prefix, the installed copy stays as it is)."""
    if not can_namespace():
        pytest.skip("hiding the system's libraries needs a private mount namespace (root)")
    egl = system_copies("libEGL.so.1")
    assert egl, "this host has no libEGL.so.1 (Debian package libegl1)"
    fonts = ["/usr/share/fonts", "/usr/local/share/fonts"]
    other = installed.root / "refused"
    proc = subprocess.run(
        namespaced(["sh", str(installed.folder / "install.sh")], egl, fonts),
        capture_output=True,
        text=True,
        env=installed.env(BENCH_GUI_PREFIX=str(other)),
        timeout=600,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    said = proc.stderr
    assert "lacks what the bench_gui window needs; nothing was installed" in said
    assert "libEGL.so.1 (Debian/Ubuntu: libegl1; Fedora: libglvnd-egl)" in said
    assert "Debian/Ubuntu:  sudo apt-get install libegl1 fonts-dejavu-core" in said
    assert "Fedora:         sudo dnf install libglvnd-egl dejavu-sans-fonts" in said
    assert not other.exists()


# The agent, its contract, and a kit's agent side and shared code (deploy.py ships them all).
SHIPPED_SOURCES = ["agent", "wire", "engines/mariadb/agent", "engines/mssql/shared",
                   "engines/postgresql/shared"]  # fmt: skip


@pytest.mark.parametrize("package", SHIPPED_SOURCES)
def test_the_bundle_carries_the_desktops_own_agent(installed: Installed, package: str) -> None:
    shipped = installed.prefix / "_internal/bench_gui" / package
    tree = REPO / "bench_gui" / package
    sources = sorted(p.relative_to(tree) for p in tree.rglob("*.py"))
    assert sources
    for rel in sources:
        assert (shipped / rel).read_bytes() == (tree / rel).read_bytes(), rel


def test_the_installed_app_opens_its_window(installed: Installed) -> None:
    log = installed.root / "window.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [str(installed.prefix / "bench-gui-desktop")],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=installed.env(QT_QPA_PLATFORM="offscreen", BENCH_GUI_DEMO_WARMUP="0"),
            cwd=installed.root,
        )
    try:

        def shown() -> re.Match[str] | None:
            text = log.read_text(errors="replace")
            if proc.poll() is not None:
                raise AssertionError(f"the app ended: {text[-3000:]}")
            return SHOWN.search(text)

        found = wait_until(shown, WINDOW_WAIT_S, "the main window")
        assert found.group(2) == "Workload"
        # Its quit signals are handled once its event loop runs.
        wait_until(lambda: shown() and UP in log.read_text(), WINDOW_WAIT_S, "the event loop")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(120) == 0, log.read_text(errors="replace")[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = log.read_text(errors="replace")
    assert "Traceback" not in text, text[-3000:]
    assert "ResourceError" not in text


def test_the_installed_app_runs_the_demo_sweep_and_reports_it(installed: Installed) -> None:
    """As root, where the system's libexpat and libssl cannot be loaded (a bare desktop has
    none): the agent the app starts must load the bundle's own."""
    hide = []
    if can_namespace():
        hide = [f for name in BUNDLED_NOT_ON_BARE for f in system_copies(name)]
    proc = installed.run("demo", "--headless", "--json", "--quiet", hide=hide)
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["status"] == "ok"
    steps = result["steps"]
    assert len(steps) >= 2
    assert all(s["complete"] and s["nopm"] > 0 for s in steps)
    assert all(s["nopm_driver"] > 0 for s in steps)
    # The same sweep on the Present view (the live charts), raced against the first.
    first = result["session"]
    installed.run("present", "--windowed", "--close-when-done", "--race", str(first))
    sessions = json.loads(installed.run("sessions", "list", "--json").stdout)
    ids = {s["id"]: s for s in sessions}
    assert len(ids) == 2, sessions
    assert [s["status"] for s in sessions] == ["complete", "complete"], sessions
    assert ids[first]["steps"] == len(steps)
    # A report from the bundle's templates and its Qt renderer.
    report, pdf = installed.root / "report.html", installed.root / "report.pdf"
    installed.run("compare", *(str(i) for i in ids), "--report", str(report), "--report", str(pdf))
    assert "<html" in report.read_text(encoding="utf-8")[:2000].lower()
    assert pdf.read_bytes()[:5] == b"%PDF-"


def test_the_bundles_wheels_deploy_the_agent_to_a_driver_host(
    installed: Installed,
    sshd: Any,
    isolated: MemoryKeyring,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bundle has no site-packages to copy: a driver host whose Python lacks the agent's
    packages gets them from the wheels the bundle carries (here: Debian's python3, which has
    no psycopg)."""
    from bench_gui.remote.ssh_transport import SSHTransport

    wheels = installed.prefix / "_internal/agent-wheels"
    assert any(wheels.glob("psycopg_binary-*-cp311-*.whl"))
    monkeypatch.setenv("BENCH_GUI_AGENT_WHEELS", str(wheels))
    sshd.trust()
    transport = SSHTransport(
        sshd.target(python="/usr/bin/python3"), remote_root=str(tmp_path / "host")
    )
    try:
        deployment = transport.deploy()
    finally:
        transport.close()
    assert not deployment.python_info.has_deps
    assert deployment.with_deps
    deps = Path(deployment.agent_dir, "deps")
    assert any(deps.glob("psycopg_binary-*.dist-info"))
    assert any(deps.glob("hdrhistogram-*.dist-info"))
    # deploy() imported the agent and psycopg there with the host's Python: it would have
    # raised otherwise. Run the agent's help the same way, as a last word.
    out = subprocess.run(
        deployment.command("--help"), capture_output=True, text=True, timeout=60, check=False
    )
    assert out.returncode == 0, out.stderr[-2000:]


def test_uninstall_removes_exactly_what_install_put_there(installed: Installed) -> None:
    """Last in this module: the app's data (sessions, the demo database) stays; every file
    install made goes; a folder install made stays only while the app's data is in it."""
    added = installed.after_install - installed.before_install
    before = snapshot(installed.home)
    said = installed.script(installed.prefix / "uninstall.sh").stdout
    after = snapshot(installed.home)
    data = installed.home / ".local/share/bench-gui"
    assert data.is_dir()  # the demo's sessions and database
    assert re.search(rf"^  {re.escape(str(data))} \([0-9.,]+[KMG]?\)$", said, re.MULTILINE), said
    assert f'rm -rf "{data}"' in said
    assert not (installed.home / ".icons").is_symlink()
    removed = before - after
    assert removed <= added
    assert after >= installed.before_install
    assert not installed.prefix.exists()
    left = added - removed
    for path in left:
        kept = Path(path)
        assert kept.is_dir(), path
        assert not kept.is_symlink(), path
        assert any(str(p) not in added for p in kept.rglob("*")), f"{path} kept, yet empty"
    assert not (installed.apps / "bench-gui.desktop").exists()
