"""A fake GitHub REST API on 127.0.0.1: real HTTP, records every call.

Point errkb at it with ``GITHUB_API_URL`` (``FakeGitHub.api_url``). It serves one repository's run jobs
(paginated by ``per_page``, with a ``Link: rel="next"`` header as GitHub sends), each job's log as GitHub does
(``302`` to a pre-signed URL on the "blob" path, which it also serves and which wants no token), and the
issue-comment endpoints a pull request's conversation uses. ``/readyz`` answers 200 (an ``errkb serve``
stand-in when ``ready`` is set).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.support.serving import serve

REPOSITORY = "acme/model"
TOKEN = "ghs_fake_workflow_token"
RUN_ID = 4242


@dataclass
class Call:
    method: str
    path: str
    token: str | None  # the bearer token sent, None when none
    body: Any = None
    query: dict[str, str] = field(default_factory=dict)


@dataclass
class FakeJob:
    id: int
    name: str
    conclusion: str | None  # "success", "failure", None (in progress)
    log: bytes = b""


class FakeGitHub:
    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.jobs: dict[int, list[FakeJob]] = {}  # run id → jobs
        self.comments: dict[int, list[dict[str, Any]]] = {}  # issue number → comments
        self._ids = itertools.count(9001)
        self._runner: web.AppRunner | None = None
        self.base_url = ""
        self.ready = False

    @property
    def api_url(self) -> str:
        return self.base_url

    async def start(self) -> FakeGitHub:
        app = web.Application()
        r = app.router
        r.add_get("/repos/{owner}/{repo}/actions/runs/{run}/jobs", self._jobs)
        r.add_get("/repos/{owner}/{repo}/actions/jobs/{job}/logs", self._log_redirect)
        r.add_get("/blob/logs/{job}.txt", self._log)
        r.add_get("/repos/{owner}/{repo}/issues/{number}/comments", self._list_comments)
        r.add_post("/repos/{owner}/{repo}/issues/{number}/comments", self._create_comment)
        r.add_patch("/repos/{owner}/{repo}/issues/comments/{id}", self._update_comment)
        r.add_get("/readyz", self._ready)
        self._runner, self.base_url = await serve(app)
        return self

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    def add_job(self, name: str, conclusion: str | None, log: bytes = b"", run_id: int = RUN_ID) -> FakeJob:
        job = FakeJob(next(self._ids), name, conclusion, log)
        self.jobs.setdefault(run_id, []).append(job)
        return job

    def called(self, method: str, path_part: str = "") -> list[Call]:
        return [c for c in self.calls if c.method == method and path_part in c.path]

    # --- the server ---------------------------------------------------------------------------

    async def _record(self, request: web.Request) -> Call:
        auth = request.headers.get("Authorization", "")
        body = await request.json() if request.can_read_body else None
        call = Call(request.method, request.path, auth.removeprefix("Bearer ") if auth else None, body,
                    dict(request.query))
        self.calls.append(call)
        return call

    def _authorised(self, request: web.Request, call: Call) -> web.Response | None:
        if call.token != TOKEN:
            return web.json_response({"message": "Bad credentials"}, status=401)
        if f"{request.match_info['owner']}/{request.match_info['repo']}" != REPOSITORY:
            return web.json_response({"message": "Not Found"}, status=404)
        return None

    async def _jobs(self, request: web.Request) -> web.Response:
        call = await self._record(request)
        if (refused := self._authorised(request, call)) is not None:
            return refused
        jobs = self.jobs.get(int(request.match_info["run"]))
        if jobs is None:
            return web.json_response({"message": "Not Found"}, status=404)
        per_page = int(request.query.get("per_page", "30"))
        page = int(request.query.get("page", "1"))
        shown = jobs[(page - 1) * per_page: page * per_page]
        headers = {}
        if page * per_page < len(jobs):
            headers["Link"] = (f'<{self.base_url}{request.path}?per_page={per_page}&page={page + 1}>; rel="next", '
                               f'<{self.base_url}{request.path}?per_page={per_page}&page=1>; rel="first"')
        return web.json_response({"total_count": len(jobs), "jobs": [
            {"id": j.id, "run_id": int(request.match_info["run"]), "name": j.name,
             "status": "completed" if j.conclusion else "in_progress", "conclusion": j.conclusion,
             "html_url": f"https://github.com/{REPOSITORY}/actions/runs/{request.match_info['run']}/job/{j.id}"}
            for j in shown]}, headers=headers)

    def _job(self, job_id: int) -> FakeJob | None:
        return next((j for jobs in self.jobs.values() for j in jobs if j.id == job_id), None)

    async def _log_redirect(self, request: web.Request) -> web.Response:
        call = await self._record(request)
        if (refused := self._authorised(request, call)) is not None:
            return refused
        job = self._job(int(request.match_info["job"]))
        if job is None or job.conclusion is None:
            return web.json_response({"message": "Not Found"}, status=404)
        raise web.HTTPFound(f"{self.base_url}/blob/logs/{job.id}.txt?sig=presigned")

    async def _log(self, request: web.Request) -> web.Response:
        await self._record(request)
        job = self._job(int(request.match_info["job"]))
        if job is None or request.query.get("sig") != "presigned":
            return web.Response(status=403, text="AuthenticationFailed")
        return web.Response(body=job.log, content_type="text/plain")

    async def _list_comments(self, request: web.Request) -> web.Response:
        call = await self._record(request)
        if (refused := self._authorised(request, call)) is not None:
            return refused
        return web.json_response(self.comments.get(int(request.match_info["number"]), []))

    async def _create_comment(self, request: web.Request) -> web.Response:
        call = await self._record(request)
        if (refused := self._authorised(request, call)) is not None:
            return refused
        comment = {"id": next(self._ids), "body": call.body["body"], "user": {"login": "github-actions[bot]"}}
        self.comments.setdefault(int(request.match_info["number"]), []).append(comment)
        return web.json_response(comment, status=201)

    async def _update_comment(self, request: web.Request) -> web.Response:
        call = await self._record(request)
        if (refused := self._authorised(request, call)) is not None:
            return refused
        comment_id = int(request.match_info["id"])
        for comments in self.comments.values():
            for comment in comments:
                if comment["id"] == comment_id:
                    comment["body"] = call.body["body"]
                    return web.json_response(comment)
        return web.json_response({"message": "Not Found"}, status=404)

    async def _ready(self, request: web.Request) -> web.Response:
        await self._record(request)
        return web.Response(status=200 if self.ready else 503, text="ready" if self.ready else "not ready")
