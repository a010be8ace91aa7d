"""Translation quality: what `moe-lms check` says about each translation, where, and how loudly.

A small bank planted with one finding of each kind is checked through the CLI: every finding names the PO file,
the entry's line and the string's path; findings are warnings (exit 0) and errors under --strict (exit 1), which
also fails on drafts. The glossary's `#.` comments written by `translations update`, errata acceptance and the
share of learner-visible characters in the locale's language are specified here too.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from moe_lms import po
from moe_lms.cli import main
from moe_lms.glossary import read_glossary
from moe_lms.loader import load_bank, save_bank
from moe_lms.locales import character_share, resolve
from moe_lms.model import Bank, Translation, strings
from moe_lms.quality import RULES, Rule, SpanKind, analyse, locale_script, parity_problems, translation_findings

GLOSSARY = """\
# The bank's terms.
terms:
  - source: [expert parallelism]
    note: distributing the experts of an MoE layer across GPUs
    ur: {use: "ماہرین کی متوازیت", also: ["ماہر متوازیت"]}
    vi: {use: "song song chuyên gia"}
  - source: [GPU]
    ur: keep
    vi: keep
  - source: [attention head]
    ur: {use: "اٹینشن ہیڈ"}
    vi: {use: "đầu chú ý"}
"""


def _question(qid: str, stem: str, right: str, wrong: str) -> dict[str, object]:
    return {
        "id": qid,
        "stem": stem,
        "explanation": f"Why: {right}",
        "choices": [
            {"id": "a", "text": right, "correct": True, "explanation": "Right."},
            {"id": "b", "text": wrong, "explanation": "Wrong."},
        ],
    }


SOURCE = Bank.model_validate(
    {
        "id": "planted",
        "title": "Expert parallelism",
        "target_locales": ["ur", "vi"],
        "questions": [
            _question("glossary-miss", "What does expert parallelism shard?", "Experts", "Attention heads"),
            _question("numbers", "How many experts does each token reach with top-k = 8?", "8", "1"),
            _question("code", "Which call moves tokens between GPUs?", "`all_to_all`", "`all_reduce`"),
            _question("scripts", "Where do the experts live?", "On different GPUs", "On one GPU"),
        ],
    }
)

# Reviewed translations, each planted finding marked; every other string is translated cleanly.
UR = {
    "title": "ماہرین کی متوازیت",
    "feedback/correct": "آپ کا جواب درست ہے۔",
    "feedback/partially_correct": "آپ کا جواب جزوی طور پر درست ہے۔",
    "feedback/incorrect": "آپ کا جواب غلط ہے۔",
    "glossary-miss/stem": "ماہر حساب کیا تقسیم کرتا ہے؟",  # glossary miss: "expert parallelism"
    "glossary-miss/explanation": "وجہ: ماہرین",
    "glossary-miss/choices/a/text": "ماہرین",
    "glossary-miss/choices/a/explanation": "درست۔",
    "glossary-miss/choices/b/text": "توجہ کے سربراہ",  # glossary miss on a seed string with errata: still a miss
    "glossary-miss/choices/b/explanation": "غلط۔",
    "numbers/stem": "جب top-k = ۸ ہو تو ہر ٹوکن کتنے ماہرین تک پہنچتا ہے؟",  # Urdu digits: the same number
    "numbers/explanation": "وجہ: ۸",
    "numbers/choices/a/text": "آٹھ",  # dropped number: 8 written as a word
    "numbers/choices/a/explanation": "درست۔",
    "numbers/choices/b/text": "1",
    "numbers/choices/b/explanation": "غلط۔",
    "code/stem": "کون سی کال ٹوکنز کو GPUs کے درمیان منتقل کرتی ہے؟",
    "code/explanation": "وجہ: `all_to_all`",
    "code/choices/a/text": "تمام سے تمام کال",  # dropped code span
    "code/choices/a/explanation": "درست۔",
    "code/choices/b/text": "`all_reduce`",
    "code/choices/b/explanation": "غلط۔",
    "scripts/stem": "Maahireen kahan rehte hain?",  # wrong script: romanised Urdu
    "scripts/explanation": "وجہ: مختلف GPUs پر",
    "scripts/choices/a/text": "مختلف GPUs پر",
    "scripts/choices/a/explanation": "درست۔",
    "scripts/choices/b/text": "ایک GPU پر",
    "scripts/choices/b/explanation": "غلط۔",
}
VI = {
    "title": "Song song chuyên gia",
    "feedback/correct": "Câu trả lời của bạn đúng.",
    "feedback/partially_correct": "Câu trả lời của bạn đúng một phần.",
    "feedback/incorrect": "Câu trả lời của bạn sai.",
    "glossary-miss/stem": "Song song chuyên gia phân mảnh cái gì?",
    "glossary-miss/explanation": "Lý do: các chuyên gia",
    "glossary-miss/choices/a/text": "Các chuyên gia",
    "glossary-miss/choices/a/explanation": "Đúng.",
    "glossary-miss/choices/b/text": "Các đầu chú ý",
    "glossary-miss/choices/b/explanation": "Sai.",
    "numbers/stem": "Mỗi token đến bao nhiêu chuyên gia với top-k = 8?",
    "numbers/explanation": "Lý do: 8",
    "numbers/choices/a/text": "8",
    "numbers/choices/a/explanation": "Đúng.",
    "numbers/choices/b/text": "1",
    "numbers/choices/b/explanation": "Sai.",
    "code/stem": "Lệnh gọi nào chuyển token giữa các GPU?",
    "code/explanation": "Lý do: `all_to_all`",
    "code/choices/a/text": "`all_to_all`",
    "code/choices/a/explanation": "Đúng.",
    "code/choices/b/text": "`all_reduce`",
    "code/choices/b/explanation": "Sai.",
    "scripts/stem": "Where do the experts live?",  # untranslated
    "scripts/explanation": "Lý do: trên các GPU khác nhau",
    "scripts/choices/a/text": "Trên các GPU khác nhau",
    "scripts/choices/a/explanation": "Đúng.",
    "scripts/choices/b/text": "Trên một GPU",
    "scripts/choices/b/explanation": "Sai.",
}
DRAFT = "scripts/choices/b/explanation"  # the one vi draft
ERRATA = '# errata: "توجہ کے سربراہ" reads as "chiefs of attention"; attention heads are "اٹینشن ہیڈز".'


def _catalog(texts: dict[str, str], drafts: tuple[str, ...] = ()) -> dict[str, Translation]:
    source = dict(strings(SOURCE))
    return {path: Translation(text, source[path], path in drafts) for path, text in texts.items()}


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    directory = tmp_path / "planted"
    bank = SOURCE.model_copy(update={"translations": {"ur": _catalog(UR), "vi": _catalog(VI, (DRAFT,))}})
    save_bank(bank, directory)
    (directory / "glossary.yaml").write_text(GLOSSARY, encoding="utf-8")
    ur = directory / "locales" / "ur.po"
    text = ur.read_text(encoding="utf-8")
    entry = 'msgctxt "glossary-miss/choices/b/text"'
    ur.write_text(text.replace(entry, f"{ERRATA}\n# errata-suggested: اٹینشن ہیڈز\n{entry}"), encoding="utf-8")
    return directory


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def line_of(po_file: Path, path: str) -> int:
    """The line of the msgctxt of ``path``'s entry: where a finding about it points."""
    lines = po_file.read_text(encoding="utf-8").split("\n")
    return lines.index(f'msgctxt "{path}"') + 1


def finding(directory: Path, locale: str, path: str, severity: str, message: str) -> str:
    po_file = directory / "locales" / f"{locale}.po"
    return f"{po_file}:{line_of(po_file, path)}: {severity}: '{path}': {message}"


PLANTED = [
    ("ur", "glossary-miss/stem", 'glossary: "expert parallelism" should be "ماہرین کی متوازیت" (or "ماہر متوازیت")'),
    ("ur", "glossary-miss/choices/b/text", 'glossary: "attention head" should be "اٹینشن ہیڈ"'),
    ("ur", "numbers/choices/a/text", "parity: number 8 is missing"),
    ("ur", "code/choices/a/text", "parity: code span `all_to_all` is missing"),
    (
        "ur",
        "scripts/stem",
        "script: mostly in Latin script: 0 of 23 letters are in Arabic script, which ur is written in",
    ),
    ("vi", "scripts/stem", "untranslated: the translation is the source text"),
]


def test_each_planted_finding_is_a_warning_at_its_po_file_and_line(planted: Path) -> None:
    code, output = run("check", str(planted))
    assert code == 0, output
    for locale, path, message in PLANTED:
        assert finding(planted, locale, path, "warning", message) in output
    # Nothing else (Urdu digits, kept terms, "1" are fine); the page words' own warnings, locales/page/*.po, aside:
    # issue 30's three words for numerical questions are drafts until reviewed.
    bank_warnings = [line for line in output.splitlines() if ": warning: " in line and "/page/" not in line]
    assert len(bank_warnings) == len(PLANTED)
    assert output.rstrip().endswith("ok")


def test_under_strict_findings_and_drafts_are_errors(planted: Path) -> None:
    code, output = run("check", "--strict", str(planted))
    assert code == 1
    for locale, path, message in PLANTED:
        assert finding(planted, locale, path, "error", message) in output
    draft = "review: draft (fuzzy): learners read the source text until it is reviewed"
    assert finding(planted, "vi", DRAFT, "error", draft) in output
    assert "0 missing, 0 stale and 1 draft translation(s): --strict needs every learner-visible string" in output


def test_a_glossary_finding_on_a_seed_string_with_errata_is_reported_like_any_other(planted: Path) -> None:
    # The errata comment no longer excuses the string: a seed string with an error ships corrected (ERRATA.md).
    miss = 'glossary: "attention head" should be "اٹینشن ہیڈ"'
    for args, severity in ((("check",), "warning"), (("check", "--strict"), "error")):
        output = run(*args, str(planted))[1]
        assert finding(planted, "ur", "glossary-miss/choices/b/text", severity, miss) in output
        assert "accepted" not in output and ": note: " not in output


def test_strict_passes_once_every_finding_is_fixed_and_every_draft_reviewed(planted: Path) -> None:
    fixed_ur = UR | {
        "glossary-miss/stem": "ماہرین کی متوازیت کیا تقسیم کرتی ہے؟",
        "numbers/choices/a/text": "۸",
        "code/choices/a/text": "`all_to_all`",
        "scripts/stem": "ماہرین کہاں رہتے ہیں؟",
        "glossary-miss/choices/b/text": "اٹینشن ہیڈز",
    }
    fixed_vi = VI | {"scripts/stem": "Các chuyên gia nằm ở đâu?"}
    bank = SOURCE.model_copy(update={"translations": {"ur": _catalog(fixed_ur), "vi": _catalog(fixed_vi)}})
    save_bank(bank, planted)  # (rewrites the PO files without the errata comment: nothing needs it any more)
    code, output = run("check", "--strict", str(planted))
    assert code == 0, output
    bank_lines = [line for line in output.splitlines() if "/page/" not in line]  # (issue 30's page-word drafts)
    assert not [line for line in bank_lines if "warning" in line or "error" in line], output


def test_findings_are_checked_against_the_source_a_stale_translation_was_made_from(planted: Path) -> None:
    yaml = planted / "bank.yaml"
    yaml.write_text(yaml.read_text(encoding="utf-8").replace("top-k = 8", "top-k = 4"), encoding="utf-8")
    bank = load_bank(planted)
    stale = [f for f in translation_findings(bank) if f.path == "numbers/stem"]
    assert stale == []  # "۸" still matches the 8 of the text it translates; the review check reports it stale


# --- glossary.yaml --------------------------------------------------------------------------------------------


def test_glossary_errors_name_their_line_and_suggest_the_key(tmp_path: Path) -> None:
    (tmp_path / "glossary.yaml").write_text(
        "terms:\n"
        "  - sorce: [router]\n"  # line 2: unknown key
        "    ur: {use: روٹر}\n"
        "  - source: [gate]\n"
        "    fr: keep\n"  # line 5: a locale the bank does not translate into
        "    vi: {usе: cổng}\n"  # line 6: 'use' misspelt (Cyrillic е), so 'use' is missing
        "  - source: [router, Gate]\n",  # line 7: a form of two terms
        encoding="utf-8",
    )
    glossary, problems = read_glossary(tmp_path, ("ur", "vi"))
    assert glossary is None
    messages = sorted((p.line, p.message) for p in problems)
    assert messages == [
        (2, "missing required key 'source'"),
        (2, "unknown key 'sorce' (did you mean 'source'?)"),
        (5, "locale 'fr' is not one of the bank's target locales (ur, vi)"),
        (6, "unknown key 'usе' (did you mean 'use'?)"),
        (6, "vi: missing required key 'use'"),
        (7, "source form 'Gate' is already a form of the term on line 4"),
    ]
    assert all(p.file.endswith("glossary.yaml") for p in problems)


def test_glossary_errors_fail_check(planted: Path) -> None:
    (planted / "glossary.yaml").write_text("terms:\n  - source: [GPU]\n    ur: kep\n", encoding="utf-8")
    code, output = run("check", str(planted))
    assert code == 1
    assert "glossary.yaml:3:9: error: term 'GPU': ur: must be 'keep' or a mapping {use: …, also: [...]}" in output


def test_terms_match_case_insensitively_on_word_boundaries_with_english_plurals(planted: Path) -> None:
    glossary, problems = read_glossary(planted, ("ur", "vi"))
    assert glossary is not None and not problems

    def terms(text: str) -> list[str]:
        return [form for _, form in glossary.matches(text)]

    assert terms("Expert Parallelism splits ATTENTION HEADS over GPUs") == [
        "expert parallelism",
        "attention head",
        "GPU",
    ]
    assert terms("GPUless multi-GPU expert\nparallelism") == ["GPU", "expert parallelism"]
    assert terms("heads of attention, expertparallelism") == []


# --- translations update writes the glossary into the PO files ------------------------------------------------


def test_translations_update_writes_glossary_comments_and_keeps_every_other_comment(planted: Path) -> None:
    ur = planted / "locales" / "ur.po"
    text = ur.read_text(encoding="utf-8")
    text = text.replace("# Urdu translations", "# Reviewed: independent back-translation pass.\n# Urdu translations")
    entry = 'msgctxt "glossary-miss/stem"'
    text = text.replace(entry, f"# reviewed: back-translated; meaning matches\n{entry}")
    ur.write_text(text, encoding="utf-8")
    assert run("translations", "update", str(planted))[0] == 0
    updated = ur.read_text(encoding="utf-8")
    assert updated.startswith("# Reviewed: independent back-translation pass.\n# Urdu translations")
    assert (
        "# reviewed: back-translated; meaning matches\n"
        "#. glossary: expert parallelism → ماہرین کی متوازیت (also: ماہر متوازیت)\n"
        'msgctxt "glossary-miss/stem"\n'
    ) in updated
    assert (
        f"{ERRATA}\n# errata-suggested: اٹینشن ہیڈز\n#. glossary: attention head → اٹینشن ہیڈ\n"
        'msgctxt "glossary-miss/choices/b/text"\n'
    ) in updated
    assert '#. glossary: GPU → keep as is\nmsgctxt "code/stem"\n' in updated
    assert "#. glossary" not in updated.split('msgctxt "numbers/stem"')[0].split('msgctxt "glossary-miss/choices/b/')[1]
    assert "#. glossary: GPU → keep as is" in (planted / "locales" / "vi.po").read_text(encoding="utf-8")
    assert run("check", str(planted))[0] == 0  # what update writes, check reads


def test_translations_update_is_idempotent_and_deterministic(planted: Path, tmp_path: Path) -> None:
    twin = tmp_path / "twin"
    assert run("translations", "update", str(planted))[0] == 0
    first = {p.name: p.read_bytes() for p in (planted / "locales").iterdir()}
    assert run("translations", "update", str(planted))[0] == 0
    assert {p.name: p.read_bytes() for p in (planted / "locales").iterdir()} == first
    shutil.copytree(planted, twin)
    assert run("translations", "update", str(twin))[0] == 0
    assert {p.name: p.read_bytes() for p in (twin / "locales").iterdir()} == first


def test_glossary_comments_follow_the_glossary_and_the_source(planted: Path) -> None:
    assert run("translations", "update", str(planted))[0] == 0
    (planted / "glossary.yaml").write_text(GLOSSARY.replace('also: ["ماہر متوازیت"]', "also: []"), encoding="utf-8")
    yaml = planted / "bank.yaml"
    yaml.write_text(yaml.read_text(encoding="utf-8").replace("On one GPU", "On one device"), encoding="utf-8")
    assert run("translations", "update", str(planted))[0] == 0
    ur = (planted / "locales" / "ur.po").read_text(encoding="utf-8")
    assert "also: ماہر متوازیت" not in ur
    assert "#. glossary: expert parallelism → ماہرین کی متوازیت\n" in ur
    assert '#, fuzzy\n#| msgid "On one GPU"\nmsgctxt "scripts/choices/b/text"' in ur  # no GPU term any more


def test_a_broken_glossary_stops_translations_update_before_it_writes(planted: Path) -> None:
    before = (planted / "locales" / "ur.po").read_bytes()
    (planted / "glossary.yaml").write_text("terms:\n  - source: [GPU]\n    de: keep\n", encoding="utf-8")
    code, output = run("translations", "update", str(planted))
    assert code == 1
    assert "glossary.yaml:3:5: error: term 'GPU': locale 'de' is not one of the bank's target locales" in output
    assert (planted / "locales" / "ur.po").read_bytes() == before


def test_obsolete_entries_keep_their_translator_comments() -> None:
    old = po.read_po('# errata: wrong term\n#. glossary: x → y\nmsgctxt "gone"\nmsgid "Gone"\nmsgstr "گیا"\n').entries
    (merged,) = po.merge(old, [])
    assert merged.obsolete and merged.comments == ("# errata: wrong term",)
    written = po.write_catalog([merged], locale="ur", project="p").decode()
    assert written.endswith('# errata: wrong term\n#~ msgctxt "gone"\n#~ msgid "Gone"\n#~ msgstr "گیا"\n\n')


# --- parity: the span extractor ----------------------------------------------------------------------------------


def spans(text: str) -> list[tuple[str, str]]:
    return [(s.kind.value, s.key) for s in analyse(text).spans]


def test_spans_are_read_as_markdown() -> None:
    text = r"Use `top_k` with **8** experts, see [the docs](https://x.org/a1 'title') and <em>this</em>, \*not\* $k+1$"
    assert sorted(spans(text)) == sorted(
        [
            ("code span", "top_k"),
            ("link", "https://x.org/a1"),
            ("HTML tag", "em"),
            ("HTML tag", "/em"),
            ("strong emphasis", ""),
            ("number", "8"),
            ("math", "k+1"),
        ]
    )
    prose = ["Use", "with", "8", "experts,", "see", "the", "docs", "and", "this", ",", "not"]  # link text stays
    assert analyse(text).prose.split() == prose
    assert spans("snake_case_name costs $5 and $6, 2026-12-01") == [
        ("number", "5"),
        ("number", "6"),
        ("number", "2026"),
        ("number", "12"),
        ("number", "01"),
    ]


@pytest.mark.parametrize(
    ("source", "translation", "locale", "problems"),
    [
        ("Route to 8 of 128 experts", "۱۲۸ میں سے ۸ ماہرین", "ur", []),  # Urdu digits, another order
        ("capacity factor 1.25, 1,000 tokens", "hệ số 1,25, 1.000 token", "vi", []),  # vi decimal comma
        ("capacity factor 1.25", "hệ số 1.25", "vi", []),  # or kept as written
        ("capacity factor 1.25", "hệ số 1.5", "vi", ["number 1.25 is missing", "number 1.5 is not in the source"]),
        ("[docs](https://a.org)", "[ڈاکس](https://b.org)", "ur", ['link to "https://a.org" is missing',
                                                               'link to "https://b.org" is not in the source']),
        ("**bold** and *it*", "*bold* and *it*", "vi",
         ["the source has 1 strong emphasis span(s), the translation 0",
          "the source has 1 emphasis span(s), the translation 2"]),
        ("a <sub>2</sub>", "الف 2", "ur", ["HTML tag <sub> is missing", "HTML tag </sub> is missing"]),
        ("GPU", "<bdi>GPU</bdi>", "ur", []),  # bidi isolation a translator adds is not content
        ("$x^2$ grows", "$x^3$ tăng", "vi", ["math $x^2$ is missing", "math $x^3$ is not in the source"]),
        ("see https://x.org/v2.", "xem https://x.org/v2.", "vi", []),  # a URL's digits are the URL's
    ],
)  # fmt: skip
def test_parity(source: str, translation: str, locale: str, problems: list[str]) -> None:
    assert parity_problems(analyse(source), analyse(translation), "en", locale) == problems


def test_a_new_kind_of_span_is_one_more_rule() -> None:
    mention = Rule(SpanKind.CODE, re.compile(r"@(?P<who>\w+)"), lambda m: m.group("who"), lambda m: " ", "@")
    rules = (mention, *RULES)
    assert [(s.kind, s.key) for s in analyse("ask @ada about 3 GPUs", rules).spans] == [
        (SpanKind.CODE, "ada"),
        (SpanKind.NUMBER, "3"),
    ]


def test_the_script_of_a_locale_comes_from_cldr() -> None:
    assert (locale_script("ur"), locale_script("vi"), locale_script("sr_Latn"), locale_script("zh")) == (
        "Arab",
        "Latn",
        "Latn",
        "Hans",
    )


# --- the share of learner-visible characters in the locale's language -------------------------------------------


def test_character_share_counts_rendered_text_of_what_the_export_serves() -> None:
    bank = Bank.model_validate(
        {
            "id": "chars",
            "title": "**Quiz**",  # 4 characters a learner reads
            "target_locales": ["ur"],
            "feedback": {"correct": "Yes", "partially_correct": "Part", "incorrect": "No"},
            "questions": [
                {
                    "id": "q",
                    "stem": "Pick [one](https://x.org)",  # 7
                    "explanation": "Why",
                    "choices": [
                        {"id": "a", "text": "A", "correct": True, "explanation": "Right"},
                        {"id": "b", "text": "B", "explanation": "Wrong"},
                    ],
                }
            ],
        }
    )
    source = dict(strings(bank))
    ur = {
        "title": Translation("**کوئز**", source["title"]),  # 4, reviewed
        "q/stem": Translation("ایک [چنیں](https://x.org)", source["q/stem"], draft=True),  # 7, a draft
    }
    bank = bank.model_copy(update={"translations": {"ur": ur}})
    total = 4 + 3 + 4 + 2 + 7 + 3 + 1 + 5 + 1 + 5
    share = character_share(bank, "ur")
    assert (share.in_locale, share.total, str(share)) == (4, total, "11.4%")
    with_drafts = character_share(bank, "ur", include_drafts=True)
    assert (with_drafts.in_locale, with_drafts.total, str(with_drafts)) == (11, total, "31.4%")
    assert str(character_share(bank, "en")) == "100.0%"
    assert resolve(bank, "ur").summary().endswith("; 11.4% of learner-visible characters in ur")


def test_check_and_every_export_report_the_character_share(planted: Path, tmp_path: Path) -> None:
    bank = load_bank(planted)
    ur, vi = (str(character_share(bank, locale)) for locale in ("ur", "vi"))
    output = run("check", str(planted))[1]
    assert re.search(rf"(?m)^ur .* {re.escape(ur)}$", output) and re.search(rf"(?m)^vi .* {re.escape(vi)}$", output)
    assert "unless --include-drafts" in output
    output = run("export", "--format", "moodle", str(planted), "-o", str(tmp_path / "out.xml"))[1]
    assert f"ur: 28/28 strings translated, 0 fell back to en (drafts not included); {ur} of learner-visible" in output
    assert f"vi: 27/28 strings translated, 1 fell back to en (drafts not included); {vi} of learner-visible" in output
    assert vi != "100.0%" and ur == "100.0%"


def test_strict_lists_the_first_unreviewed_strings_and_counts_them_all(
    planted: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import moe_lms.quality

    bank = load_bank(planted)
    source = dict(strings(bank))
    drafts = {path: Translation(text, source[path], draft=True) for path, text in VI.items()}
    save_bank(bank.model_copy(update={"translations": {"ur": _catalog(UR), "vi": drafts}}), planted)
    monkeypatch.setattr(moe_lms.quality, "REVIEW_LISTED", 2)
    code, output = run("check", "--strict", str(planted))
    assert code == 1
    assert output.count("review: draft (fuzzy)") == 2
    assert (
        "0 missing, 0 stale and 28 draft translation(s): --strict needs every learner-visible string translated "
        "and reviewed (the first 2 are listed)"
    ) in output


def findings_for(text: str, translation: str, locale: str = "ur") -> list[str]:
    """The findings on one choice's translation, in a one-question bank with the planted bank's glossary."""
    bank = Bank.model_validate(
        {
            "id": "one",
            "title": "One",
            "target_locales": [locale],
            "questions": [_question("q", "Stem?", text, "Other")],
        }
    )
    t = Translation(translation, text)
    bank = bank.model_copy(update={"translations": {locale: {"q/choices/a/text": t}}})
    return [str(f) for f in translation_findings(bank) if f.path == "q/choices/a/text"]


@pytest.mark.parametrize(
    ("text", "translation", "locale", "found"),
    [
        ("vLLM and SGLang", "vLLM اور SGLang", "ur", []),  # names kept from the source are not the wrong script
        ("vLLM", "vLLM", "vi", []),  # a name may read the same in every language
        ("NCCL", "NCCL", "vi", []),  # so may an acronym
        ("True", "True", "vi", ["untranslated: the translation is the source text"]),
        ("Pick 2 experts", "pick 3 experts", "vi",
         ["parity: number 2 is missing", "parity: number 3 is not in the source",
          "untranslated: the translation reads the same as the source (apart from code, numbers and kept terms)"]),
        ("The router sends tokens", "روٹر the sends tokens", "ur",
         ["script: mostly in Latin script: 4 of 18 letters are in Arabic script, which ur is written in"]),
    ],
)  # fmt: skip
def test_names_acronyms_and_partial_translations(text: str, translation: str, locale: str, found: list[str]) -> None:
    assert findings_for(text, translation, locale) == found


def test_a_finding_on_line_100_prints_its_line_number_not_an_emoji(capsys: pytest.CaptureFixture[str]) -> None:
    from moe_lms.cli.common import print_problems
    from moe_lms.problems import Problem, Severity

    print_problems([Problem("locales/ur.po", 100, "glossary: …", "'q/stem'", severity=Severity.NOTE)])
    assert capsys.readouterr().err == "locales/ur.po:100: note: 'q/stem': glossary: …\n"  # rich would print 💯


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab ۸8.,`$*_~[]()<>/:\\!-\nhttps")), max_size=40))
def test_any_text_analyses_and_matches_itself(text: str) -> None:
    analysis = analyse(text)
    assert parity_problems(analysis, analysis, "en", "vi") == []
    if all(s.kind is SpanKind.NUMBER for s in analysis.spans):  # (in code, math or a URL a digit stays as it is)
        assert parity_problems(analysis, analyse(text.replace("8", "۸")), "en", "ur") == []  # the same numbers


# --- `check`'s one pass over every string (quality.survey) says what the separate checks say ------------------

# Pieces of text a bank holds, each read by some check: numbers in every script and with every separator, code,
# math, links, tags, comments, emphasis, list and heading marks, glossary terms (GLOSSARY's) and their renderings,
# double and trailing spaces, Urdu and Vietnamese words, an astral digit and an emoji.
PIECES = [
    "expert", "experts", "Expert parallelism", "expert  parallelism", "GPU", "GPUs", "attention heads", "router",
    "top-k", "DeepSeek-V3", "vLLM", "Why:", "ماہرین", "متوازیت", "GPU پر", "ٹوکن", "chuyên gia", "song song",
    "Các", "đầu chú ý", "8", "12", "1,000.50", "1.5", "1,5", "3.14.15", "..", "0.", ",", ".", "،", "۔", "?",
    "۸", "١٢", "٣٫٥", "١٬٠٠٠", "१२", "𝟙", "🙂", "`all_to_all`", "``a`b``", "$x^2$", "$$\\sum_i x_i$$", "\\$5",
    "[docs](https://example.com/a_b)", "<https://example.com>", "https://example.org/x?y=1", "![plot](media/a.svg)",
    "<b>", "</b>", "<bdi>", "<!-- note -->", "<script>", "&amp;", "*a*", "**b**", "_c_", "~~d~~", "\\*",
    "3. third", "1) first", "- item", "# heading", "> quote", "\n", "\n\n", " ", "  ", "\t", "\u00a0", "\ufeff",
    "|", "<ol start=\"3\"><li>x</li></ol>", "ماہرین کی متوازیت", "ماہر متوازیت", "song song chuyên gia", "اٹینشن ہیڈ",
]  # fmt: skip
_pieces = st.lists(st.sampled_from(PIECES), min_size=1, max_size=6).map("".join) | st.lists(
    st.sampled_from(PIECES), min_size=1, max_size=6
).map(" ".join)
_TRANSLITERATE = {"ur": str.maketrans("aeiourt", "اےیوئرت"), "vi": str.maketrans("aeo", "ăêơ")}
_TERMS = re.compile("expert parallelism|attention head|GPU", re.IGNORECASE)
_RENDERINGS = {
    "ur": {"expert parallelism": ["ماہرین کی متوازیت", "ماہر متوازیت"], "attention head": ["اٹینشن ہیڈ"]},
    "vi": {"expert parallelism": ["song song chuyên gia"], "attention head": ["đầu chú ý"]},
}
# The same numbers in Urdu digits; other numbers in the same scripts (what only a digit-by-digit reading tells).
_URDU_DIGITS = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")
_OTHER_DIGITS = str.maketrans("۸١٢٣٥१२𝟙", "۹٢٣٤٦२३𝟚")


@st.composite
def _survey_cases(draw: st.DrawFn) -> Bank:
    """A bank whose strings and translations are drawn from PIECES: each translation the source again, the source
    transliterated (its numbers, code and links kept; its glossary terms rendered, or not), its digits changed, or
    other pieces; reviewed, draft, stale or missing."""
    texts = _pieces.filter(lambda s: s.strip() != "")
    questions = [
        {
            "id": f"q{n}",
            "stem": draw(texts),
            "explanation": draw(texts),
            "choices": [
                {"id": "a", "text": draw(texts), "correct": True, "explanation": draw(texts)},
                {"id": "b", "text": draw(texts), "explanation": draw(texts)},
            ],
        }
        for n in range(draw(st.integers(1, 3)))
    ]
    header = {"id": "drawn", "title": draw(texts), "target_locales": ["ur", "vi"]}
    bank = Bank.model_validate({**header, "questions": questions})
    translations: dict[str, dict[str, Translation]] = {}
    for locale in draw(st.sampled_from([("ur", "vi"), ("ur",), ()])):
        catalog = {}
        for path, source in strings(bank):
            how = draw(st.sampled_from(["same", "transliterated", "terms", "digits", "other", "missing"]))
            if how == "missing":
                continue
            if how == "terms":  # the glossary's terms rendered (or kept), the rest transliterated
                text = source
                for m in reversed(list(_TERMS.finditer(source))):
                    rendering = draw(st.sampled_from(_RENDERINGS[locale].get(m.group().lower(), [m.group()])))
                    text = text[: m.start()] + rendering + text[m.end() :]
                text = text.translate(_TRANSLITERATE[locale])
            elif how == "digits":
                text = source.translate(draw(st.sampled_from([_URDU_DIGITS, _OTHER_DIGITS])))
            elif how == "transliterated":
                text = source.translate(_TRANSLITERATE[locale])
            else:
                text = source if how == "same" else draw(texts)
            state = draw(st.sampled_from(["reviewed", "reviewed", "draft", "stale"]))
            made_from = draw(texts) if state == "stale" else source
            catalog[path] = Translation(text, made_from, state == "draft")
        translations[locale] = catalog
    return bank.model_copy(update={"translations": translations})


@settings(max_examples=200, deadline=None)
@given(_survey_cases(), st.booleans())
def test_the_one_pass_of_check_finds_exactly_what_the_separate_checks_find(drawn: Bank, with_glossary: bool) -> None:
    import tempfile

    from moe_lms import loader, quality

    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        save_bank(drawn, directory)
        if with_glossary:
            (directory / "glossary.yaml").write_text(GLOSSARY, encoding="utf-8")
        bank, problems = loader.check_bank(directory)
        assert bank is not None, problems
        glossary, problems = read_glossary(directory, bank.target_locales)
        assert not problems
        survey = quality.survey(directory, bank, glossary)
        assert survey is not None  # (a loaded bank's catalogs are packed)
        assert survey.rendering == loader.rendering_problems(directory, bank)
        assert survey.findings == translation_findings(bank, glossary)
        assert survey.shares == {locale: character_share(bank, locale) for locale in bank.target_locales}


def test_every_digit_outside_ascii_sends_its_text_to_the_thorough_number_check() -> None:
    import sys

    from moe_lms.quality import _SPECIAL_CHARACTERS, _special_or_numeral

    digits = "".join(ch for ch in map(chr, range(128, sys.maxunicode + 1)) if ch.isdecimal()) + "٫٬"
    assert _special_or_numeral().findall(digits) == list(digits)
    assert not _SPECIAL_CHARACTERS.intersection(digits)


@settings(max_examples=200, deadline=None)
@given(st.lists(_pieces | st.sampled_from(["GPUS", "gpu's", "Attention  Heads", "expert\nparallelisms"]), max_size=6))
def test_a_block_s_glossary_matches_are_each_text_s_own(texts: list[str]) -> None:
    from moe_lms.glossary import Glossary, Rendering, Term

    keep = {"ur": Rendering(keep=True)}
    glossary = Glossary([Term(forms, keep) for forms in (("expert parallelism",), ("GPU",), ("attention head",))])

    def forms(found: list[tuple[Term, str] | None]) -> set[tuple[str, ...]]:
        return {known[0].forms for known in found if known is not None}

    each = [forms([glossary.term_of(m) for m in found]) for found in glossary.matched_in_each(texts)]
    assert each == [forms(list(glossary.matches(text))) for text in texts]
