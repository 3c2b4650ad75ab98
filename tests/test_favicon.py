"""The site's icon: /favicon.ico answers (no 404 on every page) and pages link the SVG."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_favicon_ico_is_served() -> None:
    response = Client().get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/x-icon"
    assert response.content[:4] == b"\0\0\1\0"  # an ICO header
    assert "max-age" in response["Cache-Control"]


def test_pages_link_the_svg_icon_and_it_is_found() -> None:
    from django.contrib.staticfiles import finders

    page = Client().get("/").content.decode()
    assert 'rel="icon"' in page and "favicon" in page and 'type="image/svg+xml"' in page
    assert finders.find("favicon.svg")
