"""Images in a Canvas push: uploaded into the course's files once, before the questions that show them.

Against the Canvas-like server on 127.0.0.1 (tests/canvas_server.py), with both upload replies Canvas gives (a 3XX
to create_success, confirmed once; a 201 with the attachment), both engines, and faults mid-upload.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from moe_lms.cli import main
from moe_lms.formats import ExportOptions
from moe_lms.formats.canvas import ENGINES, Engine, desired_quizzes
from moe_lms.formats.canvas_media import image_ref, refs, resolve
from moe_lms.lms.canvas import Action, Outcome, Plan, Pusher
from moe_lms.lms.canvas_client import CanvasClient, CanvasError, RetryPolicy
from moe_lms.lms.canvas_files import FileAction, ImageFile, file_url, from_media, plan_files
from moe_lms.lms.canvas_shapes import CourseFile
from moe_lms.model import Bank, MediaItem, Question
from tests.canvas_helpers import make_bank
from tests.canvas_server import TOKEN, Canvas, CanvasServer, Faults, Request
from tests.conftest import SHIPPED_BANK_DIR
from tests.rich_support import png as rich_png
from tests.rich_support import write_rich_bank

FAST = RetryPolicy(attempts=10, base_delay=0.001, max_delay=0.02, drain_rate=10_000.0)
MODES = ("redirect", "created")


def _show(q: Question, path: str) -> Question:
    return q.model_copy(update={"stem": f"{q.stem}\n\n![the dispatch diagram]({path})"})


def image_bank(questions: int = 6) -> Bank:
    """q0001 and q0002 show media/dispatch.png, q0003 shows media/combine.png (every locale falls back to them)."""
    bank = make_bank(questions, locales=("vi",))
    shown = {"q0001": "media/dispatch.png", "q0002": "media/dispatch.png", "q0003": "media/combine.png"}
    qs = tuple(_show(q, shown[q.id]) if q.id in shown else q for q in bank.questions)
    return bank.model_copy(update={"questions": qs, "translations": {"vi": {}}})


def png(seed: int, size: int = 64) -> bytes:
    """A small real PNG (one grey row), different per seed."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")

    header = size.to_bytes(4, "big") + (1).to_bytes(4, "big") + bytes([8, 0, 0, 0, 0])
    row = b"\x00" + bytes([seed % 256]) * size
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(row)) + chunk(b"IEND", b"")


def shown_urls(html: str) -> list[str]:
    return re.findall(r'<img src="([^"]+)"', html)


def with_media(bank: Bank, files: dict[str, ImageFile]) -> Bank:
    """``bank`` with the images its loader would have read (bank path -> image)."""
    media = {path: MediaItem(path, f.data, f.content_type, f.sha256) for path, f in files.items()}
    return bank.model_copy(update={"media": media})


DISPATCH = ImageFile.of("dispatch.png", png(1), "image/png")
COMBINE = ImageFile.of("combine.png", png(2), "image/png")


def push(
    app: Canvas,
    engine: Engine,
    files: dict[str, ImageFile] | None = None,
    *,
    bank: Bank | None = None,
    dry_run: bool = False,
) -> tuple[Plan, Outcome | None, CanvasClient]:
    files = files if files is not None else {"media/dispatch.png": DISPATCH, "media/combine.png": COMBINE}
    bank = bank or image_bank()
    client = CanvasClient(app.base_url, TOKEN, retry=FAST, seed=3)
    pusher = Pusher(client, "1", engine)
    bank = with_media(bank, files)
    options = ExportOptions.for_bank(bank, ())
    desired = list(desired_quizzes(bank, options, engine, image_url=image_ref))
    the_plan = pusher.plan(desired, bank.locales, prune=False, publish=False, files=from_media(bank.media.values()))
    return the_plan, None if dry_run else pusher.apply(the_plan), client


@pytest.fixture(params=MODES)
def app(request: pytest.FixtureRequest) -> Iterator[Canvas]:
    canvas = Canvas(upload_mode=request.param)
    with CanvasServer(canvas):
        yield canvas


def course_files(app: Canvas) -> dict[str, dict[str, Any]]:
    return {f["display_name"]: f for f in app.course().visible_files()}


def shown(app: Canvas, engine: Engine) -> dict[tuple[str, str], list[str]]:
    """(locale marker key, question id) -> the image URLs its stem shows, as stored in the course."""
    course, found = app.course(), {}
    if engine == "classic":
        for quiz in course.quizzes.values():
            for q in course.classic_questions(quiz["id"]):
                found[(str(quiz["id"]), q["question_name"].split()[0])] = shown_urls(q["question_text"])
    else:
        for quiz_id in course.new_quizzes:
            for item in course.items_in_order(quiz_id):
                found[(quiz_id, item["entry"]["title"].split()[0])] = shown_urls(item["entry"]["item_body"])
    return found


def url(app: Canvas, engine: Engine, file_id: int) -> str:
    """Classic: the relative link Canvas's editor writes; New Quizzes (shown on another host): absolute."""
    return file_url("1", str(file_id), app.base_url if engine == "new-quizzes" else "")


def assert_questions_point_at_the_course_files(app: Canvas, engine: Engine) -> None:
    files = course_files(app)
    want = {
        "q0001": [url(app, engine, files[f"{DISPATCH.sha256[:16]}-dispatch.png"]["id"])],
        "q0002": [url(app, engine, files[f"{DISPATCH.sha256[:16]}-dispatch.png"]["id"])],
        "q0003": [url(app, engine, files[f"{COMBINE.sha256[:16]}-combine.png"]["id"])],
    }
    got = shown(app, engine)
    assert len({quiz for quiz, _ in got}) == 2  # en and vi
    for (_quiz, question), urls in got.items():
        assert urls == want.get(question, []), question


def file_writes(app: Canvas) -> list[str]:
    return [f"{e.method} {e.path}" for e in app.writes() if "/files" in e.path or "create_success" in e.path]


# -- the first push and the next ones ----------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_a_first_push_uploads_each_image_once_and_the_questions_show_the_course_files(
    app: Canvas, engine: Engine
) -> None:
    the_plan, outcome, _ = push(app, engine)
    assert the_plan.files is not None
    assert sorted(s.file.name for s in the_plan.files.uploads) == ["combine.png", "dispatch.png"]
    assert outcome is not None and outcome.uploaded == 2
    # two images for 3 questions in 2 locales: two uploads, into the bank's folder, content-addressed
    assert sorted(app.uploads) == sorted([f"{DISPATCH.sha256[:16]}-dispatch.png", f"{COMBINE.sha256[:16]}-combine.png"])
    files = course_files(app)
    assert {f["display_name"] for f in files.values()} == set(app.uploads)
    folder = app.course().folders[next(iter(files.values()))["folder_id"]]
    assert folder["full_name"] == "course files/moe-lms/ep-demo"
    assert files[f"{DISPATCH.sha256[:16]}-dispatch.png"]["size"] == len(DISPATCH.data)
    assert_questions_point_at_the_course_files(app, engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_re_push_uploads_nothing_and_writes_nothing(app: Canvas, engine: Engine) -> None:
    push(app, engine)
    before = len(app.log)
    the_plan, outcome, _ = push(app, engine)
    assert the_plan.writes == 0
    assert the_plan.files is not None and all(s.action is FileAction.PRESENT for s in the_plan.files.steps)
    assert outcome is not None and outcome.uploaded == 0
    assert [e for e in app.log[before:] if e.write] == []


@pytest.mark.parametrize("engine", ENGINES)
def test_a_changed_image_is_uploaded_again_and_only_the_questions_showing_it_are_updated(
    app: Canvas, engine: Engine
) -> None:
    push(app, engine)
    redrawn = ImageFile.of("dispatch.png", png(9), "image/png")
    files = {"media/dispatch.png": redrawn, "media/combine.png": COMBINE}
    the_plan, _, _ = push(app, engine, files)
    assert the_plan.files is not None
    assert [s.file for s in the_plan.files.uploads] == [redrawn]
    updated = {
        (step.desired.locale, s.key) for step in the_plan.quizzes for s in step.questions if s.action is Action.UPDATE
    }
    assert updated == {(loc, q) for loc in ("en", "vi") for q in ("q0001", "q0002")}
    assert app.uploads[-1] == f"{redrawn.sha256[:16]}-dispatch.png"
    new_id = course_files(app)[f"{redrawn.sha256[:16]}-dispatch.png"]["id"]
    assert {tuple(urls) for (_, q), urls in shown(app, engine).items() if q in ("q0001", "q0002")} == {
        (url(app, engine, new_id),)
    }
    # and the push after that is quiet again
    again, _, _ = push(app, engine, files)
    assert again.writes == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_an_image_deleted_from_the_course_is_uploaded_again_and_its_questions_repointed(
    app: Canvas, engine: Engine
) -> None:
    push(app, engine)
    course = app.course()
    gone = next(f for f in course.files.values() if f["display_name"].endswith("combine.png"))
    del course.files[gone["id"]]
    the_plan, _, _ = push(app, engine)
    updated = {s.key for step in the_plan.quizzes for s in step.questions if s.action is Action.UPDATE}
    assert updated == {"q0003"}
    assert {s.why for step in the_plan.quizzes for s in step.questions if s.action is Action.UPDATE} == {
        "an image it shows is uploaded again"
    }
    assert_questions_point_at_the_course_files(app, engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_dry_run_plans_the_uploads_and_uploads_nothing(app: Canvas, engine: Engine) -> None:
    the_plan, _, _ = push(app, engine, dry_run=True)
    assert the_plan.files is not None and len(the_plan.files.uploads) == 2
    assert the_plan.writes == 2 + sum(step.writes for step in the_plan.quizzes)
    assert app.writes() == [] and app.uploads == [] and app.course().files == {}


def test_the_fingerprint_of_a_question_is_that_of_its_image_bytes_not_of_canvas_ids() -> None:
    bank = image_bank()
    files = {"media/dispatch.png": DISPATCH, "media/combine.png": COMBINE}
    bank = with_media(image_bank(), files)
    options = ExportOptions.for_bank(bank, ("en",))
    desired = next(iter(desired_quizzes(bank, options, "classic", image_url=image_ref)))
    q1 = desired.questions[0]
    assert refs(q1.body) == {DISPATCH.sha256}
    assert image_ref(DISPATCH) in q1.body["question"]["question_text"]


# -- the token, the upload's parts, the folder listing -------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_the_token_is_never_sent_to_the_upload_url(app: Canvas, engine: Engine) -> None:
    push(app, engine)
    to_store = [e for e in app.log if e.path.startswith("/files_api/upload/")]
    assert len(to_store) == 2
    assert not any(e.authorised for e in to_store)
    assert all(e.authorised for e in app.log if e.path.startswith("/api/"))


def test_a_folder_of_more_than_a_page_of_files_is_read_to_the_end() -> None:
    canvas = Canvas(max_per_page=2)
    images = {f"media/{n}.png": ImageFile.of(f"{n}.png", png(n), "image/png") for n in range(7)}
    bank = make_bank(7, locales=("vi",))
    qs = tuple(_show(q, f"media/{n}.png") for n, q in enumerate(bank.questions))
    bank = bank.model_copy(update={"questions": qs, "translations": {"vi": {}}})
    with CanvasServer(canvas):
        push(canvas, "classic", images, bank=bank)
        assert len(canvas.uploads) == 7
        the_plan, _, _ = push(canvas, "classic", images, bank=bank)
        assert the_plan.writes == 0
        assert len(canvas.uploads) == 7


def test_an_image_the_push_was_not_given_is_an_error_before_anything_is_sent(app: Canvas) -> None:
    client = CanvasClient(app.base_url, TOKEN, retry=FAST)
    bank = image_bank()
    bank = with_media(bank, {"media/dispatch.png": DISPATCH, "media/combine.png": COMBINE})
    desired = list(desired_quizzes(bank, ExportOptions.for_bank(bank, ()), "classic", image_url=image_ref))
    with pytest.raises(CanvasError, match="1 image"):
        Pusher(client, "1", "classic").plan(desired, bank.locales, prune=False, publish=False, files=[DISPATCH])
    assert app.log == []


# -- faults mid-push ----------------------------------------------------------------------------------------------


def first(n: int, accept: Callable[[Request], bool]) -> Callable[[Request], bool]:
    """A fault filter that hits the first ``n`` requests ``accept`` takes, and none after."""
    left = [n]

    def only(req: Request) -> bool:
        if left[0] > 0 and accept(req):
            left[0] -= 1
            return True
        return False

    return only


def to_store(req: Request) -> bool:
    return req.path.startswith("/files_api/upload/")


def to_confirm(req: Request) -> bool:
    return "/create_success" in req.path


def assert_intended_state(app: Canvas, engine: Engine) -> None:
    names = [f["display_name"] for f in app.course().visible_files()]
    assert sorted(names) == sorted({f"{DISPATCH.sha256[:16]}-dispatch.png", f"{COMBINE.sha256[:16]}-combine.png"})
    assert_questions_point_at_the_course_files(app, engine)
    the_plan, _, _ = push(app, engine)
    assert the_plan.writes == 0


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "faults",
    [
        pytest.param(lambda: Faults(fail_rate=1.0, only=first(1, to_store)), id="500 on the upload POST"),
        pytest.param(lambda: Faults(drop_rate=1.0, only=first(1, to_store)), id="upload stored, answer lost"),
        pytest.param(lambda: Faults(drop_rate=1.0, only=first(1, to_confirm)), id="confirmed, answer lost"),
        pytest.param(lambda: Faults(fail_rate=1.0, only=first(2, to_confirm)), id="500 on the confirm"),
        pytest.param(
            lambda: Faults(throttle_rate=1.0, only=first(4, lambda r: "/files" in r.path)), id="throttled uploads"
        ),
        pytest.param(lambda: Faults(throttle_rate=1.0, only=first(3, to_store)), id="throttled upload POSTs"),
        pytest.param(lambda: Faults(throttle_rate=1.0, only=first(3, to_confirm)), id="throttled confirms"),
    ],
)
def test_a_fault_mid_upload_is_survived_within_the_push_without_duplicate_files(
    app: Canvas, engine: Engine, faults: Callable[[], Faults], request: pytest.FixtureRequest
) -> None:
    if app.upload_mode == "created" and "confirm" in request.node.callspec.id:
        return  # inst-fs answers 201 with the file: there is no confirm step to fail
    app.faults = faults()
    push(app, engine)
    app.faults = Faults()
    hit = [e.status for e in app.log if "/files" in e.path or "create_success" in e.path]
    assert {"dropped", 500, 403} & set(hit)
    if "throttled" in request.node.callspec.id:  # a throttled request was never run: it is sent again, as it was
        assert len(app.uploads) == 2
    assert_intended_state(app, engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_push_that_fails_mid_upload_is_completed_by_the_next_run(app: Canvas, engine: Engine) -> None:
    # every upload of one image fails: the push gives up on it after its retries
    app.faults = Faults(
        fail_rate=1.0, only=lambda r: to_store(r) and r.body.get("filename", "").endswith("combine.png")
    )
    with pytest.raises(CanvasError, match="run the push again"):
        push(app, engine)
    assert len(course_files(app)) == 1 and app.course().quizzes == {} and app.course().new_quizzes == {}
    app.faults = Faults()
    the_plan, _, _ = push(app, engine)
    assert the_plan.files is not None and len(the_plan.files.uploads) == 1
    assert_intended_state(app, engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_under_random_faults_on_every_request_the_course_ends_exactly_right(app: Canvas, engine: Engine) -> None:
    app.faults = Faults(fail_rate=0.15, drop_rate=0.15, throttle_rate=0.1, seed=11)
    for _ in range(3):
        try:
            push(app, engine)
            break
        except CanvasError:
            continue
    app.faults = Faults()
    push(app, engine)
    assert_intended_state(app, engine)
    assert re.fullmatch(r"[0-9a-f]{16}-\w+\.png", next(iter(course_files(app))))


# -- the pure parts ------------------------------------------------------------------------------------------------


def test_an_image_file_is_named_by_its_content_and_checked_against_its_hash() -> None:
    assert DISPATCH.stored_name == f"{DISPATCH.sha256[:16]}-dispatch.png"
    with pytest.raises(ValueError, match="SHA-256"):
        ImageFile("dispatch.png", png(1), "image/png", COMBINE.sha256)
    with pytest.raises(ValueError, match="folders"):
        ImageFile.of("media/dispatch.png", png(1), "image/png")


def test_the_plan_uploads_what_the_folder_lacks_or_holds_with_another_size() -> None:
    listed = {
        DISPATCH.stored_name: CourseFile(id="7", display_name=DISPATCH.stored_name, size=len(DISPATCH.data)),
        COMBINE.stored_name: CourseFile(id="8", display_name=COMBINE.stored_name, size=3),
    }
    other = ImageFile.of("other.png", png(3), "image/png")
    the_plan = plan_files([DISPATCH, COMBINE, other, DISPATCH], listed, "moe-lms/b")
    actions = {s.file.name: (s.action, s.remote_id) for s in the_plan.steps}
    assert actions == {
        "dispatch.png": (FileAction.PRESENT, "7"),
        "combine.png": (FileAction.UPLOAD, None),
        "other.png": (FileAction.UPLOAD, None),
    }
    assert the_plan.writes == 2 and the_plan.uploading == {COMBINE.sha256, other.sha256}


def test_references_resolve_to_course_urls_and_an_unknown_one_is_an_error() -> None:
    body = {"a": [f'<img src="{image_ref(DISPATCH)}">', 3], "b": "no image"}
    assert refs(body) == {DISPATCH.sha256}
    assert resolve(body, {DISPATCH.sha256: "/courses/1/files/7/preview"}) == {
        "a": ['<img src="/courses/1/files/7/preview">', 3],
        "b": "no image",
    }
    with pytest.raises(KeyError):
        resolve(body, {})


def test_media_items_become_one_file_each() -> None:
    items = [MediaItem("media/dispatch.png", DISPATCH.data, "image/png", DISPATCH.sha256)] * 2
    assert from_media(items) == [DISPATCH]


# -- a hostile or odd Canvas ----------------------------------------------------------------------------------------


def route(app: Canvas, method: str, pattern: str, handler: Callable[..., Any]) -> None:
    app.routes.insert(0, (method, re.compile(pattern + r"\Z"), handler))


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://127.0.0.1/x", "javascript:alert(1)"])
def test_an_upload_url_that_is_not_http_is_refused_at_once(app: Canvas, url: str) -> None:
    route(app, "POST", r"/api/v1/courses/1/files", lambda req: {"upload_url": url, "upload_params": {}})
    with pytest.raises(CanvasError, match="not an http"):
        push(app, "classic")
    assert len([e for e in app.log if e.path == "/api/v1/courses/1/files"]) <= 2  # one per image, no retry
    assert not any(e.path.startswith("/files_api/") for e in app.log)
    assert app.course().quizzes == {}


def test_a_preflight_refused_for_quota_is_a_clear_error_and_no_question_is_written() -> None:
    canvas = Canvas(quota=10)
    with CanvasServer(canvas):
        with pytest.raises(CanvasError, match="file size exceeds quota"):
            push(canvas, "classic")
        assert canvas.course().quizzes == {} and canvas.uploads == []


def test_a_confirm_on_another_origin_does_not_get_the_token(app: Canvas) -> None:
    app.upload_mode = "redirect"
    seen: list[bool] = []
    with CanvasServer(Canvas()) as other:

        def store(req: Request, key: str) -> Any:
            pending = app.pending_files.pop(key)
            attachment = app._store_file(pending, req.files["file"])
            app._make_available(app.course(), attachment)
            return 302, None, {"Location": f"{other.url}/elsewhere/confirm"}

        def elsewhere(req: Request) -> Any:
            seen.append("Authorization" in req.headers)
            return {"id": 1}

        route(app, "POST", r"/files_api/upload/(?P<key>[0-9a-f-]+)", store)
        route(other.app, "GET", r"/elsewhere/confirm", elsewhere)
        push(app, "classic")
    assert seen and not any(seen)
    assert_questions_point_at_the_course_files(app, "classic")


def test_the_printed_plan_lists_each_image_to_upload(app: Canvas, capsys: pytest.CaptureFixture[str]) -> None:
    from moe_lms.cli.canvas import _print_canvas_plan

    push(app, "classic", {"media/dispatch.png": DISPATCH, "media/combine.png": COMBINE})
    redrawn = ImageFile.of("combine.png", png(5), "image/png")
    the_plan, _, _ = push(app, "classic", {"media/dispatch.png": DISPATCH, "media/combine.png": redrawn}, dry_run=True)
    capsys.readouterr()
    _print_canvas_plan(the_plan, "1")
    printed = capsys.readouterr().out
    assert "images in moe-lms/ep-demo: 1 to upload, 1 already there" in printed
    assert f"+ file {redrawn.stored_name} ({len(redrawn.data)} bytes)" in printed
    assert DISPATCH.stored_name not in printed
    assert f"{the_plan.writes} write request(s) planned" in printed


# -- the command, with a bank whose images the loader reads -------------------------------------------------------


def run(app: Canvas, *args: str) -> tuple[int, str]:
    argv = ["push", "canvas", "--base-url", app.base_url, "--course", "1", "--retry-delay", "0.001", *args]
    result = CliRunner().invoke(main, argv, env={"CANVAS_TOKEN": TOKEN})
    return result.exit_code, result.output


@pytest.mark.parametrize("engine", ENGINES)
def test_push_canvas_plans_uploads_then_re_runs_without_a_write(app: Canvas, engine: Engine, tmp_path: Path) -> None:
    bank_dir = write_rich_bank(tmp_path / "rich")
    code, output = run(app, str(bank_dir), "--engine", engine, "--dry-run")
    assert code == 0, output
    assert "images in moe-lms/rich: 2 to upload, 0 already there" in output
    assert re.search(r"\+ file [0-9a-f]{16}-dispatch\.svg \(\d+ bytes\)", output)
    assert re.search(r"\+ file [0-9a-f]{16}-bar\.png \(\d+ bytes\)", output)
    assert app.writes() == []
    code, output = run(app, str(bank_dir), "--engine", engine)
    assert code == 0, output
    assert "images: 2 uploaded" in output
    assert sorted(name.split("-", 1)[1] for name in app.uploads) == ["bar.png", "dispatch.svg"]
    assert all(e.authorised is False for e in app.log if e.path.startswith("/files_api/"))
    # every locale's question shows the course files, none the bank's own path
    stored = json.dumps([app.course().quizzes, app.course().questions, app.course().items])
    assert "media/" not in stored and "moe-file:" not in stored
    ids = sorted(str(f["id"]) for f in app.course().visible_files())
    for file_id in ids:
        assert f"/courses/1/files/{file_id}/preview" in stored
    before = len(app.log)
    code, output = run(app, str(bank_dir), "--engine", engine)
    assert code == 0 and "0 write request(s) planned" in output, output
    assert "images in moe-lms/rich: 0 to upload, 2 already there" in output
    assert [e for e in app.log[before:] if e.write] == []


def test_push_canvas_uploads_a_changed_image_again_and_updates_the_question_showing_it(
    app: Canvas, tmp_path: Path
) -> None:
    bank_dir = write_rich_bank(tmp_path / "rich")
    assert run(app, str(bank_dir))[0] == 0
    (bank_dir / "media" / "bar.png").write_bytes(rich_png(rgb=(0, 90, 200)))
    code, output = run(app, str(bank_dir))
    assert code == 0, output
    assert "images in moe-lms/rich: 1 to upload, 1 already there" in output
    assert "~ capacity (content changed)" in output
    assert "images: 1 uploaded; questions: 0 created, 3 updated" in output  # in en, ur and vi
    assert len(app.uploads) == 3


def test_push_canvas_via_qti_sends_one_package_that_carries_its_images(app: Canvas, tmp_path: Path) -> None:
    bank_dir = write_rich_bank(tmp_path / "rich")
    code, output = run(app, str(bank_dir), "--via", "qti", "--locale", "en")
    assert code == 0, output
    assert not any(e.path == "/api/v1/courses/1/files" for e in app.log)  # no course-file upload of its own
    (migration,) = app.course().migrations.values()
    with zipfile.ZipFile(io.BytesIO(migration["_file"])) as package:
        names = package.namelist()
        assert "web_resources/media/bar.png" in names and "web_resources/media/dispatch.svg" in names
        assert package.read("web_resources/media/bar.png") == (bank_dir / "media" / "bar.png").read_bytes()
        manifest = package.read("imsmanifest.xml").decode()
    assert 'type="webcontent"' in manifest and 'href="web_resources/media/bar.png"' in manifest
    assert migration["workflow_state"] == "completed"


@pytest.mark.parametrize("engine", ENGINES)
def test_the_second_shipped_bank_pushes_with_its_diagram_uploaded_once(app: Canvas, engine: Engine) -> None:
    bank_dir = SHIPPED_BANK_DIR.parent / "moe-serving-arithmetic"
    code, output = run(app, str(bank_dir), "--engine", engine)
    assert code == 0, output
    assert [name.split("-", 1)[1] for name in app.uploads] == ["dispatch-combine.svg"]
    (diagram,) = app.course().visible_files()
    stored = json.dumps([app.course().questions, app.course().items])
    assert f"/courses/1/files/{diagram['id']}/preview" in stored and "moe-file:" not in stored
    before = len(app.log)
    code, output = run(app, str(bank_dir), "--engine", engine)
    assert code == 0 and "0 write request(s) planned" in output, output
    assert [e for e in app.log[before:] if e.write] == []


def test_the_test_server_refuses_a_second_confirm_with_a_bare_400_and_lists_only_confirmed_files() -> None:
    import requests

    canvas = Canvas(upload_mode="redirect")
    with CanvasServer(canvas) as server:
        auth = {"Authorization": f"Bearer {TOKEN}"}
        body = {"name": "a.png", "size": 3, "content_type": "image/png", "parent_folder_path": "moe-lms/x"}
        pre = requests.post(f"{server.url}/api/v1/courses/1/files", json=body, headers=auth, timeout=5).json()
        stored = requests.post(
            pre["upload_url"], data=pre["upload_params"], files={"file": ("a.png", b"abc")}, allow_redirects=False,
            timeout=5,
        )  # fmt: skip
        assert stored.status_code == 302
        folder = requests.get(f"{server.url}/api/v1/courses/1/folders/by_path/moe-lms/x", headers=auth, timeout=5)
        listing = f"{server.url}/api/v1/folders/{folder.json()[-1]['id']}/files"
        assert requests.get(listing, headers=auth, timeout=5).json() == []  # not confirmed: not listed
        first = requests.get(stored.headers["Location"], headers=auth, timeout=5)
        assert first.status_code == 200 and first.json()["display_name"] == "a.png"
        second = requests.get(stored.headers["Location"], headers=auth, timeout=5)
        assert second.status_code == 400 and second.content == b""
        assert [f["display_name"] for f in requests.get(listing, headers=auth, timeout=5).json()] == ["a.png"]
        missing = requests.get(f"{server.url}/api/v1/courses/1/folders/by_path/moe-lms/y", headers=auth, timeout=5)
        assert missing.status_code == 404
