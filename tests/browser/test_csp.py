"""The Content-Security-Policy in Chromium (docs/security.md).

The violation collector of conftest.py catches an inline script injected on purpose
(so its silence in every other browser test means something), and the pages outside
the game client, the API docs (Swagger UI) and the admin, run under the policy.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from .conftest import CspGuard


def test_the_collector_catches_an_injected_inline_script(server: Any, open_page: Any,
                                                         csp_guard: CspGuard) -> None:
    page = open_page("alice")
    response = page.goto("/lobby/")
    assert "script-src 'self'" in response.headers["content-security-policy"]
    page.evaluate("""() => {
        const script = document.createElement("script");
        script.textContent = "window.__inlineRan = true;";
        document.body.append(script);
        document.body.setAttribute("style", "outline: 1px solid red");
    }""")
    page.wait_for_function("window.__cspViolations.length >= 2")
    assert page.evaluate("window.__inlineRan") is None  # blocked, not run
    # Also after the page navigated away: the collector got them as they happened.
    page.goto("/account/")
    found = csp_guard.take()
    directives = {v.get("directive") for v in found}
    assert {"script-src-elem", "style-src-attr"} <= directives, found
    assert any("Content Security Policy" in v.get("console", "") for v in found), found
    # Styles set through the CSSOM are allowed: what static/js/dom.js does for style.
    page.evaluate("""() => { document.body.style.outline = "1px solid red"; }""")
    page.goto("/lobby/")
    assert csp_guard.take() == []


def test_bot_token_page_selects_the_token_on_focus(server: Any, open_page: Any) -> None:
    """The token field's select-on-focus (once an inline onfocus="") is in copy.js."""
    page = open_page("bob")
    response = page.goto("/account/")
    assert response.headers.get("content-security-policy")
    form = page.locator("form[action$='/account/bots/add/']")
    form.locator("input[name=name]").fill("CspBot")
    form.locator("button[type=submit]").click()
    token = page.locator("#token")
    expect(token).to_be_visible()
    page.get_by_role("heading", name="Bot created: CspBot").wait_for()
    token.focus()
    value = token.input_value()
    assert value and page.evaluate(
        "() => [document.activeElement.selectionStart, document.activeElement.selectionEnd]"
    ) == [0, len(value)]
    page.get_by_role("button", name="Copy").click()
    assert page.js_errors == []


def test_api_docs_and_admin_run_under_the_policy(server: Any, open_page: Any) -> None:
    page = open_page("root")
    response = page.goto("/api/v1/docs/")
    assert "style-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_selector(".swagger-ui .info .title")
    page.wait_for_selector(".opblock-tag-section")
    expect(page.locator(".opblock").first).to_be_visible()
    page.locator(".opblock-summary").first.click()  # open one operation
    page.wait_for_selector(".opblock-body")

    page.goto("/admin/")
    expect(page.locator("#site-name")).to_be_visible()
    for path in ("/admin/accounts/user/", "/admin/accounts/player/",
                 "/admin/accounts/ledgerentry/", "/admin/research/matchrun/"):
        page.goto(path)
        expect(page.locator("#changelist")).to_be_visible()
    page.goto("/admin/accounts/user/")
    page.locator("#result_list tbody a").first.click()  # a change form
    expect(page.locator("#content-main form")).to_be_visible()
    page.goto("/admin/accounts/user/add/")
    expect(page.locator("#content-main form")).to_be_visible()
    page.goto("/admin/accounts/player/")
    page.locator("#result_list tbody input.action-select").first.check()
    page.select_option("select[name=action]", "adjust_balance")
    page.locator("button[name=index]").click()
    expect(page.get_by_text("Post one adjustment ledger entry")).to_be_visible()
    assert page.js_errors == []
