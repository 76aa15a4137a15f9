"""Installed distributions as files to ship to a driver host: the agent's dependencies, and the
third-party engines whose agent side the agent loads there.

A third-party engine is a distribution declaring an entry point in the group
:data:`~bench_gui.wire.names.AGENT_ENGINE_GROUP` (``name = "module:Class"``). The deployment
(:mod:`bench_gui.remote.deploy`) ships every such distribution installed on this desktop into
the agent's ``deps/`` folder, on the agent's ``PYTHONPATH`` there: its files and its
``.dist-info`` (so ``importlib.metadata`` finds the entry point on the host too), and the
distributions it requires that the agent does not bring already (:data:`PROVIDED`),
transitively. A requirement this desktop lacks is an error naming it; one under a marker
(``; python_version < "3.12"``) is shipped when installed here, skipped otherwise, as pip
decided for this desktop; one for an extra is never shipped.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from bench_gui.remote.errors import DeployError
from bench_gui.wire.names import AGENT_ENGINE_GROUP

# What the agent ships (or finds on the host) already, as normalised distribution names; a
# plugin requiring bench-gui gets the agent, not the desktop app.
PROVIDED: Final = frozenset(
    {
        "bench-gui",
        "psycopg",
        "psycopg-binary",
        "psycopg-c",
        "hdrhistogram",
        "typing-extensions",
        "pyodbc",
    }
)
_SKIP_META: Final = {"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"}
_REQ_NAME: Final = re.compile(r"\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)")
_EXTRA_MARKER: Final = re.compile(r"\bextra\s*==")


def normalise(name: str) -> str:
    """A distribution name as PEP 503 compares them (Typing_Extensions: typing-extensions)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def distribution(name: str) -> importlib.metadata.Distribution | None:
    """The installed distribution ``name`` (None: not installed here)."""
    try:
        return importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def dist_files(dist: importlib.metadata.Distribution, prefix: str) -> dict[str, bytes]:
    """The installed files of ``dist`` (from its RECORD), under ``prefix/``, as they sit in
    site-packages; no bytecode, scripts outside it, install records or editable-install hooks
    (a ``.pth`` file works only in a site directory, and a PYTHONPATH entry is not one)."""
    out: dict[str, bytes] = {}
    for rel in dist.files or []:
        parts = rel.parts
        if not parts or parts[0] == ".." or "__pycache__" in parts or rel.suffix == ".pyc":
            continue
        if parts[0].endswith(".dist-info") and rel.name in _SKIP_META:
            continue
        if rel.suffix == ".pth" or rel.name.startswith("__editable__"):
            continue
        path = Path(str(dist.locate_file(rel)))
        if path.is_file():
            out[f"{prefix}/{rel.as_posix()}"] = path.read_bytes()
    return out


def wheel_tags(dist: importlib.metadata.Distribution) -> list[str]:
    """The wheel tags ``dist`` was installed from ([] when it says none)."""
    text = dist.read_text("WHEEL") or ""
    return [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Tag:")]


def is_binary(tags: list[str]) -> bool:
    return any("-none-any" not in tag for tag in tags)


def engine_plugins() -> list[importlib.metadata.Distribution]:
    """Every installed distribution that declares an agent engine, by name (the first one on
    ``sys.path`` when a name is installed twice, as an import would take)."""
    found: dict[str, importlib.metadata.Distribution] = {}
    for dist in importlib.metadata.distributions():
        name = normalise(dist.metadata["Name"] or "")
        if not name or name in found or name == "bench-gui":
            continue
        if any(ep.group == AGENT_ENGINE_GROUP for ep in dist.entry_points):
            found[name] = dist
    return [found[name] for name in sorted(found)]


def _requirements(dist: importlib.metadata.Distribution) -> list[tuple[str, bool]]:
    """``dist``'s requirements as (normalised name, under a marker); extras' left out."""
    out: list[tuple[str, bool]] = []
    for text in dist.requires or []:
        spec, _, marker = text.partition(";")
        if _EXTRA_MARKER.search(marker):
            continue
        match = _REQ_NAME.match(spec)
        if match:
            out.append((normalise(match.group(1)), bool(marker.strip())))
    return out


def _module_files(module: str, plugin: str, prefix: str) -> dict[str, bytes]:
    """The files of top-level module ``module`` wherever it imports from here (an editable
    install records a path hook, not the package)."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError) as exc:
        spec, problem = None, f" ({exc})"
    else:
        problem = ""
    if spec is None:
        raise DeployError(
            f"the engine plugin {plugin} names the module {module!r} in its"
            f" {AGENT_ENGINE_GROUP} entry point, which does not import on this desktop"
            f"{problem}: reinstall the plugin"
        )
    out: dict[str, bytes] = {}
    for location in spec.submodule_search_locations or []:
        root = Path(location)
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                out[f"{prefix}/{module}/{path.relative_to(root).as_posix()}"] = path.read_bytes()
    if not spec.submodule_search_locations and spec.origin and Path(spec.origin).is_file():
        out[f"{prefix}/{Path(spec.origin).name}"] = Path(spec.origin).read_bytes()
    return out


def plugin_files(dist: importlib.metadata.Distribution, prefix: str) -> dict[str, bytes]:
    """One plugin distribution's files, with its entry points' modules and a ``.dist-info``
    holding its entry points even when its install left no RECORD or an editable hook."""
    name = dist.metadata["Name"] or "?"
    files = dist_files(dist, prefix)
    for ep in dist.entry_points:
        if ep.group != AGENT_ENGINE_GROUP:
            continue
        top = ep.value.partition(":")[0].strip().split(".")[0]
        if not any(
            n.startswith(f"{prefix}/{top}/") or n.startswith(f"{prefix}/{top}.") for n in files
        ):
            files.update(_module_files(top, name, prefix))
    if not any(n.endswith(".dist-info/entry_points.txt") for n in files):
        info = f"{prefix}/{re.sub(r'[-.]+', '_', name)}-{dist.version}.dist-info"
        files[f"{info}/METADATA"] = (dist.read_text("METADATA") or f"Name: {name}\n").encode()
        files[f"{info}/entry_points.txt"] = (dist.read_text("entry_points.txt") or "").encode()
    return files


@dataclass
class PluginPayload:
    """What the installed engine plugins add to the agent's bundle."""

    files: dict[str, bytes] = field(default_factory=dict)
    plugins: list[str] = field(default_factory=list)  # distribution names
    engines: list[str] = field(default_factory=list)  # their agent engines' names
    # Binary distributions among them: "<dist> (for <plugin>)" -> wheel tags.
    binary_tags: dict[str, list[str]] = field(default_factory=dict)


def plugin_payload(prefix: str) -> PluginPayload:
    """Every installed engine plugin with the requirements the agent does not bring."""
    payload = PluginPayload()
    shipped: set[str] = set()
    for plugin in engine_plugins():
        plugin_name = plugin.metadata["Name"] or "?"
        payload.plugins.append(plugin_name)
        payload.engines.extend(
            ep.name for ep in plugin.entry_points if ep.group == AGENT_ENGINE_GROUP
        )
        queue: list[tuple[importlib.metadata.Distribution, bool]] = [(plugin, True)]
        shipped.add(normalise(plugin_name))
        while queue:
            dist, is_plugin = queue.pop(0)
            dist_name = dist.metadata["Name"] or "?"
            payload.files.update(
                plugin_files(dist, prefix) if is_plugin else dist_files(dist, prefix)
            )
            tags = wheel_tags(dist)
            if is_binary(tags):
                payload.binary_tags[f"{dist_name} (for {plugin_name})"] = tags
            for requirement, conditional in _requirements(dist):
                if requirement in PROVIDED or requirement in shipped:
                    continue
                needed = distribution(requirement)
                if needed is None:
                    if conditional:
                        continue  # its marker is false here: pip did not install it
                    raise DeployError(
                        f"the engine plugin {plugin_name} needs {requirement}"
                        f"{'' if dist is plugin else f' (through {dist_name})'}, which is not"
                        " installed on this desktop, so it cannot be shipped to the driver"
                        f" host: install it here (pip install {requirement}), or uninstall"
                        f" {plugin_name}"
                    )
                shipped.add(requirement)
                queue.append((needed, False))
    return payload
