"""The Moodle XML import (:func:`load`): ``multichoice`` and ``truefalse`` questions, categories, feedback,
embedded images and multilang spans back into a :class:`~moe_lms.model.Bank`; everything else is listed
(:class:`Skipped`), never dropped silently. Files the export wrote come back exactly (export → import → export is
byte-identical); files from Moodle get ids made from their names.

This module must not know how the export builds its elements: it reads only what a Moodle XML file says, with the
layout rules of :mod:`.shape`.
"""

from __future__ import annotations

import contextlib
import hashlib
import html
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from lxml import etree
from pydantic import ValidationError

from ...locales import from_language_tag, locale_info
from ...model import (
    ID_MAX_LENGTH,
    ID_PATTERN,
    Bank,
    Feedback,
    Kind,
    MediaItem,
    Question,
    Translation,
    clean_text,
)
from ...numbers_in import finite_number
from ...problems import Problem, ProblemsFound, Severity
from ...richtext import markdown_from_rich_html, render_inline
from ...unrender import markdown_from_html
from ...xmlsafe import MAX_XML_BYTES, UnsafeXmlError, iterparse_untrusted
from .. import Imported
from ..imported import number
from .files import MEDIA_FOLDER, bank_html, read_files
from .shape import (
    FEEDBACK_ELEMENTS,
    MULTILANG_SUFFIX,
    NO_EXPLANATION,
    QUESTION_BUDGET,
    TITLE,
    bdi_wrapper,
    locale_from_lang,
    same_language,
    split_languages,
    unmark_multilang,
    unwrap,
    visible_of,
)
from .validate import single_answer


@dataclass(frozen=True)
class Skipped:
    """A question of a type moe-lms does not keep (Moodle has many: shortanswer, essay, cloze …)."""

    type: str
    name: str
    line: int | None

    def __str__(self) -> str:
        place = f"line {self.line}: " if self.line else ""
        return f"{place}{self.type} question {self.name!r}"


@dataclass(frozen=True)
class ImportResult:
    bank: Bank | None  # None when nothing usable was found (see problems)
    skipped: tuple[Skipped, ...]
    problems: tuple[Problem, ...]


@dataclass(frozen=True)
class _Text:
    body: str
    format: str  # html, moodle_auto_format, plain_text, markdown


@dataclass
class _Category:
    path: str
    info: _Text
    line: int | None
    bank_id: str | None = None  # set when the idnumber is one this module writes
    locale: str | None = None  # the category of one locale
    multilang: bool = False


@dataclass
class _Answer:
    fraction: Decimal
    text: _Text
    feedback: _Text
    line: int | None
    tolerance: str = "0"  # a numerical answer's


@dataclass
class _RawQuestion:
    type: str
    line: int | None
    name: str
    idnumber: str
    category: _Category
    stem: _Text
    explanation: _Text
    points: str
    single: bool
    shuffle: bool
    numbering: str
    answers: list[_Answer]
    feedback: dict[str, _Text]
    tags: list[str]
    units: list[str] = field(default_factory=list)  # a numerical question's unit names


@dataclass(frozen=True)
class _Piece:
    """One text in one locale: its Markdown, and whether it is really in that locale (not a marked fallback)."""

    markdown: str
    own: bool


@dataclass
class _Occurrence:
    """A question as one locale has it."""

    raw: _RawQuestion
    texts: dict[str, _Piece | None] = field(default_factory=dict)  # "stem", "explanation", "0/text", "feedback/…"


class _Importer:
    def __init__(self, file: str, locale: str | None) -> None:
        self.file = file
        self.requested_locale = locale
        self.problems: list[Problem] = []
        self.skipped: list[Skipped] = []
        self.categories: list[_Category] = []
        self.questions: list[_RawQuestion] = []
        self.files: dict[str, bytes] = {}  # embedded images by file-area path (moodle_files)

    def warn(self, line: int | None, message: str, where: str | None = None) -> None:
        self.problems.append(Problem(self.file, line, message, where, severity=Severity.WARNING))

    # Reading the XML.

    def read(self, children: Iterable[etree._Element]) -> None:
        """Read the children of <quiz> in order (they may come one at a time from a streaming parser)."""
        category = _Category("", _Text("", "html"), None)
        for q in children:
            if q.tag != "question":
                continue
            qtype = q.get("type") or ""
            name = " ".join((q.findtext("name/text") or "").split())
            if q.find(".//file") is not None:
                for holder in q.iter():
                    self.files.update(read_files(holder))
            if qtype == "category":
                category = self._category(q)
                self.categories.append(category)
            elif qtype in ("multichoice", "truefalse", "numerical"):
                self.questions.append(self._question(q, qtype, name, category))
            else:
                self.skipped.append(Skipped(qtype or "(untyped)", name, q.sourceline))

    def _category(self, q: etree._Element) -> _Category:
        category = _Category((q.findtext("category/text") or "").strip(), _text(q, "info"), q.sourceline)
        idnumber = (q.findtext("idnumber") or "").strip()
        bank_id, _, suffix = idnumber.rpartition("-")
        if re.fullmatch(ID_PATTERN, bank_id) and len(bank_id) <= ID_MAX_LENGTH:
            if suffix == MULTILANG_SUFFIX:
                category.bank_id, category.multilang = bank_id, True
            elif from_language_tag(suffix) == suffix:  # (a locale tag Babel knows, as moe-lms writes it)
                category.bank_id, category.locale = bank_id, suffix
        return category

    def _question(self, q: etree._Element, qtype: str, name: str, category: _Category) -> _RawQuestion:
        default_format = _text(q, "questiontext").format
        answers = []
        for a in q.findall("answer"):
            fraction = self._fraction(a, name)
            text = _Text((a.findtext("text") or "").strip(), a.get("format") or default_format)
            if qtype == "truefalse":
                text = _Text(text.body.capitalize() or "True", "plain_text")
            if qtype == "numerical" and text.body == "*":
                continue  # any other number: the bank's incorrect message, written by the export
            feedback = _text(a, "feedback", default_format)
            answers.append(_Answer(fraction, text, feedback, a.sourceline, (a.findtext("tolerance") or "0").strip()))
        return _RawQuestion(
            type=qtype,
            line=q.sourceline,
            name=name,
            idnumber=(q.findtext("idnumber") or "").strip(),
            category=category,
            stem=_text(q, "questiontext"),
            explanation=_text(q, "generalfeedback", default_format),
            points=(q.findtext("defaultgrade") or "1").strip(),
            single=qtype == "truefalse" or single_answer(q),
            shuffle=(q.findtext("shuffleanswers") or "true").strip() not in ("false", "", "0"),
            numbering=(q.findtext("answernumbering") or "abc").strip(),
            answers=answers,
            feedback={which: _text(q, tag, default_format) for which, tag in FEEDBACK_ELEMENTS.items()},
            tags=[t.strip() for t in q.xpath("tags/tag/text/text()") if isinstance(t, str) and t.strip()],
            units=[u.strip() for u in q.xpath("units/unit/unit_name/text()") if isinstance(u, str) and u.strip()],
        )

    def _fraction(self, answer: etree._Element, name: str) -> Decimal:
        """An answer's fraction: a percentage from -100 to 100. Anything else (``abc``, ``NaN``, ``sNaN``,
        ``Infinity``, ``1e999999``) is an error naming the question, and is read as 0 to report further errors."""
        raw = (answer.get("fraction") or "0").strip()
        try:
            fraction = Decimal(raw)
            if fraction.is_finite() and -100 <= fraction <= 100:
                return fraction
        except InvalidOperation:
            pass
        self.problems.append(
            Problem(
                self.file,
                answer.sourceline,
                f"fraction {raw[:40]!r} is not a percentage from -100 to 100",
                f"question {name!r}",
            )
        )
        return Decimal(0)

    # Deciding the locales.

    def locales(self) -> list[str]:
        """Every locale the file has, source first."""
        found: list[str] = []
        for category in self.categories:
            if category.locale and category.locale not in found:
                found.append(category.locale)
        unknown: set[str] = set()
        for text in self._all_texts():
            for code in split_languages(text.body) or {}:
                locale = locale_from_lang(code)
                if locale in found or locale in unknown:
                    continue
                if _known_locale(locale):
                    found.append(locale)
                else:
                    unknown.add(locale)
                    self.warn(None, f"multilang spans in language {code!r}, which is no locale moe-lms knows; skipped")
        source = self.requested_locale or (found[0] if found else "en")
        return [source, *(loc for loc in found if loc != source)]

    def _all_texts(self) -> Iterable[_Text]:
        for category in self.categories:
            yield category.info
        for q in self.questions:
            yield q.stem
            yield q.explanation

    # Texts, per locale.

    def pieces(
        self, text: _Text, locale: str | None, source: str, inline: bool, ours: bool, multilang: bool = False
    ) -> dict[str, _Piece]:
        """Each locale's Markdown of one text. ``locale`` is the category's; None means the source or multilang
        (``multilang``: a part of a multilang text, already one language's)."""
        body = text.body
        if text.format == "markdown":
            return {locale or source: _Piece(body, True)} if body else {}
        if text.format == "plain_text":
            body = html.escape(body, quote=False)
            body = body if inline else f"<p>{body}</p>"
        split = split_languages(body) if body else None
        by_locale = {locale_from_lang(code): value for code, value in split.items()} if split else {}
        if not by_locale:
            by_locale = {locale or source: body} if body else {}
        pieces: dict[str, _Piece] = {}
        for loc, fragment in by_locale.items():
            fragment = fragment.strip()
            lang: str | None = None
            if split or multilang:
                lang, fragment = unmark_multilang(fragment)
            unwrapped = unwrap(fragment) if lang is None else None
            if unwrapped is not None:
                lang, fragment = unwrapped
            markdown = markdown_from_rich_html(  # \(…\) back to $…$, @@PLUGINFILE@@/ back to media/
                bank_html(fragment), lambda f: markdown_from_html(f, inline=inline, tidy=not ours)
            )
            if markdown:
                pieces[loc] = _Piece(markdown, lang is None or same_language(lang, loc))
        return pieces

    # Assembling the bank.

    def bank(self) -> Bank | None:
        if not self.questions:
            self.problems.append(
                Problem(
                    self.file, None, "no multichoice, truefalse or numerical questions in the file; nothing to import"
                )
            )
            return None
        locales = self.locales()
        source = locales[0]
        ours = any(c.bank_id for c in self.categories)
        order: list[str] = []
        occurrences: dict[str, dict[str, _Occurrence]] = {}
        used_ids: set[str] = set()
        for index, raw in enumerate(self.questions, start=1):
            by_locale = self._localize(raw, source, ours)
            base = self._question_id(raw, index)
            qid = base
            # The same question comes once per locale; a second one in a locale is another question.
            while qid in occurrences and set(by_locale) & set(occurrences[qid]):
                qid = _numbered(base, used_ids)
            used_ids.add(qid)
            if qid not in occurrences:
                occurrences[qid] = {}
                order.append(qid)
            occurrences[qid].update(by_locale)
        questions: list[Question] = []
        translations: dict[str, dict[str, Translation]] = {loc: {} for loc in locales[1:]}
        feedback: dict[str, dict[str, _Piece]] = {}
        for qid in order:
            occ = occurrences[qid]
            if source not in occ:
                first = next(iter(occ.values())).raw
                self.warn(
                    first.line, f"question has no text in the source locale {source}; skipped", f"question {qid!r}"
                )
                continue
            question = self._build_question(qid, occ[source])
            if question is None:
                continue
            questions.append(question)
            for loc in locales[1:]:
                if loc in occ:
                    self._translate(question, occ[source], occ[loc], translations[loc])
            for loc, o in occ.items():
                for which in FEEDBACK_ELEMENTS:
                    piece = o.texts.get(f"feedback/{which}")
                    if piece is not None:
                        feedback.setdefault(loc, {}).setdefault(which, piece)
        if not questions:
            self.problems.append(Problem(self.file, None, "none of the questions could be imported (see above)"))
            return None
        return self._assemble(locales, questions, translations, feedback)

    def _localize(self, raw: _RawQuestion, source: str, ours: bool) -> dict[str, _Occurrence]:
        locale = raw.category.locale
        occurrences: dict[str, _Occurrence] = {}

        def put(key: str, text: _Text, inline: bool) -> None:
            for loc, piece in self.pieces(text, locale, source, inline, ours).items():
                occurrences.setdefault(loc, _Occurrence(raw)).texts[key] = piece

        put("stem", raw.stem, False)
        put("explanation", raw.explanation, False)
        for i, answer in enumerate(raw.answers):
            if raw.type != "numerical":
                put(f"{i}/text", answer.text, True)
            put(f"{i}/explanation", answer.feedback, False)
        if raw.type == "numerical" and raw.units:  # (a multilang file's units are every locale's: the first is kept)
            put("unit", _Text(raw.units[0], "plain_text"), True)
        for which in FEEDBACK_ELEMENTS:
            put(f"feedback/{which}", raw.feedback[which], False)
        if not occurrences:
            occurrences[locale or source] = _Occurrence(raw)
        return occurrences

    def _question_id(self, raw: _RawQuestion, index: int) -> str:
        idnumber = raw.idnumber
        suffix = f"-{raw.category.locale}" if raw.category.locale else ""
        if raw.category.bank_id and suffix and idnumber.endswith(suffix):
            idnumber = idnumber[: -len(suffix)]
        if re.fullmatch(ID_PATTERN, idnumber) and len(idnumber) <= ID_MAX_LENGTH:
            return idnumber
        return _slug(idnumber) or _slug(raw.name) or f"question-{index}"

    def _build_question(self, qid: str, occ: _Occurrence) -> Question | None:
        raw = occ.raw
        where = f"question {qid!r}"
        stem = occ.texts.get("stem")
        if stem is None:
            self.warn(raw.line, "has no question text; skipped", where)
            return None
        placeholders = []

        def text(key: str, what: str) -> str:
            piece = occ.texts.get(key)
            if piece is None:
                placeholders.append(what)
                return NO_EXPLANATION
            return piece.markdown

        if raw.type == "numerical":
            return self._build_numerical(qid, occ, text, placeholders)
        if raw.type == "truefalse":
            kind = Kind.TRUE_FALSE
            ids = [
                a.text.body.lower() if a.text.body.lower() in ("true", "false") else f"c{i}"
                for i, a in enumerate(raw.answers)
            ]
        else:
            kind = Kind.SINGLE if raw.single else Kind.MULTIPLE
            if raw.single and raw.numbering == "none" and len(raw.answers) == 2:
                kind = Kind.TRUE_FALSE
            ids = [_choice_id(i) for i in range(len(raw.answers))]
        choices = []
        for i, answer in enumerate(raw.answers):
            choice_text = occ.texts.get(f"{i}/text")
            choices.append(
                {
                    "id": ids[i],
                    "text": choice_text.markdown if choice_text else "-",
                    "correct": answer.fraction > 0,
                    "explanation": text(f"{i}/explanation", f"choice {ids[i]}"),
                }
            )
        data = {
            "id": qid,
            "kind": kind,
            "points": _points(raw.points),
            "shuffle": raw.shuffle,
            "stem": stem.markdown,
            "explanation": text("explanation", "the general explanation"),
            "choices": choices,
            "tags": _tags(raw.tags),
        }
        try:
            question = Question.model_validate(data)
        except ValidationError as exc:
            reasons = "; ".join(e["msg"].removeprefix("Value error, ") for e in exc.errors(include_url=False))
            self.warn(raw.line, f"cannot be imported: {reasons}; skipped", where)
            return None
        if placeholders:
            self.warn(raw.line, f"no explanation for {', '.join(placeholders)}; wrote {NO_EXPLANATION!r}", where)
        return question

    def _build_numerical(
        self, qid: str, occ: _Occurrence, text: Callable[[str, str], str], placeholders: list[str]
    ) -> Question | None:
        """A ``numerical`` question: each answer (but the catch-all ``*``) a value with its tolerance, correct when
        its fraction is above 0, its feedback the value's explanation; the most common tolerance the question's (when
        not 0); the first unit. Moodle's answers have no ids: the values are a, b, c… in file order."""
        raw = occ.raw
        where = f"question {qid!r}"
        values = [number(a.text.body) for a in raw.answers]
        tolerances = [float(number(a.tolerance) or 0) for a in raw.answers]
        common = max(sorted(set(tolerances)), key=tolerances.count) if tolerances else 0.0
        choices = []
        for i, (answer, value, tolerance) in enumerate(zip(raw.answers, values, tolerances, strict=True)):
            if value is None:
                self.warn(answer.line, f"answer {answer.text.body[:40]!r} is not a number; skipped", where)
                continue
            choice: dict[str, object] = {"id": _choice_id(i), "value": value, "correct": answer.fraction > 0}
            if tolerance != common:
                choice["tolerance"] = tolerance
            choice["explanation"] = text(f"{i}/explanation", f"value {value:g}")
            choices.append(choice)
        data: dict[str, object] = {
            "id": qid,
            "kind": Kind.NUMERICAL,
            "points": _points(raw.points),
            "stem": (occ.texts.get("stem") or _Piece("-", True)).markdown,
            "explanation": text("explanation", "the general explanation"),
            "choices": choices,
            "tags": _tags(raw.tags),
        }
        unit = occ.texts.get("unit")
        if unit is not None:
            data["unit"] = unit.markdown
        if common:
            data["tolerance"] = common
        try:
            question = Question.model_validate(data)
        except ValidationError as exc:
            reasons = "; ".join(e["msg"].removeprefix("Value error, ") for e in exc.errors(include_url=False))
            self.warn(raw.line, f"cannot be imported: {reasons}; skipped", where)
            return None
        if placeholders:
            self.warn(raw.line, f"no explanation for {', '.join(placeholders)}; wrote {NO_EXPLANATION!r}", where)
        return question

    def _media(self, questions: list[Question]) -> dict[str, MediaItem]:
        """The embedded images the imported text refers to, as bank media (``media/<file-area path>``)."""
        if not self.files:
            return {}
        from ...media import MEDIA_TYPES, SVG, sniff, svg_problem

        media: dict[str, MediaItem] = {}
        for area_path, data in sorted(self.files.items()):
            kind = sniff(data)
            suffix = "." + area_path.rsplit(".", 1)[-1].lower() if "." in area_path else ""
            if kind is None or MEDIA_TYPES.get(suffix) != kind:
                self.warn(None, f"embedded file {area_path!r} is no PNG, JPEG, GIF, WebP or SVG image; skipped")
                continue
            refused = svg_problem(data) if kind == SVG else None
            if refused is not None:
                self.warn(None, f"embedded file {area_path!r} is an SVG the allow-list refuses: {refused}; skipped")
                continue
            path = MEDIA_FOLDER + area_path
            media[path] = MediaItem(path, data, kind, hashlib.sha256(data).hexdigest())
        return media

    def _translate(
        self, question: Question, source: _Occurrence, target: _Occurrence, catalog: dict[str, Translation]
    ) -> None:
        if len(target.raw.answers) != len(question.choices):
            self.warn(
                target.raw.line,
                f"has {len(target.raw.answers)} answers where the source has {len(question.choices)}; "
                "its choices are not taken as translations",
                f"question {question.id!r}",
            )
        paths = {"stem": f"{question.id}/stem", "explanation": f"{question.id}/explanation"}
        originals = {"stem": question.stem, "explanation": question.explanation}
        if question.numerical and question.unit is not None:
            paths["unit"], originals["unit"] = f"{question.id}/unit", question.unit
        if len(target.raw.answers) == len(question.choices):
            for i, choice in enumerate(question.choices):
                for part in ("explanation",) if question.numerical else ("text", "explanation"):
                    paths[f"{i}/{part}"] = f"{question.id}/choices/{choice.id}/{part}"
                    originals[f"{i}/{part}"] = getattr(choice, part)
        for key, path in paths.items():
            piece = target.texts.get(key)
            if piece is not None and piece.own and source.texts.get(key) is not None:
                _add_translation(catalog, path, piece.markdown, originals[key])

    def _assemble(
        self,
        locales: list[str],
        questions: list[Question],
        translations: dict[str, dict[str, Translation]],
        feedback: dict[str, dict[str, _Piece]],
    ) -> Bank | None:
        source = locales[0]
        titles, intros, bank_id = self._titles(locales)
        title = titles.get(source)
        if title is None:
            title = _Piece(_plain_markdown(_root_category_name(self.categories) or "Imported questions"), True)
        values: dict[str, object] = {
            "id": bank_id or _slug(visible_of(render_inline(title.markdown))) or "imported-bank",
            "title": title.markdown,
            "source_locale": source,
            "target_locales": tuple(locales[1:]),
            "questions": tuple(questions),
        }
        if source in intros:
            values["intro"] = intros[source].markdown
        values["media"] = self._media(questions)
        source_feedback = {w: p.markdown for w, p in feedback.get(source, {}).items()}
        if source_feedback:  # left unset when the file has none, so a merge keeps the bank's own
            values["feedback"] = Feedback(**source_feedback)
        common = _common_prefix([list(q.tags) for q in questions])
        if common:
            values["tags"] = tuple(common)
            values["questions"] = tuple(
                q.model_copy(update={"tags": tuple(t for t in q.tags if t not in common)}) for q in questions
            )
        for loc in locales[1:]:
            catalog = translations[loc]
            if loc in titles and titles[loc].own:
                _add_translation(catalog, "title", titles[loc].markdown, title.markdown)
            if loc in intros and intros[loc].own and "intro" in values:
                _add_translation(catalog, "intro", intros[loc].markdown, str(values["intro"]))
            for which, piece in feedback.get(loc, {}).items():
                if piece.own and which in source_feedback:
                    _add_translation(catalog, f"feedback/{which}", piece.markdown, source_feedback[which])
        try:
            bank = Bank.model_validate(values)
        except ValidationError as exc:
            for e in exc.errors(include_url=False):
                self.problems.append(Problem(self.file, None, f"cannot make a bank: {e['msg']}"))
            return None
        return bank.model_copy(update={"translations": {loc: c for loc, c in translations.items() if c}})

    def _titles(self, locales: list[str]) -> tuple[dict[str, _Piece], dict[str, _Piece], str | None]:
        """The bank's title and intro per locale, from the categories this module writes, and the bank id."""
        titles: dict[str, _Piece] = {}
        intros: dict[str, _Piece] = {}
        bank_id: str | None = None
        for category in self.categories:
            if category.bank_id is None:
                continue
            bank_id = bank_id or category.bank_id
            split = split_languages(category.info.body) if category.multilang else None
            infos = (
                {locale_from_lang(k): v for k, v in split.items()}
                if split
                else {category.locale or locales[0]: category.info.body}
            )
            for loc, info in infos.items():
                match = TITLE.match(info.strip())
                if match is None or loc in titles:
                    continue
                lang, title_html = match.group(2), match.group(3)
                marked = bdi_wrapper(title_html) if split else None
                if marked is not None:
                    lang, title_html = marked
                title = markdown_from_html(title_html, inline=True)
                if title:
                    titles[loc] = _Piece(title, lang is None or same_language(lang, loc))
                rest = info.strip()[match.end() :]
                if rest:
                    pieces = self.pieces(_Text(rest, "html"), loc, locales[0], False, True, multilang=bool(split))
                    if loc in pieces:
                        intros[loc] = pieces[loc]
        return titles, intros, bank_id


def _text(parent: etree._Element, tag: str, default_format: str = "html") -> _Text:
    element = parent.find(tag)
    if element is None:
        return _Text("", default_format)
    return _Text((element.findtext("text") or "").strip(), element.get("format") or default_format)


def _known_locale(tag: str) -> bool:
    try:
        locale_info(tag)
    except ValueError:
        return False
    return True


def _add_translation(catalog: dict[str, Translation], path: str, text: str, source: str) -> None:
    with contextlib.suppress(ValueError):  # an empty translation is no translation
        catalog[path] = Translation(text=clean_text(text), source=source, draft=False)


def _choice_id(index: int) -> str:
    """a, b, … z, then aa, ab …"""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return letters


def _slug(text: str) -> str | None:
    """An id from free text: ASCII letters and digits joined by hyphens, starting with a letter."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")
    if not slug:
        return None
    if not slug[0].isalpha():
        slug = "q-" + slug
    return slug[:ID_MAX_LENGTH].rstrip("-")


def _numbered(base: str, used: set[str]) -> str:
    n = 2
    while True:
        suffix = f"-{n}"
        candidate = base[: ID_MAX_LENGTH - len(suffix)].rstrip("-") + suffix
        if candidate not in used:
            return candidate
        n += 1


def _points(raw: str) -> int | float:
    value = finite_number(raw)
    if value is None or not 0 < value <= 1000:
        return 1
    return value


def _tags(raw: list[str]) -> list[str]:
    tags: list[str] = []
    for t in raw:
        slug = t if re.fullmatch(ID_PATTERN, t) and len(t) <= ID_MAX_LENGTH else _slug(t)
        if slug and slug not in tags:
            tags.append(slug)
    return tags


def _common_prefix(lists: list[list[str]]) -> list[str]:
    if not lists:
        return []
    prefix = lists[0]
    for tags in lists[1:]:
        n = 0
        while n < min(len(prefix), len(tags)) and prefix[n] == tags[n]:
            n += 1
        prefix = prefix[:n]
    return prefix


def _plain_markdown(text: str) -> str:
    return markdown_from_html(html.escape(text, quote=False), inline=True)


def _root_category_name(categories: list[_Category]) -> str | None:
    """The first user-made category of a path: '$course$/top/Physics/Waves' -> 'Physics'."""
    for category in categories:
        names = [n for n in re.split(r"(?<!/)/(?!/)", category.path.strip("/"))]
        names = [n.replace("//", "/").strip() for n in names]
        names = [n for n in names if n and not re.fullmatch(r"\$[a-z]+\$", n)]
        if names and names[0] == "top":
            names = names[1:]
        if names:
            return names[0]
    return None


def load(
    data: bytes, *, file: str = "<moodle xml>", locale: str | None = None, max_bytes: int = MAX_XML_BYTES
) -> ImportResult:
    """Read Moodle XML into a bank: multichoice and truefalse questions, per-answer and general feedback,
    overall feedback, tags, categories and multilang spans (one PO catalog per further language). A file over
    ``max_bytes`` is refused before parsing. The file is parsed a question at a time, so memory does not hold
    its whole tree.

    ``locale`` is the source locale when the file does not say (a file from Moodle without multilang spans);
    by default the first locale of a file moe-lms wrote, else ``en``. Translations read from a file are taken as
    reviewed: they are what learners were shown. Problems are warnings (something kept differently, or a
    question skipped) unless the bank is None.
    """
    importer = _Importer(file, locale)
    if len(data) > max_bytes:
        message = f"the file is {len(data):,} bytes; the limit is {max_bytes:,}"
        return ImportResult(None, (), (Problem(file, None, message),))
    try:
        # One question in memory at a time, and each within a budget: 45 MB of <answer> in one question took 3.4 GB.
        elements = iterparse_untrusted(data, max_bytes=max_bytes, budget=QUESTION_BUDGET)
        root = next(elements)
        if root.tag != "quiz":
            message = f"the root element is <{root.tag!s}>; Moodle XML has <quiz>"
            return ImportResult(None, (), (Problem(file, root.sourceline, message),))
        importer.read(elements)
    except UnsafeXmlError as exc:
        return ImportResult(None, (), (Problem(file, exc.line, exc.message),))
    bank = importer.bank()
    return ImportResult(bank, tuple(importer.skipped), tuple(importer.problems))


def import_files(files: Sequence[tuple[str, bytes]], /, *, locale: str | None, max_bytes: int) -> Imported:
    """:func:`load` as the registry's :class:`~moe_lms.formats.Reader`: errors raised, skipped questions listed."""
    ((name, data),) = files
    result = load(data, file=name, locale=locale, max_bytes=max_bytes)
    if result.bank is None or any(p.severity is Severity.ERROR for p in result.problems):
        raise ProblemsFound(list(result.problems))
    skipped = tuple(f"{s} (moe-lms keeps multichoice and truefalse)" for s in result.skipped)
    return Imported(result.bank, list(result.problems), skipped)
