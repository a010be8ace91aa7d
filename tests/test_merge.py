"""merge_banks: an import updates the bank in the folder and never loses what the import does not carry."""

from __future__ import annotations

import pytest

from moe_lms.merge import MergeError, changed_files, merge_banks
from moe_lms.model import Bank, Feedback, Question, Translation, strings

from .sample_bank import sample_bank


def _question(qid: str, stem: str = "Which?", tags: tuple[str, ...] = ()) -> Question:
    return Question.model_validate(
        {
            "id": qid,
            "stem": stem,
            "explanation": "Because.",
            "tags": tags,
            "choices": [
                {"id": "a", "text": "Yes", "correct": True, "explanation": "Right."},
                {"id": "b", "text": "No", "explanation": "Wrong."},
            ],
        }
    )


def _bank(*questions: Question, **fields: object) -> Bank:
    return Bank.model_validate({"id": "b", "title": "Bank", "questions": questions, **fields})


def _with(bank: Bank, locale: str, **texts: tuple[str, bool]) -> Bank:
    source = dict(strings(bank))
    catalog = {
        path.replace("__", "/"): Translation(t, source[path.replace("__", "/")], d) for path, (t, d) in texts.items()
    }
    return bank.model_copy(update={"translations": {**bank.translations, locale: catalog}})


def test_imported_questions_update_by_id_and_the_banks_other_questions_stay_in_place() -> None:
    target = _bank(_question("one"), _question("two"), _question("three"))
    imported = _bank(_question("two", stem="Which, now?"), _question("four"))
    merged = merge_banks(target, imported)
    assert [q.id for q in merged.questions] == ["one", "two", "three", "four"]
    assert merged.question("two").stem == "Which, now?"
    assert merged.question("one") == target.question("one")


def test_the_bank_id_stays_the_folders() -> None:
    merged = merge_banks(_bank(_question("one")), _bank(_question("one")).model_copy(update={"id": "other"}))
    assert merged.id == "b"


def test_a_draft_the_import_brings_back_unchanged_stays_a_draft() -> None:
    target = _with(
        _bank(_question("one"), target_locales=["ur"]), "ur", title=("بینک", True), one__stem=("کون؟", False)
    )
    imported = _with(
        _bank(_question("one"), target_locales=["ur"]), "ur", title=("بینک", False), one__stem=("کون؟", False)
    )
    merged = merge_banks(target, imported)
    assert merged.translations["ur"]["title"].draft is True
    assert merged.translations["ur"]["one/stem"].draft is False
    assert changed_files(target, merged) == (False, [])


def test_a_translation_the_import_changes_is_taken_from_the_import() -> None:
    target = _with(_bank(_question("one"), target_locales=["ur"]), "ur", title=("بینک", True))
    imported = _with(_bank(_question("one"), target_locales=["ur"]), "ur", title=("نیا بینک", False))
    merged = merge_banks(target, imported)
    assert merged.translations["ur"]["title"] == Translation("نیا بینک", "Bank", False)
    assert changed_files(target, merged) == (False, ["ur"])


def test_translations_the_import_does_not_carry_stay_and_go_stale_when_the_import_changed_their_source() -> None:
    target = _with(
        _bank(_question("one"), target_locales=["ur", "vi"]), "ur", title=("بینک", True), one__stem=("کون؟", False)
    )
    target = _with(target, "vi", one__explanation=("Vì.", True))
    imported = _bank(_question("one", stem="Which one?"))  # no locales at all
    merged = merge_banks(target, imported)
    assert merged.target_locales == ("ur", "vi")
    assert merged.translations["ur"]["title"] == Translation("بینک", "Bank", True)
    assert merged.translations["ur"]["one/stem"] == Translation("کون؟", "Which?", False)  # stale: source was Which?
    assert merged.question("one").stem == "Which one?"
    assert merged.translations["vi"]["one/explanation"] == Translation("Vì.", "Because.", True)


def test_a_new_locale_of_the_import_is_added_after_the_banks_own() -> None:
    target = _bank(_question("one"), target_locales=["vi"])
    imported = _with(_bank(_question("one"), target_locales=["ur"]), "ur", title=("بینک", False))
    merged = merge_banks(target, imported)
    assert merged.target_locales == ("vi", "ur")
    assert changed_files(target, merged) == (True, ["vi", "ur"])


def test_bank_fields_the_format_did_not_carry_keep_the_banks_values() -> None:
    custom = Feedback(correct="Well done.", partially_correct="Almost.", incorrect="Not quite.")
    target = _bank(_question("one"), feedback=custom, intro="Read this first.", tags=["physics"])
    imported = _bank(_question("one"), title="Renamed")  # as from QTI: no overall feedback, no intro, no tags
    merged = merge_banks(target, imported)
    assert (merged.title, merged.feedback, merged.intro, merged.tags) == (
        "Renamed",
        custom,
        "Read this first.",
        ("physics",),
    )
    carried = _bank(_question("one"), feedback=Feedback(correct="Yes!"), tags=["waves"])
    merged = merge_banks(target, carried)
    assert merged.feedback.correct == "Yes!" and merged.tags == ("waves",)
    untagged = _bank(_question("one"), tags=[])  # as from Canvas QTI, which has no place for bank tags
    assert merge_banks(target, untagged).tags == ("physics",)


def test_question_tags_that_repeat_bank_tags_keep_the_banks_split() -> None:
    # Moodle has no bank tags: every question carries the bank's, and the importer cannot tell them apart.
    target = _bank(_question("one", tags=("moe", "routing")), _question("two"), tags=["moe", "ml"])
    imported = _bank(_question("one", tags=("routing",)), _question("two"), tags=["moe", "ml"])
    merged = merge_banks(target, imported)
    assert merged.question("one").tags == ("moe", "routing")
    assert changed_files(target, merged) == (False, [])
    retagged = _bank(_question("one", tags=("caching",)), _question("two"), tags=["moe", "ml"])
    assert merge_banks(target, retagged).question("one").tags == ("caching",)


def test_banks_with_different_source_locales_are_not_merged() -> None:
    with pytest.raises(MergeError, match=r"source locale is de.*--replace"):
        merge_banks(_bank(_question("one")), _bank(_question("one"), source_locale="de"))


def test_merging_a_bank_into_itself_changes_nothing() -> None:
    bank = sample_bank()
    merged = merge_banks(bank, bank)
    assert merged == bank or (
        merged.model_copy(update={"translations": {}}) == bank.model_copy(update={"translations": {}})
        and {k: dict(v.items()) for k, v in merged.translations.items()}
        == {k: dict(v.items()) for k, v in bank.translations.items()}
    )
    assert changed_files(bank, merged) == (False, [])


def test_a_translation_brought_back_unchanged_with_changed_english_is_stale() -> None:
    target = _with(_bank(_question("one"), target_locales=["ur"]), "ur", one__stem=("کون؟", False))
    imported = _with(_bank(_question("one", stem="Which one?"), target_locales=["ur"]), "ur", one__stem=("کون؟", False))
    merged = merge_banks(target, imported)
    assert merged.translations["ur"]["one/stem"] == Translation("کون؟", "Which?", False)
