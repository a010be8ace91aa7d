"""Sync a bank into a Canvas course: observe what the course holds, plan, apply; and the QTI upload route.

``plan(desired, observed)`` is a pure function over plain data: every object is matched by the stable id in its
marker and compared by the fingerprint beside it, so a second push of an unchanged bank plans no write at all,
and a push that was interrupted is completed by the next one. ``Pusher`` does the requests: creates run
concurrently and, since Canvas has no idempotency keys, a create whose response was lost is never simply
repeated: the collection is re-read and the object adopted if it was made.

Why it is over 700 lines (issue 19): observe, plan and apply are one contract (the plan's steps are what apply
runs, and a quiz's groups ride with its questions), kept side by side so a change to one is checked against the
others. The HTTP policy is canvas_client's; the request bodies are formats/canvas's; this module knows neither.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import requests

from ..formats.canvas import (
    DesiredGroup,
    DesiredQuestion,
    DesiredQuiz,
    Engine,
    QuestionMarker,
    QuizMarker,
    read_question_marker,
    read_quiz_marker,
)
from ..formats.canvas_media import refs, resolve
from ..numbers_in import ascii_digits
from .canvas_client import CanvasClient, CanvasError, Uncertain
from .canvas_files import CourseFiles, FilePlan, ImageFile, folder_path
from .canvas_shapes import (
    ClassicQuestion,
    ClassicQuiz,
    Created,
    CreatedGroups,
    Migration,
    MigrationIssue,
    NewQuiz,
    NewQuizItem,
    PreAttachment,
    Progress,
    QuizGroup,
)

# -- engines --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EngineApi:
    """What differs between Classic Quizzes and New Quizzes, as data."""

    name: Engine
    quizzes: str  # collection path; {course} is filled in
    questions: str  # relative to a quiz's path
    update: str  # HTTP verb of updates
    quiz_text: str  # the quiz field that carries the marker
    freezes_on_publish: bool  # classic: students see the question set of the last publish
    positions_in_items: bool  # new quizzes: each item's position is in its body; classic: one reorder request
    quiz_shape: type[ClassicQuiz] | type[NewQuiz]  # what a quiz looks like when read back
    question_shape: type[ClassicQuestion] | type[NewQuizItem]


CLASSIC = EngineApi(
    "classic", "/api/v1/courses/{course}/quizzes", "questions", "PUT", "description",
    freezes_on_publish=True, positions_in_items=False, quiz_shape=ClassicQuiz, question_shape=ClassicQuestion,
)  # fmt: skip
NEW_QUIZZES = EngineApi(
    "new-quizzes", "/api/quiz/v1/courses/{course}/quizzes", "items", "PATCH", "instructions",
    freezes_on_publish=False, positions_in_items=True, quiz_shape=NewQuiz, question_shape=NewQuizItem,
)  # fmt: skip
ENGINE_APIS: dict[str, EngineApi] = {"classic": CLASSIC, "new-quizzes": NEW_QUIZZES}

# -- what the course holds ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RemoteQuestion:
    id: str
    position: int
    marker: QuestionMarker | None  # None: not made by moe-lms
    group_id: str | None = None  # classic: the question group it is in


@dataclass(frozen=True)
class RemoteGroup:
    """A classic question group, found through the questions in it (Canvas has no API that lists a quiz's groups):
    its fields, and the stable ids of the questions of ``bank_id`` in it (by their markers), which say whose it is."""

    id: str
    position: int
    name: str | None = None
    pick_count: int | None = None
    question_points: float | None = None
    bank_id: str | None = None
    questions: tuple[str, ...] = ()  # the stable ids of bank_id's questions in it
    others: int = 0  # questions in it that moe-lms did not make for bank_id

    def ours(self, desired: DesiredQuiz) -> bool:
        """Whether moe-lms made it: every question in it is one of the bank's (a group holding a question moe-lms
        did not make is the teacher's)."""
        return self.bank_id == desired.bank_id and not self.others and bool(self.questions)

    def section(self, desired: DesiredQuiz) -> str | None:
        """The section of ``desired`` this group of ours is: the one most of its questions are in (None: none of
        them is in a group now)."""
        if not self.ours(desired):
            return None
        sections = {d.key: d.group for d in desired.questions}
        counts: dict[str, int] = {}
        for key in self.questions:
            section = sections.get(key)
            if section is not None:
                counts[section] = counts.get(section, 0) + 1
        return max(counts, key=lambda k: (counts[k], -list(counts).index(k))) if counts else None


@dataclass(frozen=True)
class RemoteQuiz:
    id: str
    marker: QuizMarker
    published: bool
    questions: tuple[RemoteQuestion, ...] = ()
    groups: tuple[RemoteGroup, ...] = ()


# -- the plan -------------------------------------------------------------------------------------------------


class Action(StrEnum):
    CREATE = "create"
    UPDATE = "update"
    UNCHANGED = "unchanged"
    DELETE = "delete"
    KEEP = "left alone"  # exists in Canvas, not in the bank, and --prune was not given (or not ours)


WRITES = frozenset({Action.CREATE, Action.UPDATE, Action.DELETE})


@dataclass(frozen=True)
class QuestionStep:
    action: Action
    key: str  # stable id, or the Canvas id of a question moe-lms did not make
    remote_id: str | None = None
    desired: DesiredQuestion | None = None
    why: str = ""


@dataclass(frozen=True)
class GroupStep:
    action: Action
    key: str  # the section's id, or the Canvas id of a group moe-lms did not make
    remote_id: str | None = None
    desired: DesiredGroup | None = None
    why: str = ""


@dataclass(frozen=True)
class QuizStep:
    desired: DesiredQuiz
    action: Action  # CREATE, UPDATE (a final write of the quiz itself) or UNCHANGED
    remote_id: str | None
    questions: tuple[QuestionStep, ...]
    final_write: dict[str, Any] | None = None  # the quiz body sent after the questions (fields, marker, publish)
    publish_assignment: bool = False  # new quizzes publish through their assignment
    reorder: bool = False  # classic: send the full order once the questions are in place
    order_tail: tuple[str, ...] = ()  # Canvas ids kept after the bank's questions, in their current order
    warnings: tuple[str, ...] = ()
    groups: tuple[GroupStep, ...] = ()  # classic: the quiz's question groups (made before its questions)

    def count(self, action: Action) -> int:
        return sum(1 for s in self.questions if s.action is action)

    @property
    def publishes(self) -> bool:
        return self.publish_assignment or bool(self.final_write and self.final_write["quiz"].get("published"))

    @property
    def writes(self) -> int:
        """Write requests this step makes when nothing fails."""
        return (
            (self.action is Action.CREATE)
            + (self.final_write is not None)
            + self.publish_assignment
            + self.reorder
            + sum(1 for s in self.questions if s.action in WRITES)
            + sum(1 for g in self.groups if g.action in WRITES)
        )


@dataclass(frozen=True)
class Plan:
    engine: Engine
    quizzes: tuple[QuizStep, ...]
    delete_quizzes: tuple[RemoteQuiz, ...] = ()
    warnings: tuple[str, ...] = ()
    files: FilePlan | None = None  # the images the questions show, uploaded before any question is written

    def count(self, action: Action) -> int:
        return sum(q.count(action) for q in self.quizzes)

    @property
    def writes(self) -> int:
        """Write requests when nothing fails; an image upload counts as one (it is two or three requests)."""
        files = self.files.writes if self.files is not None else 0
        return sum(q.writes for q in self.quizzes) + len(self.delete_quizzes) + files

    @property
    def all_warnings(self) -> list[str]:
        return [*self.warnings, *(w for q in self.quizzes for w in q.warnings)]


def _id_order(canvas_id: str) -> tuple[int, str]:
    return (int(canvas_id), "") if ascii_digits(canvas_id) else (1 << 62, canvas_id)


def _group_steps(desired: DesiredQuiz, remote: RemoteQuiz) -> list[GroupStep]:
    """The quiz's question groups in quiz order, then the groups of ours it no longer has or has twice (deleted:
    a section that stopped drawing, or a copy), and the groups moe-lms did not make (left alone)."""
    ours: dict[str, RemoteGroup] = {}
    tail: list[GroupStep] = []
    for g in sorted(remote.groups, key=lambda g: _id_order(g.id)):
        key = g.section(desired)
        if not g.ours(desired):
            tail.append(GroupStep(Action.KEEP, g.id, g.id, why="not made by moe-lms for this quiz"))
        elif key is None:
            tail.append(GroupStep(Action.DELETE, g.id, g.id, why="its section no longer draws"))
        elif key in ours:
            tail.append(GroupStep(Action.DELETE, key, g.id, why="duplicate"))
        else:
            ours[key] = g
    steps: list[GroupStep] = []
    for d in desired.groups:
        found = ours.pop(d.key, None)
        if found is None:
            steps.append(GroupStep(Action.CREATE, d.key, None, d))
        elif not d.same(found.name, found.pick_count, found.question_points):
            steps.append(GroupStep(Action.UPDATE, d.key, found.id, d, "title, draw or points changed"))
        else:
            steps.append(GroupStep(Action.UNCHANGED, d.key, found.id, d))
    tail += [GroupStep(Action.DELETE, key, g.id, why="its section no longer draws") for key, g in ours.items()]
    return steps + tail


def _question_steps(
    desired: DesiredQuiz,
    remote: RemoteQuiz,
    api: EngineApi,
    prune: bool,
    uploading: frozenset[str] = frozenset(),
    groups: Sequence[GroupStep] = (),
) -> tuple[list[QuestionStep], list[RemoteQuestion]]:
    """Steps in bank order, then deletions and questions left alone; and the remote questions that stay.

    ``groups``: the quiz's group steps; a question not in the group its section keeps is moved into it (Canvas
    cannot take one out of a group: such a question is made again outside it)."""
    kept_group = {g.key: g.remote_id for g in groups if g.desired is not None}
    in_order = sorted(remote.questions, key=lambda r: (r.position, _id_order(r.id)))
    mine: dict[str, RemoteQuestion] = {}
    steps: list[QuestionStep] = []
    tail: list[QuestionStep] = []
    for r in in_order:
        if r.marker is None or r.marker.bank_id != desired.bank_id:
            tail.append(QuestionStep(Action.KEEP, r.id, r.id, why="not made by moe-lms for this bank"))
        elif r.marker.key in mine:
            tail.append(QuestionStep(Action.DELETE, r.marker.key, r.id, why="duplicate"))
        else:
            mine[r.marker.key] = r
    for position, d in enumerate(desired.questions, start=1):
        found = mine.pop(d.key) if d.key in mine else None
        wanted_group = None if d.group is None else kept_group.get(d.group)
        if found is not None and found.group_id is not None and d.group is None:
            steps.append(QuestionStep(Action.CREATE, d.key, None, d, "out of its question group"))
            tail.append(QuestionStep(Action.DELETE, d.key, found.id, why="made again outside its question group"))
        elif found is None:
            steps.append(QuestionStep(Action.CREATE, d.key, None, d))
        elif found.marker is not None and found.marker.fingerprint != d.fingerprint:
            steps.append(QuestionStep(Action.UPDATE, d.key, found.id, d, "content changed"))
        elif d.group is not None and (wanted_group is None or found.group_id != wanted_group):
            steps.append(QuestionStep(Action.UPDATE, d.key, found.id, d, f"into question group {d.group!r}"))
        elif api.positions_in_items and found.position != position:
            steps.append(QuestionStep(Action.UPDATE, d.key, found.id, d, f"moved to position {position}"))
        elif uploading and refs(d.body) & uploading:
            # Same content, but an image it shows is uploaded again (deleted from the course's files): the
            # course file has a new id, so the question must point at it.
            steps.append(QuestionStep(Action.UPDATE, d.key, found.id, d, "an image it shows is uploaded again"))
        else:
            steps.append(QuestionStep(Action.UNCHANGED, d.key, found.id, d))
    for key, r in mine.items():
        if prune:
            tail.append(QuestionStep(Action.DELETE, key, r.id, why="no longer in the bank"))
        else:
            tail.append(QuestionStep(Action.KEEP, key, r.id, why="no longer in the bank; --prune deletes it"))
    deleted = {s.remote_id for s in tail if s.action is Action.DELETE}
    staying = [r for r in in_order if r.id not in deleted]
    return steps + tail, staying


def _quiz_step(
    desired: DesiredQuiz,
    remote: RemoteQuiz | None,
    api: EngineApi,
    prune: bool,
    publish: bool,
    uploading: frozenset[str] = frozenset(),
) -> QuizStep:
    if remote is None:
        creates = tuple(QuestionStep(Action.CREATE, d.key, None, d) for d in desired.questions)
        return QuizStep(
            desired,
            Action.CREATE,
            None,
            creates,
            final_write=desired.body(publish=True) if publish and api.freezes_on_publish else None,
            publish_assignment=publish and not api.freezes_on_publish,
            reorder=not api.positions_in_items and len(desired.order or creates) > 1,
            groups=tuple(GroupStep(Action.CREATE, g.key, None, g) for g in desired.groups),
            warnings=desired.warnings,
        )
    groups = _group_steps(desired, remote)
    steps, staying = _question_steps(desired, remote, api, prune, uploading, groups)
    ours = {s.remote_id for s in steps if s.desired is not None}
    deleted_groups = {g.remote_id for g in groups if g.action is Action.DELETE}
    # The quiz's own entries (Canvas orders its questions outside groups and its groups together); a question in a
    # group has its place in the group.
    root = [r for r in staying if r.group_id is None or r.group_id in deleted_groups]
    order_tail = tuple(r.id for r in root if r.id not in ours)
    reorder = False
    if not api.positions_in_items:
        by_key = {s.key: s.remote_id for s in steps if s.desired is not None}
        group_ids = {g.key: g.remote_id for g in groups if g.desired is not None}
        entries = desired.order or tuple(("question", d.key) for d in desired.questions)
        wanted = [(by_key if kind == "question" else group_ids)[key] for kind, key in entries] + list(order_tail)
        kept_groups = [g for g in remote.groups if g.id not in deleted_groups]
        current = [
            entry
            for _, _, entry in sorted(
                [(r.position, _id_order(r.id), r.id) for r in root if r.group_id is None]
                + [(g.position, _id_order(g.id), g.id) for g in kept_groups]
            )
        ]
        created = any(s.action is Action.CREATE for s in steps) or any(g.action is Action.CREATE for g in groups)
        reorder = created or current != wanted
    question_writes = reorder or any(s.action in WRITES for s in steps) or any(g.action in WRITES for g in groups)
    fields_changed = (
        remote.marker.fingerprint != desired.fingerprint
        or not remote.marker.hidden  # (a marker moe-lms once wrote where learners read it)
        or bool(refs(desired.fields) & uploading)
    )
    warnings: list[str] = []
    if api.freezes_on_publish:
        stale = remote.published and (question_writes or remote.marker.shown != desired.digest)
        republish = publish and (stale or not remote.published)
        if stale and not publish:
            warnings.append(
                f"quiz {remote.id} ({desired.locale}) is published: students keep seeing the question set it was "
                "last published with until it is published again (--publish does that)"
            )
        shown = desired.digest if republish or not remote.published else remote.marker.shown
        final = desired.body(shown=shown, publish=republish) if fields_changed or republish else None
        publish_assignment = False
    else:
        final = desired.body() if fields_changed else None
        publish_assignment = publish and not remote.published
    return QuizStep(
        desired,
        Action.UPDATE if final is not None or publish_assignment else Action.UNCHANGED,
        remote.id,
        tuple(steps),
        final_write=final,
        publish_assignment=publish_assignment,
        reorder=reorder,
        order_tail=order_tail,
        warnings=(*desired.warnings, *warnings),
        groups=tuple(groups),
    )


def plan(
    desired: Sequence[DesiredQuiz],
    observed: Iterable[RemoteQuiz],
    *,
    engine: Engine,
    known_locales: Collection[str],
    prune: bool = False,
    publish: bool = False,
    files: FilePlan | None = None,
) -> Plan:
    """What to do so the course holds ``desired``: pure, so it is what --dry-run prints and what tests check.

    ``observed`` is every quiz in the course that carries this bank's marker. ``known_locales`` are the bank's
    locales: a quiz of a locale the bank no longer has is deleted with ``prune``. ``files`` is the plan of the
    images the bodies refer to (``moe-file:<sha256>``): a question showing an image that is uploaded again is
    rewritten even when its content did not change.
    """
    uploading = files.uploading if files is not None else frozenset()
    api = ENGINE_APIS[engine]
    by_locale: dict[str, list[RemoteQuiz]] = {}
    for r in observed:
        by_locale.setdefault(r.marker.locale, []).append(r)
    steps: list[QuizStep] = []
    deletes: list[RemoteQuiz] = []
    warnings: list[str] = []
    for d in desired:
        candidates = sorted(by_locale.pop(d.locale, []), key=lambda r: _id_order(r.id))
        for extra in candidates[1:]:
            if prune:
                deletes.append(extra)
            else:
                warnings.append(
                    f"quiz {extra.id} also carries the marker of {d.key} (a copy?); "
                    f"quiz {candidates[0].id} is synced, and --prune deletes the copy"
                )
        steps.append(_quiz_step(d, candidates[0] if candidates else None, api, prune, publish, uploading))
    for locale, remotes in sorted(by_locale.items()):
        if locale not in known_locales:
            if prune:
                deletes.extend(remotes)
            else:
                ids = ", ".join(r.id for r in remotes)
                warnings.append(f"quiz {ids} is for locale {locale}, which the bank no longer has; --prune deletes it")
    return Plan(engine, tuple(steps), tuple(deletes), tuple(warnings), files)


# -- observing and applying -----------------------------------------------------------------------------------


@dataclass
class Outcome:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    quizzes: dict[str, str] = field(default_factory=dict)  # locale -> Canvas id
    uploaded: int = 0  # images
    groups: int = 0  # question groups created, updated or deleted


class Pusher:
    """Reads a course and applies a plan to it, through one client."""

    def __init__(
        self,
        client: CanvasClient,
        course_id: str,
        engine: Engine,
        *,
        on_write: Callable[[], None] | None = None,
    ) -> None:
        self.client = client
        self.course = course_id
        self.api = ENGINE_APIS[engine]
        self.quizzes_path = self.api.quizzes.format(course=course_id)
        self.on_write = on_write or (lambda: None)
        self.urls: dict[str, str] = {}  # image SHA-256 -> course file URL, known once the images are in place

    def quiz_path(self, quiz_id: str) -> str:
        return f"{self.quizzes_path}/{quiz_id}"

    def questions_path(self, quiz_id: str) -> str:
        return f"{self.quiz_path(quiz_id)}/{self.api.questions}"

    # -- reading --------------------------------------------------------------------------------------------

    def _quizzes(self, bank_id: str, quiz_id: str | None = None) -> list[tuple[ClassicQuiz | NewQuiz, QuizMarker]]:
        """The course's quizzes of this bank's quiz ``quiz_id`` (None: of the whole bank)."""
        found: list[tuple[ClassicQuiz | NewQuiz, QuizMarker]] = []
        for quiz in self.client.get_all(self.quizzes_path, self.api.quiz_shape):
            marker = read_quiz_marker(quiz.marker_text)
            if marker is not None and marker.bank_id == bank_id and marker.quiz_id == quiz_id:
                found.append((quiz, marker))
        return found

    def _questions(self, quiz_id: str) -> tuple[RemoteQuestion, ...]:
        return tuple(
            RemoteQuestion(
                obj.id, obj.position or 0, read_question_marker(obj.name), getattr(obj, "quiz_group_id", None)
            )
            for obj in self.client.get_all(self.questions_path(quiz_id), self.api.question_shape)
        )

    def groups_path(self, quiz_id: str) -> str:
        return f"{self.quiz_path(quiz_id)}/groups"

    def _groups(self, quiz_id: str, questions: Iterable[RemoteQuestion], bank_id: str) -> tuple[RemoteGroup, ...]:
        """The question groups the questions are in, each read once (a group without questions cannot be found),
        with the stable ids of ``bank_id``'s questions in each."""
        members: dict[str, list[RemoteQuestion]] = {}
        for q in questions:
            if q.group_id is not None:
                members.setdefault(q.group_id, []).append(q)
        found = []
        for group_id in sorted(members, key=_id_order):
            group = self.client.get(f"{self.groups_path(quiz_id)}/{group_id}", QuizGroup)
            ours = [q.marker.key for q in members[group_id] if q.marker is not None and q.marker.bank_id == bank_id]
            fields = (group.name, group.pick_count, group.question_points)
            others = len(members[group_id]) - len(ours)
            found.append(RemoteGroup(group.id, group.position or 0, *fields, bank_id, tuple(ours), others))
        return tuple(found)

    def observe(self, bank_id: str, locales: Collection[str], quiz_id: str | None = None) -> list[RemoteQuiz]:
        """Every quiz of this bank's quiz ``quiz_id`` in the course; the questions (and groups) of those in
        ``locales``."""
        observed = []
        for quiz, marker in self._quizzes(bank_id, quiz_id):
            questions = self._questions(quiz.id) if marker.locale in locales else ()
            groups = self._groups(quiz.id, questions, bank_id) if self.api is CLASSIC else ()
            observed.append(RemoteQuiz(quiz.id, marker, quiz.published, questions, groups))
        return observed

    def plan(
        self,
        desired: Sequence[DesiredQuiz],
        known_locales: Collection[str],
        *,
        prune: bool,
        publish: bool,
        files: Sequence[ImageFile] = (),
    ) -> Plan:
        """Read the course, then plan: the whole of a --dry-run. ``files`` are the images the bodies refer to."""
        bank_ids = {d.bank_id for d in desired}
        quiz_ids = {d.quiz_id for d in desired}
        if len(quiz_ids) > 1:
            raise CanvasError("one quiz of a bank is pushed at a time")
        quiz_id = next(iter(quiz_ids), None)
        needed = {sha for d in desired for sha in refs(d.fields) | {s for q in d.questions for s in refs(q.body)}}
        missing = needed - {f.sha256 for f in files}
        if missing:
            raise CanvasError(f"the questions show {len(missing)} image(s) the push was not given: {sorted(missing)}")
        file_plan = None
        if files:
            if len(bank_ids) != 1:
                raise CanvasError("images can be pushed for one bank at a time")
            file_plan = self.files(next(iter(bank_ids))).plan(f for f in files if f.sha256 in needed)
        locales = [d.locale for d in desired]
        observed = [r for bank_id in bank_ids for r in self.observe(bank_id, locales, quiz_id)]
        return plan(
            desired, observed, engine=self.api.name, known_locales=known_locales, prune=prune, publish=publish,
            files=file_plan,
        )  # fmt: skip

    def files(self, bank_id: str) -> CourseFiles:
        return CourseFiles(self.client, self.course, folder_path(bank_id))

    # -- writing --------------------------------------------------------------------------------------------

    def _body(self, body: dict[str, Any] | None) -> dict[str, Any] | None:
        """The body as sent: every image reference replaced by its course file's URL."""
        if body is None or not refs(body):
            return body
        try:
            resolved: dict[str, Any] = resolve(body, self.urls)
        except KeyError as exc:
            raise CanvasError(f"a body refers to image {exc.args[0]}, which is not in the course") from None
        return resolved

    def _write(self, method: str, path: str, body: dict[str, Any] | None = None) -> None:
        self.client.request(method, path, json=self._body(body), idempotent=True)
        self.on_write()

    def _create_all(
        self,
        pool: ThreadPoolExecutor,
        path: str,
        bodies: dict[str, dict[str, Any]],
        find: Callable[[], dict[str, str]],
        shape: type[Created] | type[CreatedGroups] = Created,
    ) -> dict[str, str]:
        """POST every body concurrently; return stable id -> Canvas id.

        A create whose outcome is unknown is not repeated blindly: after a pause the collection is re-read once
        for all of them, those that were made are adopted, and only the rest are sent again.
        """

        def attempt(key: str) -> tuple[str, str | None]:
            try:
                made = self.client.request("POST", path, shape, json=self._body(bodies[key]), idempotent=False)
            except Uncertain:
                return key, None
            self.on_write()
            assert isinstance(made, Created | CreatedGroups)
            return key, made.id

        made: dict[str, str] = {}
        pending = list(bodies)
        for round_ in range(self.client.retry.attempts):
            uncertain = []
            for key, canvas_id in pool.map(attempt, pending):
                if canvas_id is None:
                    uncertain.append(key)
                else:
                    made[key] = canvas_id
            if not uncertain:
                return made
            self.client.notify(
                f"POST {path}: {len(uncertain)} create(s) got no clear answer; re-reading what was made before "
                "trying again"
            )
            self.client.pause(round_)
            existing = find()
            adopted = [k for k in uncertain if k in existing]
            for key in adopted:
                made[key] = existing[key]
                self.on_write()
            self.client.stats.add(adopted=len(adopted))
            pending = [k for k in uncertain if k not in existing]
            if not pending:
                return made
            self.client.stats.add(retries=len(pending))
        raise CanvasError(f"POST {path}: {len(pending)} object(s) could not be created; run the push again")

    def _find_groups(self, quiz_id: str, desired: DesiredQuiz) -> dict[str, str]:
        found: dict[str, str] = {}
        for g in self._groups(quiz_id, self._questions(quiz_id), desired.bank_id):
            key = g.section(desired)
            if key is not None:
                found.setdefault(key, g.id)
        return found

    def _apply_groups(self, pool: ThreadPoolExecutor, quiz_id: str, step: QuizStep) -> dict[str, str]:
        """Create and update the quiz's question groups; their Canvas ids by section."""
        path = self.groups_path(quiz_id)
        updates = [
            pool.submit(self._write, "PUT", f"{path}/{g.remote_id}", g.desired.body())
            for g in step.groups
            if g.action is Action.UPDATE and g.desired is not None
        ]
        creates = {g.key: g.desired.body() for g in step.groups if g.action is Action.CREATE and g.desired}
        made = self._create_all(pool, path, creates, lambda: self._find_groups(quiz_id, step.desired), CreatedGroups)
        for future in updates:
            future.result()
        return {g.key: g.remote_id for g in step.groups if g.desired is not None and g.remote_id} | made

    @staticmethod
    def _in_group(desired: DesiredQuestion, group_ids: dict[str, str]) -> dict[str, Any]:
        """A question's body, with the Canvas id of its question group when it has one."""
        body = desired.body
        if desired.group is not None:
            group_id = group_ids[desired.group]
            body["question"]["quiz_group_id"] = int(group_id) if ascii_digits(group_id) else group_id
        return body

    def _find_questions(self, quiz_id: str, bank_id: str) -> dict[str, str]:
        found: dict[str, str] = {}
        for r in self._questions(quiz_id):
            if r.marker is not None and r.marker.bank_id == bank_id:
                found.setdefault(r.marker.key, r.id)
        return found

    def _settle_positions(self, quiz_id: str, desired: DesiredQuiz, rounds: int = 4) -> None:
        """New Quizzes: read the items back and move each one not at its bank position, one at a time from the top.

        Items are created concurrently, each with its position, and a positional list API inserts at the position
        and shifts the later items: in whatever order the creates arrived, the list can end up out of bank order.
        Moving from the top down converges whether the server shifts the others or only sets the one position (and
        a move never disturbs the positions above it); the read-back is checked again, so the next push plans no
        move at all.
        """
        for _ in range(rounds):
            remote = sorted(self._questions(quiz_id), key=lambda r: (r.position, _id_order(r.id)))
            ours: dict[str, RemoteQuestion] = {}
            for r in remote:
                if r.marker is not None and r.marker.bank_id == desired.bank_id:
                    ours.setdefault(r.marker.key, r)
            wanted = [ours[d.key].id for d in desired.questions if d.key in ours]
            order = [r.id for r in remote]
            positions = {r.id: r.position for r in remote}
            moves = 0
            for position, item_id in enumerate(wanted, start=1):
                if order[position - 1] == item_id and positions[item_id] == position:
                    continue
                self.client.request(
                    self.api.update, f"{self.questions_path(quiz_id)}/{item_id}", json={"item": {"position": position}}
                )
                moves += 1
                order.remove(item_id)  # as a positional list does it: out, in at the position, the rest shifted
                order.insert(position - 1, item_id)
                positions = {i: n for n, i in enumerate(order, start=1)}
            if not moves:
                return
        raise CanvasError(f"quiz {quiz_id}: the items would not stay in bank order; run the push again")

    def _apply_quiz(self, pool: ThreadPoolExecutor, step: QuizStep, outcome: Outcome) -> None:
        desired = step.desired
        quiz_id = step.remote_id
        if quiz_id is None:

            def find_quiz() -> dict[str, str]:
                return {m.locale: q.id for q, m in self._quizzes(desired.bank_id) if m.locale == desired.locale}

            made = self._create_all(pool, self.quizzes_path, {desired.locale: desired.body()}, find_quiz)
            quiz_id = made[desired.locale]
        outcome.quizzes[desired.locale] = quiz_id
        group_ids = self._apply_groups(pool, quiz_id, step) if step.groups else {}
        questions = self.questions_path(quiz_id)
        verb = self.api.update
        background: list[Future[Any]] = []
        for s in step.questions:
            if s.action is Action.UPDATE and s.desired is not None:
                body = self._in_group(s.desired, group_ids)
                background.append(pool.submit(self._write, verb, f"{questions}/{s.remote_id}", body))
            elif s.action is Action.DELETE:
                background.append(pool.submit(self._write, "DELETE", f"{questions}/{s.remote_id}"))
        creates = {
            s.key: self._in_group(s.desired, group_ids)
            for s in step.questions
            if s.action is Action.CREATE and s.desired
        }
        made = self._create_all(pool, questions, creates, lambda: self._find_questions(quiz_id, desired.bank_id))
        for future in background:
            future.result()
        for g in step.groups:  # after the questions: deleting a group deletes the questions still in it
            if g.action is Action.DELETE:
                self._write("DELETE", f"{self.groups_path(quiz_id)}/{g.remote_id}")
        if self.api.positions_in_items and any(s.action in WRITES for s in step.questions):
            self._settle_positions(quiz_id, desired)
        if step.reorder:
            ids = {s.key: s.remote_id for s in step.questions if s.remote_id is not None and s.desired} | made
            entries = desired.order or tuple(("question", d.key) for d in desired.questions)
            order = [(kind, (ids if kind == "question" else group_ids)[key]) for kind, key in entries]
            order += [("question", i) for i in step.order_tail]
            body = {"order": [{"id": int(i) if ascii_digits(i) else i, "type": kind} for kind, i in order]}
            self._write("POST", f"{self.quiz_path(quiz_id)}/reorder", body)
        if step.final_write is not None:
            self._write(verb, self.quiz_path(quiz_id), step.final_write)
        if step.publish_assignment:
            assignment = f"/api/v1/courses/{self.course}/assignments/{quiz_id}"
            self._write("PUT", assignment, {"assignment": {"published": True}})
        outcome.created += step.count(Action.CREATE)
        outcome.updated += step.count(Action.UPDATE)
        outcome.unchanged += step.count(Action.UNCHANGED)
        outcome.deleted += step.count(Action.DELETE)
        outcome.groups += sum(1 for g in step.groups if g.action in WRITES)

    def apply(self, the_plan: Plan) -> Outcome:
        outcome = Outcome()
        pool = ThreadPoolExecutor(max_workers=self.client.concurrency, thread_name_prefix="canvas")
        try:
            if the_plan.files is not None:  # first: the questions that show an image need its URL
                files = CourseFiles(self.client, self.course, the_plan.files.folder, absolute=self.api is NEW_QUIZZES)
                self.urls = files.apply(pool, the_plan.files, on_write=self.on_write)
                outcome.uploaded = the_plan.files.writes
            for step in the_plan.quizzes:
                self._apply_quiz(pool, step, outcome)
            for quiz in the_plan.delete_quizzes:
                self._write("DELETE", self.quiz_path(quiz.id))
                outcome.deleted += 1
        except BaseException:
            self.client.stop()  # queued requests end at once; those on the wire finish
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        return outcome


# -- the QTI route --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PollPolicy:
    first: float = 0.5  # seconds before the first progress check
    factor: float = 1.5
    longest: float = 5.0
    timeout: float = 900.0


@dataclass(frozen=True)
class MigrationResult:
    id: str
    state: str  # completed | failed
    issues: tuple[str, ...]


def import_qti(
    client: CanvasClient,
    course_id: str,
    package: bytes,
    filename: str,
    *,
    bank_name: str,
    new_quizzes: bool = False,
    poll: PollPolicy | None = None,
) -> MigrationResult:
    """Content migration of a QTI package into a question bank: a handful of requests for any bank size.

    Create the migration with a pre-attachment, upload the file to the storage URL Canvas names (its fields
    unchanged, the file last, no token), confirm when the storage redirects, then poll the progress. After a lost
    response the migration's state tells whether the file arrived, so no step runs twice. Retrying the first POST
    after a lost response can leave an empty migration behind; Canvas never runs it (it has no file).
    """
    poll = poll or PollPolicy()
    base = f"/api/v1/courses/{course_id}/content_migrations"
    settings: dict[str, Any] = {"question_bank_name": bank_name}
    if new_quizzes:
        settings["import_quizzes_next"] = True
    body = {
        "migration_type": "qti_converter",
        "pre_attachment": {"name": filename, "size": len(package)},
        "settings": settings,
    }
    migration = client.request("POST", base, Migration, json=body, idempotent=True)
    assert migration is not None
    migration_id = migration.id
    pre = migration.pre_attachment
    if pre is None or pre.error or not pre.upload_url:
        message = pre.message if pre is not None and pre.message else "no upload URL given"
        raise CanvasError(f"Canvas refused the upload: {message}")

    def file_arrived() -> bool:
        state = client.get(f"{base}/{migration_id}", Migration).workflow_state
        return state not in (None, "pre_processing")

    _upload(client, pre, filename, package, file_arrived)
    progress_url = migration.progress_url or ""
    delay, waited = poll.first, 0.0
    state = "queued"
    while state not in ("completed", "failed"):
        if waited > poll.timeout:
            raise CanvasError(f"content migration {migration_id} still {state} after {poll.timeout:.0f} s")
        time.sleep(delay)
        waited += delay
        delay = min(poll.longest, delay * poll.factor)
        state = client.get(progress_url, Progress).workflow_state
    final = client.get(f"{base}/{migration_id}", Migration)
    issues: tuple[str, ...] = ()
    if final.migration_issues_count:
        issues_url = final.migration_issues_url or f"{base}/{migration_id}/migration_issues"
        listed = client.get_all(issues_url, MigrationIssue)
        issues = tuple(i.description or i.error_message or "(no description)" for i in listed)
    return MigrationResult(migration_id, "failed" if state == "failed" else str(final.workflow_state), issues)


def _upload(
    client: CanvasClient, pre: PreAttachment, filename: str, package: bytes, file_arrived: Callable[[], bool]
) -> None:
    """Upload (and confirm) once, whatever the network does; ``file_arrived`` tells a lost response from a lost file."""
    upload_url = str(pre.upload_url)
    fields = dict(pre.upload_params)
    last = ""
    for attempt in range(client.retry.attempts):
        if attempt:
            client.stats.add(retries=1)
            client.notify(f"uploading {filename}: {last}; checking whether it arrived, then trying again")
            client.pause(attempt - 1)
            if file_arrived():
                return
        try:
            response = client.post_file(upload_url, fields, pre.file_param or "file", filename, package)
            if 300 <= response.status_code < 400 and "Location" in response.headers:
                confirm = client.join(upload_url, response.headers["Location"])
                # The confirmation is Canvas's own URL: it gets the token; anything else does not.
                if client.same_origin(confirm):
                    response = client.send_once("GET", confirm)
                else:
                    response = client.send_once("GET", confirm, authorised=False)
            if response.status_code < 300:
                return
            last = f"{response.status_code} {client.redact(response.text[:200])}"
            if response.status_code < 500 and response.status_code != 400:
                break  # a refusal, not a hiccup; a 400 can be a repeated confirmation, checked above
        except requests.RequestException as exc:  # a lost connection: the outcome is unknown
            last = client.redact(f"{type(exc).__name__}: {exc}")
    if file_arrived():
        return
    raise CanvasError(f"uploading {filename} failed: {last}")
