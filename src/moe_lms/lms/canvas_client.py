"""A Canvas REST client that survives a misbehaving network, a hostile server and Canvas's rate limit.

Every request goes through one function (:meth:`CanvasClient.send_once`), which applies the whole policy:

- Token in ``Authorization: Bearer`` only (never in a URL), and only to the origin of ``--base-url``, which is
  checked with the very parser that connects (urllib3's); redacted from every message, whatever its case or spacing.
- HTTPS unless the host is loopback.
- A connect and a read timeout, and an overall deadline per request, so a server that trickles a byte at a time
  cannot hold a push forever; the answer is streamed and reading stops at a size cap.
- Redirects are never followed by requests itself: a GET may follow one to the same origin (as Canvas answers
  some URLs); a write, or anything carrying the token to another origin, is refused.
- Pagination follows ``Link: rel="next"`` on the same origin, never back to a page already read, up to a cap.
- Every answer moe-lms reads is checked against a pydantic model of its shape (``canvas_shapes``).
- Retries: 5xx and dropped connections with bounded exponential backoff and jitter, but only for requests that are
  safe to repeat, each one told as it happens (``notify``). A create whose outcome is unknown raises
  :class:`Uncertain` instead: Canvas has no idempotency keys, so the caller must re-read and adopt the object
  before trying again (see ``canvas.Pusher``). An unreachable server (refused, unknown host, TLS failure) is not
  retried: it fails at once with :class:`Unreachable`.
- Throttling: every response's ``X-Rate-Limit-Remaining`` steers how many requests may be in flight (each one
  reserves about 50 of a 600 budget); ``403 Forbidden (Rate Limit Exceeded)`` drops to one at a time and backs off.
  A throttled request was never run, so it is retried whatever its method.

This module must not know banks, questions or what a push sends (that is :mod:`moe_lms.lms.canvas` and
:mod:`moe_lms.formats.canvas`): it moves requests and checks answers' shapes.

Why it is over 700 lines (issue 19): it is the whole network policy, and one reader must be able to check in one
file that no request escapes it (every request through ``send_once``, the socket watch under it, the budget
beside it); its parts are the policy's and have no other user.
"""

from __future__ import annotations

import ipaddress
import math
import random
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, TypeVar
from urllib.parse import urljoin, urlsplit

import requests
import urllib3.connection
import urllib3.connectionpool
from pydantic import BaseModel, TypeAdapter, ValidationError
from requests.adapters import HTTPAdapter
from urllib3.exceptions import LocationParseError, NameResolutionError, NewConnectionError, ReadTimeoutError
from urllib3.util import parse_url

from .. import __version__
from ..numbers_in import ascii_digits
from ..problems import MoeLmsError

RATE_LIMIT_BODY = "Rate Limit Exceeded"
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
DEFAULT_PORTS = {"http": 80, "https": 443}

ShapeT = TypeVar("ShapeT", bound=BaseModel)


class CanvasError(MoeLmsError):
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


class Unreachable(CanvasError):
    """No Canvas at that address: connection refused, unknown host, or TLS failed. Retrying would not help."""


class BadAnswer(CanvasError):
    """Canvas (or whatever answered) sent something moe-lms cannot use: wrong shape, not JSON, too big, a redirect."""


class DeadlineExceeded(requests.Timeout):
    """The whole exchange took longer than the client's deadline (a server trickling its answer)."""


# -- the base URL ---------------------------------------------------------------------------------------------


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


_PATH = re.compile(r"[A-Za-z0-9/._~-]*")


def check_base_url(base_url: str) -> str:
    """The base URL as the client will connect to it (no trailing slash); ValueError names what is wrong.

    Parsed with urllib3's parse_url, the parser requests connects with, so what is checked is what is reached:
    ``http://other:80\\@127.0.0.1`` is refused, not read as loopback by one parser and sent elsewhere by another.
    User-info (requests would send it as Basic auth), a query, a fragment, spaces, control characters,
    backslashes and ports outside 1-65535 are refused; plain HTTP only to a loopback host (the token would leak).
    """
    shown = repr(base_url)
    if any(c.isspace() or not c.isprintable() for c in base_url):
        raise ValueError(f"--base-url {shown} contains a space or a control character")
    if "\\" in base_url:
        raise ValueError(f"--base-url {shown} contains a backslash")
    try:
        parsed = parse_url(base_url)
    except LocationParseError:
        raise ValueError(f"--base-url {shown} is not a valid URL") from None
    scheme = (parsed.scheme or "").lower()
    if scheme not in DEFAULT_PORTS or not parsed.host:
        raise ValueError(f"--base-url {shown} is not an http(s) URL such as https://school.instructure.com")
    if parsed.auth is not None or "@" in base_url:
        raise ValueError(
            f"--base-url {shown} holds a user name or password: remove it (the token comes from CANVAS_TOKEN)"
        )
    if parsed.query is not None or parsed.fragment is not None or "?" in base_url or "#" in base_url:
        raise ValueError(f"--base-url {shown} has a query or fragment (?… or #…): give the address of Canvas only")
    if parsed.port is not None and not 1 <= parsed.port <= 65535:
        raise ValueError(f"--base-url {shown} has port {parsed.port}; a port is 1 to 65535")
    path = (parsed.path or "").rstrip("/")
    if not _PATH.fullmatch(path):
        raise ValueError(f"--base-url {shown} has characters in its path that an address of Canvas never has")
    host = parsed.host.lower()
    # The other parser in the standard library must see the same host, or the URL is ambiguous (an
    # internationalised name is compared as urllib3 encodes it, so only plain ASCII names are compared here).
    other = urlsplit(base_url).hostname or ""
    if other.isascii() and other != host.strip("[]"):
        raise ValueError(f"--base-url {shown} is ambiguous: its host reads differently to different parsers")
    if scheme == "http" and not is_loopback(host):
        raise ValueError(f"--base-url {base_url} uses plain HTTP; the token would travel unencrypted: use https://")
    port = f":{parsed.port}" if parsed.port is not None else ""
    return f"{scheme}://{host}{port}{path}"


def origin(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) as urllib3 reads ``url``, default ports filled in; None when it cannot be parsed."""
    try:
        parsed = parse_url(url)
    except LocationParseError:
        return None
    scheme = (parsed.scheme or "").lower()
    if scheme not in DEFAULT_PORTS or not parsed.host or parsed.auth is not None:
        return None
    return scheme, parsed.host.lower(), parsed.port or DEFAULT_PORTS[scheme]


def check_token(token: str) -> str:
    """A token as it goes into the Authorization header; ValueError (never showing the token) when it cannot be one."""
    if not token:
        raise ValueError("an API token is required")
    if any(not "!" <= c <= "~" for c in token):
        raise ValueError(
            "CANVAS_TOKEN holds a character no Canvas token has (a space, a line break, a control or a non-ASCII "
            "character): copy the token again"
        )
    return token


def token_pattern(token: str) -> re.Pattern[str]:
    """The token as it may come back in an error: in any case, its characters spaced or joined by separators."""
    core = [c for c in token if c.isalnum()]
    if len(core) < 8:
        return re.compile(re.escape(token), re.IGNORECASE)
    separator = r"(?:[^0-9A-Za-z]|%[0-9A-Fa-f]{2}|\\u00[0-9A-Fa-f]{2}){0,3}"
    return re.compile(separator.join(re.escape(c) for c in core), re.IGNORECASE)


# -- retries and the rate budget ------------------------------------------------------------------------------


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


@dataclass(frozen=True)
class Limits:
    """What one request may cost: seconds to connect, between two reads, for the whole exchange; bytes; pages."""

    connect: float = 10.0
    read: float = 60.0
    # The whole exchange, which no byte resets (a server trickling a byte every 20 s stays within ``read``): 120 s
    # is ample for a page of JSON or a 64 MB answer; ``push canvas --deadline`` sets it. Not retried when it passes.
    deadline: float = 120.0
    max_body: int = 64 << 20
    max_pages: int = 2000
    max_redirects: int = 5


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


# -- the deadline: a watchdog that cuts the connection a request is using --------------------------------------


class _Watch:
    """One request's deadline. The connection's socket is registered when it connects or is reused for the
    request; when the deadline passes first, the socket is shut down, so a read blocked on a trickling server
    returns at once. (The socket itself, not the connection: for an answer that ends with the connection,
    http.client hands the socket to the response and the connection forgets it.)"""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None
        self.fired = False
        self._over = False

    def attach(self, sock: socket.socket | None) -> None:
        if sock is None:
            return
        with self._lock:
            self._socket = sock
            late = self.fired and not self._over
        if late:
            self._cut(sock)

    def expire(self) -> None:
        with self._lock:
            if self._over:
                return
            self.fired = True
            sock = self._socket
        if sock is not None:
            self._cut(sock)

    @staticmethod
    def _cut(sock: socket.socket) -> None:
        # The plain socket's shutdown: an SSL socket's own would drop its state under the reader.
        with suppress(OSError):
            socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def finish(self) -> None:
        with self._lock:
            self._over = True


_watching = threading.local()


def _watch(sock: socket.socket | None) -> None:
    watch: _Watch | None = getattr(_watching, "watch", None)
    if watch is not None:
        watch.attach(sock)


class _WatchedHTTPConnection(urllib3.connection.HTTPConnection):
    def connect(self) -> None:
        super().connect()
        _watch(self.sock)

    def request(self, *args: Any, **kwargs: Any) -> None:
        _watch(self.sock)  # a kept-alive connection, already connected
        super().request(*args, **kwargs)


class _WatchedHTTPSConnection(urllib3.connection.HTTPSConnection):
    def connect(self) -> None:
        super().connect()
        _watch(self.sock)

    def request(self, *args: Any, **kwargs: Any) -> None:
        _watch(self.sock)
        super().request(*args, **kwargs)


class _WatchedHTTPPool(urllib3.connectionpool.HTTPConnectionPool):
    ConnectionCls = _WatchedHTTPConnection


class _WatchedHTTPSPool(urllib3.connectionpool.HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection


class _Adapter(HTTPAdapter):
    """requests' adapter with no retries of its own and connections the deadline watchdog can cut."""

    def __init__(self) -> None:
        super().__init__(max_retries=0)

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {"http": _WatchedHTTPPool, "https": _WatchedHTTPSPool}


# -- answers --------------------------------------------------------------------------------------------------


def _remaining(response: requests.Response) -> float | None:
    """The rate-limit budget Canvas reports, kept within what Canvas can mean (0 to 10,000): a hostile ``nan`` or
    ``-1e300`` must not stop the client or make it wait for ever."""
    try:
        value = float(response.headers["X-Rate-Limit-Remaining"])
    except (KeyError, ValueError):
        return None
    return min(max(value, 0.0), 10_000.0) if math.isfinite(value) else None


def _json(response: requests.Response) -> Any:
    """The parsed body, None when empty or not JSON (for error bodies, whose shape is whatever it is)."""
    if response.status_code == 204 or not response.content:
        return None
    try:
        return response.json()
    except (ValueError, RecursionError):
        return None


def _canvas_message(response: requests.Response) -> str:
    """The human part of a Canvas error body, in any of its shapes (§8 of the contract)."""
    body = _json(response)
    if isinstance(body, dict):
        errors = body.get("errors")
        if isinstance(errors, list):
            return "; ".join(str(e.get("message", e)) if isinstance(e, dict) else str(e) for e in errors)[:500]
        if errors:
            return str(errors)[:500]
        if body.get("message"):
            return str(body["message"])[:500]
    return response.text.strip()[:300]


def _reason(exc: requests.RequestException) -> Any:
    """urllib3's own exception behind one of requests' (the ``reason`` of its MaxRetryError), else None."""
    first = exc.args[0] if exc.args else None
    return getattr(first, "reason", None)


def _unreachable(exc: requests.RequestException) -> tuple[str, bool] | None:
    """Why the server could not be reached, and whether that is final even after it answered once; None when the
    failure is not about reaching it (a dropped connection, a read timeout)."""
    if isinstance(exc, requests.exceptions.SSLError):
        detail = re.sub(r"\s*\(_ssl\.c:\d+\)", "", str(_reason(exc) or exc)).strip()
        return f"TLS failed ({detail[:200]})", True
    reason = _reason(exc)
    if isinstance(reason, NameResolutionError):
        return "unknown host", True
    if isinstance(reason, NewConnectionError):
        return "connection refused", False
    if isinstance(exc, requests.ConnectTimeout):
        return "no answer to the connection", False
    return None


def _network_failure(exc: requests.RequestException, limits: Limits) -> str:
    """A network failure in words (requests' own messages name pools and retries the user never asked for)."""
    if isinstance(exc, DeadlineExceeded):
        return str(exc)
    if isinstance(exc, requests.ReadTimeout) or isinstance(exc.args[0] if exc.args else None, ReadTimeoutError):
        return f"no answer within {limits.read:g} s"
    if isinstance(exc, requests.exceptions.ChunkedEncodingError):
        return "the answer was cut off"
    if isinstance(exc, requests.ConnectionError):
        return "the connection was dropped"
    return type(exc).__name__


@lru_cache(maxsize=64)
def _adapter(shape: Any) -> TypeAdapter[Any]:
    return TypeAdapter(shape)


class CanvasClient:
    MAX_THROTTLES = 40  # 403 rate-limit answers tolerated per request: each one slows the whole client down

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        concurrency: int = 6,
        retry: RetryPolicy | None = None,
        limits: Limits | None = None,
        seed: int | None = None,
        notify: Callable[[str], None] | None = None,
    ) -> None:
        self._token = check_token(token)
        self._token_pattern = token_pattern(token)
        self.base_url = check_base_url(base_url)
        self._origin = origin(self.base_url)
        self.concurrency = max(1, concurrency)
        self.retry = retry or RetryPolicy()
        self.limits = limits or Limits()
        self.stats = Stats()
        self.notify = notify or (lambda message: None)
        self._rng = random.Random(seed)
        self._rng_lock = threading.Lock()
        self._stop = threading.Event()
        self.budget = Budget(self.concurrency, self._stop, self.retry.drain_rate)
        self._local = threading.local()
        self._reached = False  # some answer came back from the server: refusals after that are hiccups

    # -- plumbing ---------------------------------------------------------------------------------------------

    def redact(self, text: str) -> str:
        return self._token_pattern.sub("[token]", text)

    def _session(self, authorised: bool = True) -> requests.Session:
        name = "api" if authorised else "plain"
        session: requests.Session | None = getattr(self._local, name, None)
        if session is None:
            session = requests.Session()
            session.trust_env = False  # no ~/.netrc credentials, no proxy surprises
            session.mount("https://", _Adapter())
            session.mount("http://", _Adapter())
            session.headers["User-Agent"] = f"moe-lms/{__version__}"
            if authorised:
                session.headers["Authorization"] = f"Bearer {self._token}"
                session.headers["Accept"] = "application/json"
            setattr(self._local, name, session)
        return session

    def url(self, path: str) -> str:
        return path if path.startswith(("http://", "https://")) else f"{self.base_url}{path}"

    def same_origin(self, url: str) -> bool:
        return self._origin is not None and origin(url) == self._origin

    def stop(self) -> None:
        """Make queued and future requests raise Interrupted (requests already on the wire finish)."""
        self._stop.set()

    def pause(self, attempt: int) -> float:
        with self._rng_lock:
            delay = self.retry.delay(attempt, self._rng)
        if self._stop.wait(delay):
            raise Interrupted("interrupted")
        return delay

    def backoff(self, attempt: int) -> float:
        with self._rng_lock:
            return self.retry.delay(attempt, self._rng)

    def _describe(self, method: str, url: str | None) -> str:
        try:
            path = parse_url(url or "").path or "/"
        except LocationParseError:
            path = "?"
        return f"{method} {path}"

    def _transfer(self, session: requests.Session, method: str, url: str, **kwargs: Any) -> requests.Response:
        """One HTTP exchange under the timeouts, the deadline and the size cap; the body read in full."""
        limits = self.limits
        watch = _Watch()
        timer = threading.Timer(limits.deadline, watch.expire)
        timer.daemon = True
        _watching.watch = watch
        timer.start()
        try:
            response = session.request(
                method, url, timeout=(limits.connect, limits.read), stream=True, allow_redirects=False, **kwargs
            )
            try:
                response._content = self._read_capped(method, url, response)
            except BaseException:
                response.close()
                raise
            if watch.fired:  # a body delimited by the connection's end looks complete when the watchdog cut it
                raise DeadlineExceeded(f"no complete answer within {limits.deadline:g} s")
            return response
        except requests.RequestException:
            if watch.fired:
                raise DeadlineExceeded(f"no complete answer within {limits.deadline:g} s") from None
            raise
        finally:
            watch.finish()
            timer.cancel()
            _watching.watch = None

    def _read_capped(self, method: str, url: str, response: requests.Response) -> bytes:
        cap = self.limits.max_body
        what = self._describe(method, url)
        declared = response.headers.get("Content-Length", "")
        if ascii_digits(declared) and int(declared) > cap:
            raise BadAnswer(f"{what}: the answer is {int(declared)} bytes, over the limit of {cap}; not read")
        chunks, size = [], 0
        for chunk in response.iter_content(chunk_size=1 << 16):
            size += len(chunk)
            if size > cap:
                raise BadAnswer(f"{what}: the answer is over the limit of {cap} bytes; stopped reading it")
            chunks.append(chunk)
        return b"".join(chunks)

    def send_once(
        self, method: str, url: str, *, authorised: bool = True, follow: bool | None = None, **kwargs: Any
    ) -> requests.Response:
        """One request within the rate budget, counted, under the client's whole policy; raises requests' own
        exceptions for network failures. ``follow`` (default: for authorised GETs) follows redirects to the same
        origin; a redirect elsewhere, or of a write, is refused."""
        what = self._describe(method, url)
        follow = authorised and method in ("GET", "HEAD") if follow is None else follow
        for _hop in range(self.limits.max_redirects + 1):
            if self._stop.is_set():
                raise Interrupted("interrupted")
            if authorised and not self.same_origin(url):
                raise CanvasError(f"refusing to send the token to {self._netloc(url)} (not {self.base_url})")
            with self.budget.slot():
                if self._stop.is_set():
                    raise Interrupted("interrupted")
                self.stats.add(requests=1, writes=int(method in WRITE_METHODS))
                response = self._transfer(self._session(authorised), method, url, **kwargs)
            self._reached = True
            self.budget.observe(_remaining(response))
            if not (response.is_redirect and authorised):
                return response
            target = urljoin(url, response.headers["Location"])
            if not follow:
                raise BadAnswer(
                    f"{what}: answered with a redirect ({response.status_code}) to {self._netloc(target)}; "
                    f"moe-lms does not follow a redirect of a {method}: check --base-url"
                )
            if not self.same_origin(target):
                raise BadAnswer(
                    f"{what}: answered with a redirect to {self._netloc(target)}, another origin than "
                    f"{self.base_url}; not followed (the token would go there): check --base-url"
                )
            url, kwargs = target, {k: v for k, v in kwargs.items() if k != "params"}
        raise BadAnswer(f"{what}: more than {self.limits.max_redirects} redirects; not followed further")

    @staticmethod
    def _netloc(url: str) -> str:
        try:
            parsed = parse_url(url)
        except LocationParseError:
            return "an unreadable address"
        return f"{parsed.host}:{parsed.port}" if parsed.port else str(parsed.host)

    # -- requests ----------------------------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        shape: type[ShapeT] | None = None,
        *,
        idempotent: bool | None = None,
        **kwargs: Any,
    ) -> ShapeT | None:
        """Send, retrying what is safe to retry; the answer checked against ``shape`` (None: not read)."""
        response = self.exchange(method, path, idempotent=idempotent, **kwargs)
        if shape is None:
            return None
        parsed: ShapeT = self.parse(self._describe(method, response.url or self.url(path)), response, shape)
        return parsed

    def parse(self, what: str, response: requests.Response, shape: Any) -> Any:
        """The answer's JSON checked against ``shape`` (a model, or a type TypeAdapter takes); BadAnswer if not."""
        content_type = response.headers.get("Content-Type", "")
        try:
            body = response.json()
        except (ValueError, RecursionError):
            media = content_type.split(";")[0].strip().lower()
            if not response.content:
                kind = "an empty answer"
            elif media.endswith("json"):
                kind = "JSON that cannot be read (malformed, cut off or nested too deep)"
            else:
                kind = media or "text"
            hint = " (a web page: is --base-url the address of your Canvas?)" if "html" in media else ""
            raise BadAnswer(f"{what}: Canvas answered {kind} where JSON was expected{hint}") from None
        try:
            return _adapter(shape).validate_python(body)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'the answer'}: {e['msg']}"
                for e in exc.errors(include_input=False, include_url=False)[:3]
            )
            raise BadAnswer(f"{what}: Canvas's answer does not have the expected shape ({problems})") from None

    def exchange(self, method: str, path: str, *, idempotent: bool | None = None, **kwargs: Any) -> requests.Response:
        """The first successful response, after retrying what is safe to retry.

        ``idempotent`` defaults to True for everything but POST. A non-idempotent request whose outcome is
        unknown raises Uncertain; DELETE of something already gone counts as done.
        """
        safe = method != "POST" if idempotent is None else idempotent
        url = self.url(path)
        what = self._describe(method, url)
        failures = throttles = 0
        last = ""
        while failures < self.retry.attempts and throttles < self.MAX_THROTTLES:
            if failures or throttles:
                self.stats.add(retries=1)
            try:
                response = self.send_once(method, url, **kwargs)
            except requests.RequestException as exc:
                if isinstance(exc, DeadlineExceeded) and safe:  # a server that trickles would hold every retry too
                    raise CanvasError(f"{what}: {exc} (the server sends too slowly); not retried") from None
                unreachable = _unreachable(exc)
                if unreachable is not None and (unreachable[1] or not self._reached):
                    raise Unreachable(
                        f"cannot reach {self.base_url}: {unreachable[0]}: check --base-url (to see what a push would "
                        "send without a Canvas: moe-lms export --format canvas writes the request bodies)"
                    ) from None
                last = unreachable[0] if unreachable is not None else _network_failure(exc, self.limits)
                if not safe:
                    raise Uncertain(f"{what}: {last}") from None
                self._retry_pause(what, last, failures)
                failures += 1
                continue
            status = response.status_code
            if status < 300 or (status == 404 and method == "DELETE"):
                return response
            if status == 403 and RATE_LIMIT_BODY in response.text:
                self.stats.add(throttled=1)
                pause = self.backoff(min(throttles, 6))
                self.budget.throttled(pause)
                throttles += 1
                last = "403 Forbidden (Rate Limit Exceeded)"
                if throttles in (1, 10, 20, 30):
                    self.notify(f"{what}: Canvas's rate limit was reached; slowing down")
                continue
            if status >= 500:
                last = f"{status} {self.redact(_canvas_message(response))}"
                if not safe:
                    raise Uncertain(f"{what}: {last}")
                self._retry_pause(what, last, failures)
                failures += 1
                continue
            raise self._error(what, response)
        raise CanvasError(f"{what}: gave up after {failures + throttles} attempts; last: {last}")

    def _retry_pause(self, what: str, last: str, failures: int) -> None:
        if failures + 1 >= self.retry.attempts:
            return
        delay = self.backoff(failures)
        self.notify(f"{what}: {last}; retrying in {delay:.1f} s (try {failures + 2} of {self.retry.attempts})")
        if self._stop.wait(delay):
            raise Interrupted("interrupted")

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
        if 300 <= status < 400:
            return BadAnswer(f"{what}: answered with a redirect ({status}) and no place to go", status)
        return CanvasError(f"{what}: {status} {message}", status)

    def get(self, path: str, shape: type[ShapeT], **params: Any) -> ShapeT:
        response = self.exchange("GET", path, params=params or None)
        parsed: ShapeT = self.parse(self._describe("GET", self.url(path)), response, shape)
        return parsed

    def get_all(self, path: str, shape: type[ShapeT], **params: Any) -> list[ShapeT]:
        """Every item of a paginated list, following ``Link: rel="next"`` (opaque, same origin only), each checked
        against ``shape``; a link back to a page already read, or more than ``max_pages`` pages, is an error."""
        items: list[ShapeT] = []
        url: str | None = self.url(path)
        what = self._describe("GET", url)
        query: dict[str, Any] | None = {"per_page": 100, **params}
        seen: set[str] = set()
        pages = 0
        while url is not None:
            pages += 1
            if pages > self.limits.max_pages:
                raise BadAnswer(f"{what}: more than {self.limits.max_pages} pages; stopped reading the list")
            response = self.exchange("GET", url, params=query)
            seen.add(response.url)
            items.extend(self.parse(what, response, list[shape]))  # type: ignore[valid-type]
            url, query = response.links.get("next", {}).get("url"), None
            if url is not None and urljoin(response.url, url) in seen:
                raise BadAnswer(f"{what}: the next page is one already read; the list would never end")
            if url is not None:
                url = urljoin(response.url, url)
        return items

    def post_file(
        self,
        url: str,
        fields: dict[str, Any],
        file_param: str,
        name: str,
        data: bytes,
        content_type: str = "application/zip",
    ) -> requests.Response:
        """A multipart upload to a file store: every field as given, the file last, and no token."""
        files = {file_param: (name, data, content_type)}
        return self.send_once("POST", url, authorised=False, data=fields, files=files)

    @staticmethod
    def join(base: str, location: str) -> str:
        return urljoin(base, location)
