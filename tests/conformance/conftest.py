"""The end-to-end conformance tests reuse the SDK tests' real Daphne (tests/sdk/conftest.py)."""

from tests.sdk.conftest import server

__all__ = ["server"]
