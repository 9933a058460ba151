"""GitHub's REST API, as much of it as ``errkb ci --from-github-run`` needs: the jobs of a workflow run, the
logs of the failed ones, and one pull-request comment kept up to date.

Plain ``urllib`` (no session to manage, proxies from the environment). The token goes only to the API:
a job's log is answered with a redirect to a pre-signed URL on another host, which is followed without it.
"""

from __future__ import annotations

import json
import re
import shutil
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, BinaryIO
from urllib.parse import urlsplit

from bot.errors import ErrkbError

API_URL = "https://api.github.com"
API_VERSION = "2022-11-28"
MARKER = "<!-- errkb -->"  # the hidden line that marks errkb's own pull-request comment
PER_PAGE = 100
TIMEOUT = 60.0
_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="next"')


class GitHubError(ErrkbError):
    """An API call GitHub refused or that could not be made; ``status`` 0 when no answer came."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Job:
    id: int
    name: str
    status: str
    conclusion: str | None
    html_url: str | None = None

    @property
    def failed(self) -> bool:
        return self.conclusion == "failure"


# What a refusal usually means, by the kind of call: the permission the workflow's token lacks.
_HINTS = {
    "jobs": "the token needs `actions: read` (permissions: actions: read)",
    "logs": "the token needs `actions: read`; a job's log is kept only as long as the run's retention",
    "comments": "the token needs `pull-requests: write` (permissions: pull-requests: write)",
}


class GitHub:
    """One repository's API, with the workflow's token."""

    def __init__(self, repository: str, token: str, api_url: str | None = None, timeout: float = TIMEOUT) -> None:
        if repository.count("/") != 1 or not all(repository.split("/")):
            raise GitHubError(f"GITHUB_REPOSITORY: {repository!r} is not owner/name")
        self.repository = repository
        self.token = token
        self.api_url = (api_url or API_URL).rstrip("/")
        self.timeout = timeout

    # --- calls ------------------------------------------------------------------------------

    def _request(self, method: str, url: str, body: Any = None) -> urllib.request.Request:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Accept", "application/vnd.github+json")
        request.add_header("X-GitHub-Api-Version", API_VERSION)
        request.add_header("User-Agent", "errkb")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        # an unredirected header is not carried to the host a redirect names (a job log's pre-signed URL)
        request.add_unredirected_header("Authorization", f"Bearer {self.token}")
        return request

    def _open(self, request: urllib.request.Request, kind: str) -> Any:
        try:
            return urllib.request.urlopen(request, timeout=self.timeout)
        except urllib.error.HTTPError as exc:
            message = _message(exc)
            hint = f" ({_HINTS[kind]})" if exc.code in (401, 403, 404) else ""
            raise GitHubError(f"GitHub API: {request.get_method()} {urlsplit(request.full_url).path}: "
                              f"{exc.code} {message}{hint}", exc.code) from exc
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise GitHubError(f"GitHub API: cannot reach {self.api_url}: {reason}") from exc

    def _call(self, method: str, url: str, kind: str, body: Any = None) -> tuple[Any, str | None]:
        """The JSON answer of one call, and the next page's URL when there is one."""
        with self._open(self._request(method, url, body), kind) as response:
            data = json.loads(response.read() or b"null")
            found = _NEXT.search(response.headers.get("Link") or "")
        return data, found.group(1) if found else None

    def _url(self, path: str) -> str:
        return f"{self.api_url}/repos/{self.repository}{path}"

    def _pages(self, path: str, kind: str, key: str | None = None) -> list[Any]:
        items: list[Any] = []
        url: str | None = self._url(f"{path}?per_page={PER_PAGE}")
        while url is not None:
            data, url = self._call("GET", url, kind)
            page = data.get(key) if key and isinstance(data, dict) else data
            if not isinstance(page, list):
                raise GitHubError(f"GitHub API: GET {path}: unexpected answer")
            items += page
        return items

    # --- runs and jobs --------------------------------------------------------------------

    def jobs(self, run_id: str) -> list[Job]:
        """Every job of the run (its latest attempt), in the API's order."""
        return [Job(int(j["id"]), str(j.get("name") or j["id"]), str(j.get("status") or ""), j.get("conclusion"),
                    j.get("html_url"))
                for j in self._pages(f"/actions/runs/{run_id}/jobs", "jobs", "jobs")]

    def failed_jobs(self, run_id: str) -> list[Job]:
        return [job for job in self.jobs(run_id) if job.failed]

    def download_log(self, job_id: int, out: BinaryIO) -> None:
        """Copy the plain-text log of job ``job_id`` into ``out`` (the redirect it answers with is followed)."""
        request = self._request("GET", self._url(f"/actions/jobs/{job_id}/logs"))
        with self._open(request, "logs") as response:
            shutil.copyfileobj(response, out, 1 << 20)

    # --- the pull-request comment -----------------------------------------------------------

    def upsert_comment(self, number: int, body: str, create: bool = True) -> tuple[str, int | None]:
        """Errkb's one comment on issue or pull request ``number``, carrying :data:`MARKER`: updated in place
        when there is one, else posted (unless not ``create``). Returns (``updated``/``created``/``none``, id)."""
        body = body if MARKER in body else f"{MARKER}\n{body}"
        comments = self._pages(f"/issues/{number}/comments", "comments")
        mine = next((c for c in comments if MARKER in str(c.get("body") or "")), None)
        if mine is not None:
            self._call("PATCH", self._url(f"/issues/comments/{int(mine['id'])}"), "comments", {"body": body})
            return "updated", int(mine["id"])
        if not create:
            return "none", None
        data, _ = self._call("POST", self._url(f"/issues/{number}/comments"), "comments", {"body": body})
        return "created", int(data["id"]) if isinstance(data, dict) and "id" in data else None


def _message(exc: urllib.error.HTTPError) -> str:
    try:
        data = json.loads(exc.read() or b"{}")
    except (ValueError, OSError):
        return str(exc.reason)
    return str(data.get("message") or exc.reason) if isinstance(data, dict) else str(exc.reason)


def pull_request_number(event: dict[str, Any]) -> int | None:
    """The pull request a workflow event is about: ``pull_request`` / ``pull_request_target`` events, or a
    ``workflow_run`` event whose run was for one; None for any other."""
    pr = event.get("pull_request")
    if isinstance(pr, dict) and isinstance(pr.get("number"), int):
        return int(pr["number"])
    run = event.get("workflow_run")
    if isinstance(run, dict):
        prs = run.get("pull_requests") or []
        if prs and isinstance(prs[0], dict) and isinstance(prs[0].get("number"), int):
            return int(prs[0]["number"])
    if isinstance(event.get("issue"), dict) and isinstance(event["issue"].get("pull_request"), dict):
        number = event["issue"].get("number")
        return int(number) if isinstance(number, int) else None
    return None
