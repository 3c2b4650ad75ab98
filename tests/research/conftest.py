from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture
def carol(db: None) -> Any:
    from accounts.models import Role
    from tests.conftest import _make_user

    return _make_user("carol", Role.PLAYER)
