"""Images of a bank in a Canvas course's files: each uploaded once, found again on every later push.

The files are plain data (:class:`ImageFile`). Each one lives in the course folder ``moe-lms/<bank-id>`` under a
content-addressed name, ``<sha256[:16]>-<name>``: a push lists that folder, and every image whose name (and size)
is already there is not uploaded again; a changed image has a new name, so it is uploaded, and the questions that
show it change with it (their bodies refer to it by SHA-256, see ``formats.canvas_media``).

The upload is Canvas's three steps (cl:doc/api/file_uploads.md; cl:app/controllers/files_controller.rb
``api_create``, ``api_capture``, ``api_create_success``):

1. ``POST /api/v1/courses/:id/files`` with ``name``, ``size``, ``content_type``, ``parent_folder_path`` (the folder
   is made if missing) and ``on_duplicate=overwrite``: Canvas answers ``upload_url`` and ``upload_params``. Nothing
   shows in the course yet (the attachment is "pending"), so this request may be repeated.
2. A multipart POST to ``upload_url`` with every upload param unchanged, the file part last, and no token.
3. Either 201 Created with the attachment (inst-fs), or a 3XX to ``/api/v1/files/:id/create_success?uuid=…``
   (local storage) which the client confirms with the token; a second confirm is refused with a bare 400.

Canvas has no idempotency keys: after a failure or a lost answer the folder is listed again, and an image found
there is adopted, never uploaded twice. The folder is read with ``GET /api/v1/courses/:id/folders/by_path/*path``
(404 when a folder on the path is missing; cl:app/controllers/folders_controller.rb ``resolve_path``) and
``GET /api/v1/folders/:id/files`` (paginated; files_controller ``api_index``).

The question HTML points at ``/courses/:course_id/files/:id/preview``: the form Canvas's rich content editor writes
for a course file and the one Canvas's link handling recognises and keeps scoped to the course
(cl:lib/api/html/link.rb ``FILE_LINK_REGEX = %r{/files/(\\d+)/(?:download|preview)}``, ``scope_link_to_context``).
Classic Quizzes: a question's text matching ``/courses/<its course>/files/<id>/(download|preview)`` has the file
cloned into the question and the link rewritten to ``/assessment_questions/:id/files/:id/download?verifier=…``
(cl:app/models/assessment_question.rb ``translate_links``), so students can see it without access to the course's
files. The text Canvas stores therefore differs from the text sent; a push compares markers, never the text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from functools import partial
from typing import Protocol
from urllib.parse import quote

import requests

from .canvas_client import RATE_LIMIT_BODY, CanvasClient, CanvasError, NotFound, origin
from .canvas_shapes import CourseFile, Folder, PreAttachment

ROOT_FOLDER = "moe-lms"
NAME_HASH = 16  # hex digits of the SHA-256 in a stored name


@dataclass(frozen=True)
class ImageFile:
    """An image to put in the course: its name (no folders), bytes, media type and SHA-256 (hex)."""

    name: str
    data: bytes
    content_type: str
    sha256: str

    def __post_init__(self) -> None:
        if not self.name or "/" in self.name or "\\" in self.name:
            raise ValueError(f"an image's name has no folders: {self.name!r}")
        if hashlib.sha256(self.data).hexdigest() != self.sha256.lower():
            raise ValueError(f"image {self.name}: its SHA-256 is not that of its bytes")

    @classmethod
    def of(cls, name: str, data: bytes, content_type: str) -> ImageFile:
        return cls(name, data, content_type, hashlib.sha256(data).hexdigest())

    @property
    def stored_name(self) -> str:
        """The name in the course: content-addressed, so the same name always holds the same bytes."""
        return f"{self.sha256.lower()[:NAME_HASH]}-{self.name}"


class MediaLike(Protocol):
    """What the bank's loader keeps of an image (``model.MediaItem``)."""

    @property
    def name(self) -> str: ...
    @property
    def data(self) -> bytes: ...
    @property
    def media_type(self) -> str: ...
    @property
    def sha256(self) -> str: ...


def from_media(items: Iterable[MediaLike]) -> list[ImageFile]:
    """The bank's images as files to upload, one of each."""
    return unique(ImageFile(m.name, m.data, m.media_type, m.sha256.lower()) for m in items)


def folder_path(bank_id: str) -> str:
    return f"{ROOT_FOLDER}/{bank_id}"


def file_url(course_id: str, file_id: str, base_url: str = "") -> str:
    """The URL question HTML uses for a course file (see the module's docstring).

    Classic Quizzes: relative, as Canvas's editor writes it and as Canvas keeps local links (it strips the host of
    its own absolute URLs). New Quizzes: absolute (``base_url`` given), because its items are shown by the quiz
    service on another host, where a relative link would point at that service instead of Canvas (reasoned from
    the New Quizzes architecture, an LTI tool on its own domain; not verified against a real instance).
    """
    return f"{base_url}/courses/{course_id}/files/{file_id}/preview"


class FileAction(StrEnum):
    UPLOAD = "upload"
    PRESENT = "present"


@dataclass(frozen=True)
class FileStep:
    action: FileAction
    file: ImageFile
    remote_id: str | None = None  # the course file's id when PRESENT
    why: str = ""


@dataclass(frozen=True)
class FilePlan:
    folder: str
    steps: tuple[FileStep, ...] = ()

    @property
    def uploads(self) -> tuple[FileStep, ...]:
        return tuple(s for s in self.steps if s.action is FileAction.UPLOAD)

    @property
    def uploading(self) -> frozenset[str]:
        """SHA-256 of the images this plan uploads: questions showing them must be written with the new URL."""
        return frozenset(s.file.sha256 for s in self.uploads)

    @property
    def writes(self) -> int:
        return len(self.uploads)


def unique(files: Iterable[ImageFile]) -> list[ImageFile]:
    """One of each image (by content and name), in a stable order."""
    seen: dict[str, ImageFile] = {}
    for f in files:
        seen.setdefault(f.stored_name, f)
    return [seen[k] for k in sorted(seen)]


def plan_files(files: Iterable[ImageFile], listed: dict[str, CourseFile], folder: str) -> FilePlan:
    """Pure: which images to upload, given what the folder lists (stored name -> file)."""
    steps = []
    for f in unique(files):
        found = listed.get(f.stored_name)
        if found is None:
            steps.append(FileStep(FileAction.UPLOAD, f, why="not in the course"))
        elif found.size is not None and found.size != len(f.data):
            why = f"the course's copy is {found.size} bytes, not {len(f.data)}"
            steps.append(FileStep(FileAction.UPLOAD, f, why=why))
        else:
            steps.append(FileStep(FileAction.PRESENT, f, found.id))
    return FilePlan(folder, tuple(steps))


class CourseFiles:
    """One course folder's images, through one client."""

    def __init__(self, client: CanvasClient, course_id: str, folder: str, *, absolute: bool = False) -> None:
        self.client, self.course, self.folder = client, course_id, folder
        self.base_url = client.base_url if absolute else ""  # New Quizzes: see file_url

    def listing(self) -> dict[str, CourseFile]:
        """Stored name -> file, for every file in the folder; empty when the folder does not exist yet."""
        path = "/".join(quote(part, safe="") for part in self.folder.split("/"))
        try:
            chain = self.client.get_all(f"/api/v1/courses/{self.course}/folders/by_path/{path}", Folder)
        except NotFound:
            return {}
        if not chain:
            return {}
        listed: dict[str, CourseFile] = {}
        for f in self.client.get_all(f"/api/v1/folders/{chain[-1].id}/files", CourseFile):
            listed.setdefault(f.display_name, f)
        return listed

    def plan(self, files: Iterable[ImageFile]) -> FilePlan:
        files = list(files)
        return plan_files(files, self.listing() if files else {}, self.folder)

    def apply(
        self,
        pool: ThreadPoolExecutor,
        the_plan: FilePlan,
        *,
        on_write: Callable[[], None] = lambda: None,
    ) -> dict[str, str]:
        """Upload what the plan says; return SHA-256 -> course URL for every image of the plan."""
        ids: dict[str, str] = {s.file.stored_name: s.remote_id for s in the_plan.steps if s.remote_id is not None}
        uploads = the_plan.uploads

        def one(step: FileStep) -> tuple[str, str | None]:
            made = self._upload(step.file)
            on_write()
            return step.file.stored_name, made

        unknown = []
        for name, made in pool.map(one, uploads):
            if made is None:
                unknown.append(name)
            else:
                ids[name] = made
        if unknown:  # uploaded: the folder says their ids
            listed = self.listing()
            for name in unknown:
                if name not in listed:
                    raise CanvasError(f"uploaded {name} into {self.folder}, but the folder does not list it")
                ids[name] = listed[name].id
        return {s.file.sha256: file_url(self.course, ids[s.file.stored_name], self.base_url) for s in the_plan.steps}

    def _unthrottled(self, send: Callable[[], requests.Response]) -> requests.Response:
        """``send()``'s answer, sent again after a pause while Canvas's rate limit refuses it (a throttled request
        was never run, so repeating it is safe even for the upload and its one-time confirm)."""
        client = self.client
        for throttles in range(client.MAX_THROTTLES):
            response = send()
            if response.status_code != 403 or RATE_LIMIT_BODY not in response.text:
                return response
            client.stats.add(throttled=1)
            client.budget.throttled(client.backoff(min(throttles, 6)))
        return response

    def _arrived(self, f: ImageFile) -> str | None:
        found = self.listing().get(f.stored_name)
        return found.id if found is not None and found.size in (None, len(f.data)) else None

    def _upload(self, f: ImageFile) -> str | None:
        """Upload one image, whatever the network does; its id when it was found already there, else None.

        After a failure the folder is listed before anything is sent again: an image that arrived (its answer
        lost, or its confirmation) is adopted, not uploaded a second time.
        """
        client, name = self.client, f.stored_name
        last = ""
        for attempt in range(client.retry.attempts):
            if attempt:
                client.stats.add(retries=1)
                client.notify(f"uploading {name}: {last}; checking whether it arrived, then trying again")
                client.pause(attempt - 1)
                found = self._arrived(f)
                if found is not None:
                    client.stats.add(adopted=1)
                    return found
            body = {
                "name": name,
                "size": len(f.data),
                "content_type": f.content_type,
                "parent_folder_path": self.folder,
                "on_duplicate": "overwrite",
            }
            # Step 1 makes only a pending attachment, which no listing shows: safe to repeat.
            files_path = f"/api/v1/courses/{self.course}/files"
            pre = client.request("POST", files_path, PreAttachment, json=body, idempotent=True)
            assert pre is not None
            if pre.error or not pre.upload_url:
                raise CanvasError(f"Canvas refused the upload of {name}: {pre.message or 'no upload URL given'}")
            upload_url = client.join(client.url(files_path), str(pre.upload_url))
            if origin(upload_url) is None:
                raise CanvasError(f"Canvas named an upload URL for {name} that is not an http(s) address")
            try:
                fields, part = dict(pre.upload_params), pre.file_param or "file"
                response = self._unthrottled(
                    partial(client.post_file, upload_url, fields, part, name, f.data, f.content_type)
                )
                if 300 <= response.status_code < 400 and "Location" in response.headers:
                    confirm = client.join(upload_url, response.headers["Location"])
                    # create_success is Canvas's own URL and takes the token; a store elsewhere does not get it.
                    authorised = client.same_origin(confirm)
                    response = self._unthrottled(partial(client.send_once, "GET", confirm, authorised=authorised))
                if response.status_code < 300:
                    # Stored. Its id comes from the folder's listing, read once for all uploads: the answer of a
                    # store on another origin is not taken for Canvas's word on the id.
                    return None
                last = f"{response.status_code} {client.redact(response.text[:200])}"
                if response.status_code < 500 and response.status_code not in (400, 403, 408, 429):
                    break  # a refusal, not a hiccup (a 400 can be a repeated confirm; a 403 a throttle)
            except requests.RequestException as exc:  # a lost connection: the outcome is unknown
                last = client.redact(f"{type(exc).__name__}: {exc}")
        found = self._arrived(f)
        if found is not None:
            return found
        raise CanvasError(f"uploading {name} into {self.folder} failed: {last}; run the push again")
