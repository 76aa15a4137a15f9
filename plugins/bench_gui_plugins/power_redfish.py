"""Redfish power meter plugin: the BMC's chassis power over HTTPS.

``Chassis/{id}/EnvironmentMetrics`` → ``PowerWatts`` first, the legacy ``Chassis/{id}/Power`` →
``PowerControl[].PowerConsumedWatts`` as a fallback. The password is kept in the OS keyring
(service ``bench-gui``, user ``redfish:<user>@<host>``) and handed to the agent through its
environment; certificates are checked unless the plan sets ``verify_tls = false``.

The reader runs agent-side, on the same clock as the measured windows (see
:mod:`bench_gui.agent.power`); :meth:`open` runs it here for a test reading.
"""

from __future__ import annotations

from bench_gui.core.power import SCOPE_WALL
from bench_gui.wire.power_math import REDFISH_PASSWORD_ENV
from bench_gui_plugins.power_base import BuiltinMeterKind


class RedfishMeterKind(BuiltinMeterKind):
    name = "redfish"
    scope = SCOPE_WALL
    secret_kind = "redfish"
    password_env = REDFISH_PASSWORD_ENV
