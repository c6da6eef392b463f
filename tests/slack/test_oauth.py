"""Multi-workspace installs: Bolt's OAuth flow against the mock Web API, stores in PostgreSQL."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from urllib.parse import parse_qs, urlparse

import pytest
from sqlalchemy import text

from bot.settings import Settings
from bot.slack.app import build_app
from bot.slack.oauth import SignedStateStore, build_oauth_settings
from bot.slack.runner import MissingSettingsError, check_settings, start_http_server
from bot.storage.store import Store
from tests.slack.conftest import SIGNING_SECRET, RunningApp
from tests.slack.mock_web_api import TEAM_ID

CLIENT_ID = "1111.2222"
CLIENT_SECRET = "client-secret-value"
STATE_SECRET = "state-secret-0123456789abcdef"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
    opener = urllib.request.build_opener(_NoRedirect)
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with opener.open(req, timeout=10) as resp:
            return resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read().decode()


@pytest.fixture
def oauth_app(pg_schema, mock_slack, answer_pool):
    settings = Settings(slack_signing_secret=SIGNING_SECRET, slack_api_url=mock_slack.url, slack_client_id=CLIENT_ID,
                        slack_client_secret=CLIENT_SECRET, slack_state_secret=STATE_SECRET)
    check_settings(settings, "http")
    store = Store(engine=pg_schema.engine)
    oauth_settings = build_oauth_settings(settings, store.engine)
    app = build_app(settings, store, oauth_settings=oauth_settings, answers=answer_pool)
    server, _ = start_http_server(app, store, host="127.0.0.1", port=0)
    running = RunningApp(f"http://127.0.0.1:{server.server_port}", mock_slack, store)
    yield running, oauth_settings, pg_schema
    server.shutdown()
    server.server_close()


def _install(running: RunningApp) -> tuple[str, str]:
    """GET /slack/install; returns (state, cookie header value)."""
    status, headers, _ = _get(running.base_url + "/slack/install")
    assert status == 302
    location = urlparse(headers["location"])
    assert (location.scheme, location.netloc, location.path) == ("https", "slack.com", "/oauth/v2/authorize")
    query = parse_qs(location.query)
    assert query["client_id"] == [CLIENT_ID]
    assert set(query["scope"][0].split(",")) >= {"app_mentions:read", "chat:write", "commands", "im:history"}
    assert "redirect_uri" not in query  # SLACK_REDIRECT_URI unset: Slack uses the registered one
    state = query["state"][0]
    cookie = headers["set-cookie"].split(";")[0]
    assert cookie == f"slack-app-oauth-state={state}"
    return state, cookie


def test_install_then_redirect_stores_the_installation_and_answers_with_its_token(oauth_app):
    running, oauth_settings, schema = oauth_app
    state, cookie = _install(running)

    status, _, body = _get(f"{running.base_url}/slack/oauth_redirect?code=abc123&state={state}",
                           headers={"Cookie": cookie})
    assert status == 200, body
    call = running.mock.wait_for("oauth.v2.access")[0]
    assert call.params["code"] == "abc123"
    assert call.headers["authorization"].startswith("Basic ")  # client id and secret, never in the query

    installation = oauth_settings.installation_store.find_installation(enterprise_id=None, team_id=TEAM_ID)
    assert installation is not None
    assert installation.bot_token == "xoxb-installed-token"
    assert installation.team_id == TEAM_ID
    with schema.engine.connect() as conn:
        rows = conn.execute(text("SELECT team_id, bot_token FROM slack_installations")).all()
    assert rows == [(TEAM_ID, "xoxb-installed-token")]

    # A signed event from that workspace is answered with the installed bot token.
    running.event({"type": "app_mention", "user": "U0000001", "text": "<@UBOT0001> price of 8x H100",
                   "ts": "1764417000.000100", "channel": "C0000001", "event_ts": "1764417000.000100"}, "EvOauth1")
    post = running.mock.wait_for("chat.postMessage")[0]
    assert post.headers["authorization"] == "Bearer xoxb-installed-token"


def test_app_uninstalled_deletes_the_installation(oauth_app):
    running, oauth_settings, schema = oauth_app
    state, cookie = _install(running)
    assert _get(f"{running.base_url}/slack/oauth_redirect?code=abc123&state={state}", headers={"Cookie": cookie})[0] == 200
    assert oauth_settings.installation_store.find_installation(enterprise_id=None, team_id=TEAM_ID) is not None
    # Bolt's token revocation listeners (App.enable_token_revocation_listeners); acked 200, not retried
    status, _ = running.event({"type": "app_uninstalled"}, "EvUninstall1")
    assert status == 200
    assert oauth_settings.installation_store.find_installation(enterprise_id=None, team_id=TEAM_ID) is None
    with schema.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM slack_installations")).scalar() == 0


def test_redirect_without_the_state_cookie_is_refused(oauth_app):
    running, _, _ = oauth_app
    state, _cookie = _install(running)
    status, _, _ = _get(f"{running.base_url}/slack/oauth_redirect?code=abc123&state={state}")
    assert status == 400
    assert running.mock.calls_to("oauth.v2.access") == []


def test_a_state_this_deployment_did_not_sign_is_refused(oauth_app):
    running, oauth_settings, _ = oauth_app
    forged = "00000000-0000-0000-0000-000000000000.0123456789abcdef0123456789abcdef"
    status, _, _ = _get(f"{running.base_url}/slack/oauth_redirect?code=abc123&state={forged}",
                        headers={"Cookie": f"slack-app-oauth-state={forged}"})
    assert status == 401
    assert running.mock.calls_to("oauth.v2.access") == []
    store = oauth_settings.state_store
    assert isinstance(store, SignedStateStore)
    state = store.issue()
    assert store.consume(state) is True
    assert store.consume(state) is False  # once only


def test_state_is_shared_by_replicas_through_the_database(oauth_app):
    running, oauth_settings, schema = oauth_app
    other = build_oauth_settings(Settings(slack_signing_secret=SIGNING_SECRET, slack_api_url=running.mock.url,
                                          slack_client_id=CLIENT_ID, slack_client_secret=CLIENT_SECRET,
                                          slack_state_secret=STATE_SECRET), schema.engine)
    state = oauth_settings.state_store.issue()
    assert other.state_store.consume(state) is True


@pytest.mark.parametrize("env, message", [
    ({"slack_client_id": CLIENT_ID}, "missing SLACK_CLIENT_SECRET, SLACK_STATE_SECRET"),
    ({"slack_client_id": CLIENT_ID, "slack_client_secret": "x", "slack_state_secret": STATE_SECRET,
      "slack_bot_token": "xoxb-1"}, "not both"),
])
def test_oauth_settings_must_be_complete_and_exclusive(env, message):
    settings = Settings(slack_signing_secret=SIGNING_SECRET, **env)
    with pytest.raises(MissingSettingsError, match=message):
        check_settings(settings, "http")


def test_socket_mode_cannot_serve_oauth_installs():
    settings = Settings(slack_app_token="xapp-1", slack_client_id=CLIENT_ID, slack_client_secret="x",
                        slack_state_secret=STATE_SECRET)
    with pytest.raises(MissingSettingsError, match="need HTTP mode"):
        check_settings(settings, "socket")


def test_installation_page_body_has_no_secrets(oauth_app):
    running, _, _ = oauth_app
    status, headers, body = _get(running.base_url + "/slack/install")
    assert CLIENT_SECRET not in json.dumps(headers) + body
    assert STATE_SECRET not in json.dumps(headers) + body
