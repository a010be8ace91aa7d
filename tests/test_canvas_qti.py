"""`--via qti`: a QTI package through a Canvas content migration, in a handful of requests for any bank size."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from click.testing import CliRunner

from moe_lms.cli import main
from moe_lms.lms.canvas import PollPolicy, import_qti
from moe_lms.lms.canvas_client import CanvasClient, CanvasError, RetryPolicy

from .canvas_helpers import stand_in_package
from .canvas_server import TOKEN, Canvas, CanvasServer, Faults
from .conftest import SHIPPED_BANK_DIR

FAST = RetryPolicy(attempts=10, base_delay=0.001, max_delay=0.02, drain_rate=10_000.0)
QUICK = PollPolicy(first=0.001, longest=0.01)


@pytest.fixture
def app() -> Iterator[Canvas]:
    canvas = Canvas()
    with CanvasServer(canvas):
        yield canvas


def client(app: Canvas) -> CanvasClient:
    return CanvasClient(app.base_url, TOKEN, retry=FAST, seed=2)


@pytest.mark.parametrize("upload_mode", ["redirect", "created"])
def test_a_package_becomes_a_question_bank_named_after_the_bank_in_a_few_requests(
    app: Canvas, upload_mode: str
) -> None:
    app.upload_mode = upload_mode
    c = client(app)
    migration = import_qti(c, "1", stand_in_package(300), "demo.zip", bank_name="Demo (ur)", poll=QUICK)
    assert migration.state == "completed" and migration.issues == ()
    assert len(app.course().question_banks["Demo (ur)"]) == 300
    assert c.stats.requests < 20
    (upload,) = [e for e in app.log if e.path.startswith("/files_api/")]
    assert not upload.authorised  # the token never goes to the file store


def test_new_quizzes_imports_ask_for_conversion(app: Canvas) -> None:
    import_qti(client(app), "1", stand_in_package(2), "d.zip", bank_name="D", new_quizzes=True, poll=QUICK)
    (migration,) = app.course().migrations.values()
    assert migration["settings"]["import_quizzes_next"] is True


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_under_500s_and_dropped_responses_the_file_is_imported_exactly_once(app: Canvas, seed: int) -> None:
    app.faults = Faults(fail_rate=0.2, drop_rate=0.1, seed=seed)
    migration = import_qti(client(app), "1", stand_in_package(5), "d.zip", bank_name="D", poll=QUICK)
    assert migration.state == "completed"
    assert len(app.course().question_banks["D"]) == 5


def test_a_package_canvas_reads_neither_as_qti_2_nor_as_qti_1_2_fails_with_canvas_s_issue(app: Canvas) -> None:
    package = stand_in_package(2, namespace="http://www.imsglobal.org/xsd/imsqtiasi_v3p0")
    migration = import_qti(client(app), "1", package, "d.zip", bank_name="D", poll=QUICK)
    assert migration.state == "failed" and "an unrecognised QTI version" in migration.issues[0]


def test_a_package_over_quota_is_refused_before_uploading(app: Canvas) -> None:
    app.quota = 10
    with pytest.raises(CanvasError, match="file size exceeds quota"):
        import_qti(client(app), "1", stand_in_package(1), "d.zip", bank_name="D", poll=QUICK)


def test_push_via_qti_uploads_canvas_s_own_qti_package_per_locale(app: Canvas) -> None:
    result = CliRunner().invoke(
        main,
        [
            "push",
            "canvas",
            "--base-url",
            app.base_url,
            "--course",
            "1",
            "--via",
            "qti",
            "--retry-delay",
            "0.001",
            str(SHIPPED_BANK_DIR),
        ],
        env={"CANVAS_TOKEN": TOKEN},
    )
    assert result.exit_code == 0, result.output
    banks = app.course().question_banks
    assert sorted(banks) == [
        "Expert parallelism for MoE serving: a quiz (en)",
        "MoE سرونگ کے لیے ماہر متوازیت (expert parallelism): ایک کوئز (ur)",
        "Song song chuyên gia (expert parallelism) khi phục vụ mô hình MoE: bài kiểm tra (vi)",
    ]
    assert all(len(items) == 8 for items in banks.values())
    assert banks["Expert parallelism for MoE serving: a quiz (en)"][0] == "ep-distributes-en"  # a Canvas QTI 1.2 item
    assert TOKEN not in result.output
