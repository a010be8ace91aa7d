"""`push canvas` against a wrong address, a broken network and a hostile server (issue 11, items 9, 16, 17, 18).

Every server here is a real HTTP server on 127.0.0.1 (tests/canvas_server.py); a second one stands in for another
host the token must never reach. Timeouts are short and configured, never asserted on.
"""

from __future__ import annotations

import gzip
import re
import shutil
import socket
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from moe_lms.cli import main
from moe_lms.lms.canvas_client import BadAnswer, CanvasClient, CanvasError, Limits, RetryPolicy, check_base_url
from moe_lms.lms.canvas_shapes import ClassicQuiz
from moe_lms.loader import save_bank

from .canvas_helpers import make_bank
from .canvas_server import TOKEN, Canvas, CanvasServer, Faults, HttpError, RawBody, Request
from .conftest import SHIPPED_BANK_DIR
from .test_moodle_import import FROM_MOODLE

FAST = RetryPolicy(attempts=3, base_delay=0.001, max_delay=0.01, drain_rate=10_000.0)
QUIZZES = "/api/v1/courses/1/quizzes"


@pytest.fixture
def app() -> Iterator[Canvas]:
    canvas = Canvas()
    with CanvasServer(canvas):
        yield canvas


@pytest.fixture
def other() -> Iterator[Canvas]:
    """A second server: another host, as far as the token is concerned."""
    canvas = Canvas()
    with CanvasServer(canvas):
        yield canvas


@pytest.fixture
def bank_dir(tmp_path: Path) -> Path:
    save_bank(make_bank(3), tmp_path / "bank")
    return tmp_path / "bank"


def push(base_url: str, bank_dir: Path, *args: str, token: str = TOKEN) -> Result:
    argv = ["push", "canvas", "--base-url", base_url, "--course", "1", "--retry-delay", "0.001", *args, str(bank_dir)]
    return CliRunner().invoke(main, argv, env={"CANVAS_TOKEN": token})


def assert_clean_failure(result: Result, code: int) -> None:
    """The command ended with ``code`` through its own error handling: no traceback, no stray exception."""
    assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output


def route(app: Canvas, method: str, path: str, handler: Any) -> None:
    """Answer ``method path`` with ``handler`` before any of the server's own routes."""
    app.routes.insert(0, (method, re.compile(re.escape(path) + r"\Z"), handler))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- item 9: a wrong address fails at once and says what to check ---------------------------------------------


def test_a_refused_connection_fails_at_once_naming_the_url_without_retrying(bank_dir: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    result = push(url, bank_dir, "--dry-run")
    assert_clean_failure(result, 1)
    assert f"cannot reach {url}: connection refused: check --base-url" in result.output
    assert "retrying" not in result.output and "0 retries" in result.output
    # Issue 34 (C3, C22): one request, said so; and where to see the request bodies without a Canvas.
    assert "1 request (0 writes)" in result.output
    assert "moe-lms export --format canvas writes the request bodies" in result.output


def test_an_unknown_host_fails_at_once(bank_dir: Path) -> None:
    result = push("https://no-such-host.invalid", bank_dir, "--dry-run")
    assert_clean_failure(result, 1)
    assert "cannot reach https://no-such-host.invalid: unknown host: check --base-url" in result.output


def test_a_tls_failure_fails_at_once(app: Canvas, bank_dir: Path) -> None:
    https = app.base_url.replace("http://", "https://")  # TLS spoken to a plain-HTTP server
    result = push(https, bank_dir, "--dry-run")
    assert_clean_failure(result, 1)
    assert f"cannot reach {https}: TLS failed" in result.output and "check --base-url" in result.output


def test_retries_of_transient_errors_are_shown_as_they_happen(app: Canvas, bank_dir: Path) -> None:
    failed = 0

    def first_two(req: Request) -> bool:
        nonlocal failed
        failed += 1
        return failed <= 2

    app.faults = Faults(fail_rate=1.0, only=first_two)
    result = push(app.base_url, bank_dir, "--dry-run")
    assert result.exit_code == 0, result.output
    shown = [line for line in result.output.splitlines() if "retrying in" in line]
    assert len(shown) == 2 and all(line.startswith(f"GET {QUIZZES}: 500 ") for line in shown)


def test_an_answer_slower_than_the_read_timeout_is_a_failure_not_a_hang(app: Canvas) -> None:
    route(app, "GET", QUIZZES, lambda req: (200, RawBody([b"[]"], delay=2.0, length=2), {}))
    client = CanvasClient(app.base_url, TOKEN, retry=FAST, limits=Limits(read=0.2))
    with pytest.raises(CanvasError, match=r"gave up after 3 attempts; last: no answer within 0\.2 s"):
        client.get_all(QUIZZES, ClassicQuiz)


# -- item 16: the URL is checked by the parser that connects ---------------------------------------------------


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("http://127.0.0.1:{other}\\@127.0.0.1:{app}", "backslash"),
        ("http://alice:pw@127.0.0.1:{app}", "user name or password"),
        ("http://127.0.0.1:{app}@127.0.0.1:{other}", "user name or password"),
        ("http://127.0.0.1:{app}/?course=1", "query or fragment"),
        ("http://127.0.0.1:{app}/#top", "query or fragment"),
        ("http://127.0.0.1:{app} /", "space"),
        ("http://127.0.0.1:{app}\t", "space"),
        ("http://127.0.0.1:0", "port 0"),
        ("http://127.0.0.1:99999", "not a valid URL"),
        ("http://127.0.0.1:8o80", "not a valid URL"),
        ("http://canvas.example.edu:{app}", "plain HTTP"),
    ],
)
def test_a_base_url_that_parsers_could_read_differently_is_a_usage_error_before_any_request(
    app: Canvas, other: Canvas, bank_dir: Path, url: str, said: str
) -> None:
    url = url.format(app=app.base_url.rsplit(":", 1)[1], other=other.base_url.rsplit(":", 1)[1])
    result = push(url, bank_dir, "--dry-run")
    assert_clean_failure(result, 2)
    assert said in result.output
    assert app.log == [] and other.log == []  # nothing reached either server, least of all the token


@pytest.mark.parametrize(
    ("url", "connects_to"),
    [
        ("HTTPS://Canvas.Example.EDU/", "https://canvas.example.edu"),
        ("http://[::1]:3000", "http://[::1]:3000"),
        ("https://school.example.edu/canvas/", "https://school.example.edu/canvas"),
        ("https://école.example/", "https://xn--cole-9oa.example"),
    ],
)
def test_a_plain_base_url_is_kept_as_urllib3_reads_it(url: str, connects_to: str) -> None:
    assert check_base_url(url) == connects_to


# -- item 17: redirects, endless pages, trickles, floods, echoed tokens, odd tokens, escape sequences ----------


def test_a_post_redirected_to_another_origin_is_not_followed_with_its_body(
    app: Canvas, other: Canvas, bank_dir: Path
) -> None:
    route(app, "POST", QUIZZES, lambda req: (307, None, {"Location": f"{other.base_url}{req.path}"}))
    result = push(app.base_url, bank_dir, "--locale", "en")
    assert_clean_failure(result, 1)
    assert "redirect" in result.output and "not follow" in result.output
    assert other.log == []  # neither the answer key nor the token went there


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_get_redirected_to_another_origin_is_not_followed(
    app: Canvas, other: Canvas, bank_dir: Path, status: int
) -> None:
    route(app, "GET", QUIZZES, lambda req: (status, None, {"Location": f"{other.base_url}{req.path}"}))
    result = push(app.base_url, bank_dir, "--dry-run")
    assert_clean_failure(result, 1)
    assert "another origin" in result.output
    assert other.log == []


def test_a_get_redirected_within_canvas_is_followed(app: Canvas, bank_dir: Path) -> None:
    own = app.list_quizzes
    moved = "/api/v1/courses/1/moved_quizzes"
    route(app, "GET", QUIZZES, lambda req: (302, None, {"Location": f"{moved}?per_page=100"}))
    route(app, "GET", moved, lambda req: own(req, "1"))
    result = push(app.base_url, bank_dir, "--dry-run", "--locale", "en")
    assert result.exit_code == 0, result.output
    assert [e.path for e in app.log[:2]] == [QUIZZES, moved]


def test_a_next_link_back_to_a_page_already_read_stops_at_once(app: Canvas, bank_dir: Path) -> None:
    app.next_link_loops = 50
    result = push(app.base_url, bank_dir, "--dry-run")
    assert_clean_failure(result, 1)
    assert f"GET {QUIZZES}: the next page is one already read" in result.output
    assert len(app.log) <= 2


def test_pages_are_capped(app: Canvas) -> None:
    for n in range(5):
        app.course().quizzes[n + 1] = {"id": n + 1, "description": "", "published": False}
        app.course().questions[n + 1] = {}
    client = CanvasClient(app.base_url, TOKEN, retry=FAST, limits=Limits(max_pages=3))
    with pytest.raises(BadAnswer, match="more than 3 pages"):
        client.get_all(QUIZZES, ClassicQuiz, per_page=1)


def test_a_server_trickling_its_answer_is_stopped_by_the_overall_deadline(app: Canvas) -> None:
    sent = 0

    def bytes_slowly() -> Iterator[bytes]:
        nonlocal sent
        for _ in range(400):  # ~8 s in all; each byte well within the read timeout
            sent += 1
            yield b" "

    route(app, "GET", QUIZZES, lambda req: (200, RawBody(bytes_slowly(), delay=0.02), {}))
    client = CanvasClient(app.base_url, TOKEN, retry=RetryPolicy(attempts=1), limits=Limits(read=5.0, deadline=0.3))
    with pytest.raises(CanvasError, match=r"no complete answer within 0\.3 s"):
        client.get_all(QUIZZES, ClassicQuiz)
    assert sent < 400  # the client hung up mid-answer, it did not wait for the end


def test_a_server_trickling_its_status_line_and_headers_is_stopped_by_the_deadline_too(app: Canvas) -> None:
    trickle = RawBody([b"[]"], delay=0.05, trickle_headers=True)  # ~4 s of headers, a byte every 50 ms
    route(app, "GET", QUIZZES, lambda req: (200, trickle, {}))
    client = CanvasClient(app.base_url, TOKEN, retry=RetryPolicy(attempts=1), limits=Limits(read=5.0, deadline=0.3))
    with pytest.raises(CanvasError, match=r"no complete answer within 0\.3 s"):
        client.get_all(QUIZZES, ClassicQuiz)
    assert trickle.written < 60  # cut off within the headers (~80 bytes), not read to their end


@pytest.mark.parametrize("declared", [True, False])
def test_a_huge_answer_is_not_read_into_memory(app: Canvas, declared: bool) -> None:
    size = 64 << 20
    chunks = (b"[" + b" " * ((1 << 16) - 1) for _ in range(size >> 16))
    route(app, "GET", QUIZZES, lambda req: (200, RawBody(chunks, length=size if declared else None), {}))
    client = CanvasClient(app.base_url, TOKEN, retry=FAST, limits=Limits(max_body=1 << 20))
    with pytest.raises(BadAnswer, match="over the limit of 1048576"):
        client.get_all(QUIZZES, ClassicQuiz)


def _alphanumeric(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.lower())


@pytest.mark.parametrize(
    "echo",
    [
        str.upper,
        str.lower,
        lambda value: " ".join(value),
        lambda value: value.replace("-", " - ").replace("~", "%7E"),
        lambda value: value.swapcase().replace("-", "_"),
    ],
    ids=["upper", "lower", "spaced", "separated", "swapped"],
)
def test_a_token_echoed_in_another_case_or_spacing_is_never_printed(app: Canvas, bank_dir: Path, echo: Any) -> None:
    app.echo_authorization = echo
    route(app, "POST", QUIZZES, _bad_request)
    result = push(app.base_url, bank_dir, "--locale", "en")
    assert_clean_failure(result, 1)
    assert "bad request from" in result.output and "[token]" in result.output
    assert _alphanumeric(TOKEN.split("~")[1]) not in _alphanumeric(result.output)


def _bad_request(req: Request) -> None:
    raise HttpError(400, {"errors": [{"message": "bad"}]})


@pytest.mark.parametrize(
    "token", [TOKEN[:12] + "\n" + TOKEN[12:], TOKEN[:12] + "\u20ac" + TOKEN[12:], TOKEN[:12] + " " + TOKEN[12:]]
)
def test_a_token_with_a_line_break_or_a_non_latin_1_character_is_a_usage_error_that_shows_no_piece_of_it(
    app: Canvas, bank_dir: Path, token: str
) -> None:
    result = push(app.base_url, bank_dir, "--dry-run", token=token)
    assert_clean_failure(result, 2)
    assert "CANVAS_TOKEN holds a character no Canvas token has" in result.output
    assert TOKEN[:12] not in result.output and TOKEN[13:] not in result.output and TOKEN[12:] not in result.output
    assert app.log == []


def test_escape_sequences_in_canvas_s_answers_are_not_sent_to_the_terminal(app: Canvas, bank_dir: Path) -> None:
    hostile = "\x1b]0;owned\x07\x1b[2J\x9b31mred\rforged line\nerror: none"

    def refuse(req: Request) -> None:
        raise HttpError(400, {"errors": [{"message": hostile}]})

    route(app, "POST", QUIZZES, refuse)
    result = push(app.base_url, bank_dir, "--locale", "en")
    assert_clean_failure(result, 1)
    assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]", result.output)
    assert "\\x1b]0;owned\\x07\\x1b[2J\\x9b31mred\\x0dforged line\\x0aerror: none" in result.output


# -- item 18: every answer is checked against the shape moe-lms reads -------------------------------------------


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ({"quizzes": []}, "does not have the expected shape"),
        ([{"id": [1, 2], "description": ""}], "does not have the expected shape (0.id:"),
        ([{"id": 1, "description": {"html": "x"}}], "0.description"),
        ([{"id": 1, "published": "maybe"}], "0.published"),
        ("<!doctype html><title>Sign in</title>", "answered text/html where JSON was expected"),
        (None, "answered an empty answer where JSON was expected"),
    ],
)
def test_a_200_with_the_wrong_shape_or_html_is_an_error_naming_the_request(
    app: Canvas, bank_dir: Path, answer: Any, said: str
) -> None:
    headers = {"Content-Type": "text/html"} if isinstance(answer, str) else {}
    route(app, "GET", QUIZZES, lambda req: (200, answer, headers))
    result = push(app.base_url, bank_dir, "--dry-run")
    assert_clean_failure(result, 1)
    assert f"error: GET {QUIZZES}: " in result.output and said in result.output
    assert TOKEN not in result.output


def test_a_create_answered_without_an_id_is_an_error_naming_the_request(app: Canvas, bank_dir: Path) -> None:
    route(app, "POST", QUIZZES, lambda req: (200, {"created": True}, {}))
    result = push(app.base_url, bank_dir, "--locale", "en")
    assert_clean_failure(result, 1)
    assert f"error: POST {QUIZZES}: Canvas's answer does not have the expected shape (id: Field required)" in (
        result.output
    )


def test_escape_sequences_in_a_po_header_are_not_sent_to_the_terminal(app: Canvas, tmp_path: Path) -> None:
    bank = tmp_path / "bank"
    shutil.copytree(SHIPPED_BANK_DIR, bank)
    po = bank / "locales" / "ur.po"
    hostile = '"Language: ur\x1b]0;owned\x07\x9b2J\\n"'
    po.write_text(po.read_text(encoding="utf-8").replace('"Language: ur\\n"', hostile), encoding="utf-8")
    result = push(app.base_url, bank, "--dry-run")
    assert_clean_failure(result, 1)
    assert "header says Language: ur\\x1b]0;owned\\x07\\x9b2J" in result.output
    assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]", result.output)
    assert app.log == []


def test_escape_sequences_in_bank_text_shown_in_the_plan_are_not_sent_to_the_terminal(
    app: Canvas, tmp_path: Path
) -> None:
    bank = make_bank(2)
    save_bank(bank.model_copy(update={"title": "Drill \x9b2J\x9d0;owned\x9c"}), tmp_path / "bank")
    result = push(app.base_url, tmp_path / "bank", "--dry-run", "--locale", "en")
    # C1 controls cannot be in a bank (issue 11, item 24): the bank is refused, naming the character, and nothing
    # raw reaches the terminal.
    assert result.exit_code == 1, result.output
    assert "title: contains U+009B at character 7" in result.output
    assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]", result.output)
    assert app.log == []


def test_a_refusal_after_canvas_has_answered_is_a_hiccup_and_is_retried() -> None:
    server = CanvasServer(Canvas())
    with server:
        client = CanvasClient(server.url, TOKEN, retry=FAST)
        assert client.get_all(QUIZZES, ClassicQuiz) == []
    # The same Canvas, gone for a moment (a restart): retried, not "cannot reach". (Asked from another thread,
    # whose connections are new: the kept-alive one would still reach the stopped server's handler.)
    with (
        ThreadPoolExecutor(1) as pool,
        pytest.raises(CanvasError, match="gave up after 3 attempts; last: connection refused") as caught,
    ):
        pool.submit(client.get_all, QUIZZES, ClassicQuiz).result()
    assert "cannot reach" not in str(caught.value) and client.stats.retries == 2


def test_json_nested_beyond_python_s_recursion_limit_is_an_error_naming_the_request(app: Canvas) -> None:
    deep = b"[" * 200_000 + b"]" * 200_000
    route(app, "GET", QUIZZES, lambda req: (200, RawBody([deep], length=len(deep)), {}))
    client = CanvasClient(app.base_url, TOKEN, retry=FAST)
    with pytest.raises(BadAnswer, match=f"GET {QUIZZES}: Canvas answered"):
        client.get_all(QUIZZES, ClassicQuiz)


def test_escape_sequences_in_an_imported_file_s_question_names_are_not_sent_to_the_terminal(tmp_path: Path) -> None:
    """Outside text printed by other commands is neutralised too: here `import moodle`'s list of skipped
    questions, whose names it shows through repr (XML 1.0 forbids C0 controls, but C1 ones such as U+009B, an
    8-bit CSI, are allowed)."""
    hostile = FROM_MOODLE.replace(b"Unit of frequency", "Unit \u009b2J\u009d0;owned\u009c".encode())
    (tmp_path / "phy.xml").write_bytes(hostile)
    result = CliRunner().invoke(main, ["import", "moodle", str(tmp_path / "phy.xml"), "-o", str(tmp_path / "phy")])
    assert result.exit_code == 0, result.output
    assert "shortanswer question 'Unit \\x9b2J\\x9d0;owned\\x9c'" in result.output
    assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]", result.output)


@pytest.mark.parametrize("remaining", ["nan", "inf", "-inf", "1e400"])
def test_a_nonsensical_rate_limit_budget_does_not_stop_the_push(app: Canvas, bank_dir: Path, remaining: str) -> None:
    own = app.list_quizzes
    route(app, "GET", QUIZZES, lambda req: (*own(req, "1")[:2], {"X-Rate-Limit-Remaining": remaining}))
    result = push(app.base_url, bank_dir, "--dry-run")
    assert result.exit_code == 0, result.output


def test_a_hugely_negative_rate_limit_budget_does_not_stall_the_next_request(app: Canvas) -> None:
    own = app.list_quizzes
    route(app, "GET", QUIZZES, lambda req: (*own(req, "1")[:2], {"X-Rate-Limit-Remaining": "-1e300"}))
    client = CanvasClient(app.base_url, TOKEN, retry=FAST)  # the budget refills at 10,000 a second here
    assert client.get_all(QUIZZES, ClassicQuiz) == []
    assert client.get_all(QUIZZES, ClassicQuiz) == []  # waits for a budget of 0 to refill, not of -1e300


def test_a_compressed_answer_is_capped_by_what_it_unpacks_to(app: Canvas) -> None:
    bomb = gzip.compress(b"[" + b" " * (64 << 20) + b"]")  # 64 MiB from about 64 KiB
    headers = {"Content-Encoding": "gzip"}
    route(app, "GET", QUIZZES, lambda req: (200, RawBody([bomb], length=len(bomb)), headers))
    client = CanvasClient(app.base_url, TOKEN, retry=FAST, limits=Limits(max_body=1 << 20))
    with pytest.raises(BadAnswer, match="over the limit of 1048576"):
        client.get_all(QUIZZES, ClassicQuiz)
