"""One transaction of many prepared statements written at once (tables.pipeline, the
owners' group commit): every row written, or none; errors as psycopg raises them;
the connection usable afterwards; statements prepared once per parameter types."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import psycopg
import pytest
import pytest_asyncio
from django.db import connection
from django.utils import timezone
from psycopg.types.json import Jsonb

from tables import pipeline

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True),
              pytest.mark.asyncio]

UPDATE = "UPDATE t SET doc = %s, n = %s, at = %s WHERE id = %s"
GUARDED = "WITH w AS (UPDATE t SET n = n + 1 WHERE id = %s AND n = %s RETURNING 1) " \
          "SELECT 1 / count(*) FROM w"


@pytest_asyncio.fixture
async def conn() -> AsyncIterator[psycopg.AsyncConnection[Any]]:
    params = {k: v for k, v in connection.get_connection_params().items()
              if k not in ("cursor_factory", "context", "prepare_threshold")}
    async with await psycopg.AsyncConnection.connect(**params, autocommit=True) as conn:
        await conn.execute("CREATE TEMP TABLE t (id int PRIMARY KEY, doc jsonb, n bigint, "
                           "at timestamptz, note text)")
        await conn.execute("INSERT INTO t (id, n) SELECT g, 0 FROM generate_series(1, 50) g")
        yield conn


async def _rows(conn: psycopg.AsyncConnection[Any]) -> list[tuple[Any, ...]]:
    cursor = await conn.execute("SELECT id, doc, n, at, note FROM t ORDER BY id")
    return await cursor.fetchall()


async def test_every_row_of_every_statement_is_written(conn: Any) -> None:
    now = timezone.now()
    sent: list[bool] = []
    await pipeline.write(conn, [
        (UPDATE, [[Jsonb({"k": i, "s": "ä" * i}), i, now, i] for i in range(1, 41)]),
        ("INSERT INTO t (id, n, note) VALUES (%s, %s, %s)", [[100, 2 ** 40, "100%"]]),
        ("UPDATE t SET note = '%%' || %s WHERE id = %s", [["x", 41], [None, 42]]),
    ], sent=lambda: sent.append(True))
    rows = {row[0]: row for row in await _rows(conn)}
    assert sent == [True]
    assert all(rows[i][1:4] == ({"k": i, "s": "ä" * i}, i, now) for i in range(1, 41))
    assert rows[100][2:] == (2 ** 40, None, "100%")
    assert rows[41][4] == "%x" and rows[42][4] is None  # ('%' || NULL)
    assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE


async def test_a_failing_row_writes_nothing_and_raises_psycopgs_error(conn: Any) -> None:
    before = await _rows(conn)
    with pytest.raises(psycopg.errors.DivisionByZero):
        await pipeline.write(conn, [
            (UPDATE, [[None, 7, None, 1]]),
            (GUARDED, [[2, 0], [3, 5]]),  # table 3's version is not 5: 1 / 0
            (UPDATE, [[None, 9, None, 4]]),
        ])
    assert await _rows(conn) == before
    assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    with pytest.raises(psycopg.errors.UniqueViolation):  # another kind of error
        await pipeline.write(conn, [("INSERT INTO t (id, n) VALUES (%s, %s)", [[1, 1]])])
    await pipeline.write(conn, [(GUARDED, [[2, 0], [3, 0]])])  # the connection goes on
    rows = {row[0]: row[2] for row in await _rows(conn)}
    assert rows[1] == 0 and rows[2] == rows[3] == 1 and rows[4] == 0


async def test_statements_are_prepared_once_per_parameter_types(conn: Any) -> None:
    async def prepared() -> int:
        cursor = await conn.execute("SELECT count(*) FROM pg_prepared_statements")
        return int((await cursor.fetchone())[0])

    start = await prepared()
    for n in range(3):
        await pipeline.write(conn, [(UPDATE, [[None, n, None, 1], [None, n, None, 2]])])
    assert await prepared() == start + 1  # once, for three writes of two rows
    await pipeline.write(conn, [(UPDATE, [[None, 2 ** 62, None, 1]])])  # a wider integer
    assert {row[0]: row[2] for row in await _rows(conn)}[1] == 2 ** 62
    assert await prepared() in (start + 1, start + 2)  # (as psycopg types the value)


async def test_a_failure_keeps_the_statements_prepared_beside_psycopgs_own(conn: Any) -> None:
    """The owners' connections also prepare psycopg's own statements (the conflict's
    version read, ``prepare_threshold=0``). psycopg's ``rollback()`` then deallocates
    every statement of the session, ours too, and the next commit on the connection
    failed ("prepared statement does not exist"): seen after a second conflict in an
    overload run. A failure rolls back without touching psycopg's prepared state."""
    conn.prepare_threshold = 0
    await pipeline.write(conn, [(UPDATE, [[None, 1, None, 1]])])  # ours, prepared
    await conn.execute("SELECT id, n FROM t WHERE id = ANY(%s)", [[1, 2]])  # psycopg's
    for _ in range(2):
        with pytest.raises(psycopg.errors.DivisionByZero):
            await pipeline.write(conn, [(GUARDED, [[3, 5]])])
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    await pipeline.write(conn, [(UPDATE, [[None, 2, None, 1]])])  # still prepared
    await conn.execute("SELECT id, n FROM t WHERE id = ANY(%s)", [[1, 2]])
    assert {row[0]: row[2] for row in await _rows(conn)}[1] == 2
