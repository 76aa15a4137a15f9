"""An interpreter as the deployment's probe reports it: what decides whether this desktop's
packages or wheels fit a driver host. Its own module because both the deployment and the
wheel picker (:mod:`bench_gui.remote.agent_wheels`) read it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PythonInfo:
    """An interpreter (the host's, or this desktop's) as the probe script reports it."""

    executable: str
    version: tuple[int, ...]
    impl: str
    cache_tag: str
    platform: str
    machine: str
    libc: tuple[str, str]
    has_deps: bool = False
    deps_error: str = ""
    has_pyodbc: bool = False  # its own pyodbc (whether unixODBC loads is the agent's to say)

    @property
    def version_text(self) -> str:
        return ".".join(str(v) for v in self.version)

    def describe(self) -> str:
        libc = f", {self.libc[0]} {self.libc[1]}" if self.libc[0] else ""
        return f"{self.impl} {self.version_text} on {self.platform}{libc}"

    @classmethod
    def from_probe(cls, data: dict[str, Any]) -> PythonInfo:
        libc = data.get("libc") or ["", ""]
        return cls(
            executable=str(data.get("executable", "")),
            version=tuple(int(v) for v in data.get("version", [0, 0, 0])),
            impl=str(data.get("impl", "")),
            cache_tag=str(data.get("cache_tag", "")),
            platform=str(data.get("platform", "")),
            machine=str(data.get("machine", "")),
            libc=(str(libc[0]), str(libc[1])),
            has_deps=bool(data.get("has_deps")),
            deps_error=str(data.get("deps_error", "")),
            has_pyodbc=bool(data.get("has_pyodbc")),
        )
