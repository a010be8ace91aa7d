"""YAML aliases are bounded by what they expand to, not by how many there are (a "billion laughs" in bank.yaml)."""

from __future__ import annotations

from pathlib import Path

from moe_lms.loader import alias_expansion_problem, check_bank, expansion_limit, load_bank

from .limited import run_capped

QUESTION = """\
  - id: {qid}
    stem: Which?
    explanation: &why{qid} Because the experts are sharded.
    choices:
      - {{id: a, text: Yes, correct: true, explanation: *why{qid}}}
      - {{id: b, text: No, explanation: *why{qid}}}
"""


def _bank(directory: Path, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "bank.yaml").write_text(text, encoding="utf-8")
    return directory


def _nested_aliases(levels: int, width: int = 9) -> list[str]:
    """Each level a list of ``width`` aliases of the level before: width**levels nodes from a few hundred bytes."""
    lines = [f"l0: &l0 [{', '.join(['a'] * width)}]"]
    for i in range(1, levels + 1):
        lines.append(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]")
    return lines


def test_anchors_used_as_authors_use_them_load_as_the_text_they_stand_for(tmp_path: Path) -> None:
    text = "id: b\ntitle: T\nquestions:\n" + QUESTION.format(qid="one") + QUESTION.format(qid="two")
    bank = load_bank(_bank(tmp_path, text))
    assert [c.explanation for q in bank.questions for c in q.choices] == ["Because the experts are sharded."] * 4


def test_a_megabyte_anchor_aliased_1500_times_is_refused_with_its_line_in_bounded_memory(tmp_path: Path) -> None:
    big = "x" * 2**20
    text = f"id: b\ntitle: &t {big}\nintro: [{', '.join(['*t'] * 1500)}]\nquestions: []\n"
    directory = _bank(tmp_path / "bank", text)
    result = run_capped("check", str(directory))  # expanded, 1.5 GiB: far over the cap
    assert result.returncode == 1, result.stderr[-2000:]
    assert (
        "bank.yaml:3: error: YAML aliases (*name) would expand the file to more than" in result.stdout + result.stderr
    )


def test_eight_levels_of_aliases_and_a_duplicate_key_are_refused_at_once(tmp_path: Path) -> None:
    # 515 bytes that stand for 9**8 = 43 million nodes; the duplicate key used to send the line finder through
    # every one of them (26 s), and expanding them takes gigabytes.
    lines = ["id: b", "title: T", "questions: []", "dup: {k: 1, k: 2}", *_nested_aliases(8)]
    text = "\n".join(lines) + "\n"
    directory = _bank(tmp_path / "bank", text)
    bank, problems = check_bank(directory)
    assert bank is None
    assert [p.line for p in problems] == [9]
    assert problems[0].message.startswith("YAML aliases (*name) would expand the file to more than")
    result = run_capped("check", str(directory))
    assert result.returncode == 1 and "bank.yaml:9: error: YAML aliases" in result.stdout + result.stderr, (
        result.stderr[-2000:]
    )


def test_a_duplicate_key_beside_aliases_within_the_limit_is_found_walking_each_node_once(tmp_path: Path) -> None:
    lines = ["id: b", "title: T", "dup: {k: 1, k: 2}", *_nested_aliases(3), "questions:"]
    text = "\n".join(lines) + "\n" + QUESTION.format(qid="one")
    bank, problems = check_bank(_bank(tmp_path, text))
    assert bank is None
    assert [(p.line, p.message) for p in problems] == [(3, "key 'k' appears twice in the same mapping")]


def test_the_limit_is_on_the_expanded_size_not_on_the_number_of_aliases() -> None:
    many_small = "a: &a x\nb: [" + ", ".join(["*a"] * 20_000) + "]\n"  # 20,000 aliases, each one character
    assert alias_expansion_problem(many_small) is None
    few_large = "a: &a " + "x" * 500_000 + "\nb: [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    found = alias_expansion_problem(few_large)
    assert found is not None and found[0] == 2
    assert expansion_limit(len(few_large)) < 13 * 500_000


def test_text_that_only_looks_like_an_anchor_loads_the_fast_way_or_the_thorough_way_alike(tmp_path: Path) -> None:
    text = "id: b\ntitle: Q &amp; A\nquestions:\n" + QUESTION.format(qid="one")
    assert load_bank(_bank(tmp_path, text)).title == "Q &amp; A"
