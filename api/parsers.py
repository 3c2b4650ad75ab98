"""The API's one request parser: JSON, bounded (docs/security.md, "Input bounds").

DRF's ``JSONParser`` hands the body to ``json.load``: JSON nested thousands of
levels deep raised ``RecursionError`` (a 500, in DEBUG with the traceback), and a
body sent without ``Content-Length`` was read whatever its size.
:class:`BoundedJSONParser` reads at most ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes
(more is ``413 request_too_large``) and parses with :func:`tables.wire.load_json`,
the reader the websockets use: deeper than :data:`tables.wire.MAX_JSON_DEPTH` is
``400 malformed_request`` like any other bad JSON; a string with NUL or a lone
surrogate (which no database text can hold) is ``400 invalid_text``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.utils.json import strict_constant

from tables.wire import MAX_JSON_DEPTH, UnstorableText, load_json

from .errors import ApiError, request_too_large


class BoundedJSONParser(parsers.JSONParser):
    """``application/json`` with a size and a depth limit; the codes stay the API's."""

    def parse(self, stream: Any, media_type: str | None = None,
              parser_context: dict[str, Any] | None = None) -> Any:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if stream is None:
            raise ParseError("JSON parse error - the body is empty.")
        raw = stream.read() if limit is None else stream.read(limit + 1)
        if limit is not None and len(raw) > limit:
            raise request_too_large(limit)
        encoding = parsers.get_encoding(parser_context or {})
        try:
            text = raw.decode(encoding)
            constant = strict_constant if self.strict else None  # NaN, Infinity: refused
            return load_json(text, MAX_JSON_DEPTH, parse_constant=constant)
        except UnstorableText as error:  # NUL or a lone surrogate in a string
            raise ApiError("invalid_text", str(error)) from None
        except ValueError as error:  # bad JSON, too deep, not the charset it claims
            raise ParseError(f"JSON parse error - {error}") from None
