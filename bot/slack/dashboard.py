"""The team dashboard's pages on ``errkb serve``: ``GET /dashboard``, Slack's way back ``GET /dashboard/oidc`` and
``POST /dashboard/signout``.

Without a session ``/dashboard`` starts Sign in with Slack (``bot.slack.oidc``); Slack sends the browser back to
``/dashboard/oidc``, which checks the state against the signed sign-in cookie, exchanges the code, lets in only a
member of a workspace that has installed errkb, and sets the session cookie (``bot.slack.sessions``). The page
then shows that workspace's numbers and nobody else's: the workspace is the session's, never the URL's.

The dashboard is on with OAuth (``SLACK_CLIENT_ID`` / ``SLACK_CLIENT_SECRET``: Sign in with Slack is the same
app's) and ``ERRKB_DASHBOARD_SECRET``; without them ``/dashboard`` says which setting is missing.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import secrets
from urllib.parse import urlsplit

import aiohttp
from aiohttp import web
from slack_sdk.oauth.installation_store.async_installation_store import AsyncInstallationStore

from bot import i18n
from bot.config import Settings
from bot.i18n import _
from bot.render.dashboard import dashboard_page, notice_page
from bot.service.dashboard import Dashboard
from bot.slack.oidc import SignInRefused, SignInWithSlack
from bot.slack.sessions import PATH, Cookies, Member

log = logging.getLogger(__name__)

CALLBACK_PATH = f"{PATH}/oidc"
SIGNOUT_PATH = f"{PATH}/signout"
WORKSPACE_PARAMS = ("team", "team_id", "workspace")  # a URL naming another workspace than the session's gets nothing
HEADERS = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; "
                               "frame-ancestors 'none'; base-uri 'none'",
    "Referrer-Policy": "no-referrer",  # the way back carries a code in its URL
    "X-Content-Type-Options": "nosniff",
}

def _html(body: str, status: int = 200) -> web.Response:
    return web.Response(text=body, status=status, content_type="text/html", charset="utf-8", headers=HEADERS)


class DashboardPages:
    def __init__(self, settings: Settings, dashboard: Dashboard, installations: AsyncInstallationStore | None,
                 session: aiohttp.ClientSession) -> None:
        self.dashboard = dashboard
        self.installations = installations
        self.redirect_uri = settings.redirect_uri
        self.cookies = Cookies(settings.dashboard_secret) if settings.dashboard_secret else None
        self.slack = (SignInWithSlack(settings.client_id, settings.client_secret, settings.api_url, session)
                      if settings.client_id and settings.client_secret else None)

    def mount(self, app: web.Application) -> None:
        if self.cookies is not None and self.slack is None:
            log.warning("ERRKB_DASHBOARD_SECRET is set, but the dashboard signs in with Slack through the OAuth app: "
                        "set SLACK_CLIENT_ID and SLACK_CLIENT_SECRET too; /dashboard stays off")
        app.router.add_get(PATH, self.page)
        app.router.add_get(CALLBACK_PATH, self.callback)
        app.router.add_post(SIGNOUT_PATH, self.sign_out)

    # --- the pages ----------------------------------------------------------------------------

    async def page(self, request: web.Request) -> web.StreamResponse:
        member = self.cookies.session(request) if self.cookies is not None else None
        with i18n.use_locale(self._locale(request, member)):
            off = self._off()
            if off is not None:
                return off
            if member is None:  # none yet, expired or forged: (back) to Slack
                return self._start(request)
            if any(request.query.get(key, member.team) != member.team for key in WORKSPACE_PARAMS):
                return _html(notice_page(_("Nothing here"), _("You can see only your own workspace's dashboard."),
                                         PATH, _("Your dashboard")), 404)
            if not await self._installed(member.team):
                gone = _("errkb is no longer installed in {team}.").format(team=member.team_name)
                response = _html(notice_page(_("errkb is not installed here"), gone), 403)
                Cookies.end(response)
                return response
            card = await self.dashboard.card(member.team)
            # drawing the plots takes a few hundred milliseconds: off the event loop, which keeps acking Slack
            page = _html(await asyncio.to_thread(dashboard_page, card, member.team_name, member.name, SIGNOUT_PATH))
            page.enable_compression()  # the SVG compresses about tenfold
            return page

    async def callback(self, request: web.Request) -> web.StreamResponse:
        with i18n.use_locale(self._locale(request, None)):
            off = self._off()
            if off is not None:
                return off
            assert self.cookies is not None and self.slack is not None
            started = self.cookies.sign_in(request)
            state, code = request.query.get("state", ""), request.query.get("code", "")
            if started is None or not hmac.compare_digest(started[0].encode(), state.encode()):
                log.warning("dashboard sign-in refused: %s", "no sign-in started in this browser" if started is None
                            else "the state does not match")
                return self._refused(_("This sign-in expired or did not start here."), 400)
            if request.query.get("error") or not code:
                return self._refused(_("The sign-in was cancelled in Slack."), 400)
            try:
                member = await self.slack.member(code, self._redirect_uri(request), started[1])
            except SignInRefused as refused:
                log.warning("dashboard sign-in refused: %s", refused.reason)
                return self._refused(_("Slack did not confirm who you are."), 403)
            if not await self._installed(member.team):
                log.warning("dashboard sign-in refused: workspace %s has not installed errkb", member.team)
                return self._refused(_("errkb is not installed in {team}: only members of a workspace that "
                                       "installed it can sign in.").format(team=member.team_name), 403)
            response = web.Response(status=303, headers={"Location": PATH, **HEADERS})
            self.cookies.start_session(response, member, self._secure(request))
            log.info("dashboard: a member of %s signed in", member.team)
            return response

    async def sign_out(self, request: web.Request) -> web.StreamResponse:
        with i18n.use_locale(self._locale(request, None)):
            response = _html(notice_page(_("Signed out"), _("You are signed out of errkb's dashboard."), PATH,
                                         _("Sign in with Slack")))
            Cookies.end(response)
            return response

    # --- helpers ------------------------------------------------------------------------------

    def _off(self) -> web.Response | None:
        """The page saying the dashboard is off, and which setting turns it on; None when it is on."""
        missing = ("ERRKB_DASHBOARD_SECRET" if self.cookies is None else
                   "SLACK_CLIENT_ID, SLACK_CLIENT_SECRET" if self.slack is None else None)
        if missing is None:
            return None
        return _html(notice_page(_("The dashboard is off"),
                                 _("Its operator has not set {settings}.").format(settings=missing)), 503)

    def _start(self, request: web.Request) -> web.StreamResponse:
        assert self.cookies is not None and self.slack is not None
        state, nonce = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        response = web.Response(status=302, headers={
            "Location": self.slack.authorize_url(state, nonce, self._redirect_uri(request)), **HEADERS})
        self.cookies.start_sign_in(response, state, nonce, self._secure(request))
        return response

    def _refused(self, message: str, status: int) -> web.Response:
        return _html(notice_page(_("Sign-in failed"), message, PATH, _("Sign in again")), status)

    async def _installed(self, team: str) -> bool:
        """Whether ``team`` has errkb installed now: asked of the store on every page (an uninstall counts at once)."""
        if self.installations is None:
            return False
        bot = await self.installations.async_find_bot(enterprise_id=None, team_id=team)
        return bot is not None and bool(bot.bot_token)

    def _redirect_uri(self, request: web.Request) -> str:
        """Where Slack sends the browser back: beside ``SLACK_REDIRECT_URI`` when set, else this request's origin
        (as a proxy in front forwards it). Slack accepts only the redirect URLs listed in the app's settings."""
        if self.redirect_uri:
            parts = urlsplit(self.redirect_uri)
            return f"{parts.scheme}://{parts.netloc}{CALLBACK_PATH}"
        scheme = request.headers.get("X-Forwarded-Proto", request.scheme).split(",")[0].strip()
        host = request.headers.get("X-Forwarded-Host", request.host).split(",")[0].strip()
        return f"{scheme}://{host}{CALLBACK_PATH}"

    def _secure(self, request: web.Request) -> bool:
        return self._redirect_uri(request).startswith("https://")

    @staticmethod
    def _locale(request: web.Request, member: Member | None) -> str:
        """``?locale=``, else the member's Slack locale, else the browser's first language."""
        asked = request.query.get("locale") or (member.locale if member is not None else None)
        return asked or request.headers.get("Accept-Language", "").split(",")[0].split(";")[0].strip() or "en"
