"""moe-lms schemas fetch: the official XSDs into the user cache, each checked against its pinned SHA-256, and
validate finding them there. Served from 127.0.0.1 out of ../shared/schemas, laid out as they are published."""

from __future__ import annotations

import hashlib
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner
from pytest_httpserver import HTTPServer

from moe_lms import schemas
from moe_lms.cli import main

from .qti_support import export, rich_bank


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.delenv(schemas.ENV_VAR, raising=False)
    monkeypatch.setattr(schemas, "FALLBACKS", ())  # only the cache, not ../shared
    return tmp_path / "xdg-cache" / "moe-lms" / "schemas"


def serve(httpserver: HTTPServer, schemas_dir: Path, tampered: str | None = None) -> str:
    for item in schemas.FILES:
        data = (schemas_dir / item.path).read_bytes()
        if item.path == tampered:
            data = data.replace(b"<xs:", b"<xs:  ", 1) + b"<!-- changed -->"
        httpserver.expect_request(f"/mirror/{item.published}").respond_with_data(data, content_type="text/xml")
    return httpserver.url_for("/mirror/")


def fetch(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["schemas", "fetch", *args])
    return result.exit_code, result.output


def test_the_pins_are_the_files_validate_was_tested_with(schemas_dir: Path) -> None:
    for item in schemas.FILES:
        assert hashlib.sha256((schemas_dir / item.path).read_bytes()).hexdigest() == item.sha256, item.path
    assert {str(p) for p in schemas.REQUIRED} <= {item.path for item in schemas.FILES}


def test_the_published_names_are_qti_sdks_layout() -> None:
    published = {item.path: item.published for item in schemas.FILES}
    assert published["qti21/imsqti_v2p1.xsd"] == "qtiv2p1/imsqti_v2p1.xsd"
    assert published["imscp/imscp_v1p1.xsd"] == "imscp_v1p1.xsd"
    assert published["imscp/w3/xml.xsd"] == "w3/xml.xsd"
    assert published["w3/mathml2/mathml2.xsd"] == "w3/mathml2/mathml2.xsd"
    assert published["cc11/ccv1p1_qtiasiv1p2p1_v1p0.xsd"] == "cc11/ccv1p1_qtiasiv1p2p1_v1p0.xsd"
    assert schemas.PUBLISHED_URL.startswith("https://raw.githubusercontent.com/oat-sa/qti-sdk/")


def test_without_a_mirror_each_file_comes_from_its_publisher() -> None:
    urls = {item.path: item.url() for item in schemas.FILES}
    assert urls["qti21/imsqti_v2p1.xsd"] == schemas.PUBLISHED_URL + "qtiv2p1/imsqti_v2p1.xsd"
    # Moodle 4.5's copy of the Common Cartridge 1.1 schemas, which shared/schemas/cc11 holds unchanged.
    assert urls["cc11/cc11libxml2validator.xsd"] == (
        "https://raw.githubusercontent.com/moodle/moodle/v4.5.0/backup/cc/schemas11/cc11libxml2validator.xsd"
    )


def test_fetch_fills_the_user_cache_and_validate_finds_it_there(
    httpserver: HTTPServer, schemas_dir: Path, cache: Path, tmp_path: Path
) -> None:
    code, output = fetch("--base-url", serve(httpserver, schemas_dir))
    assert code == 0, output
    assert f"{cache}: 52 schema files (52 downloaded, 0 already there and intact)" in output
    for item in schemas.FILES:
        assert (cache / item.path).read_bytes() == (schemas_dir / item.path).read_bytes()
    assert schemas.locate() == cache

    package = tmp_path / "en.zip"
    package.write_bytes(export(rich_bank(), ["en"]))
    result = CliRunner().invoke(main, ["validate", str(package)])
    assert result.exit_code == 0, result.output
    assert f"XSD validation: done, against {cache.resolve()}" in result.output

    cartridge = tmp_path / "bank.imscc"
    made = CliRunner().invoke(main, ["export", "--format", "cc11", "--locale", "en", "-o", str(cartridge)])
    assert made.exit_code == 0, made.output
    result = CliRunner().invoke(main, ["validate", str(cartridge)])
    assert result.exit_code == 0, result.output
    assert f"XSD validation: done, against {cache.resolve()}" in result.output

    requests_before = len(httpserver.log)
    code, output = fetch("--base-url", serve(httpserver, schemas_dir))
    assert code == 0 and "(0 downloaded, 52 already there and intact)" in output
    assert len(httpserver.log) == requests_before


def test_a_file_that_does_not_match_its_pin_is_refused_and_not_saved(
    httpserver: HTTPServer, schemas_dir: Path, cache: Path
) -> None:
    code, output = fetch("--base-url", serve(httpserver, schemas_dir, tampered="qti21/imsqti_v2p1.xsd"))
    assert code == 1
    assert "qtiv2p1/imsqti_v2p1.xsd: SHA-256 " in output and ", expected 6e55a930" in output
    assert "1 of 52 file(s) not fetched" in output
    assert not (cache / "qti21" / "imsqti_v2p1.xsd").exists()
    assert (cache / "imscp" / "imscp_v1p1.xsd").is_file()
    assert schemas.locate() is None  # an incomplete cache is not a schema folder


def test_a_missing_file_is_named_with_its_url(httpserver: HTTPServer, cache: Path) -> None:
    code, output = fetch("--base-url", httpserver.url_for("/nothing-here/"))
    assert code == 1
    assert f"error: {httpserver.url_for('/nothing-here/')}apipv1p0/apipv1p0_qtiextv2p1_v1p0.xsd: HTTP 500" in output


def test_an_unreachable_server_is_one_line_at_once(cache: Path) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, output = fetch("--base-url", f"http://127.0.0.1:{port}/")
    assert code == 1
    assert output.strip().splitlines()[-1].startswith(f"error: cannot reach http://127.0.0.1:{port}/")
    assert "check --base-url" in output and "Traceback" not in output


@pytest.mark.parametrize(
    "url",
    ["http://example.org/schemas/", "ftp://127.0.0.1/", "https://user:pw@example.org/", "https://example.org/?a=1"],
)
def test_a_base_url_that_is_not_https_or_carries_more_than_a_location_is_a_usage_error(url: str, cache: Path) -> None:
    code, output = fetch("--base-url", url)
    assert code == 2
    assert "--base-url" in output
    assert not cache.exists()
