"""Template copies: make one, restore from it, and refuse clearly when sessions are in the way."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from bench_gui.engines.postgresql.agent import template


def test_reset_restores_the_built_data(tpcc_build: Any) -> None:
    name = "tpcc_agent_reset"
    uri = tpcc_build.uri_for(name)
    template.reset_from_template(tpcc_build.admin_uri, name, tpcc_build.template)
    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute("DELETE FROM item WHERE i_id <= 10")
    # a session left open on the database is ended by the reset
    lingering = psycopg.connect(uri, autocommit=True)
    try:
        template.reset_from_template(tpcc_build.admin_uri, name, tpcc_build.template)
        with pytest.raises(psycopg.OperationalError):
            lingering.execute("SELECT 1")
    finally:
        lingering.close()
    with psycopg.connect(uri, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM item").fetchone() == (100_000,)


def test_make_template_refuses_a_connected_database(tpcc_build: Any) -> None:
    name = "tpcc_agent_busy"
    template.reset_from_template(tpcc_build.admin_uri, name, tpcc_build.template)
    with psycopg.connect(tpcc_build.uri_for(name), application_name="busy-test") as conn:
        pid = conn.info.backend_pid
        with pytest.raises(template.TemplateError, match=f"pid {pid}.*busy-test"):
            template.make_template(tpcc_build.admin_uri, name, name + "_tpl")


def test_make_template_replaces_an_older_template(tpcc_build: Any) -> None:
    name, copy = "tpcc_agent_src", "tpcc_agent_src_tpl"
    template.reset_from_template(tpcc_build.admin_uri, name, tpcc_build.template)
    template.make_template(tpcc_build.admin_uri, name, copy)
    with psycopg.connect(tpcc_build.uri_for(name), autocommit=True) as conn:
        conn.execute("DELETE FROM warehouse WHERE w_id = 2")
    template.make_template(tpcc_build.admin_uri, name, copy)
    with psycopg.connect(tpcc_build.uri_for(copy), autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM warehouse").fetchone() == (1,)


def test_reset_refuses_a_busy_or_missing_template(tpcc_build: Any) -> None:
    name = "tpcc_agent_keep"
    template.reset_from_template(tpcc_build.admin_uri, name, tpcc_build.template)
    with pytest.raises(template.TemplateError, match="does not exist"):
        template.reset_from_template(tpcc_build.admin_uri, name, "no_such_template")
    with (
        psycopg.connect(tpcc_build.uri_for(tpcc_build.template)),
        pytest.raises(template.TemplateError, match="session"),
    ):
        template.reset_from_template(tpcc_build.admin_uri, name, tpcc_build.template)
    # the database was left alone both times
    with psycopg.connect(tpcc_build.uri_for(name)) as conn:
        assert conn.execute("SELECT count(*) FROM warehouse").fetchone() == (2,)


def test_bad_names_and_admin_database(tpcc_build: Any) -> None:
    with pytest.raises(template.TemplateError, match="different name"):
        template.make_template(tpcc_build.admin_uri, "x", "x")
    with pytest.raises(template.TemplateError, match="admin connection"):
        template.reset_from_template(tpcc_build.uri, tpcc_build.database, tpcc_build.template)
