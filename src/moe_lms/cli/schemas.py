"""The official XSDs on this machine: ``moe-lms schemas fetch`` downloads them into the user cache."""

from __future__ import annotations

import hashlib
import ipaddress
from pathlib import Path
from urllib.parse import urlsplit

import click

from .. import schemas as official
from ..files import write_atomic
from .common import EXIT_PROBLEMS, err, out

MAX_FILE_BYTES = 4 * 2**20  # the largest pinned file is under 100 KiB
TIMEOUT = (10, 60)  # connect, read (seconds)


@click.group("schemas")
def schemas_group() -> None:
    """The official XML Schemas validate checks QTI packages against."""


def _base_url(value: str) -> str:
    """``value`` as a base URL files are fetched under: https, or http to this machine only."""
    parts = urlsplit(value)
    host = parts.hostname or ""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if parts.scheme not in ("https", "http") or not host or (parts.scheme == "http" and not loopback):
        raise click.BadParameter("give an https:// URL (plain http:// only to this machine)", param_hint="--base-url")
    if parts.username or parts.password or parts.query or parts.fragment or "\\" in value or " " in value:
        raise click.BadParameter("no user, query, fragment, backslash or space in the URL", param_hint="--base-url")
    return value if value.endswith("/") else value + "/"


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


@schemas_group.command("fetch")
@click.option(
    "--base-url", default=None,
    help="A mirror to fetch from instead of the published copies, laid out as qti-sdk publishes the QTI files, "
    "with the Common Cartridge files under cc11/.",
)  # fmt: skip
def fetch(base_url: str | None) -> None:
    """Download the official XSDs into the user cache, each checked against its pinned SHA-256.

    validate finds them there when no --schemas, MOE_LMS_SCHEMAS or ../shared/schemas names a folder. Files
    already there with the right checksum are not downloaded again.
    """
    import requests

    mirror = _base_url(base_url) if base_url is not None else None
    into = official.cache_dir()
    fetched = kept = 0
    failures: list[str] = []
    with requests.Session() as session:
        for item in official.FILES:
            target = into / item.path
            if _sha256(target) == item.sha256:
                kept += 1
                continue
            url = item.url(mirror)
            try:
                with session.get(url, timeout=TIMEOUT, stream=True) as response:
                    if response.status_code != 200:
                        failures.append(f"{url}: HTTP {response.status_code} {response.reason}")
                        continue
                    data = bytearray()
                    for chunk in response.iter_content(65536):
                        data += chunk
                        if len(data) > MAX_FILE_BYTES:
                            break
            except requests.RequestException as exc:
                if mirror is not None:
                    fix = "check --base-url"
                else:  # (--base-url is an optional mirror: no reason to blame it when none was given)
                    fix = (
                        "check this machine's internet connection; a machine without one can fetch from a mirror "
                        "with --base-url, or give validate a schema folder with --schemas DIR"
                    )
                err.print(f"error: cannot reach {url}: {type(exc).__name__}; {fix}", markup=False)
                raise SystemExit(EXIT_PROBLEMS) from None
            if len(data) > MAX_FILE_BYTES:
                failures.append(f"{url}: larger than {MAX_FILE_BYTES:,} bytes; refused")
                continue
            digest = hashlib.sha256(data).hexdigest()
            if digest != item.sha256:
                failures.append(f"{url}: SHA-256 {digest}, expected {item.sha256}; not saved")
                continue
            write_atomic(target, bytes(data), within=into, parents=True)
            fetched += 1
    for failure in failures:
        err.print(f"error: {failure}", markup=False)
    if failures:
        err.print(f"{len(failures)} of {len(official.FILES)} file(s) not fetched; nothing else changed.", markup=False)
        raise SystemExit(EXIT_PROBLEMS)
    out.print(
        f"{into}: {len(official.FILES)} schema files ({fetched} downloaded, {kept} already there and intact); "
        "moe-lms validate now finds them",
        markup=False,
    )
