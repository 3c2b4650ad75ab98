"""One transaction of many prepared statements, written to PostgreSQL at once.

The group commit (:mod:`tables.owner`) writes a few statements, each with a row of
parameters per table. psycopg's pipeline sends them one by one: ``executemany``
hands each row to the socket on its own (a poll, a send, and PostgreSQL woken for
each row), a fifth of an owner's profile under load. Here every statement of the
transaction is queued in libpq's buffer, with ``BEGIN``, ``COMMIT`` and a sync,
and the buffer goes out in as few writes as the kernel takes; then the answers
are read. Measured at 700 tables: 11 % less CPU per action in the owners, 12 %
less in PostgreSQL, commits 30-50 % shorter (docs/benchmarks.md, eighteenth
session).

Parameters are adapted by psycopg's own :class:`~psycopg.adapt.Transformer` (the
dumpers ``execute`` would use); each statement is prepared once per connection
and parameter types, as psycopg's own prepared statements are.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Generator, Sequence
from typing import Any

import psycopg
from psycopg import errors, pq
from psycopg.adapt import PyFormat, Transformer
from psycopg.waiting import Wait

Statement = tuple[str, Sequence[Sequence[Any]]]
"""An SQL text with ``%s`` placeholders and a row of parameters per execution."""

_names = itertools.count()
_OK = frozenset({pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK})


class _Prepared:
    """The statements prepared on one connection: ``(sql, types)`` → name."""

    def __init__(self) -> None:
        self.names: dict[tuple[str, tuple[int, ...]], bytes] = {}
        self.queries: dict[str, bytes] = {}


async def write(conn: psycopg.AsyncConnection[Any], statements: list[Statement],
                sent: Callable[[], None] | None = None) -> None:
    """Run ``statements`` (every parameter row of each, in order) in one transaction
    on ``conn`` (idle, not in a transaction or pipeline). An error rolls everything
    back and is raised as psycopg raises it (``psycopg.errors.DivisionByZero``…).
    ``sent`` is called once everything is written to the socket."""
    prepared: _Prepared | None = getattr(conn, "_batch_prepared", None)
    if prepared is None:
        prepared = conn._batch_prepared = _Prepared()  # type: ignore[attr-defined]
    pgconn = conn.pgconn
    transformer = Transformer(conn)
    sends: list[tuple[bytes, bytes | None, Sequence[int], list[bytes | None] | None,
                      list[pq.Format] | None]] = []
    new: list[tuple[tuple[str, tuple[int, ...]], bytes]] = []
    for sql, rows in statements:
        query = prepared.queries.get(sql)
        if query is None:
            query = prepared.queries[sql] = _numbered(sql).encode()
        for row in rows:
            params = transformer.dump_sequence(row, [PyFormat.AUTO] * len(row))
            types = tuple(transformer.types)
            key = (sql, types)
            name = prepared.names.get(key)
            if name is None:
                name = f"_tables_{next(_names)}".encode()
                prepared.names[key] = name
                new.append((key, name))
                sends.append((name, query, types, None, None))  # a Parse of its own
            sends.append((name, None, (), list(params), list(transformer.formats)))
    try:
        failure = await conn.wait(_round_trip(pgconn, sends, sent))
    except BaseException:
        for key, _ in new:  # (whether each was prepared is not known: fresh names)
            prepared.names.pop(key, None)
        raise
    if failure is not None:
        for key, _ in new:
            prepared.names.pop(key, None)
        await conn.wait(_rollback(pgconn))
        raise errors.error_from_result(failure, encoding=conn.info.encoding)


def _numbered(sql: str) -> str:
    """``%s`` placeholders as PostgreSQL's ``$1``, ``$2``… (``%%`` as ``%``)."""
    parts = sql.split("%%")
    count = itertools.count(1)
    numbered = []
    for part in parts:
        pieces = part.split("%s")
        numbered.append("".join(piece + (f"${next(count)}" if i < len(pieces) - 1 else "")
                                for i, piece in enumerate(pieces)))
    return "%".join(numbered)


def _round_trip(pgconn: pq.abc.PGconn, sends: list[Any], sent: Callable[[], None] | None,
                ) -> Generator[Wait, Any, pq.abc.PGresult | None]:
    """Queue ``BEGIN``, every send, ``COMMIT`` and a sync; write them; read every
    answer. The first failed result (``None``: all went well)."""
    pgconn.enter_pipeline_mode()  # (on an error the caller drops the connection)
    pgconn.send_query_params(b"BEGIN", None)
    for name, query, types, params, formats in sends:
        if query is not None:
            pgconn.send_prepare(name, query, param_types=types)
        else:
            pgconn.send_query_prepared(name, params, param_formats=formats)
    pgconn.send_query_params(b"COMMIT", None)
    pgconn.pipeline_sync()
    yield from _flush(pgconn)
    if sent is not None:
        sent()
    failure = None
    for _ in range(len(sends) + 2):  # each command's result, then its end (None)
        result = yield from _result(pgconn)
        if failure is None and result.status not in _OK:
            failure = result  # (after an error, the rest are PIPELINE_ABORTED)
        while (yield from _result(pgconn, end=True)) is not None:
            pass
    sync = yield from _result(pgconn)
    if sync.status != pq.ExecStatus.PIPELINE_SYNC:  # (cannot be: the protocol)
        raise errors.InternalError(f"expected the pipeline's sync, got {sync.status}")
    pgconn.exit_pipeline_mode()
    return failure


def _rollback(pgconn: pq.abc.PGconn) -> Generator[Wait, Any, None]:
    """``ROLLBACK`` of the failed transaction, sent here: psycopg's ``rollback()``
    also deallocates every prepared statement of the session once psycopg has
    prepared one of its own there (the owners' connections do), ours too, and the
    next commit failed on a statement that no longer existed."""
    pgconn.send_query(b"ROLLBACK")
    yield from _flush(pgconn)
    failure = None
    while (result := (yield from _result(pgconn, end=True))) is not None:
        if result.status != pq.ExecStatus.COMMAND_OK:
            failure = failure or result
    if failure is not None:  # (the caller drops the connection)
        raise errors.error_from_result(failure)


def _flush(pgconn: pq.abc.PGconn) -> Generator[Wait, Any, None]:
    """Write everything queued to the socket, reading meanwhile (the server may wait
    for its answers to be read before it takes more)."""
    while pgconn.flush():
        yield Wait.RW
        pgconn.consume_input()


def _result(pgconn: pq.abc.PGconn, *, end: bool = False,
            ) -> Generator[Wait, Any, Any]:
    """The next result (``end``: or ``None``, a command's end), reading as needed."""
    while pgconn.is_busy():
        yield Wait.R
        pgconn.consume_input()
    result = pgconn.get_result()
    if result is None and not end:
        raise errors.InternalError("a pipeline result is missing")
    return result
