"""The real services the tests start for themselves (tests/services.py): they start, answer, and
are the servers the brief names (PostgreSQL over TCP with a password; Redis without persistence)."""

from __future__ import annotations

import psycopg
import pytest


def test_redis_starts_and_answers_ping(redis_server):
    with redis_server.client() as r:
        assert r.ping() is True
        r.set("tableassist:probe", "1")
        assert r.get("tableassist:probe") == b"1"
        assert r.config_get("save") == {"save": ""}  # nothing written to disk


def test_postgres_starts_and_wants_the_password(postgres):
    db = postgres.new_database()
    with psycopg.connect(postgres.url(db), autocommit=True) as conn:
        assert conn.execute("SELECT current_user, current_database()").fetchone() == \
            (postgres.USER, db)
        assert conn.execute("SHOW listen_addresses").fetchone()[0] == "127.0.0.1"
        assert conn.execute("SHOW synchronous_commit").fetchone()[0] == "on"
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(postgres.url(db, password="wrong"))
