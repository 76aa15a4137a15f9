"""What the first-party power meters share: option checks and a desktop-side test reader.

Each meter kind is a small class registered in the ``bench_gui.power_meters`` entry-point
group (see ``pyproject.toml``), exactly as a third-party meter would be. The readers that run
during a sweep are the agent's (:mod:`bench_gui.agent.power`); :meth:`BuiltinMeterKind.open`
runs the same reader on the desktop's machine for a test reading.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import keyring
import keyring.errors

from bench_gui.agent.power import Meter, MeterError, make_meter
from bench_gui.core.power import (
    METER_LABELS,
    METER_OPTIONS,
    SCOPE_WALL,
    OptionSpec,
    PowerReading,
    check_meter_options,
)

KEYRING_SERVICE = "bench-gui"


def keyring_entry(kind: str, user: str, host: str) -> str:
    """The keyring user name a BMC password is stored under: ``redfish:root@10.0.0.5``."""
    return f"{kind}:{user}@{host}"


def get_bmc_password(kind: str, user: str, host: str) -> str | None:
    try:
        return keyring.get_password(KEYRING_SERVICE, keyring_entry(kind, user, host))
    except keyring.errors.KeyringError as exc:
        raise ValueError(f"cannot read the {kind} password from the OS keyring: {exc}") from exc


def set_bmc_password(kind: str, user: str, host: str, password: str) -> None:
    try:
        keyring.set_password(KEYRING_SERVICE, keyring_entry(kind, user, host), password)
    except keyring.errors.KeyringError as exc:
        raise ValueError(f"cannot store the {kind} password in the OS keyring: {exc}") from exc


class MeterReader:
    """A meter of the agent run on this machine, read as :class:`PowerReading` values."""

    def __init__(self, name: str, meter: Meter) -> None:
        self.name = name
        self.meter = meter
        self.label = meter.label

    def read(self) -> PowerReading | None:
        reading = self.meter.read()
        if reading is not None and reading.watts is None and self.meter.counter:
            time.sleep(0.25)  # a counter gives watts from its second reading on
            reading = self.meter.read()
        if reading is None or reading.watts is None:
            return None
        return PowerReading(reading.t, reading.watts, self.name)

    def close(self) -> None:
        self.meter.close()


class BuiltinMeterKind:
    """A first-party meter kind: its options are :data:`METER_OPTIONS` [name]."""

    name = "none"
    scope = SCOPE_WALL
    secret_kind = ""  # keyring entries ``<secret_kind>:user@host`` when a password is needed
    password_env = ""  # the agent's environment variable for that password

    @property
    def label(self) -> str:
        return METER_LABELS.get(self.name, self.name)

    @property
    def options(self) -> tuple[OptionSpec, ...]:
        return METER_OPTIONS[self.name]

    def check(self, options: Mapping[str, Any]) -> list[tuple[str, str]]:
        return check_meter_options(self.name, options)[1]

    def needs_password(self, options: Mapping[str, Any]) -> bool:
        return bool(self.secret_kind and options.get("user") and options.get("host"))

    def store_password(self, options: Mapping[str, Any], password: str) -> None:
        """Keep the BMC password of ``options`` (user, host) in the OS keyring."""
        if not self.secret_kind:
            raise ValueError(f"the {self.label} meter keeps no password")
        user, host = str(options.get("user") or ""), str(options.get("host") or "")
        if not user or not host:
            raise ValueError("give the BMC address and user first")
        set_bmc_password(self.secret_kind, user, host, password)

    def secret_env(self, options: Mapping[str, Any]) -> dict[str, str]:
        """The password from the keyring, as the agent's environment needs it."""
        if not self.needs_password(options):
            return {}
        user, host = str(options["user"]), str(options["host"])
        password = get_bmc_password(self.secret_kind, user, host)
        if password is None:
            raise ValueError(
                f"no {self.label} password for {user}@{host} in the OS keyring:"
                " store it on the Workload page (Power meter, Password…)"
            )
        return {self.password_env: password}

    def agent_settings(self, options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
        checked, problems = check_meter_options(self.name, options)
        if problems:
            raise ValueError("; ".join(f"{field}: {reason}" for field, reason in problems))
        return checked, self.secret_env(checked)

    def open(self, options: Mapping[str, Any]) -> MeterReader:
        agent_options, env = self.agent_settings(options)
        try:
            meter = make_meter({"meter": self.name, "options": agent_options}, env)
        except MeterError as exc:
            raise ValueError(str(exc)) from exc
        if meter is None:
            raise ValueError(f"meter {self.name!r} has no reader")
        return MeterReader(self.name, meter)
