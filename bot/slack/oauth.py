"""Multi-workspace installs: Bolt's OAuth flow over slack_sdk's SQLAlchemy stores.

With ``SLACK_CLIENT_ID``, ``SLACK_CLIENT_SECRET`` and ``SLACK_STATE_SECRET`` set, the app serves
``GET /slack/install`` (sets a state cookie and redirects to Slack's authorize page) and
``GET /slack/oauth_redirect`` (checks the state, calls ``oauth.v2.access`` at ``SLACK_API_URL``
and saves the installation). Installations and OAuth states live in the same database as the
state store, so every replica sees every workspace; each request is then answered with the bot
token installed for its team.

``SLACK_STATE_SECRET`` signs each ``state`` value (HMAC-SHA256), so a state that this
deployment did not issue is refused before the database is asked.
"""

from __future__ import annotations

import hashlib
import hmac
import logging

from slack_bolt.oauth.oauth_settings import OAuthSettings
from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
from slack_sdk.oauth.state_store import OAuthStateStore
from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore
from sqlalchemy.engine import Engine

from bot.settings import Settings
from bot.slack.manifest import load_manifest
from bot.storage.store import create_tables

__all__ = ["STATE_EXPIRATION_SECONDS", "SignedStateStore", "build_oauth_settings"]

log = logging.getLogger("gpu_advisor.oauth")

STATE_EXPIRATION_SECONDS = 600


class SignedStateStore(OAuthStateStore):
    """An OAuth state store whose states carry an HMAC of ``secret``; storage is delegated.

    Args:
        inner: where states are kept (shared by every replica), e.g. ``SQLAlchemyOAuthStateStore``.
        secret: ``SLACK_STATE_SECRET``.
    """

    def __init__(self, inner: OAuthStateStore, secret: str):
        self.inner = inner
        self._key = secret.encode("utf-8")

    @property
    def logger(self) -> logging.Logger:
        """The logger slack_sdk expects a state store to have."""
        return log

    def _sign(self, value: str) -> str:
        return hmac.new(self._key, value.encode("utf-8"), hashlib.sha256).hexdigest()[:32]

    def issue(self, *args, **kwargs) -> str:
        """A new state ``<random>.<signature>``, saved in the inner store.

        Returns:
            The state value for the authorize URL and the cookie.
        """
        raw = self.inner.issue(*args, **kwargs)
        signed = f"{raw}.{self._sign(raw)}"
        # The inner store keeps the raw value; the signature is checked before it is consulted.
        return signed

    def consume(self, state: str) -> bool:
        """True once for a state this deployment issued and that has not expired; False otherwise."""
        raw, _, signature = (state or "").rpartition(".")
        if not raw or not hmac.compare_digest(signature, self._sign(raw)):
            log.warning("OAuth state with a bad signature refused")
            return False
        return self.inner.consume(raw)


def bot_scopes() -> list[str]:
    """The bot scopes requested at install: those of slack-manifest.yaml."""
    return list(load_manifest()["oauth_config"]["scopes"]["bot"])


def build_oauth_settings(settings: Settings, engine: Engine) -> OAuthSettings:
    """Bolt's ``OAuthSettings`` for multi-workspace installs, with stores in ``engine``'s database.

    Creates the ``slack_installations``, ``slack_bots`` and ``slack_oauth_states`` tables if missing.
    Pass the result to :func:`bot.slack.app.build_app`; the app's client (on ``SLACK_API_URL``)
    then makes the ``oauth.v2.access`` call.

    Args:
        settings: needs ``SLACK_CLIENT_ID``, ``SLACK_CLIENT_SECRET`` and ``SLACK_STATE_SECRET``;
            ``SLACK_REDIRECT_URI`` is passed on when set.
        engine: the state store's engine (same database).

    Returns:
        The OAuth settings: install at ``/slack/install`` (redirects at once, no install page),
        redirect at ``/slack/oauth_redirect``, bot scopes from the manifest.

    Raises:
        ValueError: when one of the three variables is missing.
    """
    if not settings.multi_workspace:
        raise ValueError("SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET are all needed")
    client_id = settings.slack_client_id
    installation_store = SQLAlchemyInstallationStore(client_id=client_id, engine=engine,
                                                     logger=logging.getLogger("gpu_advisor.oauth.installations"))
    state_store = SQLAlchemyOAuthStateStore(expiration_seconds=STATE_EXPIRATION_SECONDS, engine=engine,
                                            logger=logging.getLogger("gpu_advisor.oauth.states"))
    create_tables(engine, installation_store.metadata)
    create_tables(engine, state_store.metadata)
    oauth = OAuthSettings(
        client_id=client_id,
        client_secret=settings.slack_client_secret.get_secret_value(),
        scopes=bot_scopes(),
        user_scopes=[],
        redirect_uri=settings.slack_redirect_uri,
        install_path="/slack/install",
        redirect_uri_path="/slack/oauth_redirect",
        install_page_rendering_enabled=False,
        installation_store=installation_store,
        state_store=SignedStateStore(state_store, settings.slack_state_secret.get_secret_value()),
        state_expiration_seconds=STATE_EXPIRATION_SECONDS,
        logger=logging.getLogger("gpu_advisor.oauth"),
    )
    # Bolt falls back to the SLACK_REDIRECT_URI variable itself, and an empty one (``SLACK_REDIRECT_URI=``
    # in an .env file) would send ``redirect_uri=`` to Slack: use exactly the validated setting.
    oauth.redirect_uri = settings.slack_redirect_uri
    oauth.authorize_url_generator.redirect_uri = settings.slack_redirect_uri
    return oauth
