"""IPMI DCMI power meter plugin: ``ipmitool dcmi power reading`` where the agent runs.

In band (this host's BMC through ``/dev/ipmi0``) when no BMC address is given, else over the
LAN with ``-I lanplus -H <bmc> -U <user> -E``; the password comes from the OS keyring and
reaches ipmitool in its ``IPMI_PASSWORD`` variable. Readings the BMC reports in the
deactivated state are rejected.
"""

from __future__ import annotations

from bench_gui.core.power import SCOPE_WALL
from bench_gui.wire.power_math import IPMI_PASSWORD_ENV
from bench_gui_plugins.power_base import BuiltinMeterKind


class IpmiMeterKind(BuiltinMeterKind):
    name = "ipmi"
    scope = SCOPE_WALL
    secret_kind = "ipmi"
    password_env = IPMI_PASSWORD_ENV
