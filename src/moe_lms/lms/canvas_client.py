"""A Canvas REST client that survives a misbehaving network and respects Canvas's rate limit.

- Token in ``Authorization: Bearer`` only (never in a URL), redacted from every message this module makes.
- HTTPS unless the host is loopback; pagination links are followed only on the same origin.
- Retries: 5xx and dropped connections with bounded exponential backoff and jitter, but only for requests that are
  safe to repeat. A create whose outcome is unknown raises :class:`Uncertain` instead: Canvas has no idempotency
  keys, so the caller must re-read and adopt the object before trying again (see ``canvas.Pusher``).
- Throttling: every response's ``X-Rate-Limit-Remaining`` steers how many requests may be in flight (each one
  reserves about 50 of a 600 budget); ``403 Forbidden (Rate Limit Exceeded)`` drops to one at a time and backs off.
  A throttled request was never run, so it is retried whatever its method.
"""

from __future__ import annotations

import ipaddress
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests
from requests.adapters import HTTPAdapter

from .. import __version__

RATE_LIMIT_BODY = "Rate Limit Exceeded"
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class CanvasError(Exception):
    """A failure to tell the user about; its message never contains the token."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class AuthError(CanvasError):
    """401: the token is invalid, expired or revoked, or its user may not do this."""


class NotFound(CanvasError):
    """404: no such course or object, or the token's user cannot see it."""


class Uncertain(CanvasError):
    """A write that may or may not have happened (its response was lost, or Canvas failed with a 5xx)."""


class Interrupted(CanvasError):
    """The push was stopped (Ctrl-C) while requests were queued."""


def is_loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_base_url(base_url: str) -> str:
    """The base URL without a trailing slash; refuses plain HTTP to anything but loopback (the token would leak)."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{base_url!r} is not an http(s) URL")
    if parts.scheme == "http" and not is_loopback(parts.hostname):
        raise ValueError(f"{base_url} uses plain HTTP; the token would travel unencrypted: use https://")
    return base_url.rstrip("/")


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 10  # tries per request, the first included
    base_delay: float = 0.5  # seconds; doubles per try
    max_delay: float = 30.0
    drain_rate: float = 10.0  # per second, as Canvas's rate-limit bucket drains: how fast a low budget refills

    def delay(self, attempt: int, rng: random.Random) -> float:
        """Exponential backoff with "equal jitter": half fixed, half random, so clients that failed together spread."""
        ceiling = min(self.max_delay, self.base_delay * 2**attempt)
        return rng.uniform(ceiling / 2, ceiling)


@dataclass
class Stats:
    requests: int = 0
    writes: int = 0
    retries: int = 0
    throttled: int = 0
    adopted: int = 0  # creates whose response was lost, found made on a re-read
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, **counts: int) -> None:
        with self._lock:
            for name, n in counts.items():
                setattr(self, name, getattr(self, name) + n)


class Budget:
    """How many requests may be in flight, following the rate-limit budget Canvas reports.

    Canvas reserves ``RESERVE`` per request in flight from a bucket whose high-water mark is ~600 and that drains
    at ``drain_rate`` per second; allowing one request per ``RESERVE`` of what remains (beyond one reserve of margin)
    keeps clear of the mark, and below one reserve the client waits for the bucket to drain.
    """

    RESERVE = 50.0

    def __init__(self, limit: int, stop: threading.Event, drain_rate: float = 10.0) -> None:
        self.max = max(1, limit)
        self.drain_rate = drain_rate
        self.allowed = self.max
        self.in_flight = 0
        self._not_before = 0.0
        self._cond = threading.Condition()
        self._stop = stop

    @contextmanager
    def slot(self) -> Iterator[None]:
        with self._cond:
            while self.in_flight >= self.allowed and not self._stop.is_set():
                self._cond.wait(0.25)
            self.in_flight += 1
            wait = self._not_before - time.monotonic()
        if wait > 0:
            self._stop.wait(wait)
        try:
            yield
        finally:
            with self._cond:
                self.in_flight -= 1
                self._cond.notify_all()

    def observe(self, remaining: float | None) -> None:
        if remaining is None:
            return
        with self._cond:
            self.allowed = max(1, min(self.max, int((remaining - self.RESERVE) // self.RESERVE)))
            if remaining < self.RESERVE:  # let the bucket drain before the next request
                self._not_before = time.monotonic() + (self.RESERVE - remaining) / self.drain_rate
            self._cond.notify_all()

    def throttled(self, pause: float) -> None:
        with self._cond:
            self.allowed = 1
            self._not_before = max(self._not_before, time.monotonic() + pause)


def _remaining(response: requests.Response) -> float | None:
    try:
        return float(response.headers["X-Rate-Limit-Remaining"])
    except (KeyError, ValueError):
        return None


def _json(response: requests.Response) -> Any:
    if response.status_code == 204 or not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        return None


def _canvas_message(response: requests.Response) -> str:
    """The human part of a Canvas error body, in any of its shapes (§8 of the contract)."""
    body = _json(response)
    if isinstance(body, dict):
        errors = body.get("errors")
        if isinstance(errors, list):
            return "; ".join(str(e.get("message", e)) if isinstance(e, dict) else str(e) for e in errors)
        if errors:
            return str(errors)
        if body.get("message"):
            return str(body["message"])
    return response.text.strip()[:300]


class CanvasClient:
    MAX_THROTTLES = 40  # 403 rate-limit answers tolerated per request: each one slows the whole client down

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        concurrency: int = 6,
        retry: RetryPolicy | None = None,
        timeout: tuple[float, float] = (10.0, 60.0),
        seed: int | None = None,
    ) -> None:
        if not token:
            raise ValueError("an API token is required")
        self.base_url = check_base_url(base_url)
        self._origin = urlsplit(self.base_url)[:2]
        self._token = token
        self.concurrency = max(1, concurrency)
        self.retry = retry or RetryPolicy()
        self.timeout = timeout
        self.stats = Stats()
        self._rng = random.Random(seed)
        self._rng_lock = threading.Lock()
        self._stop = threading.Event()
        self.budget = Budget(self.concurrency, self._stop, self.retry.drain_rate)
        self._local = threading.local()

    # -- plumbing ---------------------------------------------------------------------------------------------

    def redact(self, text: str) -> str:
        return text.replace(self._token, "[token]") if self._token else text

    def _session(self, authorised: bool = True) -> requests.Session:
        name = "api" if authorised else "plain"
        session: requests.Session | None = getattr(self._local, name, None)
        if session is None:
            session = requests.Session()
            session.trust_env = False  # no ~/.netrc credentials, no proxy surprises
            session.mount("https://", HTTPAdapter(max_retries=0))
            session.mount("http://", HTTPAdapter(max_retries=0))
            session.headers["User-Agent"] = f"moe-lms/{__version__}"
            if authorised:
                session.headers["Authorization"] = f"Bearer {self._token}"
                session.headers["Accept"] = "application/json"
            setattr(self._local, name, session)
        return session

    def url(self, path: str) -> str:
        return path if path.startswith(("http://", "https://")) else f"{self.base_url}{path}"

    def same_origin(self, url: str) -> bool:
        return urlsplit(url)[:2] == self._origin

    def stop(self) -> None:
        """Make queued and future requests raise Interrupted (requests already on the wire finish)."""
        self._stop.set()

    def pause(self, attempt: int) -> None:
        with self._rng_lock:
            delay = self.retry.delay(attempt, self._rng)
        if self._stop.wait(delay):
            raise Interrupted("interrupted")

    def _describe(self, method: str, url: str) -> str:
        return f"{method} {urlsplit(url).path}"

    def send_once(self, method: str, url: str, *, authorised: bool = True, **kwargs: Any) -> requests.Response:
        """One HTTP exchange within the rate budget, counted; raises requests' own exceptions."""
        if self._stop.is_set():
            raise Interrupted("interrupted")
        if authorised and not self.same_origin(url):
            raise CanvasError(f"refusing to send the token to {urlsplit(url).netloc} (not {self.base_url})")
        with self.budget.slot():
            if self._stop.is_set():
                raise Interrupted("interrupted")
            self.stats.add(requests=1, writes=int(method in WRITE_METHODS))
            response = self._session(authorised).request(method, url, timeout=self.timeout, **kwargs)
        self.budget.observe(_remaining(response))
        return response

    # -- requests ----------------------------------------------------------------------------------------------

    def request(self, method: str, path: str, *, idempotent: bool | None = None, **kwargs: Any) -> Any:
        """Send, retrying what is safe to retry, and return the parsed JSON body (None when empty)."""
        return _json(self.exchange(method, path, idempotent=idempotent, **kwargs))

    def exchange(self, method: str, path: str, *, idempotent: bool | None = None, **kwargs: Any) -> requests.Response:
        """The first successful response, after retrying what is safe to retry.

        ``idempotent`` defaults to True for everything but POST. A non-idempotent request whose outcome is
        unknown raises Uncertain; DELETE of something already gone counts as done.
        """
        safe = method != "POST" if idempotent is None else idempotent
        url = self.url(path)
        what = self._describe(method, url)
        last = ""
        failures = throttles = 0
        last = ""
        while failures < self.retry.attempts and throttles < self.MAX_THROTTLES:
            if failures or throttles:
                self.stats.add(retries=1)
            try:
                response = self.send_once(method, url, **kwargs)
            except requests.RequestException as exc:
                last = f"{type(exc).__name__}: {self.redact(str(exc))}"
                if not safe:
                    raise Uncertain(f"{what}: {last}") from None
                self.pause(failures)
                failures += 1
                continue
            status = response.status_code
            if status < 300 or (status == 404 and method == "DELETE"):
                return response
            if status == 403 and RATE_LIMIT_BODY in response.text:
                self.stats.add(throttled=1)
                with self._rng_lock:
                    pause = self.retry.delay(min(throttles, 6), self._rng)
                self.budget.throttled(pause)
                throttles += 1
                last = "403 Forbidden (Rate Limit Exceeded)"
                continue
            if status >= 500:
                last = f"{status} {self.redact(_canvas_message(response))}"
                if not safe:
                    raise Uncertain(f"{what}: {last}")
                self.pause(failures)
                failures += 1
                continue
            raise self._error(what, response)
        raise CanvasError(f"{what}: gave up after {failures + throttles} attempts; last: {last}")

    def _error(self, what: str, response: requests.Response) -> CanvasError:
        status, message = response.status_code, self.redact(_canvas_message(response))
        if status == 401:
            lowered = message.lower()
            if "access token" in lowered:  # Invalid, Expired or Revoked access token.
                return AuthError(f"Canvas rejected the token ({message}): check CANVAS_TOKEN or make a new one", status)
            if "authorization required" in lowered:
                return AuthError(f"Canvas saw no token ({message})", status)
            return AuthError(
                f"{what}: the token's user may not do this ({message}); it needs a teacher's or designer's role "
                "in the course",
                status,
            )
        if status == 404:
            return NotFound(f"{what}: not found ({message})", status)
        return CanvasError(f"{what}: {status} {message}", status)

    def get(self, path: str, **params: Any) -> Any:
        return self.request("GET", path, params=params or None)

    def get_all(self, path: str, **params: Any) -> list[Any]:
        """Every item of a paginated list, following ``Link: rel="next"`` (opaque, same origin only)."""
        items: list[Any] = []
        url: str | None = self.url(path)
        query: dict[str, Any] | None = {"per_page": 100, **params}
        while url is not None:
            response = self.exchange("GET", url, params=query)
            page = _json(response)
            if not isinstance(page, list):
                raise CanvasError(f"GET {urlsplit(url).path}: expected a list, got {type(page).__name__}")
            items.extend(page)
            url, query = response.links.get("next", {}).get("url"), None
        return items

    def post_file(self, url: str, fields: dict[str, Any], file_param: str, name: str, data: bytes) -> requests.Response:
        """A multipart upload to a file store: every field as given, the file last, and no token."""
        files = {file_param: (name, data, "application/zip")}
        return self.send_once("POST", url, authorised=False, data=fields, files=files, allow_redirects=False)

    @staticmethod
    def join(base: str, location: str) -> str:
        return urljoin(base, location)
