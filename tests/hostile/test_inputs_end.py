"""Inputs that do not end, or repeat, are read within bounds: ``/dev/zero`` or a pipe given to an importer or to
``validate`` stops at the size limit; a gzip bomb just under the archive's inflate limit is read in a few MiB; a
manifest naming one big item 400 times reads it once; a tar split over two gzip members is read as gunzip reads it.
Memory is measured in a child process (its peak resident set, from ``wait4``), each run under an address-space
limit, so a regression fails the test instead of taking the machine's memory."""

from __future__ import annotations

import io
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import hostile_inputs  # (the bench's makers of these inputs: bench/hostile_inputs.py)

MIB = 1 << 20

# The CLI in a child, the package limit given (4 MiB: reading /dev/zero up to it takes no time); at exit the child
# writes its peak resident set (KiB) into the file named first.
CHILD = """
import atexit, resource, sys
from pathlib import Path
atexit.register(lambda: Path(sys.argv[1]).write_text(str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)))
from moe_lms import zipsafe
zipsafe.MAX_PACKAGE_BYTES = int(sys.argv[2])
from moe_lms.cli import main
main(sys.argv[3:], prog_name="moe-lms")
"""


def run_child(
    *args: str, limit: int = 4 * MIB, address_space: int = 3 << 30, timeout: float = 240
) -> tuple[int, str, int, float]:
    """Exit code, output, peak resident set (MiB) and seconds of ``moe-lms ARGS`` in a child process whose
    address space is limited (a regression fails here rather than taking the machine's memory)."""

    def bounded() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    with tempfile.NamedTemporaryFile("r", suffix=".peak") as peak_file:
        began = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", CHILD, peak_file.name, str(limit), *args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, preexec_fn=bounded, timeout=timeout,
        )  # fmt: skip
        seconds = time.perf_counter() - began
        peak = int(Path(peak_file.name).read_text() or 0) // 1024
    return done.returncode, done.stdout.decode("utf-8", "replace"), peak, seconds


@pytest.mark.parametrize(
    "command",
    [["import", "qti21"], ["import", "qti3"], ["import", "cc11"], ["import", "canvas-qti"], ["import", "olx"],
     ["import", "moodle", "--max-size", "4"], ["validate"]],
    ids=lambda c: " ".join(c[:2]),
)  # fmt: skip
def test_dev_zero_is_read_up_to_the_limit_and_refused(tmp_path: Path, command: list[str]) -> None:
    output_dir = [] if command == ["validate"] else ["-o", str(tmp_path / "bank")]
    code, output, peak, _ = run_child(*command, "/dev/zero", *output_dir, address_space=1 << 30, timeout=60)
    assert code == 1, output
    assert "/dev/zero" in output and "limit" in output and "Traceback" not in output
    assert peak < 200


def test_a_pipe_that_never_ends_is_read_up_to_the_limit_and_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "package.zip"
    os.mkfifo(fifo)
    feeder = subprocess.Popen(["sh", "-c", f"cat /dev/zero > {fifo}"], stderr=subprocess.DEVNULL)
    try:
        code, output, peak, _ = run_child("import", "qti21", str(fifo), "-o", str(tmp_path / "bank"), timeout=60)
    finally:
        feeder.kill()
        feeder.wait()
    assert code == 1 and "limit" in output and "Traceback" not in output, output
    assert peak < 200


def test_a_gzip_bomb_just_under_the_inflate_limit_is_read_in_little_memory(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.tar.gz"
    bomb.write_bytes(hostile_inputs.olx_bomb(gzip_members=False))
    code, output, peak, _ = run_child("import", "olx", str(bomb), "-o", str(tmp_path / "bank"), limit=512 * MIB)
    assert code == 1 and "no question" in output, output
    assert peak < 250, f"peak {peak} MiB for 600 MiB inflated"


def test_a_tar_split_over_two_gzip_members_is_read_as_gunzip_reads_it(tmp_path: Path) -> None:
    from moe_lms.formats.olx import read

    data = hostile_inputs.olx_two_members()
    bank, _ = read.read_package(data, name="two.tar.gz")
    assert [q.id for q in bank.questions] == ["q0"]
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:  # (what Python's tarfile, like gunzip, reads)
        assert any(m.name.endswith("course.xml") for m in tar)


@pytest.mark.parametrize("fmt", ["qti3", "qti21"])
def test_one_item_named_400_times_is_read_once(tmp_path: Path, fmt: str) -> None:
    package = tmp_path / "package.zip"
    package.write_bytes(hostile_inputs.one_item_named_400_times(fmt, size=3 * MIB // 2))
    code, output, peak, seconds = run_child(
        "import", fmt, str(package), "-o", str(tmp_path / "bank"), limit=512 * MIB, timeout=120
    )
    assert code == 0, output
    assert peak < 400, f"peak {peak} MiB"
    assert seconds < 60


def test_an_item_past_the_item_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """30 items of 15 MiB of text took 3.9 GiB and ten minutes; an item is one question, and past 2 MiB it is
    refused (by its declared size: nothing of it is inflated)."""
    package = tmp_path / "package.zip"
    package.write_bytes(hostile_inputs.thirty_items_of(3 * MIB, count=30))
    code, output, peak, seconds = run_child(
        "import", "qti21", str(package), "-o", str(tmp_path / "bank"), limit=512 * MIB, timeout=120
    )
    assert code == 1 and "the limit is 2,097,152" in output, output
    assert peak < 200 and seconds < 30
