"""Merging an imported bank into the bank already in a folder: what every importer does by default.

An import never loses what the target bank had unless the user asks (``--replace``):

- Imported questions update the target's question of the same id, or are added after the target's questions;
  target questions the import does not have stay where they are.
- Bank-level fields (title, intro, tags, overall feedback) are taken from the import only when the importer
  found them in the file (pydantic's ``model_fields_set``): a format that cannot carry the overall feedback
  (QTI 2.1) leaves the target's in place, and so does an import without any bank tags (Canvas QTI has no place
  for them). The bank id is the folder's and never changes.
- Translations, reviewed and draft, stay unless the import carries a translation of that string. An imported
  translation whose text is the target's keeps the target's state, so a draft stays a draft through formats that
  cannot say "draft" (a draft exported with ``--include-drafts`` comes back as the same text), and a translation
  whose English the import changed, but not the translation itself, becomes stale. A translation
  the import does not carry keeps its old source text, so if the import changed the English it becomes stale
  (fuzzy, with the previous English), as ``moe-lms translations update`` would make it.
- A question's tags: a format that has no bank-level tags (Moodle) gives every question the bank's tags too, so
  a question tag that repeats a bank tag cannot be told from it; when the imported question's tags, together
  with the bank's, are the same set as the target's, the target's own split is kept.
"""

from __future__ import annotations

from collections.abc import Mapping

from .model import Bank, Question, Translation, strings
from .problems import MoeLmsError

#: Bank fields an importer may carry; the others (id, source_locale, questions, …) are merged by their own rules.
_CARRIED_FIELDS = ("title", "intro", "tags", "feedback")


class MergeError(MoeLmsError, ValueError):
    """The imported bank cannot be merged into the target (e.g. their source locales differ)."""


def merge_banks(target: Bank, imported: Bank) -> Bank:
    """The target bank updated by the imported one (see the module doc); neither is changed."""
    if imported.source_locale != target.source_locale:
        raise MergeError(
            f"the imported bank's source locale is {imported.source_locale}, the bank's is {target.source_locale}; "
            "import with --locale "
            f"{target.source_locale} if the file is in that language, or pass --replace to replace the bank"
        )
    header: dict[str, object] = {}
    for name in _CARRIED_FIELDS:
        value = getattr(imported, name)
        # No bank tags at all is what a file without a place for them (Canvas QTI, a foreign QTI) gives too.
        if name in imported.model_fields_set and not (name == "tags" and not value):
            header[name] = value
    bank_tags: tuple[str, ...] = imported.tags if "tags" in header else target.tags
    incoming = {q.id: q for q in imported.questions}
    questions: list[Question] = []
    for q in target.questions:
        new = incoming.pop(q.id, None)
        questions.append(q if new is None else _merge_question(q, new, target.tags, bank_tags))
    questions.extend(incoming.values())
    locales = (*target.target_locales, *(loc for loc in imported.target_locales if loc not in target.target_locales))
    fields = {name: getattr(target, name) for name in Bank.model_fields if name != "translations"}
    # Validated again (ids unique, locales consistent); the questions are models already and are not re-checked.
    merged = Bank.model_validate({**fields, **header, "questions": tuple(questions), "target_locales": locales})
    translations: dict[str, Mapping[str, Translation]] = {}
    for locale in locales:
        catalog = _merge_catalog(merged, target.translations.get(locale, {}), imported.translations.get(locale, {}))
        if catalog:
            translations[locale] = catalog
    return merged.model_copy(update={"translations": translations})


def _merge_question(
    old: Question, new: Question, old_bank_tags: tuple[str, ...], bank_tags: tuple[str, ...]
) -> Question:
    if new.tags != old.tags and {*bank_tags, *new.tags} == {*old_bank_tags, *old.tags}:
        new = new.model_copy(update={"tags": old.tags})
    return old if new == old else new


def _merge_catalog(
    bank: Bank, old: Mapping[str, Translation], new: Mapping[str, Translation]
) -> dict[str, Translation]:
    """One locale's translations of ``bank``'s strings: the imported ones, else the target's."""
    old, new = dict(old.items()), dict(new.items())  # packed catalogs look a path up slowly; their items are fast
    merged: dict[str, Translation] = {}
    for path, _source in strings(bank):
        kept, came = old.get(path), new.get(path)
        if came is None:
            if kept is not None:
                merged[path] = kept
        elif kept is not None and kept.text == came.text:  # not retranslated: kept as it was, stale or not
            merged[path] = kept._replace(draft=kept.draft or came.draft)
        else:
            merged[path] = came
    return merged


def changed_files(target: Bank, merged: Bank) -> tuple[bool, list[str]]:
    """Whether bank.yaml must be written, and which locales' catalogs differ (files of an unchanged part of the
    bank are left as they are, byte for byte, comments and all)."""
    header_changed = _without_translations(target) != _without_translations(merged)
    locales = [
        loc
        for loc in merged.target_locales
        if header_changed
        or loc not in target.target_locales
        or dict(target.translations.get(loc, {}).items()) != dict(merged.translations.get(loc, {}).items())
    ]
    return header_changed, locales


def _without_translations(bank: Bank) -> Bank:
    return bank.model_copy(update={"translations": {}})
