"""Parameterised questions (issue 31): expanded into concrete variants before any writer, checked like hand-written
questions, translated once as templates, delivered as a pool (a section drawing one variant)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from moe_lms import formats, variants
from moe_lms.loader import check_bank, load_bank
from moe_lms.locales import resolve
from moe_lms.model import WHOLE_BANK, resolve_quiz
from moe_lms.problems import Severity

from .variant_bank import BANK_YAML, capacity_key, write_bank


@pytest.fixture
def bank_dir(tmp_path: Path) -> Path:
    return write_bank(tmp_path / "bank")


def test_a_parameterised_question_becomes_its_variants_in_its_place(bank_dir: Path) -> None:
    expanded = variants.expand(load_bank(bank_dir))
    ids = [q.id for q in expanded.questions]
    assert ids == ["plain", *(f"capacity~{n}" for n in range(1, 7)), "powers~1", "powers~2", "powers~3"]
    assert all(q.params is None and q.variants is None for q in expanded.questions)


def test_each_variant_has_its_own_numbers_and_the_right_key(bank_dir: Path) -> None:
    expanded = variants.expand(load_bank(bank_dir))
    seen = set()
    for q in expanded.questions:
        if not q.id.startswith("capacity~"):
            continue
        found = re.search(r"\$T = ([\d{},]+)\$ tokens, top-(\d+) routing over \$E = (\d+)\$", q.stem)
        assert found, q.stem
        tokens, k, experts = (int(g.replace("{,}", "")) for g in found.groups())
        (right,) = q.correct_choices
        assert right.text == f"{capacity_key(tokens, k, experts):,}"
        assert f"= {1.25 * tokens * k / experts:,g}, rounded up" in q.explanation
        seen.add((tokens, k, experts))
    assert len(seen) == 6


def test_a_combination_whose_choices_collide_is_never_drawn(bank_dir: Path) -> None:
    """1.25·T·k/E whole (T=4000, k=8, E=64: 625) makes the truncating distractor equal to the key."""
    expanded = variants.expand(load_bank(bank_dir))
    for q in expanded.questions:
        texts = [c.text for c in q.choices]
        assert len(set(texts)) == len(texts), q.id
    drawn, problems = variants.draw(load_bank(bank_dir).question("capacity"), "en")
    assert drawn is not None and not problems
    assert {"T": 4000, "k": 8, "E": 64} not in drawn.combinations


def test_the_same_bank_draws_the_same_variants_and_writes_the_same_bytes(bank_dir: Path, tmp_path: Path) -> None:
    other = write_bank(tmp_path / "again")
    for name in ("moodle", "qti21", "html"):
        fmt = formats.get(name)
        first = fmt.dump(load_bank(bank_dir), formats.ExportOptions(locales=("en", "vi")))
        second = fmt.dump(load_bank(other), formats.ExportOptions(locales=("en", "vi")))
        assert first == second, name


def test_variants_are_translated_with_their_numbers_written_for_the_locale(bank_dir: Path) -> None:
    expanded = variants.expand(load_bank(bank_dir))
    vi, ur, en = (resolve(expanded, loc) for loc in ("vi", "ur", "en"))
    found = [q for q in expanded.questions if q.id.startswith("capacity~") and "$T = 6{,}000$" in q.stem]
    assert found, "a variant with T = 6000"
    q = found[0]
    assert "$T = 6.000$" in vi.stem(q).text  # vi groups with a dot, and no {,} for LaTeX then
    assert not vi.stem(q).fell_back and vi.stem(q).lang == "vi"
    assert "$T = 6{,}000$" in ur.stem(q).text
    explanation = vi.question(q, "explanation").text
    assert "1,25 ×" in explanation and "," in explanation.split("=")[-1]  # e.g. 468,75
    assert en.question(q, "explanation").text.count(".") >= 1


def test_a_vietnamese_variant_writes_468_comma_75(tmp_path: Path) -> None:
    one = BANK_YAML.replace("T: [4000, 6000, 8000]", "T: [6000]").replace("k: [2, 4, 8]", "k: [8]")
    one = one.replace("E: [64, 128]", "E: [128]").replace("variants: 6", "variants: 1")
    expanded = variants.expand(load_bank(write_bank(tmp_path / "one", one)))
    q = expanded.question("capacity~1")
    assert q.explanation.endswith("= 468.75, rounded up.")
    assert resolve(expanded, "vi").question(q, "explanation").text.endswith("= 468,75, làm tròn lên.")
    assert [c.text for c in q.choices] == ["469", "468", "375"]


def test_a_multiple_answer_question_computes_every_choice(bank_dir: Path) -> None:
    expanded = variants.expand(load_bank(bank_dir))
    q = expanded.question("powers~2")
    assert q.stem == "Which numbers are at most $2^{4}$?"
    assert [(c.text, c.correct) for c in q.choices] == [("16", True), ("15", True), ("17", False)]
    assert q.choices[2].explanation == "17 is one more than 16."


def test_quizzes_draw_one_variant_per_attempt_from_a_section_of_its_own(bank_dir: Path) -> None:
    expanded = variants.expand(load_bank(bank_dir))
    quiz = expanded.quiz(WHOLE_BANK)
    drawn = resolve_quiz(expanded, quiz)
    assert [(d.id, len(d.questions), d.draw) for d in drawn] == [("all", 1, 1), ("capacity", 6, 1), ("powers", 3, 1)]


def test_a_quiz_section_can_name_the_question_and_draw_one(tmp_path: Path) -> None:
    text = (
        BANK_YAML
        + """\
quizzes:
  - id: check
    title: Check
    sections:
      - id: warm-up
        title: Warm-up
        questions: [plain, powers]
      - id: yours
        questions: [capacity]
        draw: 1
"""
    )
    expanded = variants.expand(load_bank(write_bank(tmp_path / "b", text)))
    drawn = resolve_quiz(expanded, expanded.quiz("check"))
    assert [(d.id, d.section.title, len(d.questions), d.draw) for d in drawn] == [
        ("warm-up", "Warm-up", 1, 1),
        ("powers", None, 3, 1),
        ("yours", None, 6, 1),
    ]


def problems_of(tmp_path: Path, text: str) -> list[str]:
    _bank, problems = check_bank(write_bank(tmp_path / "bad", text))  # (errors: load_bank refuses the bank)
    assert problems and all(p.severity is Severity.ERROR for p in problems)
    return [f"{p.line}: {p.where}: {p.message}" for p in problems]


def test_check_refuses_fewer_valid_combinations_than_variants(tmp_path: Path) -> None:
    found = problems_of(tmp_path, BANK_YAML.replace("variants: 6", "variants: 17"))
    assert len(found) == 1
    assert found[0].startswith("22: question 'capacity': asks for 17 variant(s) but only 14 of the 18 combinations")
    assert "collide, e.g. with T=4000, k=8, E=64: choices 'right' and 'truncated' both read '625'" in found[0]


def test_check_refuses_a_division_by_zero_naming_question_params_and_line(tmp_path: Path) -> None:
    found = problems_of(tmp_path, BANK_YAML.replace("{ceil(T * k / E)}", "{ceil(T * k / (E - 64))}"))
    assert found == [
        "38: question 'capacity': an expression does not evaluate: division by zero (with T=4000, k=2, E=64)"
    ]


def test_check_refuses_an_expression_that_does_not_evaluate(tmp_path: Path) -> None:
    found = problems_of(tmp_path, BANK_YAML.replace("{floor(1.25 * T * k / E)}", "{floor(1.25 * T * q / E)}"))
    assert len(found) == 1 and found[0].startswith(
        "35: question 'capacity': '{floor(1.25 * T * q / E)}': unknown name 'q'"
    )


@pytest.mark.parametrize(
    "hostile",
    ["__import__('os').system('id')", "T.__class__", "10**10**10", "(" * 10_000 + "T" + ")" * 10_000],
)
def test_check_refuses_a_hostile_expression_quickly(tmp_path: Path, hostile: str) -> None:
    text = BANK_YAML.replace(
        '"{ceil(T * k / E)}"', repr("{" + hostile + "}").replace("'", '"') if '"' not in hostile else "x"
    )
    text = BANK_YAML.replace("{ceil(T * k / E)}", "{" + hostile.replace('"', "'") + "}")
    directory = write_bank(tmp_path / "hostile", text)
    started = time.perf_counter()
    _bank, problems = check_bank(directory)
    assert time.perf_counter() - started < 0.5
    assert len(problems) == 1 and problems[0].severity is Severity.ERROR
    assert problems[0].line == 38 and problems[0].where == "question 'capacity'"
    assert any(
        said in problems[0].message
        for said in ("only these functions", "attribute access", "exponent larger", "characters long")
    ), problems[0].message


def test_check_holds_a_translations_placeholders_to_the_source(tmp_path: Path) -> None:
    directory = write_bank(tmp_path / "b")
    po = directory / "locales" / "vi.po"
    po.write_text(po.read_text(encoding="utf-8").replace("top-{k}", "top-{K}"), encoding="utf-8")
    _bank, problems = check_bank(directory)
    assert [(p.file.endswith("vi.po"), p.where, p.message) for p in problems] == [
        (
            True,
            "question 'capacity'",
            "the vi translation lacks {k} and has {K} that the source has not: keep the source's placeholders",
        )
    ]
    assert problems[0].line is not None


def test_the_po_files_hold_templates_never_numbers(bank_dir: Path) -> None:
    from moe_lms.loader import catalog_entries

    entries = {e.context: e for e in catalog_entries(load_bank(bank_dir), "vi")}
    assert "capacity~1/stem" not in entries
    assert entries["capacity/stem"].msgstr.startswith("Một lô $T = {T}$ token")


def test_a_numerical_question_computes_its_values_per_variant(tmp_path: Path) -> None:
    from .variant_bank import NUMERICAL_YAML

    directory = tmp_path / "numerical"
    (directory / "locales").mkdir(parents=True)
    (directory / "bank.yaml").write_text(NUMERICAL_YAML, encoding="utf-8")
    expanded = variants.expand(load_bank(directory))
    assert [q.id for q in expanded.questions] == [f"capacity-per-learner~{n}" for n in range(1, 7)]
    for q in expanded.questions:
        found = re.search(r"T = ([\d{},]+)\$ tokens, top-(\d+) routing over \$E = (\d+)", q.stem)
        assert found, q.stem
        tokens, k, experts = (int(g.replace("{,}", "")) for g in found.groups())
        assert [c.value for c in q.choices] == [
            capacity_key(tokens, k, experts),
            float(1.25 * tokens * k // experts),
            tokens * k / experts,
        ]
        assert q.matching(float(capacity_key(tokens, k, experts))) is q.choices[0]
        assert all(c.value_template is None for c in q.choices)


def test_a_numerical_value_in_quotes_is_refused_outside_a_parameterised_question(tmp_path: Path) -> None:
    from .variant_bank import NUMERICAL_YAML

    text = NUMERICAL_YAML.replace("    params:\n      T: [4000, 6000, 8000]\n      k: [2, 4, 8]\n      E: [64, 128]\n"
                                  "    variants: 6\n", "")  # fmt: skip
    directory = tmp_path / "numerical"
    (directory / "locales").mkdir(parents=True)
    (directory / "bank.yaml").write_text(text, encoding="utf-8")
    _bank, problems = check_bank(directory)
    assert any("is text, not a number" in p.message for p in problems), [p.message for p in problems]


def test_check_refuses_numerical_values_that_meet_in_too_many_combinations(tmp_path: Path) -> None:
    from .variant_bank import NUMERICAL_YAML

    directory = tmp_path / "numerical"
    (directory / "locales").mkdir(parents=True)
    (directory / "bank.yaml").write_text(NUMERICAL_YAML.replace("variants: 6", "variants: 15"), encoding="utf-8")
    _bank, problems = check_bank(directory)
    (problem,) = problems
    assert problem.message.startswith("asks for 15 variant(s) but only 14 of the 18 combinations of params: are valid")
    assert "the values of choices 'right' and 'truncated' meet (625)" in problem.message


def test_check_says_how_many_variants_the_parameterised_questions_make(bank_dir: Path) -> None:
    from click.testing import CliRunner

    from moe_lms.cli import main

    result = CliRunner().invoke(main, ["check", str(bank_dir)])
    assert result.exit_code == 0, result.output
    assert "variant-demo: 3 questions (2 parameterised: 9 variants), source en" in result.output
