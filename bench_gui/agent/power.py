"""Power meters read on the agent's host, and the arithmetic of power over a window.

Runs where the agent runs (the driver host, or the database host itself), stdlib only:

- **IPMI DCMI**: ``ipmitool dcmi power reading``, in band (``/dev/ipmi0`` of this host) or
  over the LAN to a BMC (``-I lanplus -H bmc -U user -E``; the password comes in the
  ``IPMI_PASSWORD`` environment variable, never on a command line). Readings the BMC reports
  in the *deactivated* state are rejected.
- **Redfish**: HTTPS GETs to the BMC, ``Chassis/{id}/EnvironmentMetrics`` → ``PowerWatts``
  first, the legacy ``Chassis/{id}/Power`` → ``PowerControl[].PowerConsumedWatts`` when the
  newer resource is missing or has no reading. Certificates are checked unless the plan opts
  out explicitly; the password arrives in the environment (the desktop side takes it from the
  OS keyring).
- **RAPL**: the kernel's powercap energy counters (``intel-rapl:N`` packages, ``:N:M`` DRAM
  sub-zones; AMD uses the same zones without DRAM), wrap-around included. This is CPU package
  (and DRAM) power, *not* wall power, and is labelled so everywhere.
- **CSV**: a power log written by some other logger (a wall meter, a PDU export), with a
  timestamp and a watts column; read as it grows, or whole after the fact.

Why all of them run on the agent: the measured window's edges are instants of the agent's
monotonic clock, and average power must be integrated over exactly that window. A reader on
the same host shares that clock, keeps reading while the desktop's link is down (the agent
runs detached), and needs nothing the agent does not already have (Redfish is HTTPS and JSON,
which the standard library speaks).

The arithmetic (window averages, mW per NOPM, CSV power logs) is pure and lives in
:mod:`bench_gui.wire.power_math`, which the desktop side imports without the meters.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import re
import shutil
import ssl
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bench_gui.wire.power_math import (
    IPMI_PASSWORD_ENV,
    METER_KINDS,
    REDFISH_PASSWORD_ENV,
    SCOPE_CPU,
    SCOPE_WALL,
    MeterError,
    average_watts,
    counter_average,
    joules_per_new_order,
    mw_per_nopm,
    parse_power_csv,
)

DEFAULT_POWERCAP_ROOT = "/sys/class/powercap"


# ---- readings and meters ----------------------------------------------------------------------


@dataclass(frozen=True)
class MeterReading:
    """One reading: ``t`` on the monotonic clock; watts, and for counters cumulative joules."""

    t: float
    watts: float | None
    energy_j: float | None = None


class Meter:
    """A power meter on this host. ``poll`` returns the readings taken since the last call.

    ``counter`` meters (RAPL) carry a cumulative energy in every reading and are integrated
    from it; the others carry watts and are integrated by the trapezoid rule.
    """

    kind = "meter"
    label = "power meter"
    scope = SCOPE_WALL
    counter = False

    def read(self) -> MeterReading | None:
        raise NotImplementedError

    def poll(self) -> list[MeterReading]:
        reading = self.read()
        return [] if reading is None else [reading]

    def close(self) -> None:  # an optional hook
        pass


# ---- IPMI DCMI --------------------------------------------------------------------------------


@dataclass(frozen=True)
class DcmiReading:
    """``ipmitool dcmi power reading``, parsed."""

    instantaneous: float
    minimum: float | None
    maximum: float | None
    average: float | None
    timestamp: str
    sampling_period_s: float | None
    state: str  # "activated", "deactivated", or "" when the line is missing

    @property
    def active(self) -> bool:
        return self.state == "activated"


_DCMI_WATTS = re.compile(
    r"(?P<name>Instantaneous power reading|Minimum during sampling period|"
    r"Maximum during sampling period|Average power reading over sample period)"
    r"\s*:\s*(?P<value>\d+(?:\.\d+)?)\s*Watts?",
    re.IGNORECASE,
)
_DCMI_NAMES = {
    "instantaneous power reading": "instantaneous",
    "minimum during sampling period": "minimum",
    "maximum during sampling period": "maximum",
    "average power reading over sample period": "average",
}
# ipmitool prints the timestamp without a newline on some versions, so the sampling period
# can follow on the same line.
_DCMI_TIMESTAMP = re.compile(r"IPMI timestamp\s*:\s*(.*?)\s*(?=Sampling period|\n|$)", re.I)
_DCMI_PERIOD = re.compile(
    r"Sampling period\s*:\s*(\d+(?:\.\d+)?)[\s_]*(ms|milliseconds?|s|secs?|seconds?|mins?|"
    r"minutes?|hrs?|hours?|days?)\b",
    re.IGNORECASE,
)
_DCMI_STATE = re.compile(r"Power reading state is\s*:\s*([A-Za-z ]+?)\s*$", re.I | re.M)


def _period_seconds(value: str, unit: str) -> float:
    u = unit.lower()
    if u in ("ms",) or u.startswith("milli"):
        factor = 0.001
    elif u.startswith("min"):
        factor = 60.0
    elif u.startswith("h"):
        factor = 3600.0
    elif u.startswith("day"):
        factor = 86400.0
    else:
        factor = 1.0
    return float(value) * factor


def parse_dcmi_power_reading(text: str) -> DcmiReading:
    """Parse ipmitool's output; raise :class:`MeterError` when it holds no power reading.

    Tolerant of the layouts ipmitool versions print (column widths, a timestamp without its
    newline, the sampling period as ``00000005 Seconds.`` or ``5 sec``); errors ipmitool
    reports (``DCMI request failed because: ...``, session errors) become the message.
    """
    values: dict[str, float] = {}
    for match in _DCMI_WATTS.finditer(text):
        values.setdefault(_DCMI_NAMES[match.group("name").lower()], float(match.group("value")))
    if "instantaneous" not in values:
        failure = re.search(r"(DCMI request failed because:.*|Error:.*|Unable to .*)", text)
        if failure:
            raise MeterError(f"ipmitool: {failure.group(1).strip()}")
        first = text.strip().splitlines()[0] if text.strip() else "no output"
        raise MeterError(f"no power reading in the output of ipmitool ({first[:120]})")
    stamp = _DCMI_TIMESTAMP.search(text)
    period = _DCMI_PERIOD.search(text)
    state = _DCMI_STATE.search(text)
    return DcmiReading(
        instantaneous=values["instantaneous"],
        minimum=values.get("minimum"),
        maximum=values.get("maximum"),
        average=values.get("average"),
        timestamp=stamp.group(1).strip() if stamp else "",
        sampling_period_s=_period_seconds(*period.groups()) if period else None,
        state=state.group(1).strip().lower() if state else "",
    )


class IpmiMeter(Meter):
    """``ipmitool dcmi power reading`` on this host, or against a BMC over the LAN."""

    kind = "ipmi"
    scope = SCOPE_WALL

    def __init__(
        self,
        host: str = "",
        user: str = "",
        interface: str = "lanplus",
        ipmitool: str = "ipmitool",
        reading: str = "instantaneous",
        timeout_s: float = 5.0,
        env: Mapping[str, str] | None = None,
        runner: Callable[..., subprocess.CompletedProcess[str]] | None = None,
    ) -> None:
        if reading not in ("instantaneous", "average"):
            raise ValueError("reading must be 'instantaneous' or 'average'")
        self.host = host
        self.reading = reading
        self.timeout_s = timeout_s
        self.env = dict(os.environ if env is None else env)
        self._run = runner or subprocess.run
        command = [ipmitool]
        if host:
            command += ["-I", interface or "lanplus", "-H", host]
            if user:
                command += ["-U", user]
            if self.env.get(IPMI_PASSWORD_ENV):
                command.append("-E")  # the password from IPMI_PASSWORD, not the command line
        command += ["dcmi", "power", "reading"]
        self.command = command
        where = f"BMC {host}" if host else "the local BMC"
        self.label = f"IPMI DCMI ({where}, {reading})"

    def read(self) -> MeterReading | None:
        t_before = time.monotonic()
        try:
            done = self._run(
                self.command,
                capture_output=True,
                text=True,
                timeout=self.timeout_s,
                env=self.env,
                check=False,
            )
        except FileNotFoundError:
            raise MeterError(f"{self.command[0]} is not installed on this host") from None
        except subprocess.TimeoutExpired:
            raise MeterError(f"ipmitool gave no answer within {self.timeout_s:g} s") from None
        t_after = time.monotonic()
        reading = parse_dcmi_power_reading(f"{done.stdout}\n{done.stderr}")
        if not reading.active:
            raise MeterError(
                f"the BMC reports its power reading as {reading.state or 'of unknown state'}"
                " (DCMI power measurement not active): reading rejected"
            )
        watts = reading.average if self.reading == "average" else reading.instantaneous
        if watts is None:
            raise MeterError("ipmitool printed no average power reading")
        return MeterReading((t_before + t_after) / 2, watts)


# ---- Redfish ----------------------------------------------------------------------------------


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def environment_metrics_watts(doc: Mapping[str, Any]) -> float | None:
    """``PowerWatts.Reading`` of an EnvironmentMetrics resource (None: no reading)."""
    power = doc.get("PowerWatts")
    return _number(power.get("Reading")) if isinstance(power, dict) else None


def legacy_power_watts(doc: Mapping[str, Any]) -> float | None:
    """``PowerConsumedWatts`` of the first PowerControl that has one (legacy Power resource).

    PowerControl entries of one chassis are alternative views of its input power, not parts
    of it: the first reading is taken, never a sum.
    """
    controls = doc.get("PowerControl")
    if not isinstance(controls, list):
        return None
    for control in controls:
        if isinstance(control, dict):
            watts = _number(control.get("PowerConsumedWatts"))
            if watts is not None:
                return watts
    return None


def _link(doc: Mapping[str, Any], name: str) -> str | None:
    value = doc.get(name)
    if isinstance(value, dict) and isinstance(value.get("@odata.id"), str):
        return str(value["@odata.id"])
    return None


class RedfishMeter(Meter):
    """Chassis power from a Redfish service over HTTPS (HTTP Basic authentication)."""

    kind = "redfish"
    scope = SCOPE_WALL

    def __init__(
        self,
        host: str,
        port: int = 443,
        user: str = "",
        password: str = "",
        chassis: str = "",
        verify_tls: bool = True,
        ca_file: str = "",
        timeout_s: float = 5.0,
    ) -> None:
        if not host:
            raise ValueError("a Redfish meter needs the BMC's host")
        self.host = host
        self.port = port
        self.chassis = chassis
        self.timeout_s = timeout_s
        self.verify_tls = verify_tls
        if verify_tls:
            self._context = ssl.create_default_context(cafile=ca_file or None)
        else:
            # The plan opted out explicitly (a BMC with a self-signed certificate).
            self._context = ssl.create_default_context()
            self._context.check_hostname = False
            self._context.verify_mode = ssl.CERT_NONE
        self._headers = {"Accept": "application/json", "OData-Version": "4.0"}
        if user:
            token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
            self._headers["Authorization"] = f"Basic {token}"
        self._conn: http.client.HTTPSConnection | None = None
        self.source: tuple[str, str] | None = None  # (resource path, "environment"|"legacy")
        self.label = f"Redfish ({host})"

    def _connection(self) -> http.client.HTTPSConnection:
        if self._conn is None:
            self._conn = http.client.HTTPSConnection(
                self.host, self.port, timeout=self.timeout_s, context=self._context
            )
        return self._conn

    def get(self, path: str) -> dict[str, Any]:
        """GET one resource as JSON (one reconnect on a dropped keep-alive connection)."""
        for attempt in (1, 2):
            conn = self._connection()
            try:
                conn.request("GET", path, headers=self._headers)
                response = conn.getresponse()
                body = response.read()
                break
            except ssl.SSLCertVerificationError as exc:
                self.close()
                raise MeterError(
                    f"the certificate of the Redfish service at {self.host} is not trusted"
                    f" ({exc.verify_message}); give its CA certificate (ca_file) or, knowingly,"
                    " set verify_tls = false"
                ) from None
            except (OSError, http.client.HTTPException) as exc:
                self.close()
                if attempt == 2:
                    raise MeterError(f"Redfish service {self.host}: {exc}") from None
        if response.status == 401:
            raise MeterError(f"the Redfish service at {self.host} refused the credentials")
        if response.status != 200:
            raise MeterError(f"Redfish GET {path}: HTTP {response.status} {response.reason}")
        try:
            doc = json.loads(body)
        except ValueError:
            raise MeterError(f"Redfish GET {path}: the answer is not JSON") from None
        if not isinstance(doc, dict):
            raise MeterError(f"Redfish GET {path}: the answer is not a JSON object")
        return doc

    def _chassis_paths(self) -> list[str]:
        if self.chassis.startswith("/"):
            return [self.chassis]
        collection = self.get("/redfish/v1/Chassis")
        members = collection.get("Members")
        paths = [
            str(m["@odata.id"])
            for m in members or []
            if isinstance(m, dict) and isinstance(m.get("@odata.id"), str)
        ]
        if self.chassis:
            wanted = [p for p in paths if p.rstrip("/").rsplit("/", 1)[-1] == self.chassis]
            if not wanted:
                raise MeterError(f"the Redfish service has no chassis {self.chassis!r}")
            return wanted
        return paths

    def discover(self) -> tuple[str, str]:
        """Find the resource to poll: EnvironmentMetrics with a reading, else legacy Power."""
        if self.source is not None:
            return self.source
        tried = []
        for path in self._chassis_paths():
            chassis = self.get(path)
            env = _link(chassis, "EnvironmentMetrics")
            if env is not None:
                tried.append(env)
                if environment_metrics_watts(self.get(env)) is not None:
                    self.source = (env, "environment")
                    break
            legacy = _link(chassis, "Power")
            if legacy is not None:
                tried.append(legacy)
                if legacy_power_watts(self.get(legacy)) is not None:
                    self.source = (legacy, "legacy")
                    break
        if self.source is None:
            where = ", ".join(tried) if tried else "no chassis with power resources"
            raise MeterError(f"the Redfish service reports no power reading ({where})")
        self.label = f"Redfish ({self.host} {self.source[0]})"
        return self.source

    def read(self) -> MeterReading | None:
        path, kind = self.discover()
        t_before = time.monotonic()
        doc = self.get(path)
        t_after = time.monotonic()
        watts = environment_metrics_watts(doc) if kind == "environment" else legacy_power_watts(doc)
        if watts is None:
            return None  # a null reading means no reading this time
        return MeterReading((t_before + t_after) / 2, watts)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


# ---- RAPL -------------------------------------------------------------------------------------


@dataclass
class RaplZone:
    """One powercap zone counted: a package or its DRAM."""

    path: str
    name: str  # "package-0", "dram"
    max_range_uj: int
    last_uj: int | None = None
    total_uj: int = 0  # unwrapped energy since the meter opened


def _read_text(path: str) -> str:
    with open(path, encoding="ascii") as fh:
        return fh.read().strip()


_TOP_ZONE = re.compile(r"^intel-rapl:\d+$")
_SUB_ZONE = re.compile(r"^intel-rapl:\d+:\d+$")


def rapl_zones(root: str = DEFAULT_POWERCAP_ROOT, dram: bool = True) -> list[RaplZone]:
    """The zones that make up CPU power: every package, plus each DRAM zone when asked.

    Core and uncore sub-zones are parts of their package (never added), ``psys`` is the whole
    platform and ``intel-rapl-mmio`` repeats the packages: none of them are counted.
    """
    try:
        entries = sorted(os.listdir(root))
    except FileNotFoundError:
        raise MeterError(f"no powercap tree at {root} (no RAPL support in this kernel)") from None
    zones: list[RaplZone] = []
    seen: set[str] = set()
    for entry in entries:
        top, sub = _TOP_ZONE.match(entry), _SUB_ZONE.match(entry)
        if not (top or sub):
            continue
        path = os.path.join(root, entry)
        real = os.path.realpath(path)
        if real in seen:
            continue
        try:
            name = _read_text(os.path.join(path, "name"))
        except OSError:
            continue
        counted = (top and name.startswith("package")) or (dram and name == "dram")
        if not counted:
            continue
        seen.add(real)
        try:
            max_range = int(_read_text(os.path.join(path, "max_energy_range_uj")))
        except (OSError, ValueError):
            max_range = 0
        zones.append(RaplZone(path=path, name=name, max_range_uj=max_range))
    if not any(z.name.startswith("package") for z in zones):
        raise MeterError(f"no RAPL package zone under {root}")
    return zones


class RaplMeter(Meter):
    """CPU package (+ DRAM) energy from the powercap counters, unwrapped."""

    kind = "rapl"
    scope = SCOPE_CPU
    counter = True

    def __init__(self, root: str = DEFAULT_POWERCAP_ROOT, dram: bool = True) -> None:
        self.root = root
        self.zones = rapl_zones(root, dram)
        packages = sum(1 for z in self.zones if z.name.startswith("package"))
        drams = sum(1 for z in self.zones if z.name == "dram")
        parts = f"{packages} package{'s' if packages != 1 else ''}"
        if drams:
            parts += f" + {drams} DRAM"
        self.label = f"RAPL CPU power ({parts}; not wall power)"
        self._last: tuple[float, float] | None = None

    def _read_zone(self, zone: RaplZone) -> None:
        path = os.path.join(zone.path, "energy_uj")
        try:
            raw = int(_read_text(path))
        except PermissionError:
            raise MeterError(
                f"{path} is readable by root only on this kernel: run the agent as root or"
                " grant read access (e.g. a udev rule or chmod on energy_uj)"
            ) from None
        except (OSError, ValueError) as exc:
            raise MeterError(f"cannot read {path}: {exc}") from None
        if zone.last_uj is not None:
            delta = raw - zone.last_uj
            if delta < 0:  # the counter wrapped
                delta += zone.max_range_uj
            zone.total_uj += max(0, delta)
        zone.last_uj = raw

    def read(self) -> MeterReading | None:
        t = time.monotonic()
        for zone in self.zones:
            self._read_zone(zone)
        energy = sum(z.total_uj for z in self.zones) / 1e6
        watts = None
        if self._last is not None and t > self._last[0]:
            watts = (energy - self._last[1]) / (t - self._last[0])
        self._last = (t, energy)
        return MeterReading(t, watts, energy)


class CsvMeter(Meter):
    """Readings from a CSV power log another program writes on this host (tailed as it grows).

    Timestamps are wall-clock times; they are put on the monotonic clock with the offset
    between the two clocks at the moment the meter opened.
    """

    kind = "csv"
    scope = SCOPE_WALL

    def __init__(self, path: str, time_column: str = "", watts_column: str = "") -> None:
        if not path:
            raise ValueError("a CSV meter needs the log's path")
        self.path = path
        self.time_column = time_column
        self.watts_column = watts_column
        self.label = f"power log {os.path.basename(path)}"
        self._offset = time.time() - time.monotonic()
        self._pos = 0
        self._header: str | None = None
        self._partial = ""

    def poll(self) -> list[MeterReading]:
        try:
            with open(self.path, encoding="utf-8", errors="replace", newline="") as fh:
                fh.seek(self._pos)
                chunk = fh.read()
                self._pos = fh.tell()
        except FileNotFoundError:
            raise MeterError(f"the power log {self.path} does not exist (yet)") from None
        except OSError as exc:
            raise MeterError(f"cannot read the power log {self.path}: {exc}") from None
        text = self._partial + chunk
        lines = text.split("\n")
        self._partial = lines.pop()  # an unfinished last line waits for the rest
        if self._header is None:
            while lines and not lines[0].strip():
                lines.pop(0)
            if not lines:
                return []
            self._header = lines.pop(0)
        body = "\n".join([self._header, *lines])
        rows = parse_power_csv(body, self.time_column, self.watts_column)
        return [MeterReading(t - self._offset, w) for t, w in rows]

    def read(self) -> MeterReading | None:
        readings = self.poll()
        return readings[-1] if readings else None


# ---- building meters from the plan ------------------------------------------------------------


def _opt_float(options: Mapping[str, Any], key: str, default: float) -> float:
    value = options.get(key, default)
    return (
        float(value) if isinstance(value, int | float) and not isinstance(value, bool) else default
    )


def make_meter(config: Mapping[str, Any], env: Mapping[str, str] | None = None) -> Meter | None:
    """The meter a run's ``power`` configuration asks for (None for ``none``).

    ``config`` is ``{"meter": kind, "options": {...}, ...}`` as the desktop side sends it.
    """
    env = os.environ if env is None else env
    kind = str(config.get("meter") or "none")
    options = config.get("options") or {}
    if not isinstance(options, Mapping):
        raise MeterError("power options must be a table")
    opt = {str(k): v for k, v in options.items()}
    timeout = _opt_float(opt, "timeout_s", 5.0)
    if kind == "none":
        return None
    if kind == "ipmi":
        tool = str(opt.get("ipmitool") or "ipmitool")
        if not os.path.isabs(tool) and shutil.which(tool) is None:
            raise MeterError(f"{tool} is not installed on the agent's host")
        return IpmiMeter(
            host=str(opt.get("host") or ""),
            user=str(opt.get("user") or ""),
            interface=str(opt.get("interface") or "lanplus"),
            ipmitool=tool,
            reading=str(opt.get("reading") or "instantaneous"),
            timeout_s=timeout,
            env=env,
        )
    if kind == "redfish":
        return RedfishMeter(
            host=str(opt.get("host") or ""),
            port=int(opt.get("port") or 443),
            user=str(opt.get("user") or ""),
            password=env.get(REDFISH_PASSWORD_ENV, ""),
            chassis=str(opt.get("chassis") or ""),
            verify_tls=opt.get("verify_tls", True) is not False,
            ca_file=str(opt.get("ca_file") or ""),
            timeout_s=timeout,
        )
    if kind == "rapl":
        return RaplMeter(
            root=str(opt.get("root") or DEFAULT_POWERCAP_ROOT),
            dram=opt.get("dram", True) is not False,
        )
    if kind == "csv":
        return CsvMeter(
            path=str(opt.get("path") or ""),
            time_column=str(opt.get("time_column") or ""),
            watts_column=str(opt.get("watts_column") or ""),
        )
    raise MeterError(f"this agent has no power meter of kind {kind!r}")


# ---- sampling ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class WindowPower:
    """Power over one window: mean watts, the energy, and how many readings fell inside."""

    watts: float
    energy_j: float
    readings: int


class PowerSampler:
    """Polls a meter on a thread of its own and keeps every reading for the windows.

    The thread keeps the run's loop free of slow meters (an ipmitool round trip, an HTTPS
    request); :meth:`poll_now` reads in the caller's thread (serialised with the thread) when a
    window edge needs a reading at once.
    """

    def __init__(self, meter: Meter, interval_s: float = 1.0, keep: int = 200_000) -> None:
        self.meter = meter
        self.interval_s = max(0.05, interval_s)
        self._readings: deque[MeterReading] = deque(maxlen=keep)
        self._meter_lock = threading.Lock()
        self._data_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.last_error = ""
        self.failures = 0

    def poll_now(self) -> list[MeterReading]:
        """Read the meter now; a failure is kept in :attr:`last_error`, never raised."""
        with self._meter_lock:
            try:
                new = self.meter.poll()
            except (MeterError, OSError, ValueError) as exc:
                self.last_error = str(exc)
                self.failures += 1
                return []
        if new:
            self.last_error = ""
            with self._data_lock:
                self._readings.extend(new)
        return new

    def probe(self) -> MeterReading:
        """One reading or :class:`MeterError` (a meter that cannot read should stop the run
        before it starts, not leave a sweep without power)."""
        with self._meter_lock:
            readings = self.meter.poll()
            if self.meter.counter and readings:
                # A counter needs two readings to give watts.
                time.sleep(min(0.2, self.interval_s))
                readings += self.meter.poll()
        if not readings:
            raise MeterError("the meter gave no reading")
        with self._data_lock:
            self._readings.extend(readings)
        return readings[-1]

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="bench-gui-power", daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            began = time.monotonic()
            self.poll_now()
            self._stop.wait(max(0.0, self.interval_s - (time.monotonic() - began)))

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None
        self.meter.close()

    def readings(self, since: float = float("-inf")) -> list[MeterReading]:
        with self._data_lock:
            return [r for r in self._readings if r.t >= since]

    def latest(self, max_age_s: float | None = None) -> MeterReading | None:
        """The newest reading with watts (None when older than ``max_age_s``)."""
        with self._data_lock:
            for reading in reversed(self._readings):
                if reading.watts is not None:
                    break
            else:
                return None
        if max_age_s is not None and time.monotonic() - reading.t > max_age_s:
            return None
        return reading

    def cover(self, t: float, timeout_s: float) -> bool:
        """Wait until a reading at or after ``t`` exists (reading at once first)."""
        deadline = time.monotonic() + timeout_s
        while True:
            with self._data_lock:
                if self._readings and self._readings[-1].t >= t:
                    return True
            if time.monotonic() >= deadline:
                return False
            if not self.poll_now():
                time.sleep(min(0.1, self.interval_s / 4))

    def window(self, t0: float, t1: float) -> WindowPower | None:
        """Power over exactly [t0, t1]; None when the readings do not cover it."""
        with self._data_lock:
            readings = list(self._readings)
        if self.meter.counter:
            points = [(r.t, r.energy_j) for r in readings if r.energy_j is not None]
            watts = counter_average(points, t0, t1)
        else:
            points = [(r.t, r.watts) for r in readings if r.watts is not None]
            watts = average_watts(points, t0, t1)
        if watts is None:
            return None
        inside = sum(1 for t, _ in points if t0 <= t <= t1)
        return WindowPower(watts=watts, energy_j=watts * (t1 - t0), readings=inside)


__all__ = [
    "METER_KINDS",
    "SCOPE_CPU",
    "SCOPE_WALL",
    "CsvMeter",
    "DcmiReading",
    "IpmiMeter",
    "Meter",
    "MeterError",
    "MeterReading",
    "PowerSampler",
    "RaplMeter",
    "RedfishMeter",
    "WindowPower",
    "average_watts",
    "counter_average",
    "environment_metrics_watts",
    "joules_per_new_order",
    "legacy_power_watts",
    "make_meter",
    "mw_per_nopm",
    "parse_dcmi_power_reading",
    "parse_power_csv",
    "rapl_zones",
]
