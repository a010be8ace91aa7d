"""A Canvas-like HTTP server on 127.0.0.1, for the tests and the bench.

It follows ../shared/reference/canvas-api.md, traps included: Bearer auth with Canvas's 401 shapes, form bodies with
Rails nesting as well as JSON, ``Link`` pagination (10 per page unless asked), the rate-limit bucket with its
headers and its plain-text 403, Classic Quizzes (PUT only, answers parsed the way Canvas parses them:
``answer_comments`` dropped, the first answer made correct when none has weight 100, a hash keyed from 1 is a 500),
New Quizzes (PATCH only, string ids), content migrations with a pre-attachment upload and progress polling, and
course files: folders by path, the three-step upload (preflight, multipart POST without the token, then either a
3XX to create_success that must be confirmed once or a 201 with the attachment), paginated folder listings.
Classic question groups as Canvas keeps them (cl:app/controllers/quizzes/quiz_groups_controller.rb,
app/models/quizzes/quiz_group.rb, quiz_questions_controller.rb): created with ``quiz_groups[]`` (201, wrapped in
``{"quiz_groups": [...]}``), shown, updated (200, wrapped; the bank and the position are not changed) and deleted
(204, with the questions in them); no route lists a quiz's groups; a question joins one with
``question[quiz_group_id]`` (an unknown group is a 404) and cannot be taken out of it; a group's questions are
numbered within it, and its own position is among the quiz's questions outside groups.

Faults on command (``Faults``): random 500s before any work, connections dropped *after* the work is stored, random
throttling, added latency. The RNG is seeded.

Hostile and odd servers on command: New Quizzes items as a positional list (insert at a position and shift the later
ones) with concurrent creates run in another order than they arrived (``positional_items``, ``Reorderer``); a
``Link: rel="next"`` back to the page just read (``next_link_loops``); error messages that echo the Authorization
header, transformed (``echo_authorization``); and, through a route put first in ``routes``, any answer at all,
including a :class:`RawBody` that trickles or never ends.
"""

from __future__ import annotations

import copy
import csv
import email.parser
import email.policy
import io
import itertools
import json
import math
import random
import re
import sys
import threading
import time
import uuid
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from moe_lms.xmlsafe import parse_untrusted

TOKEN = "7~canvas-test-token-Zq81LmW0"
RATE_LIMIT_BODY = "403 Forbidden (Rate Limit Exceeded)\n"
MAX_TEXT, MAX_COMMENT = 16384, 5120
WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})


@dataclass
class RawBody:
    """An answer written by hand: ``chunks`` with ``delay`` seconds before each, with a Content-Length only when
    ``length`` is given (else the body ends with the connection). Stops quietly when the client hangs up."""

    chunks: Iterable[bytes]
    delay: float = 0.0
    length: int | None = None
    content_type: str = "application/json; charset=utf-8"
    trickle_headers: bool = False  # the status line and headers too, a byte at a time
    written: int = 0  # bytes of the status line and headers written so far, when they trickle


class Reorderer:
    """Holds concurrent requests until ``size`` of them wait (or ``wait`` seconds pass), then runs them one at a
    time, last come first: requests that left the client in one order arrive in another."""

    def __init__(self, size: int = 4, wait: float = 0.3) -> None:
        self.size, self.wait = size, wait
        self._cond = threading.Condition()
        self._waiting: list[int] = []
        self._order: list[int] = []
        self._tickets = itertools.count()
        self.reordered = 0  # requests that ran before one that arrived earlier

    def _release(self) -> None:
        self.reordered += max(0, len(self._waiting) - 1)
        self._order.extend(reversed(self._waiting))
        self._waiting = []
        self._cond.notify_all()

    def run(self, work: Callable[[], Any]) -> Any:
        with self._cond:
            ticket = next(self._tickets)
            self._waiting.append(ticket)
            if len(self._waiting) >= self.size:
                self._release()
            deadline = time.monotonic() + self.wait
            while ticket in self._waiting:
                left = deadline - time.monotonic()
                if left <= 0:
                    self._release()
                    break
                self._cond.wait(left)
            while self._order[0] != ticket:
                self._cond.wait()
        try:
            return work()
        finally:
            with self._cond:
                self._order.remove(ticket)
                self._cond.notify_all()


class HttpError(Exception):
    def __init__(self, status: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
        super().__init__(status)
        self.status, self.body, self.headers = status, body, headers or {}


def not_found() -> HttpError:
    return HttpError(404, {"errors": [{"message": "The specified resource does not exist."}]})


class InternalError(HttpError):
    _reports = itertools.count(1000)

    def __init__(self) -> None:
        body = {
            "errors": [{"message": "An error occurred.", "error_code": "internal_server_error"}],
            "error_report_id": next(self._reports),
        }
        super().__init__(500, body)


# -- request parsing (Rack's nested params) -------------------------------------------------------------------


def _normalize(params: dict[str, Any], name: str, value: Any) -> dict[str, Any]:
    """Rack's normalize_params: ``a[b][c]=``, ``a[]=``, and ``a[][k]=`` (a new hash when k already exists)."""
    m = re.match(r"\A[\[\]]*([^\[\]]+)\]*", name)
    if not m:
        return params
    key, after = m.group(1), name[m.end() :]
    if after == "":
        params[key] = value
    elif after == "[]":
        params.setdefault(key, []).append(value)
    elif after.startswith("[]"):
        child = re.match(r"\A\[\]\[?([^\[\]]+)\]?(.*)\Z", after)
        assert child
        child_key = child.group(1) + child.group(2)
        items = params.setdefault(key, [])
        top = re.match(r"\A[\[\]]*([^\[\]]+)", child_key)
        first = top.group(1) if top else child_key
        if items and isinstance(items[-1], dict) and first not in items[-1]:
            _normalize(items[-1], child_key, value)
        else:
            items.append(_normalize({}, child_key, value))
    else:
        params[key] = _normalize(params.get(key) if isinstance(params.get(key), dict) else {}, after, value)
    return params


def nest(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for name, value in pairs:
        _normalize(params, name, value)
    return params


def truthy(value: Any) -> bool:
    return str(value).lower() in {"true", "t", "yes", "y", "on", "1"}


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, Any]
    body: dict[str, Any]
    files: dict[str, bytes]
    field_order: list[str]
    headers: Any
    raw: bytes

    @property
    def params(self) -> dict[str, Any]:
        return {**self.body, **self.query}  # query parameters win (Rails)


def parse_body(content_type: str, raw: bytes) -> tuple[dict[str, Any], dict[str, bytes], list[str]]:
    if not raw:
        return {}, {}, []
    if content_type.startswith("application/json"):
        try:
            body = json.loads(raw)
        except ValueError as exc:
            raise HttpError(400, {"errors": [{"message": f"invalid JSON: {exc}"}]}) from None
        return (body if isinstance(body, dict) else {}), {}, []
    if content_type.startswith("multipart/form-data"):
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            f"Content-Type: {content_type}\r\n\r\n".encode() + raw
        )
        pairs, files, order = [], {}, []
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True) or b""
            order.append(str(name))
            if part.get_filename():
                files[str(name)] = payload
            else:
                pairs.append((str(name), payload.decode()))
        return nest(pairs), files, order
    return nest(parse_qsl(raw.decode(), keep_blank_values=True)), {}, []


# -- faults and the rate-limit bucket -------------------------------------------------------------------------


@dataclass
class Faults:
    fail_rate: float = 0.0  # 500 before doing anything
    drop_rate: float = 0.0  # do the work, store it, then close the connection without a response
    throttle_rate: float = 0.0  # 403 Rate Limit Exceeded before doing anything
    latency: float = 0.0  # seconds added to every request
    seed: int = 0
    only: Callable[[Request], bool] | None = None  # faults hit only the requests this accepts

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.lock = threading.Lock()

    def roll(self, rate: float) -> bool:
        if rate <= 0:
            return False
        with self.lock:
            return self.rng.random() < rate


@dataclass
class Bucket:
    """Canvas's leaky bucket (request_throttle.rb): a reserve per request in flight, drained per second."""

    high_water: float = 600.0
    maximum: float = 800.0
    outflow: float = 10.0
    reserve: float = 50.0
    cost: float = 0.05
    count: float = 0.0
    stamp: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def _leak(self) -> None:
        now = time.monotonic()
        self.count = max(0.0, self.count - (now - self.stamp) * self.outflow)
        self.stamp = now

    def start(self) -> bool:
        with self.lock:
            self._leak()
            if self.count >= self.high_water:
                return False
            self.count = min(self.maximum, self.count + self.reserve)
            return True

    def finish(self) -> float:
        with self.lock:
            self._leak()
            self.count = max(0.0, self.count - self.reserve + self.cost)
            return self.high_water - self.count

    def remaining(self) -> float:
        with self.lock:
            self._leak()
            return self.high_water - self.count


# -- the course -----------------------------------------------------------------------------------------------


@dataclass
class Course:
    quizzes: dict[int, dict[str, Any]] = field(default_factory=dict)
    questions: dict[int, dict[int, dict[str, Any]]] = field(default_factory=dict)  # quiz id -> id -> question
    groups: dict[int, dict[int, dict[str, Any]]] = field(default_factory=dict)  # quiz id -> id -> question group
    student_view: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # classic: frozen on publish
    new_quizzes: dict[str, dict[str, Any]] = field(default_factory=dict)
    items: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    migrations: dict[int, dict[str, Any]] = field(default_factory=dict)
    question_banks: dict[str, list[str]] = field(default_factory=dict)  # bank title -> item identifiers
    folders: dict[int, dict[str, Any]] = field(default_factory=dict)  # id -> {id, name, full_name, parent_id}
    files: dict[int, dict[str, Any]] = field(default_factory=dict)  # id -> attachment (with _data, _available)
    # quiz id -> completed classic quiz submissions: {user_id, user_name, submission_data} (Quizzes::QuizSubmission)
    submissions: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    reports: dict[int, dict[str, Any]] = field(default_factory=dict)  # quiz report id -> report (with _csv)

    def folder_by_path(self, full_name: str) -> dict[str, Any] | None:
        return next((f for f in self.folders.values() if f["full_name"] == full_name), None)

    def visible_files(self, folder_id: int | None = None) -> list[dict[str, Any]]:
        """Files a listing shows: uploaded and confirmed (a pending or unconfirmed one is not listed)."""
        return sorted(
            (f for f in self.files.values() if f["_available"] and folder_id in (None, f["folder_id"])),
            key=lambda f: f["id"],
        )

    def classic_questions(self, quiz_id: int) -> list[dict[str, Any]]:
        return sorted(self.questions.get(quiz_id, {}).values(), key=lambda q: (q["position"], q["id"]))

    def quiz_groups(self, quiz_id: int) -> list[dict[str, Any]]:
        return sorted(self.groups.get(quiz_id, {}).values(), key=lambda g: (g["position"], g["id"]))

    def root_max_position(self, quiz_id: int) -> int:
        """quiz.root_entries_max_position: the last position among questions outside groups and the groups."""
        root = [q["position"] for q in self.questions.get(quiz_id, {}).values() if q["quiz_group_id"] is None]
        return max(root + [g["position"] for g in self.groups.get(quiz_id, {}).values()], default=0)

    def points_possible(self, quiz_id: int) -> float:
        """Each question outside a group, and each group's pick_count questions at its question_points."""
        loose = sum(
            q["points_possible"] for q in self.questions.get(quiz_id, {}).values() if q["quiz_group_id"] is None
        )
        picked = 0.0
        for g in self.groups.get(quiz_id, {}).values():
            count = sum(1 for q in self.questions[quiz_id].values() if q["quiz_group_id"] == g["id"])
            picked += min(g["pick_count"] or 0, count) * float(g["question_points"] or 0)
        return float(loose + picked)

    def items_in_order(self, quiz_id: str) -> list[dict[str, Any]]:
        return sorted(self.items.get(quiz_id, {}).values(), key=lambda i: (i["position"], int(i["id"])))


@dataclass
class LogEntry:
    method: str
    path: str
    status: int | str  # "dropped" when the connection was closed without a response
    authorised: bool

    @property
    def write(self) -> bool:
        return self.method in WRITES


QUIZ_FIELDS = {
    "title",
    "description",
    "quiz_type",
    "assignment_group_id",
    "time_limit",
    "shuffle_answers",
    "hide_results",
    "show_correct_answers",
    "show_correct_answers_last_attempt",
    "show_correct_answers_at",
    "hide_correct_answers_at",
    "allowed_attempts",
    "scoring_policy",
    "one_question_at_a_time",
    "cant_go_back",
    "access_code",
    "ip_filter",
    "due_at",
    "lock_at",
    "unlock_at",
    "one_time_results",
    "only_visible_to_overrides",
    "points_possible",
}
QUIZ_TYPES = {"practice_quiz", "assignment", "graded_survey", "survey"}
# What Canvas's sanitizer keeps of a style attribute, and how it writes it back (cl:gems/canvas_sanitize/lib/
# canvas_sanitize/canvas_sanitize.rb, sanitize_style and SANITIZE[:style_properties]): the allowed properties as
# "property: value" joined by "; ", ending in ";". A quiz's description is stored sanitized (the Quiz model's
# sanitize_field :description).
STYLE_PROPERTIES = frozenset(
    {
        "background", "border", "clear", "color", "cursor", "direction", "display", "float", "font", "height",
        "left", "line-height", "list-style", "margin", "max-height", "max-width", "min-height", "min-width",
        "overflow", "overflow-x", "overflow-y", "padding", "position", "right", "text-align", "table-layout",
        "text-decoration", "text-indent", "top", "vertical-align", "visibility", "white-space", "width", "z-index",
        "zoom",
    }
)  # fmt: skip
_STYLE_EXPRESSIONS = re.compile(
    r"\A(?:background-(?:attachment|color|image|position|repeat)|background-position-(?:x|y)"
    r"|border-(?:bottom|collapse|color|left|right|spacing|style|top|width)|border-(?:bottom|left|right|top)-"
    r"(?:color|style|width)|font-(?:family|size|stretch|style|variant|weight)|list-style-(?:image|position|type)"
    r"|margin-(?:bottom|left|right|top|offset)|padding-(?:bottom|left|right|top))\Z"
)
_STYLE_ATTRIBUTE = re.compile(r'style="([^"]*)"')


def sanitize_style(style: str) -> str:
    """A style attribute's value as Canvas's sanitizer writes it back."""
    if not re.fullmatch(r"""([-:,;#%.()/\sa-zA-Z0-9!]|'[\s\w]+'|"[\s\w]+"|\([\d,\s]+\))*""", style):
        style = ""
    if not re.fullmatch(r"\s*([-\w]+\s*:[^;]*(;\s*|$))*", style):
        style = ""
    kept = [
        (name.lower(), value)
        for name, value in re.findall(r"([-\w]+)\s*:\s*([^;]*)", style)
        if name.lower() in STYLE_PROPERTIES or _STYLE_EXPRESSIONS.match(name.lower())
    ]
    return "; ".join(f"{name}: {value}" for name, value in kept) + ";"


def sanitize_styles(html: str) -> str:
    return _STYLE_ATTRIBUTE.sub(lambda m: f'style="{sanitize_style(m.group(1))}"', html)


QUESTION_FIELDS = (
    "question_name",
    "question_text",
    "question_type",
    "quiz_group_id",
    "points_possible",
    "correct_comments",
    "incorrect_comments",
    "neutral_comments",
    "correct_comments_html",
    "incorrect_comments_html",
    "neutral_comments_html",
    "text_after_answers",
)
CHOICE_TYPES = {"multiple_choice_question", "multiple_answers_question"}


def ruby_to_f(value: Any) -> float:
    """Ruby's String#to_f / nil.to_f: the leading number of the text, 0.0 when there is none."""
    if isinstance(value, bool) or value is None:
        return 0.0
    if isinstance(value, int | float):
        return float(value)
    found = re.match(r"\s*[+-]?(?:\d[\d_]*)?(?:\.\d+)?(?:[eE][+-]?\d+)?", str(value))
    try:
        return float(found.group().replace("_", "")) if found and found.group().strip() else 0.0
    except ValueError:
        return 0.0


def grade_numerical(question: dict[str, Any], typed: str) -> dict[str, Any] | None:
    """The answer a typed number matches, as Canvas grades a numerical_question
    (cl:app/models/quizzes/quiz_question/numerical_question.rb correct_answer_parts): the text as a BigDecimal (0
    when it is none), the first answer, by weight, whose exact ± margin (a margin ending in % is a share of the
    value) or range covers it, bounds included; None when none does (the answer is wrong). Every answer is correct."""
    from decimal import Decimal, InvalidOperation

    try:
        number = Decimal(typed.strip())
    except InvalidOperation:
        number = Decimal("0.0")
    for answer in sorted(question["answers"], key=lambda a: a.get("weight") or 0):
        if answer["numerical_answer_type"] == "exact_answer":
            value = Decimal(repr(answer["exact"]))
            margin_text = str(answer["margin"])
            margin = abs(Decimal(margin_text[:-1]) / 100 * value) if margin_text.endswith("%") else Decimal(margin_text)
            if value - margin <= number <= value + margin:
                return answer
        else:
            low, high = sorted([Decimal(repr(answer["start"])), Decimal(repr(answer["end"]))])
            if low <= number <= high:
                return answer
    return None


class Canvas:
    """The application: routes, state, faults. Thread-safe behind one lock (the work per request is tiny)."""

    def __init__(
        self,
        *,
        tokens: set[str] | None = None,
        readonly_tokens: set[str] | None = None,
        courses: tuple[str, ...] = ("1",),
        faults: Faults | None = None,
        bucket: Bucket | None = None,
        upload_mode: str = "redirect",
        quota: int = 50_000_000,
        polls_to_finish: int = 2,
        leak_token_in_errors: bool = False,
        max_per_page: int = 100,
        positional_items: bool = False,
        reorderer: Reorderer | None = None,
    ) -> None:
        self.tokens = tokens if tokens is not None else {TOKEN}
        self.readonly_tokens = readonly_tokens or set()
        self.courses = {c: Course() for c in courses}
        self.faults = faults or Faults()
        self.bucket = bucket or Bucket()
        self.upload_mode = upload_mode  # "redirect" (local storage, confirm) or "created" (inst-fs, 201)
        self.quota = quota
        self.polls_to_finish = polls_to_finish
        self.leak_token_in_errors = leak_token_in_errors  # a proxy that echoes headers into error pages
        self.max_per_page = max_per_page
        self.positional_items = positional_items  # New Quizzes items: insert at a position, shift the later ones
        self.reorderer = reorderer  # concurrent creates of questions and items run in another order
        self.next_link_loops = 0  # this many list answers say rel="next" is the page just read
        self.echo_authorization: Callable[[str], str] | None = None  # 400s echo the Authorization header, changed
        self.base_url = ""
        self.pending_files: dict[str, dict[str, Any]] = {}  # upload key -> what the preflight asked for
        self.uploads: list[str] = []  # names of the files uploaded, in order (a stored upload, confirmed or not)
        self.lock = threading.RLock()
        self.log: list[LogEntry] = []
        self._ids = itertools.count(1)
        self._answer_ids = random.Random(7)
        self.routes: list[tuple[str, re.Pattern[str], Callable[..., Any]]] = []
        self._route_table()

    # -- bookkeeping ------------------------------------------------------------------------------------------

    def new_id(self) -> int:
        return next(self._ids)

    def writes(self) -> list[LogEntry]:
        return [e for e in self.log if e.write]

    def course(self, course_id: str = "1") -> Course:
        return self.courses[course_id]

    def _route_table(self) -> None:
        c = r"/api/v1/courses/(?P<course>[^/]+)"
        nq = r"/api/quiz/v1/courses/(?P<course>[^/]+)"
        for method, pattern, handler in [
            ("GET", c + r"/quizzes", self.list_quizzes),
            ("POST", c + r"/quizzes", self.create_quiz),
            ("GET", c + r"/quizzes/(?P<quiz>\d+)", self.show_quiz),
            ("PUT", c + r"/quizzes/(?P<quiz>\d+)", self.update_quiz),
            ("DELETE", c + r"/quizzes/(?P<quiz>\d+)", self.delete_quiz),
            ("POST", c + r"/quizzes/(?P<quiz>\d+)/reorder", self.reorder),
            ("GET", c + r"/quizzes/(?P<quiz>\d+)/questions", self.list_questions),
            ("POST", c + r"/quizzes/(?P<quiz>\d+)/questions", self.create_question),
            ("GET", c + r"/quizzes/(?P<quiz>\d+)/questions/(?P<question>\d+)", self.show_question),
            ("PUT", c + r"/quizzes/(?P<quiz>\d+)/questions/(?P<question>\d+)", self.update_question),
            ("DELETE", c + r"/quizzes/(?P<quiz>\d+)/questions/(?P<question>\d+)", self.delete_question),
            ("POST", c + r"/quizzes/(?P<quiz>\d+)/groups", self.create_group),
            ("GET", c + r"/quizzes/(?P<quiz>\d+)/groups/(?P<group>\d+)", self.show_group),
            ("PUT", c + r"/quizzes/(?P<quiz>\d+)/groups/(?P<group>\d+)", self.update_group),
            ("DELETE", c + r"/quizzes/(?P<quiz>\d+)/groups/(?P<group>\d+)", self.delete_group),
            ("GET", nq + r"/quizzes", self.nq_list),
            ("POST", nq + r"/quizzes", self.nq_create),
            ("GET", nq + r"/quizzes/(?P<quiz>\d+)", self.nq_show),
            ("PATCH", nq + r"/quizzes/(?P<quiz>\d+)", self.nq_update),
            ("DELETE", nq + r"/quizzes/(?P<quiz>\d+)", self.nq_delete),
            ("GET", nq + r"/quizzes/(?P<quiz>\d+)/items", self.nq_items),
            ("POST", nq + r"/quizzes/(?P<quiz>\d+)/items", self.nq_create_item),
            ("GET", nq + r"/quizzes/(?P<quiz>\d+)/items/(?P<item>\d+)", self.nq_show_item),
            ("PATCH", nq + r"/quizzes/(?P<quiz>\d+)/items/(?P<item>\d+)", self.nq_update_item),
            ("DELETE", nq + r"/quizzes/(?P<quiz>\d+)/items/(?P<item>\d+)", self.nq_delete_item),
            ("PUT", c + r"/assignments/(?P<assignment>\d+)", self.update_assignment),
            ("POST", c + r"/content_migrations", self.create_migration),
            ("GET", c + r"/content_migrations/(?P<migration>\d+)", self.show_migration),
            ("GET", c + r"/content_migrations/(?P<migration>\d+)/migration_issues", self.migration_issues),
            ("POST", c + r"/files", self.file_preflight),
            ("GET", c + r"/folders/by_path(?:/(?P<path>.*))?", self.folders_by_path),
            ("GET", r"/api/v1/folders/(?P<folder>\d+)/files", self.folder_files),
            ("POST", r"/files_api/upload/(?P<key>[0-9a-f-]+)", self.upload),
            ("GET", r"/api/v1/files/(?P<file>\d+)/create_success", self.create_success),
            ("POST", r"/api/v1/files/(?P<file>\d+)/create_success", self.create_success),
            ("GET", r"/api/v1/progress/(?P<progress>\d+)", self.progress),
            ("GET", c + r"/quizzes/(?P<quiz>\d+)/statistics", self.quiz_statistics),
            ("POST", c + r"/quizzes/(?P<quiz>\d+)/reports", self.create_quiz_report),
            ("GET", c + r"/quizzes/(?P<quiz>\d+)/reports/(?P<report>\d+)", self.show_quiz_report),
            ("GET", r"/files/(?P<file>\d+)/download", self.download_report),
        ]:
            self.routes.append((method, re.compile(pattern + r"\Z"), handler))

    # -- the request pipeline ---------------------------------------------------------------------------------

    def handle(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        split = urlsplit(h.path)
        body, files, order = parse_body(h.headers.get("Content-Type", ""), raw)
        query = nest(parse_qsl(split.query, keep_blank_values=True))
        req = Request(h.command, split.path, query, body, files, order, h.headers, raw)
        faults = self.faults
        if faults.latency:
            time.sleep(faults.latency)
        subject = faults.only is None or faults.only(req)
        drop = False
        if subject and faults.roll(faults.throttle_rate):
            status, payload, headers = 403, RATE_LIMIT_BODY, {"X-Rate-Limit-Remaining": "0.0"}
        elif subject and faults.roll(faults.fail_rate):
            status, payload, headers = 500, InternalError().body, {}
        elif not self.bucket.start():
            status, payload = 403, RATE_LIMIT_BODY
            headers = {"X-Rate-Limit-Remaining": f"{self.bucket.remaining():.4f}"}
        else:
            try:
                status, payload, headers = self.dispatch(req)
            except HttpError as exc:
                status, payload, headers = exc.status, exc.body, exc.headers
                if self.leak_token_in_errors and status == 400:
                    payload = {
                        "errors": [{"message": f"bad request (Authorization: {h.headers.get('Authorization')})"}]
                    }
                if self.echo_authorization is not None and status == 400:
                    echoed = self.echo_authorization(h.headers.get("Authorization") or "")
                    payload = {"errors": [{"message": f"bad request from {echoed}"}]}
            remaining = self.bucket.finish()
            headers = {
                "X-Request-Cost": f"{self.bucket.cost:.4f}",
                "X-Rate-Limit-Remaining": f"{remaining:.4f}",
                **headers,
            }
            drop = subject and faults.roll(faults.drop_rate)
        with self.lock:
            self.log.append(LogEntry(req.method, req.path, "dropped" if drop else status, "Authorization" in h.headers))
        if drop:
            h.close_connection = True
            return
        self._respond(h, status, payload, headers)

    @staticmethod
    def _respond(h: BaseHTTPRequestHandler, status: int, payload: Any, headers: dict[str, str]) -> None:
        if isinstance(payload, RawBody):
            Canvas._respond_raw(h, status, payload, headers)
            return
        if payload is None:
            data, content_type = b"", None
        elif isinstance(payload, str):
            data, content_type = payload.encode(), "text/plain"
        else:  # Rails escapes <, > and & in JSON
            text = json.dumps(payload).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            data, content_type = text.encode(), "application/json; charset=utf-8"
        h.send_response(status)
        if content_type and not any(name.lower() == "content-type" for name in headers):
            h.send_header("Content-Type", content_type)
        for name, value in headers.items():
            h.send_header(name, value)
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    @staticmethod
    def _respond_raw(h: BaseHTTPRequestHandler, status: int, body: RawBody, headers: dict[str, str]) -> None:
        if body.trickle_headers:
            head = f"HTTP/1.1 {status} OK\r\nContent-Type: {body.content_type}\r\nConnection: close\r\n\r\n"
            h.close_connection = True
            try:
                for byte in head.encode():
                    time.sleep(body.delay)
                    h.wfile.write(bytes([byte]))
                    h.wfile.flush()
                    body.written += 1
                for chunk in body.chunks:
                    h.wfile.write(chunk)
                h.wfile.flush()
            except OSError:
                pass
            return
        h.send_response(status)
        h.send_header("Content-Type", body.content_type)
        for name, value in headers.items():
            h.send_header(name, value)
        if body.length is not None:
            h.send_header("Content-Length", str(body.length))
        else:
            h.send_header("Connection", "close")
            h.close_connection = True
        h.end_headers()
        try:
            h.wfile.flush()
            for chunk in body.chunks:
                if body.delay:
                    time.sleep(body.delay)
                h.wfile.write(chunk)
                h.wfile.flush()
        except OSError:  # the client hung up, as it should
            h.close_connection = True

    def dispatch(self, req: Request) -> tuple[int, Any, dict[str, str]]:
        matches = ((h, p.match(req.path)) for method, p, h in self.routes if method == req.method)
        handler, m = next(((h, m) for h, m in matches if m), (None, None))
        if handler is None or m is None:
            raise not_found()  # includes PATCH on classic and PUT on New Quizzes: no such route
        args = m.groupdict()
        if req.path.startswith("/api/") and "/create_success" not in req.path:
            folder = args.get("folder")
            course_of_folder = next(
                (n for n, c in self.courses.items() if folder is not None and int(folder) in c.folders), None
            )
            self.authenticate(req, args.get("course") or course_of_folder)
        if "course" in args and args["course"] not in self.courses:
            raise not_found()
        if self.reorderer is not None and req.method == "POST" and re.search(r"/(questions|items)\Z", req.path):
            result = self.reorderer.run(lambda: self._locked(handler, req, args))
        else:
            result = self._locked(handler, req, args)
        if isinstance(result, tuple):
            return result
        return 200, result, {}

    def _locked(self, handler: Callable[..., Any], req: Request, args: dict[str, Any]) -> Any:
        with self.lock:
            return handler(req, **args)

    def authenticate(self, req: Request, course: str | None) -> None:
        header = req.headers.get("Authorization") or ""
        scheme, _, value = header.partition(" ")
        token = value if scheme == "Bearer" else None  # the scheme is case-sensitive
        if token is None:
            token = req.query.get("access_token") or req.body.get("access_token")
        www = {"WWW-Authenticate": 'Bearer realm="canvas-lms"'}
        if token is None:
            if course is not None and course not in self.courses:
                raise not_found()  # the course is looked up before the permission check
            raise HttpError(
                401, {"status": "unauthenticated", "errors": [{"message": "user authorization required"}]}, www
            )
        if token in self.readonly_tokens:
            if req.method in WRITES:
                raise HttpError(
                    401,
                    {"status": "unauthorized", "errors": [{"message": "user not authorized to perform that action"}]},
                )
            return
        if token not in self.tokens:
            raise HttpError(401, {"errors": [{"message": "Invalid access token."}]}, www)

    def paginate(self, req: Request, items: list[Any]) -> tuple[int, Any, dict[str, str]]:
        try:
            per_page = min(self.max_per_page, max(1, int(req.query.get("per_page", 10))))
            page = max(1, int(req.query.get("page", 1)))
        except ValueError:
            per_page, page = 10, 1
        last = max(1, math.ceil(len(items) / per_page))
        others = [(k, v) for k, v in req.query.items() if k not in {"page", "per_page", "access_token", "api_key"}]

        def link(n: int) -> str:
            return f"{self.base_url}{req.path}?{urlencode([*others, ('page', n), ('per_page', per_page)])}"

        rels = [("current", page)]
        if self.next_link_loops > 0:
            self.next_link_loops -= 1
            rels.append(("next", page))  # back to the page just read
        elif page < last:
            rels.append(("next", page + 1))
        if page > 1:
            rels.append(("prev", page - 1))
        rels += [("first", 1), ("last", last)]
        header = ",".join(f'<{link(n)}>; rel="{rel}"' for rel, n in rels)
        return 200, items[(page - 1) * per_page : page * per_page], {"Link": header}

    # -- classic quizzes --------------------------------------------------------------------------------------

    def _quiz(self, course: str, quiz: str) -> dict[str, Any]:
        found = self.courses[course].quizzes.get(int(quiz))
        if found is None:
            raise not_found()
        return found

    def _quiz_json(self, course: str, quiz: dict[str, Any]) -> dict[str, Any]:
        questions = self.courses[course].classic_questions(quiz["id"])
        shown = dict(quiz, question_count=len(questions))
        return shown

    def _set_quiz_fields(self, course: str, quiz: dict[str, Any], params: Any) -> None:
        if not isinstance(params, dict):
            raise HttpError(400, {"errors": {"quiz": [{"attribute": "quiz", "type": "blank", "message": "blank"}]}})
        if "quiz_type" in params and params["quiz_type"] not in QUIZ_TYPES:
            raise HttpError(
                400,
                {
                    "errors": {
                        "invalid_quiz_type": [
                            {
                                "attribute": "invalid_quiz_type",
                                "type": "Quiz type is not valid",
                                "message": "Quiz type is not valid",
                            }
                        ]
                    }
                },
            )
        for key, value in params.items():
            if key == "description" and isinstance(value, str):
                quiz[key] = sanitize_styles(value)
            elif key in QUIZ_FIELDS:  # other keys are silently ignored
                quiz[key] = truthy(value) if key == "shuffle_answers" and not isinstance(value, bool) else value
        if not quiz["published"]:
            quiz["points_possible"] = self.courses[course].points_possible(quiz["id"])
        if "published" in params:
            if truthy(params["published"]):
                quiz["published"] = True  # publishing snapshots the questions students see
                self.courses[course].student_view[quiz["id"]] = copy.deepcopy(
                    self.courses[course].classic_questions(quiz["id"])
                )
            else:
                quiz["published"] = False

    def list_quizzes(self, req: Request, course: str) -> Any:
        quizzes = sorted(self.courses[course].quizzes.values(), key=lambda q: q["id"])
        return self.paginate(req, [self._quiz_json(course, q) for q in quizzes])

    def create_quiz(self, req: Request, course: str) -> Any:
        quiz_id = self.new_id()
        quiz = {
            "id": quiz_id,
            "title": "Unnamed Quiz",
            "description": "",
            "quiz_type": "assignment",
            "shuffle_answers": False,
            "show_correct_answers": True,
            "allowed_attempts": 1,
            "scoring_policy": "keep_highest",
            "published": False,
            "points_possible": 0.0,
            "html_url": f"{self.base_url}/courses/{course}/quizzes/{quiz_id}",
        }
        self._set_quiz_fields(course, quiz, req.params.get("quiz"))
        self.courses[course].quizzes[quiz_id] = quiz
        self.courses[course].questions[quiz_id] = {}
        self.courses[course].groups[quiz_id] = {}
        return self._quiz_json(course, quiz)

    def show_quiz(self, req: Request, course: str, quiz: str) -> Any:
        return self._quiz_json(course, self._quiz(course, quiz))

    def update_quiz(self, req: Request, course: str, quiz: str) -> Any:
        found = self._quiz(course, quiz)
        self._set_quiz_fields(course, found, req.params.get("quiz"))
        return self._quiz_json(course, found)

    def delete_quiz(self, req: Request, course: str, quiz: str) -> Any:
        found = self._quiz(course, quiz)
        del self.courses[course].quizzes[found["id"]]
        return self._quiz_json(course, found)

    def reorder(self, req: Request, course: str, quiz: str) -> Any:
        found = self._quiz(course, quiz)
        questions = self.courses[course].questions[found["id"]]
        groups = self.courses[course].groups[found["id"]]
        for position, entry in enumerate(req.params.get("order") or [], start=1):
            if entry.get("type", "question") == "question" and int(entry["id"]) in questions:
                questions[int(entry["id"])]["position"] = position
            elif entry.get("type") == "group" and int(entry["id"]) in groups:
                groups[int(entry["id"])]["position"] = position
        return 204, None, {}

    def list_questions(self, req: Request, course: str, quiz: str) -> Any:
        found = self._quiz(course, quiz)
        return self.paginate(req, self.courses[course].classic_questions(found["id"]))

    def _question(self, course: str, quiz: str, question: str) -> dict[str, Any]:
        found = self.courses[course].questions.get(self._quiz(course, quiz)["id"], {}).get(int(question))
        if found is None:
            raise not_found()
        return found

    def show_question(self, req: Request, course: str, quiz: str, question: str) -> Any:
        return self._question(course, quiz, question)

    def _check_length(self, value: Any, limit: int) -> Any:
        if value is None:
            return value
        if not isinstance(value, str):
            raise InternalError()  # Canvas calls .length / .strip on it
        if len(value) > limit:
            raise InternalError()  # FieldTooLongError, re-raised for API calls
        return value

    def _answers(self, raw: Any, question_type: str) -> list[Any]:
        """The MultipleChoice / MultipleAnswers answer parsers, with their surprises."""
        if isinstance(raw, dict):  # a hash becomes arr[key.to_i] = value
            array: list[Any] = []
            for key, value in raw.items():
                index = int(key) if str(key).isdigit() else 0
                array.extend([None] * (index + 1 - len(array)))
                array[index] = value
            raw = array
        if not isinstance(raw, list):
            return []
        if question_type == "numerical_question":
            return self._numerical_answers(raw)
        if question_type not in CHOICE_TYPES:
            return raw  # unknown types keep the answers raw (the base AnswerParser)
        if any(a is None for a in raw):
            raise InternalError()  # nil holes crash the parser
        answers, used = [], set()
        for a in raw:
            text = self._check_length(a.get("answer_text", a.get("text", "")), MAX_TEXT)
            html = (
                a.get("answer_html")
                if question_type == "multiple_answers_question"
                else a.get("answer_html", a.get("html"))
            )
            self._check_length(html, MAX_TEXT)
            comments = self._check_length(a.get("answer_comment", a.get("comments", "")), MAX_TEXT)
            comments_html = self._check_length(a.get("answer_comment_html", a.get("comments_html", "")), MAX_TEXT)
            weight = float(a.get("answer_weight", a.get("weight", 0)) or 0)
            answer_id = int(a.get("id") or a.get("answer_id") or 0)
            while answer_id == 0 or answer_id in used:
                answer_id = self._answer_ids.randint(0, 9999)
            used.add(answer_id)
            answers.append(
                {
                    "id": answer_id,
                    "text": text or "",
                    "html": html or "",
                    "comments": comments or "",
                    "comments_html": comments_html or "",
                    "weight": 100.0 if int(weight) == 100 else weight,
                }
            )
        if answers and not any(a["weight"] == 100 for a in answers):
            answers[0]["weight"] = 100.0  # set_correct_if_none
        return answers

    def _numerical_answers(self, raw: list[Any]) -> list[Any]:
        """The Numerical answer parser (cl:app/models/quizzes/quiz_question/answer_parsers/numerical.rb): every answer
        weight 100; numerical_answer_type exact_answer keeps answer_exact and answer_error_margin (Ruby's to_f: 0.0
        for anything not a number), any other type becomes range_answer from answer_range_start/_end."""
        if any(a is None for a in raw):
            raise InternalError()
        answers, used = [], set()
        for a in raw:
            answer_id = int(a.get("id") or a.get("answer_id") or 0)
            while answer_id == 0 or answer_id in used:
                answer_id = self._answer_ids.randint(0, 9999)
            used.add(answer_id)
            answer: dict[str, Any] = {
                "id": answer_id,
                "text": self._check_length(a.get("answer_text", a.get("text", "")), MAX_TEXT) or "",
                "comments": self._check_length(a.get("answer_comment", a.get("comments", "")), MAX_TEXT) or "",
                "comments_html": self._check_length(a.get("answer_comment_html", a.get("comments_html", "")), MAX_TEXT)
                or "",
                "weight": 100.0,
                "numerical_answer_type": a.get("numerical_answer_type"),
            }
            if answer["numerical_answer_type"] == "exact_answer":
                answer["exact"] = ruby_to_f(a.get("answer_exact"))
                answer["margin"] = ruby_to_f(a.get("answer_error_margin"))
            else:
                answer["numerical_answer_type"] = "range_answer"
                answer["start"] = ruby_to_f(a.get("answer_range_start"))
                answer["end"] = ruby_to_f(a.get("answer_range_end"))
            answers.append(answer)
        return answers

    def _question_data(self, raw: Any, previous: dict[str, Any] | None) -> dict[str, Any]:
        new = {k: raw[k] for k in QUESTION_FIELDS if raw.get(k) is not None}
        data = {**(previous or {}), **new}  # previous.merge(new.compact)
        data["question_type"] = data.get("question_type") or "text_only_question"
        self._check_length(data.get("question_text"), MAX_TEXT)
        for kind in ("correct", "incorrect", "neutral"):
            for suffix in ("", "_html"):
                data.setdefault(f"{kind}_comments{suffix}", "")
                self._check_length(data[f"{kind}_comments{suffix}"], MAX_COMMENT)
        data["points_possible"] = float(data.get("points_possible") or 0)
        if "answers" in raw and raw["answers"] is not None:
            data["answers"] = self._answers(raw["answers"], data["question_type"])
        data.setdefault("answers", [])
        return data

    def create_question(self, req: Request, course: str, quiz: str) -> Any:
        found = self._quiz(course, quiz)
        raw = req.params.get("question")
        if not isinstance(raw, dict):
            raise HttpError(400, {"errors": [{"message": "question is missing"}]})
        group = self._join_group(course, found["id"], raw)
        data = self._question_data(raw, None)
        questions = self.courses[course].questions[found["id"]]
        question_id = self.new_id()
        if group is None:  # question[position] is ignored: the end of the quiz, or of the group
            position = self.courses[course].root_max_position(found["id"]) + 1
        else:
            position = max((q["position"] for q in questions.values() if q["quiz_group_id"] == group), default=0) + 1
        question = {
            "id": question_id,
            "quiz_id": found["id"],
            "quiz_group_id": None,
            "assessment_question_id": self.new_id(),
            "position": position,
            "question_name": "Question",
            "variables": None,
            "formulas": None,
            "matches": None,
            "matching_answer_incorrect_matches": None,
            **data,
        }
        question["position"] = position
        question["quiz_group_id"] = group
        questions[question_id] = question
        if not found["published"]:
            found["points_possible"] = self.courses[course].points_possible(found["id"])
        return question

    def _join_group(self, course: str, quiz_id: int, raw: dict[str, Any]) -> int | None:
        """The group ``question[quiz_group_id]`` names (quiz.quiz_groups.find: an unknown one is a 404)."""
        group_id = raw.get("quiz_group_id")
        if not group_id:
            return None
        if not str(group_id).isdigit() or int(group_id) not in self.courses[course].groups[quiz_id]:
            raise not_found()
        return int(group_id)

    def update_question(self, req: Request, course: str, quiz: str, question: str) -> Any:
        found = self._question(course, quiz, question)
        raw = req.params.get("question")
        if raw is None:
            raise InternalError()  # params[:question] is required
        keep = {k: found[k] for k in ("id", "quiz_id", "quiz_group_id", "assessment_question_id", "position")}
        group = self._join_group(course, found["quiz_id"], raw) if isinstance(raw, dict) else None
        if group is not None and group != found["quiz_group_id"]:  # into a group (never out of one)
            keep["quiz_group_id"] = group
            questions = self.courses[course].questions[found["quiz_id"]].values()
            keep["position"] = sum(1 for q in questions if q["quiz_group_id"] == group)
        found.update(self._question_data(raw, found))
        found.update(keep)
        return found

    # -- question groups --------------------------------------------------------------------------------------

    def _group(self, course: str, quiz: str, group: str) -> dict[str, Any]:
        found = self.courses[course].groups.get(self._quiz(course, quiz)["id"], {}).get(int(group))
        if found is None:
            raise not_found()
        return found

    def _set_group_fields(self, group: dict[str, Any], raw: Any) -> None:
        if not isinstance(raw, list) or not raw or not isinstance(raw[0], dict):
            raise InternalError()  # params[:quiz_groups][0] on nil
        params = raw[0]
        errors: dict[str, Any] = {}
        name = params.get("name", group.get("name"))
        if name is not None and len(str(name)) > 255:
            errors["name"] = [{"attribute": "name", "type": "too_long", "message": "is too long"}]
        for key in ("pick_count", "question_points"):
            value = params.get(key, group.get(key))
            if (
                value is not None
                and not isinstance(value, int | float)
                and not re.fullmatch(r"-?\d+(\.\d+)?", str(value))
            ):
                errors[key] = [{"attribute": key, "type": "not_a_number", "message": "is not a number"}]
        if errors:
            raise HttpError(422, {"errors": errors})
        group["name"] = name
        for key, kind in (("pick_count", int), ("question_points", float)):
            if params.get(key) is not None:
                group[key] = kind(float(params[key]))

    def create_group(self, req: Request, course: str, quiz: str) -> Any:
        found = self._quiz(course, quiz)
        group: dict[str, Any] = {
            "id": self.new_id(),
            "quiz_id": found["id"],
            "name": None,
            "pick_count": None,
            "question_points": None,
            "assessment_question_bank_id": None,  # (linked only to a bank the user can see: none here)
            "position": self.courses[course].root_max_position(found["id"]) + 1,
        }
        self._set_group_fields(group, req.params.get("quiz_groups"))
        if group["pick_count"] is None:
            group["pick_count"] = 0  # set_default_pick_count: the questions it has, none yet
        self.courses[course].groups[found["id"]][group["id"]] = group
        if not found["published"]:
            found["points_possible"] = self.courses[course].points_possible(found["id"])
        return 201, {"quiz_groups": [dict(group)]}, {}

    def show_group(self, req: Request, course: str, quiz: str, group: str) -> Any:
        return dict(self._group(course, quiz, group))

    def update_group(self, req: Request, course: str, quiz: str, group: str) -> Any:
        found = self._group(course, quiz, group)
        raw = req.params.get("quiz_groups")
        if isinstance(raw, list) and raw and isinstance(raw[0], dict):  # the bank and the position stay
            raw = [{k: v for k, v in raw[0].items() if k not in ("assessment_question_bank_id", "position")}]
        self._set_group_fields(found, raw)
        quiz_found = self._quiz(course, quiz)
        if not quiz_found["published"]:
            quiz_found["points_possible"] = self.courses[course].points_possible(quiz_found["id"])
        return {"quiz_groups": [dict(found)]}

    def delete_group(self, req: Request, course: str, quiz: str, group: str) -> Any:
        found = self._group(course, quiz, group)
        questions = self.courses[course].questions[found["quiz_id"]]
        for question_id in [i for i, q in questions.items() if q["quiz_group_id"] == found["id"]]:
            del questions[question_id]  # has_many :quiz_questions, dependent: :destroy
        del self.courses[course].groups[found["quiz_id"]][found["id"]]
        return 204, None, {}

    def delete_question(self, req: Request, course: str, quiz: str, question: str) -> Any:
        found = self._question(course, quiz, question)
        del self.courses[course].questions[found["quiz_id"]][found["id"]]
        return 204, None, {}

    # -- new quizzes ------------------------------------------------------------------------------------------

    def _nq(self, course: str, quiz: str) -> dict[str, Any]:
        found = self.courses[course].new_quizzes.get(quiz)
        if found is None:
            raise not_found()
        return found

    @staticmethod
    def _bad(message: str) -> HttpError:
        return HttpError(400, {"errors": [{"message": message}]})  # shape UNVERIFIED (quiz_api has no source)

    def _set_nq_fields(self, quiz: dict[str, Any], params: Any) -> None:
        if not isinstance(params, dict):
            raise self._bad("quiz is missing")
        for key in ("title", "instructions", "assignment_group_id", "due_at", "lock_at", "unlock_at", "grading_type"):
            if key in params:
                quiz[key] = params[key]
        if "points_possible" in params:
            if float(params["points_possible"]) <= 0:
                raise self._bad("points_possible must be positive")
            quiz["points_possible"] = float(params["points_possible"])
        if isinstance(params.get("quiz_settings"), dict):
            quiz["quiz_settings"] = {**(quiz.get("quiz_settings") or {}), **params["quiz_settings"]}

    def nq_list(self, req: Request, course: str) -> Any:
        quizzes = sorted(self.courses[course].new_quizzes.values(), key=lambda q: int(q["id"]))
        return self.paginate(req, quizzes)

    def nq_create(self, req: Request, course: str) -> Any:
        quiz_id = str(self.new_id())  # the assignment id, as a string
        quiz = {
            "id": quiz_id,
            "title": "",
            "instructions": "",
            "assignment_group_id": None,
            "points_possible": None,
            "due_at": None,
            "lock_at": None,
            "unlock_at": None,
            "published": False,
            "grading_type": "points",
            "quiz_settings": None,
        }
        self._set_nq_fields(quiz, req.params.get("quiz"))
        self.courses[course].new_quizzes[quiz_id] = quiz
        self.courses[course].items[quiz_id] = {}
        return quiz

    def nq_show(self, req: Request, course: str, quiz: str) -> Any:
        return self._nq(course, quiz)

    def nq_update(self, req: Request, course: str, quiz: str) -> Any:
        found = self._nq(course, quiz)
        self._set_nq_fields(found, req.params.get("quiz"))
        return found

    def nq_delete(self, req: Request, course: str, quiz: str) -> Any:
        found = self._nq(course, quiz)
        del self.courses[course].new_quizzes[quiz]
        return found

    def update_assignment(self, req: Request, course: str, assignment: str) -> Any:
        quiz = self.courses[course].new_quizzes.get(assignment)
        if quiz is None:
            raise not_found()
        params = req.params.get("assignment") or {}
        if "published" in params:
            quiz["published"] = truthy(params["published"])
        return {
            "id": int(assignment),
            "name": quiz["title"],
            "published": quiz["published"],
            "is_quiz_lti_assignment": True,
        }

    def _validate_item(self, item: dict[str, Any]) -> None:
        if item.get("entry_type") != "Item":
            raise self._bad("entry_type must be Item")
        entry = item.get("entry")
        if not isinstance(entry, dict):
            raise self._bad("entry is missing")
        for key in ("item_body", "interaction_type_slug", "interaction_data", "scoring_data", "scoring_algorithm"):
            if entry.get(key) in (None, ""):
                raise self._bad(f"entry.{key} is required")
        if item.get("points_possible") is not None and float(item["points_possible"]) <= 0:
            raise self._bad("points_possible must be positive")
        slug = entry["interaction_type_slug"]
        if slug in ("choice", "multi-answer"):
            choices = entry["interaction_data"].get("choices") or []
            ids = set()
            for choice in choices:
                try:
                    ids.add(str(uuid.UUID(str(choice.get("id")))))
                except ValueError:
                    raise self._bad(f"choice id {choice.get('id')!r} is not a UUID") from None
            value = entry["scoring_data"].get("value")
            values = value if isinstance(value, list) else [value]
            if not values or any(str(v) not in ids for v in values):
                raise self._bad("scoring_data.value must name choices of the item")
            feedback = entry.get("answer_feedback") or {}
            if feedback and slug != "choice":
                raise self._bad("answer_feedback is only for choice items")
            if any(k not in ids for k in feedback):
                raise self._bad("answer_feedback is keyed by choice ids")

    def nq_items(self, req: Request, course: str, quiz: str) -> Any:
        self._nq(course, quiz)
        return self.paginate(req, self.courses[course].items_in_order(quiz))

    def nq_create_item(self, req: Request, course: str, quiz: str) -> Any:
        self._nq(course, quiz)
        raw = req.params.get("item")
        if not isinstance(raw, dict):
            raise self._bad("item is missing")
        self._validate_item(raw)
        items = self.courses[course].items[quiz]
        item_id = str(self.new_id())
        position = int(raw.get("position") or max((i["position"] for i in items.values()), default=0) + 1)
        if self.positional_items:  # insert at the position (at most one past the end), shift the later ones
            position = min(max(1, position), len(items) + 1)
            for other in items.values():
                if other["position"] >= position:
                    other["position"] += 1
        item = {
            "id": item_id,
            "position": position,
            "points_possible": float(raw.get("points_possible") or 1),
            "entry_type": "Item",
            "entry_editable": True,
            "stimulus_quiz_entry_id": None,
            "status": "mutable",
            "properties": {},
            "entry": copy.deepcopy(raw["entry"]),
        }
        items[item_id] = item
        return item

    def _item(self, course: str, quiz: str, item: str) -> dict[str, Any]:
        self._nq(course, quiz)
        found = self.courses[course].items[quiz].get(item)
        if found is None:
            raise not_found()
        return found

    def nq_show_item(self, req: Request, course: str, quiz: str, item: str) -> Any:
        return self._item(course, quiz, item)

    def nq_update_item(self, req: Request, course: str, quiz: str, item: str) -> Any:
        found = self._item(course, quiz, item)
        raw = req.params.get("item")
        if not isinstance(raw, dict):
            raise self._bad("item is missing")
        merged = copy.deepcopy(found)
        for key in ("position", "points_possible"):
            if raw.get(key) is not None:
                merged[key] = int(raw[key]) if key == "position" else float(raw[key])
        if isinstance(raw.get("entry"), dict):
            merged["entry"] = {**merged["entry"], **copy.deepcopy(raw["entry"])}
        self._validate_item({**merged, "entry_type": raw.get("entry_type", "Item")})
        if self.positional_items and merged["position"] != found["position"]:  # take it out, insert it again
            order = [i for i in self.courses[course].items_in_order(quiz) if i["id"] != item]
            order.insert(min(max(1, merged["position"]), len(order) + 1) - 1, found)
            for n, other in enumerate(order, start=1):
                other["position"] = n
            merged["position"] = found["position"]
        found.update(merged)
        return found

    def nq_delete_item(self, req: Request, course: str, quiz: str, item: str) -> Any:
        found = self._item(course, quiz, item)
        del self.courses[course].items[quiz][item]
        if self.positional_items:
            for n, other in enumerate(self.courses[course].items_in_order(quiz), start=1):
                other["position"] = n
        return found

    # -- content migrations -----------------------------------------------------------------------------------

    def _migration(self, course: str, migration: str) -> dict[str, Any]:
        found = self.courses[course].migrations.get(int(migration))
        if found is None:
            raise not_found()
        return found

    @staticmethod
    def _public(migration: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in migration.items() if not k.startswith("_")}

    def create_migration(self, req: Request, course: str) -> Any:
        params = req.params
        if params.get("migration_type") != "qti_converter":
            raise HttpError(400, {"message": "Invalid migration_type"})
        pre = params.get("pre_attachment")
        settings = params.get("settings") or {}
        if not isinstance(pre, dict) and not settings.get("file_url"):
            raise HttpError(400, {"message": "File upload or url is required"})
        migration_id, progress_id = self.new_id(), self.new_id()
        migration: dict[str, Any] = {
            "id": migration_id,
            "migration_type": "qti_converter",
            "migration_type_title": "QTI",
            "workflow_state": "pre_processing",
            "progress_url": f"{self.base_url}/api/v1/progress/{progress_id}",
            "migration_issues_url": f"{self.base_url}/api/v1/courses/{course}/content_migrations/{migration_id}"
            "/migration_issues",
            "migration_issues_count": 0,
            "settings": settings,
            "_course": course,
            "_progress": {
                "id": progress_id,
                "context_id": migration_id,
                "context_type": "ContentMigration",
                "tag": "content_migration",
                "completion": 0,
                "workflow_state": "queued",
                "message": None,
                "url": None,
            },
            "_polls": 0,
            "_issues": [],
            "_file": None,
            "_confirmed": False,
        }
        if isinstance(pre, dict):
            if int(pre.get("size") or 0) > self.quota:
                migration["pre_attachment"] = {"error": True, "message": "file size exceeds quota"}
                migration["workflow_state"] = "failed"
            else:
                key = str(uuid.uuid4())
                migration["_upload_key"] = key
                migration["pre_attachment"] = {
                    "upload_url": f"{self.base_url}/files_api/upload/{key}",
                    "upload_params": {
                        "filename": pre.get("name", "upload.zip"),
                        "content_type": "application/zip",
                        "key": f"attachments/{migration_id}/{pre.get('name')}",
                        "x-amz-signature": uuid.uuid4().hex,
                    },
                    "file_param": "file",
                }
        self.courses[course].migrations[migration_id] = migration
        return self._public(migration)

    def show_migration(self, req: Request, course: str, migration: str) -> Any:
        return self._public(self._migration(course, migration))

    def migration_issues(self, req: Request, course: str, migration: str) -> Any:
        found = self._migration(course, migration)
        return self.paginate(
            req, [{"id": i, "description": d, "issue_type": "error"} for i, d in enumerate(found["_issues"], 1)]
        )

    def _by_upload_key(self, key: str) -> dict[str, Any]:
        for course in self.courses.values():
            for migration in course.migrations.values():
                if migration.get("_upload_key") == key:
                    return migration
        raise not_found()

    # -- course files (cl:doc/api/file_uploads.md, files_controller.rb, folders_controller.rb) --------------------

    def _folder(self, course: Course, path: str) -> dict[str, Any]:
        """The folder at ``path`` under "course files", made with its parents when missing (Folder.assert_path)."""
        full = "course files"
        folder = course.folder_by_path(full)
        if folder is None:
            folder = {"id": self.new_id(), "name": full, "full_name": full, "parent_folder_id": None}
            course.folders[folder["id"]] = folder
        for part in [p for p in path.split("/") if p]:
            full = f"{full}/{part}"
            child = course.folder_by_path(full)
            if child is None:
                child = {"id": self.new_id(), "name": part, "full_name": full, "parent_folder_id": folder["id"]}
                course.folders[child["id"]] = child
            folder = child
        return folder

    def file_preflight(self, req: Request, course: str) -> Any:
        params = req.params
        name = params.get("name")
        if not name:
            raise HttpError(400, {"errors": [{"message": "name is missing"}]})
        if params.get("parent_folder_id") and params.get("parent_folder_path"):
            raise HttpError(400, {"message": "Can't set folder path and folder id"})
        if int(params.get("size") or 0) > self.quota:
            raise HttpError(400, {"message": "file size exceeds quota"})
        folder = self._folder(self.courses[course], str(params.get("parent_folder_path") or "unfiled"))
        key = str(uuid.uuid4())
        upload_params = {
            "filename": str(name),
            "content_type": str(params.get("content_type") or "application/octet-stream"),
            "key": f"attachments/{key}/{name}",
            "x-amz-signature": uuid.uuid4().hex,
        }
        self.pending_files[key] = {
            "course": course,
            "folder_id": folder["id"],
            "name": str(name),
            "on_duplicate": str(params.get("on_duplicate") or "overwrite"),
            "upload_params": upload_params,
        }
        return {"upload_url": f"{self.base_url}/files_api/upload/{key}", "upload_params": upload_params}

    def folders_by_path(self, req: Request, course: str, path: str | None = None) -> Any:
        c = self.courses[course]
        chain = [c.folder_by_path("course files") or self._folder(c, "")]
        for part in [p for p in (path or "").split("/") if p]:
            found = c.folder_by_path(f"{chain[-1]['full_name']}/{part}")
            if found is None:
                raise not_found()
            chain.append(found)
        return [dict(f) for f in chain]

    def folder_files(self, req: Request, folder: str) -> Any:
        for c in self.courses.values():
            if int(folder) in c.folders:
                return self.paginate(req, [self._attachment(f) for f in c.visible_files(int(folder))])
        raise not_found()

    @staticmethod
    def _attachment(f: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in f.items() if not k.startswith("_")}

    def _store_file(self, pending: dict[str, Any], data: bytes) -> dict[str, Any]:
        course = self.courses[pending["course"]]
        name = pending["name"]
        same = [f for f in course.visible_files(pending["folder_id"]) if f["display_name"] == name]
        if same and pending["on_duplicate"] == "rename":
            stem, dot, ext = name.rpartition(".")
            name = f"{stem}-{len(same)}.{ext}" if dot else f"{name}-{len(same)}"
        file_id = self.new_id()
        attachment = {
            "id": file_id,
            "folder_id": pending["folder_id"],
            "display_name": name,
            "filename": name,
            "content-type": pending["upload_params"]["content_type"],
            "size": len(data),
            "url": f"{self.base_url}/files/{file_id}/download",
            "_data": data,
            "_available": False,
            "_uuid": uuid.uuid4().hex,
            "_confirmed": False,
            "_replaces": [f["id"] for f in same] if pending["on_duplicate"] != "rename" else [],
        }
        course.files[file_id] = attachment
        return attachment

    def _make_available(self, course: Course, attachment: dict[str, Any]) -> None:
        attachment["_available"] = attachment["_confirmed"] = True
        for old in attachment["_replaces"]:  # overwrite: the older file of that name is deleted
            course.files.pop(old, None)

    def _upload_file(self, req: Request, key: str) -> Any:
        pending = self.pending_files[key]
        if dict(req.body) != pending["upload_params"]:
            raise HttpError(400, "upload_params must be sent back unchanged")
        if not req.field_order or req.field_order[-1] != "file" or "file" not in req.files:
            raise HttpError(400, "the file must be the last part")
        del self.pending_files[key]  # the signature is good for one upload
        course = self.courses[pending["course"]]
        attachment = self._store_file(pending, req.files["file"])
        self.uploads.append(attachment["display_name"])
        if self.upload_mode == "created":
            self._make_available(course, attachment)
            return 201, self._attachment(attachment), {"Location": f"{self.base_url}/api/v1/files/{attachment['id']}"}
        location = f"{self.base_url}/api/v1/files/{attachment['id']}/create_success?uuid={attachment['_uuid']}"
        return 302, None, {"Location": location}

    def upload(self, req: Request, key: str) -> Any:
        if "Authorization" in req.headers:  # S3 refuses a request with a second, foreign auth mechanism
            raise HttpError(
                400, "<Error><Code>InvalidArgument</Code><Message>Only one auth mechanism allowed</Message></Error>"
            )
        if key in self.pending_files:
            return self._upload_file(req, key)
        migration = self._by_upload_key(key)
        expected = migration["pre_attachment"]["upload_params"]
        sent = {k: v for k, v in req.body.items()}
        if sent != expected:
            raise HttpError(400, "upload_params must be sent back unchanged")
        if not req.field_order or req.field_order[-1] != "file" or "file" not in req.files:
            raise HttpError(400, "the file must be the last part")
        migration["_file"] = req.files["file"]
        file_id = migration.setdefault("_file_id", self.new_id())
        attachment = {"id": file_id, "display_name": expected["filename"], "size": len(req.files["file"])}
        if self.upload_mode == "created":
            self._file_arrived(migration)
            return 201, attachment, {"Location": f"{self.base_url}/api/v1/files/{file_id}"}
        migration["_uuid"] = uuid.uuid4().hex
        location = f"{self.base_url}/api/v1/files/{file_id}/create_success?uuid={migration['_uuid']}"
        return 302, None, {"Location": location}

    def create_success(self, req: Request, file: str) -> Any:
        for course in self.courses.values():
            attachment = course.files.get(int(file))
            if attachment is not None and attachment["_uuid"] == req.query.get("uuid"):
                if attachment["_confirmed"]:
                    return 400, None, {}  # head :bad_request: a second confirm is refused
                self._make_available(course, attachment)
                return self._attachment(attachment)
        for course in self.courses.values():
            for migration in course.migrations.values():
                if migration.get("_file_id") == int(file) and migration.get("_uuid") == req.query.get("uuid"):
                    if migration["_confirmed"]:
                        return 400, None, {}  # head :bad_request: a second confirm is refused
                    self._file_arrived(migration)
                    return {"id": int(file), "display_name": migration["pre_attachment"]["upload_params"]["filename"]}
        raise not_found()

    @staticmethod
    def _file_arrived(migration: dict[str, Any]) -> None:
        migration["_confirmed"] = True
        migration["workflow_state"] = "pre_processed"

    # -- quiz results: submissions, statistics, the student analysis report -------------------------------------
    # As canvas-lms keeps and reports them: a completed submission's submission_data (one entry per question:
    # answer_id for multiple choice and true/false, answer_<id> "1"/"0" for multiple answers; app/models/quizzes/
    # quiz_question/*_question.rb), the statistics API (app/controllers/quizzes/quiz_statistics_controller.rb,
    # app/serializers/quizzes/quiz_statistics_serializer.rb over Quizzes::QuizStatistics::StudentAnalysis#generate
    # and its legacy stats_for_question: per answer its responses and user_ids, plus a "none" answer), and the
    # student_analysis quiz report (app/controllers/quizzes/quiz_reports_controller.rb; its CSV from
    # StudentAnalysis#to_csv; the file from the Files API).

    def take_quiz(self, course: str, quiz_id: int, user_id: int, name: str, chosen: dict[int, list[int]]) -> None:
        """A learner's completed submission: ``chosen`` maps each question id to the answer ids picked."""
        data = []
        for q in self.courses[course].classic_questions(quiz_id):
            picked = chosen.get(q["id"], [])
            right = {a["id"] for a in q["answers"] if a["weight"] == 100}
            if q["question_type"] == "multiple_answers_question":
                hits = len(right & set(picked)) - len(set(picked) - right)
                share = max(0.0, hits / len(right)) if right else 0.0
                entry = {"question_id": q["id"], "text": "", "points": q["points_possible"] * share,
                         "correct": True if share == 1 else "partial" if share > 0 else False}  # fmt: skip
                entry.update({f"answer_{a['id']}": "1" if a["id"] in picked else "0" for a in q["answers"]})
            else:
                correct = len(picked) == 1 and picked[0] in right
                entry = {"question_id": q["id"], "text": str(picked[0]) if picked else "", "correct": correct,
                         "points": q["points_possible"] if correct else 0.0}  # fmt: skip
                if picked:
                    entry["answer_id"] = picked[0]
            data.append(entry)
        score = sum(e["points"] for e in data)
        self.courses[course].submissions.setdefault(quiz_id, []).append(
            {
                "user_id": user_id,
                "user_name": name,
                "submission_data": data,
                "score": score,
                "attempt": 1,
                "finished_at": "2026-12-05T02:00:00Z",
            }
        )

    @staticmethod
    def _answer_text(answer: dict[str, Any]) -> str:
        """strip_html_answers: the html without tags when the text is blank."""
        return answer["text"] or re.sub(r"<[^>]*>", "", answer["html"] or "")

    def _question_statistics(self, course: str, quiz_id: int) -> list[dict[str, Any]]:
        out = []
        submissions = self.courses[course].submissions.get(quiz_id, [])
        for q in self.courses[course].classic_questions(quiz_id):
            responses = [
                (s["user_id"], e) for s in submissions for e in s["submission_data"] if e["question_id"] == q["id"]
            ]
            answers = []
            for a in q["answers"]:
                if q["question_type"] == "multiple_answers_question":
                    users = [u for u, e in responses if e.get(f"answer_{a['id']}") == "1"]
                else:
                    users = [u for u, e in responses if e.get("answer_id") == a["id"]]
                answers.append({"id": a["id"], "text": self._answer_text(a), "weight": a["weight"],
                                "responses": len(users), "user_ids": users})  # fmt: skip
            everyone = [u for u, _ in responses]
            answered = {u for a in answers for u in a["user_ids"]}
            none = [u for u in everyone if u not in answered]
            if none:
                answers.append(
                    {"id": "none", "weight": 0, "text": "No Answer", "responses": len(none), "user_ids": none}
                )
            out.append({"id": q["id"], "question_type": q["question_type"], "question_text": q.get("question_text"),
                        "position": q["position"], "responses": len(responses), "user_ids": everyone,
                        "answers": answers})  # fmt: skip
        return out

    def quiz_statistics(self, req: Request, course: str, quiz: str) -> Any:
        found = self._quiz(course, quiz)
        submissions = self.courses[course].submissions.get(found["id"], [])
        scores = [s["score"] for s in submissions]
        url = f"{self.base_url}/api/v1/courses/{course}/quizzes/{quiz}/statistics"
        return {
            "quiz_statistics": [
                {
                    "id": str(found["id"]),
                    "url": url,
                    "html_url": f"{self.base_url}/courses/{course}/quizzes/{quiz}/statistics",
                    "multiple_attempts_exist": False,
                    "includes_all_versions": truthy(req.params.get("all_versions", False)),
                    "generated_at": "2026-12-05T02:00:00Z",
                    "question_statistics": self._question_statistics(course, found["id"]),
                    "submission_statistics": {
                        "unique_count": len(submissions),
                        "score_average": sum(scores) / len(scores) if scores else None,
                        "user_ids": [s["user_id"] for s in submissions],
                    },
                    "links": {"quiz": f"{self.base_url}/api/v1/courses/{course}/quizzes/{quiz}"},
                }
            ]
        }

    def _student_analysis_csv(self, course: str, quiz_id: int) -> bytes:
        """StudentAnalysis#to_csv, for a course without SIS ids, one section, latest attempts."""
        questions = self.courses[course].classic_questions(quiz_id)
        columns: list[Any] = ["name", "id", "section", "section_id", "submitted"]
        for q in questions:
            columns += [f"{q['id']}: {re.sub(r'<[^>]*>', '', q.get('question_text') or '')}", q["points_possible"]]
        columns += ["n correct", "n incorrect", "score"]
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(columns)
        for s in reversed(self.courses[course].submissions.get(quiz_id, [])):  # (sorted by updated_at, newest first)
            row: list[Any] = [s["user_name"], s["user_id"], "Section 1", 1, s["finished_at"]]
            for q in questions:
                e = next((e for e in s["submission_data"] if e["question_id"] == q["id"]), None)
                if e is None:
                    row += ["", ""]
                    continue
                if q["question_type"] == "multiple_answers_question":
                    texts = [self._answer_text(a).replace(",", "\\,") for a in q["answers"]
                             if e.get(f"answer_{a['id']}") == "1"]  # fmt: skip
                    row.append(",".join(texts))
                else:
                    answer = next((a for a in q["answers"] if a["id"] == e.get("answer_id")), None)
                    row.append(self._answer_text(answer) if answer else e.get("text", ""))
                row.append(e["points"])
            correct = [e for e in s["submission_data"] if e["correct"] is True]
            row += [len(correct), len(s["submission_data"]) - len(correct), s["score"]]
            writer.writerow(row)
        return buffer.getvalue().encode()

    def _report_json(self, course: str, quiz: str, report: dict[str, Any]) -> dict[str, Any]:
        base = f"{self.base_url}/api/v1/courses/{course}/quizzes/{quiz}/reports/{report['id']}"
        out = {k: v for k, v in report.items() if not k.startswith("_")}
        out["url"] = base
        report["_polls"] += 1
        if report["_polls"] >= self.polls_to_finish:
            out["file"] = {"id": report["id"], "filename": "student_analysis.csv", "content-type": "text/csv",
                           "url": f"{self.base_url}/files/{report['id']}/download?download_frd=1&verifier=v",
                           "size": len(report["_csv"])}  # fmt: skip
        else:
            out["progress_url"] = f"{self.base_url}/api/v1/progress/{report['id']}"
        return out

    def create_quiz_report(self, req: Request, course: str, quiz: str) -> Any:
        found = self._quiz(course, quiz)
        params = req.params.get("quiz_report") or {}
        if params.get("report_type") not in ("student_analysis", "item_analysis"):
            raise HttpError(400, {"errors": [{"message": "invalid quiz report type"}]})
        report = {"id": self.new_id(), "report_type": params["report_type"], "readable_type": "Student Analysis",
                  "includes_all_versions": truthy(params.get("includes_all_versions", False)), "anonymous": False,
                  "generatable": True, "_csv": self._student_analysis_csv(course, found["id"]),
                  "_polls": 0}  # fmt: skip
        self.courses[course].reports[report["id"]] = report
        return self._report_json(course, quiz, report)

    def show_quiz_report(self, req: Request, course: str, quiz: str, report: str) -> Any:
        self._quiz(course, quiz)
        found = self.courses[course].reports.get(int(report))
        if found is None:
            raise not_found()
        return self._report_json(course, quiz, found)

    def download_report(self, req: Request, file: str) -> Any:
        for course in self.courses.values():
            if int(file) in course.reports:
                data = course.reports[int(file)]["_csv"]
                return RawBody([data], length=len(data), content_type="text/csv; charset=utf-8")
        raise not_found()

    def progress(self, req: Request, progress: str) -> Any:
        for course in self.courses.values():
            for migration in course.migrations.values():
                record = migration["_progress"]
                if record["id"] == int(progress):
                    if migration["workflow_state"] in ("pre_processed", "running"):
                        migration["_polls"] += 1
                        migration["workflow_state"] = record["workflow_state"] = "running"
                        record["completion"] = 50
                        if migration["_polls"] >= self.polls_to_finish:
                            self._import(course, migration)
                    return dict(record)
        raise not_found()

    @staticmethod
    def _qti12_items(data: bytes, manifest: Any) -> list[str]:
        """Idents of the choice items in the QTI 1.2 files of ``imsqti_xmlv1p2`` resources."""
        qti12 = "{http://www.imsglobal.org/xsd/ims_qtiasiv1p2}"
        found: list[str] = []
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            for resource in manifest.iter("{*}resource"):
                if not (resource.get("type") or "").startswith("imsqti_xmlv1p2"):
                    continue
                for file in resource.iter("{*}file"):
                    root = parse_untrusted(package.read(file.get("href") or ""))
                    found += [
                        i.get("ident") or ""
                        for i in root.iter(f"{qti12}item")
                        if i.find(f".//{qti12}render_choice") is not None
                    ]
        return found

    def _import(self, course: Course, migration: dict[str, Any]) -> None:
        """The QTI converter's first decisions (converter.rb): QTI 2 by the manifest's namespaces, else QTI 1.2."""
        record = migration["_progress"]
        try:
            with zipfile.ZipFile(io.BytesIO(migration["_file"])) as package:
                manifest = parse_untrusted(package.read("imsmanifest.xml"))
        except (KeyError, zipfile.BadZipFile, ValueError) as exc:
            migration["_issues"].append(f"not a QTI package: {exc}")
            manifest = None
        items: list[str] = []
        if manifest is not None:
            root = manifest.getroot() if hasattr(manifest, "getroot") else manifest
            namespaces = {v for el in root.iter() for v in (el.nsmap or {}).values()}
            schema = " ".join(t.text or "" for t in root.iter() if isinstance(t.tag, str) and t.tag.endswith("schema"))
            qti2 = any(
                re.match(r"http://www\.imsglobal\.org/xsd/(imsqti_v2p[01]|qti/qtiv2p[01])", ns) for ns in namespaces
            )
            if not (qti2 or re.search(r"QTIv2\.", schema)):
                # QTI 1.2: converter.rb runs the QTI migration tool over the imsqti_xmlv1p2 resources' files
                items = self._qti12_items(migration["_file"], root)
                if not items:
                    migration["_issues"].append(
                        "an unrecognised QTI version: neither a QTI 2.0/2.1 manifest nor QTI 1.2 assessments"
                    )
            else:
                for resource in root.iter():
                    kind = resource.get("type") or ""
                    if (
                        isinstance(resource.tag, str)
                        and resource.tag.endswith("resource")
                        and kind.startswith("imsqti_item_xmlv2p")
                    ):
                        items.append(resource.get("identifier") or "")
                if not items:
                    migration["_issues"].append("the package has no QTI 2 items")
        if items:
            name = migration["settings"].get("question_bank_name") or "Imported Questions"
            course.question_banks.setdefault(name, []).extend(items)
            migration["workflow_state"] = record["workflow_state"] = "completed"
            record["completion"] = 100
        else:
            migration["workflow_state"] = record["workflow_state"] = "failed"
        migration["migration_issues_count"] = len(migration["_issues"])


# -- the server -----------------------------------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    wbufsize = 1 << 16  # headers and body leave in one write (flushed after each request)
    server: _Server

    def _any(self) -> None:
        self.server.app.handle(self)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _any

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64
    app: Canvas

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):  # a client that hung up (on a flood, a trickle): fine
            return
        super().handle_error(request, client_address)


class CanvasServer:
    """Runs a :class:`Canvas` on 127.0.0.1 in a background thread: ``with CanvasServer() as server: server.url``."""

    def __init__(self, app: Canvas | None = None) -> None:
        self.app = app or Canvas()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.app = self.app
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self.app.base_url = self.url
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    def __enter__(self) -> CanvasServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
