"""Helpers and fixtures shared by every test folder.

The fixture modules (``isolation``, ``pg``, ``ssh``, ``loop``) are plugins: the root
``tests/conftest.py`` loads them through ``pytest_plugins``, so any test can ask for their
fixtures by name. The other modules are plain helpers a test imports (``seed_sessions``,
``power_log_session``, ``powercap_tree``, ``redfish_service``, ``wait``). The data the tests
read is here too, part of the repository (``hammerdb/hammer.DB``, ``redfish/``, ``thirdparty/``):
a fresh clone needs nothing beside it.
"""
