"""Reading Open edX OLX courses (``.tar.gz`` exports: ours, or Studio's) into a bank.

A course holds one language, so a bank in several languages comes back from one archive per language: the first
archive whose course says it is in the bank's source language (``moe_lms_source_language``, else the first
archive) gives the questions, the others their translations. The course tree is followed as Open edX follows it
(xmodule/modulestore/xml.py): an element with only a ``url_name`` is a pointer to ``<tag>/<url_name>.xml``, else
it is inline. Every choice problem (``multiplechoiceresponse``, ``choiceresponse``) in course order becomes a
question, its choices' ``<choicehint>`` their explanations and its ``<solution>`` the general one; other problems
are skipped with a warning. Archives are read with limits (size, member count, paths that leave the archive,
links and devices refused) and their XML through :mod:`moe_lms.xmlsafe`.
"""

from __future__ import annotations

import copy
import html
import io
import posixpath
import re
import tarfile
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from ...locales import from_language_tag, locale_info
from ...media import bank_texts, packaged_media
from ...model import Bank, Kind, Question, Translation
from ...numbers_in import MAX_MINUTES, whole_number
from ...problems import Problem, ProblemsFound, Severity
from ...richtext import markdown_from_rich_html
from ...text import plain_text
from ...unrender import markdown_from_html
from ...xmlsafe import Budget, UnsafeXmlError, parse_untrusted
from ...zipsafe import (
    MAX_ENTRY_BYTES,
    MAX_FILES,
    MAX_MEMBER_ELEMENTS,
    MAX_PACKAGE_BYTES,
    MAX_PACKAGE_ELEMENTS,
    MAX_TOTAL_BYTES,
    MAX_XML_DEPTH,
    UnsafePackage,
    safe_member_name,
)
from .. import Imported
from ..imported import ParsedChoice, ParsedItem, number, question_of, same_lang, slug, translate, validated_bank
from .write import (
    CORRECT_ATTRIBUTE,
    KIND_ATTRIBUTE,
    NUMERICAL_LIST,
    SOURCE_ATTRIBUTE,
    STATIC,
    TAGS_ATTRIBUTE,
    UNIT_LANG_ATTRIBUTE,
)

COURSE_FILE = "course.xml"


def tag_of(element: etree._Element) -> str:
    """An element's tag as text (OLX has no namespaces; a comment or instruction has none)."""
    return element.tag if isinstance(element.tag, str) else ""


class SafeTar:
    """A gzipped tar from outside, inflated within a limit as it is read and checked before anything in it is used.

    The archive is read as a stream (as ``gunzip | tar x`` reads it: every gzip member, one after the other), so
    at no time is the whole inflated tar held. Each member is kept deflated again (zlib, fastest level) and
    inflated when it is used: a bomb of zeros just under the inflate limit then takes a few MiB, not 600, and a
    real archive's images (already compressed) take what they take in the archive."""

    def __init__(self, data: bytes) -> None:
        if len(data) > MAX_PACKAGE_BYTES:
            raise UnsafePackage(f"the archive is {len(data):,} bytes; the limit is {MAX_PACKAGE_BYTES:,}")
        self.files = _Members()
        stream = io.BufferedReader(_Inflated(data, MAX_TOTAL_BYTES + MAX_FILES * 1024), buffer_size=1 << 16)
        try:
            with tarfile.open(fileobj=stream, mode="r|") as archive:
                for count, member in enumerate(archive, 1):  # (headers read one at a time, counted as they come)
                    if count > MAX_FILES:
                        raise UnsafePackage(f"the archive holds more than {MAX_FILES:,} members; refused")
                    self._take(archive, member)
        except (tarfile.TarError, EOFError, OSError) as exc:
            raise UnsafePackage(f"not a readable tar archive: {exc}") from None
        self.elements_left = MAX_PACKAGE_ELEMENTS

    def _take(self, archive: tarfile.TarFile, member: tarfile.TarInfo) -> None:
        name = member.name.removeprefix("./")
        if not safe_member_name(name):
            raise UnsafePackage(f"refused: member {name[:200]!r} has a path outside the archive")
        if member.isdir():
            return
        if not member.isfile():
            raise UnsafePackage(f"refused: member {name!r} is a link or a device, not a file")
        if member.size > MAX_ENTRY_BYTES:
            raise UnsafePackage(f"refused: member {name!r} is {member.size:,} bytes; the limit is {MAX_ENTRY_BYTES:,}")
        if name in self.files:
            raise UnsafePackage(f"refused: member {name!r} appears twice")
        extracted = archive.extractfile(member)
        self.files.put(name, extracted.read() if extracted is not None else b"")

    def xml(self, name: str) -> etree._Element:
        """A member parsed within what is left of the archive's element budget; its tree knows its file name
        (``docinfo.URL``), so an error about one of its elements can name it."""
        budget = Budget(min(MAX_MEMBER_ELEMENTS, self.elements_left), MAX_XML_DEPTH)
        root = parse_untrusted(self.files[name], max_bytes=MAX_ENTRY_BYTES, budget=budget)
        self.elements_left -= sum(1 for _ in root.iter())
        root.getroottree().docinfo.URL = name
        return root


class _Members(Mapping[str, bytes]):
    """An archive's members by name, each held deflated and inflated when it is looked up."""

    def __init__(self) -> None:
        self._deflated: dict[str, bytes] = {}

    def put(self, name: str, data: bytes) -> None:
        self._deflated[name] = zlib.compress(data, 1)

    def __getitem__(self, name: str) -> bytes:
        return zlib.decompress(self._deflated[name])

    def __contains__(self, name: object) -> bool:
        return name in self._deflated

    def __iter__(self) -> Iterator[str]:
        return iter(self._deflated)

    def __len__(self) -> int:
        return len(self._deflated)


_CHUNK = 1 << 16


def _inflate(data: bytes, limit: int) -> Iterator[bytes]:
    """The inflated bytes of a gzip stream of one or more members (``cat a.gz b.gz`` is one, as gunzip reads it),
    a chunk at a time; refused as soon as they pass ``limit`` (a gzip bomb), or when a member is cut short.
    NUL bytes after the last member (tape padding) are ignored, as gunzip ignores them."""
    view, at, size = memoryview(data), 0, 0
    while at < len(data):
        if data[at : at + 2] != b"\x1f\x8b":
            if not data[at:].strip(b"\0"):
                return
            raise UnsafePackage(f"not a gzip file: {len(data) - at:,} bytes after the last gzip member are not one")
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        while not inflater.eof:
            chunk: bytes | memoryview
            if inflater.unconsumed_tail:
                chunk = inflater.unconsumed_tail
            elif at < len(data):
                chunk, at = view[at : at + _CHUNK], min(at + _CHUNK, len(data))
            else:
                raise UnsafePackage("not a gzip file: it ends in the middle of a gzip member")
            try:
                out = inflater.decompress(chunk, _CHUNK)
            except zlib.error as exc:
                raise UnsafePackage(f"not a gzip file: {exc}") from None
            size += len(out)
            if size > limit:
                raise UnsafePackage(f"refused: the archive inflates past {limit:,} bytes")
            if out:
                yield out
        at -= len(inflater.unused_data)


class _Inflated(io.RawIOBase):
    """:func:`_inflate` as a file, for ``tarfile``'s stream mode."""

    def __init__(self, data: bytes, limit: int) -> None:
        self._chunks = _inflate(data, limit)
        self._left = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._left:
            self._left = next(self._chunks, b"")
            if not self._left:
                return 0
        size = min(len(buffer), len(self._left))
        buffer[:size] = self._left[:size]
        self._left = self._left[size:]
        return size


def gunzip(data: bytes, limit: int) -> bytes:
    """The inflated bytes of a gzip stream (every member), refused as soon as they pass ``limit`` (a gzip bomb)."""
    return b"".join(_inflate(data, limit))


# --- texts ------------------------------------------------------------------------------------------------------

_STATIC_SRC = re.compile(rf'(<img\b[^>]*\bsrc=")/{STATIC}/')


@dataclass(frozen=True)
class Text:
    """One learner-facing string of a problem: its HTML and the language it says it is in."""

    html: str
    lang: str | None
    inline: bool
    ours: bool = False  # in our lang/dir wrapper, so HTML moe-lms wrote

    def markdown(self) -> str:
        fragment = _STATIC_SRC.sub(r"\1", self.html)
        return markdown_from_rich_html(
            fragment, lambda f: markdown_from_html(f, inline=self.inline, tidy=not self.ours) or plain_text(f)
        )


def _inner_html(element: etree._Element, skip: tuple[str, ...] = ()) -> str:
    """The content of an element as HTML text (XML syntax, explicit end tags), without children tagged ``skip``."""
    parts = [html.escape(element.text or "", quote=False)]
    for child in element:
        if not isinstance(child.tag, str):
            parts.append(html.escape(child.tail or "", quote=False))
            continue
        if child.tag in skip:
            parts.append(html.escape(child.tail or "", quote=False))
            continue
        clone = copy.copy(child)
        clone.tail = None
        _keep_empty(clone)
        parts.append(etree.tostring(clone, encoding="unicode"))
        parts.append(html.escape(child.tail or "", quote=False))
    return "".join(parts).strip()


_VOID = frozenset({"br", "hr", "img"})


def _keep_empty(element: etree._Element) -> None:
    """Non-void empty elements as ``<li></li>``, never ``<li/>`` (which HTML reads as an open tag)."""
    for node in element.iter():
        if isinstance(node.tag, str) and node.tag not in _VOID and node.text is None and not len(node):
            node.text = ""


def text_of(element: etree._Element | None, inherited: str | None, *, inline: bool, skip: tuple[str, ...] = ()) -> Text:
    """A string from the content of ``element``; our wrapper (one element with ``lang`` and ``dir``) is unwrapped."""
    if element is None:
        return Text("", inherited, inline)
    children = [c for c in element if isinstance(c.tag, str) and c.tag not in skip]
    if (
        len(children) == 1
        and children[0].get("lang")
        and children[0].get("dir") in ("ltr", "rtl")
        and not (element.text or "").strip()
        and not (children[0].tail or "").strip()
    ):
        return Text(_inner_html(children[0]), children[0].get("lang"), inline, ours=True)
    return Text(_inner_html(element, skip), element.get("lang") or inherited, inline)


# --- the course tree --------------------------------------------------------------------------------------------


@dataclass
class Course:
    """What one archive holds, before it joins the others."""

    name: str
    bank_id: str | None
    locale: str
    source_lang: str | None
    title: str
    tags: tuple[str, ...]
    intro: Text | None
    items: list[ParsedItem[Text]] = field(default_factory=list)
    tar: SafeTar | None = None
    quiz: dict[str, object] | None = None  # a quiz's course (one with problem banks): its quizzes: entry


_CONTAINERS = ("chapter", "sequential", "vertical", "section", "subsection", "unit", "itembank")


class Tree:
    """The course tree, its pointers followed as Open edX follows them. A block is in a course once: the walk
    visits each file once, and a file named a second time (a vertical that contains itself, a sequential naming
    its own chapter, or one file named by thousands of pointers) is refused, so the work is bounded by the
    archive's element budget however the pointers fan out."""

    def __init__(self, tar: SafeTar, root: str, name: str, problems: list[Problem]) -> None:
        self.tar, self.root, self.name, self.problems = tar, root, name, problems
        self.loaded: dict[str, etree._Element] = {}  # file → its root, parsed once
        self.walked: set[str] = set()

    def path(self, relative: str) -> str:
        return posixpath.join(self.root, relative) if self.root else relative

    def place(self, element: etree._Element) -> str:
        """``archive!/file`` of an element, for an error about it."""
        return f"{self.name}!/{element.getroottree().docinfo.URL or self.path(COURSE_FILE)}"

    def file_of(self, element: etree._Element) -> str | None:
        """The file a pointer (``<tag url_name=…/>`` and nothing else) names; None for an inline block."""
        url_name = element.get("url_name")
        pointer = url_name is not None and not len(element) and set(element.attrib) <= {"url_name"}
        if not pointer or url_name is None:
            return None
        return self.path(f"{tag_of(element)}/{url_name.replace(':', '/')}.xml")

    def load(self, element: etree._Element) -> etree._Element:
        """The element a pointer names (parsed once, however often it is named), or the element itself."""
        file = self.file_of(element)
        if file is None:
            return element
        if file in self.loaded:
            return self.loaded[file]
        if file not in self.tar.files:
            self.problems.append(
                Problem(
                    f"{self.name}!/{file}",
                    None,
                    f"the course names {tag_of(element)} {element.get('url_name')!r}, which is not in the archive",
                )
            )
            self.loaded[file] = element
            return element
        loaded = self.tar.xml(file)
        loaded.set("url_name", element.get("url_name", ""))
        self.loaded[file] = loaded
        return loaded

    def walk(self, element: etree._Element, within: tuple[str, ...] = ()) -> Iterator[etree._Element]:
        """Every leaf block under ``element`` in course order (problems, html blocks …), pointers followed; a
        file named twice is a :class:`~moe_lms.problems.ProblemsFound` (a cycle says which)."""
        for child in element:
            if not isinstance(child.tag, str):
                continue
            file = self.file_of(child)
            if file is not None:
                if file in within:
                    chain = " → ".join([*within[within.index(file) :], file])
                    message = f"the course tree has a cycle: {chain}; a block cannot contain itself"
                    raise ProblemsFound([Problem(self.place(child), child.sourceline, message)])
                if file in self.walked:
                    message = (
                        f"{tag_of(child)} {child.get('url_name')!r} is named a second time; a block is in a course "
                        "once, so the course is refused"
                    )
                    raise ProblemsFound([Problem(self.place(child), child.sourceline, message)])
                self.walked.add(file)
            block = self.load(child)
            if block.tag in _CONTAINERS:
                yield from self.walk(block, (*within, file) if file is not None else within)
            else:
                yield block


def course_root(tar: SafeTar, name: str) -> str:
    """The folder that holds course.xml: the archive's root or its shallowest folder that has one."""
    found = sorted((n for n in tar.files if posixpath.basename(n) == COURSE_FILE), key=lambda n: n.count("/"))
    if not found:
        raise ProblemsFound([Problem(name, None, f"no {COURSE_FILE} in the archive: not an Open edX course export")])
    return posixpath.dirname(found[0])


def open_course(
    data: bytes, name: str, problems: list[Problem]
) -> tuple[SafeTar, str, Tree, etree._Element, etree._Element]:
    """The archive, its course folder, its tree of files, course.xml's root and the ``<course>`` element (the run's
    file where course.xml names a run, else that root); ProblemsFound with one problem where there is no course to
    read. Reading and checking both start here."""
    try:
        tar = SafeTar(data)
        root = course_root(tar, name)
        tree = Tree(tar, root, name, problems)
        pointer = tar.xml(tree.path(COURSE_FILE))
        course = pointer
        run = pointer.get("url_name")
        if run is not None and not len(pointer):  # course.xml names the run: course/<run>.xml holds the course
            file = tree.path(f"course/{run}.xml")
            if file not in tar.files:
                message = f"it names the run {run!r}, but {file} is not in the archive"
                raise ProblemsFound([Problem(f"{name}!/{tree.path(COURSE_FILE)}", None, message)])
            course = tar.xml(file)
    except (UnsafePackage, UnsafeXmlError) as exc:
        raise ProblemsFound([Problem(name, getattr(exc, "line", None), str(exc))]) from None
    if course.tag != "course":
        raise ProblemsFound(
            [Problem(name, course.sourceline, f"the course file's root is <{tag_of(course)}>, not <course>")]
        )
    return tar, root, tree, pointer, course


def read_course(data: bytes, name: str, problems: list[Problem]) -> Course:
    tar, _, tree, pointer, course = open_course(data, name, problems)
    language = course.get("language") or "en"
    locale = from_language_tag(language)
    if locale is None:
        problems.append(
            Problem(
                name,
                None,
                f"the course language {language!r} is no locale moe-lms knows; read as en",
                severity=Severity.WARNING,
            )
        )
        locale = "en"
    found = Course(
        name=name,
        bank_id=course.get("course") or pointer.get("course"),
        locale=locale,
        source_lang=course.get(SOURCE_ATTRIBUTE),
        title=course.get("display_name") or posixpath.basename(name),
        tags=tuple((course.get(TAGS_ATTRIBUTE) or "").split()),
        intro=None,
        tar=tar,
    )
    lang = locale_info(locale).lang
    try:
        for index, block in enumerate(tree.walk(course)):
            place = f"{name}!/{tree.path(tag_of(block))}/{block.get('url_name', str(index))}.xml"
            if block.tag == "html" and not found.items and found.intro is None:
                found.intro = text_of(block, lang, inline=False)
            elif block.tag == "problem":
                item = parse_problem(block, place, locale, problems)
                if item is not None:
                    found.items.append(item)
            else:
                problems.append(
                    Problem(
                        place,
                        block.sourceline,
                        f"a {tag_of(block)} block; not a question, not imported",
                        severity=Severity.WARNING,
                    )
                )
        found.quiz = _quiz_of(tree, course, found.bank_id)
    except (UnsafePackage, UnsafeXmlError) as exc:
        raise ProblemsFound([Problem(name, getattr(exc, "line", None), str(exc))]) from None
    if found.quiz is not None and found.intro is not None:  # the html block opening a quiz is the quiz's intro
        found.quiz["intro"] = found.intro.markdown()
        found.intro = None
    return found


def _children(tree: Tree, element: etree._Element, tag: str) -> list[etree._Element]:
    return [block for block in (tree.load(c) for c in element if isinstance(c.tag, str)) if block.tag == tag]


def _quiz_of(tree: Tree, course: etree._Element, bank_id: str | None) -> dict[str, object] | None:
    """The quiz of a course whose first subsection holds problem banks (what ``export --quiz`` writes): a section
    per unit, a problem bank's ``max_count`` its draw, the subsection's time limit (the problems' ``max_attempts`` are
    the submissions of each problem, not attempts at the quiz, which Open edX has no place for).
    A problem bank shows its problems in an order of each learner's, so a quiz of problem banks alone shuffles.
    None for any other course (a quiz that neither draws nor shuffles has no problem bank, and reads as a bank)."""
    sequentials = [s for chapter in _children(tree, course, "chapter") for s in _children(tree, chapter, "sequential")]
    if not sequentials:
        return None
    sequential = sequentials[0]
    sections: list[dict[str, object]] = []
    pools = 0
    for unit in _children(tree, sequential, "vertical"):
        ids: list[str] = []
        draw = None
        for child in unit:
            if not isinstance(child.tag, str):
                continue
            block = tree.load(child)
            inner = [block] if block.tag == "problem" else _children(tree, block, "problem")
            if block.tag == "itembank":
                pools += 1
                draw = whole_number(
                    block.get("max_count"), low=-1, high=MAX_FILES, file=tree.place(block), line=block.sourceline,
                    what="<itembank max_count>",
                )  # fmt: skip
            ids += [slug(p.get("url_name", "")) for p in inner if p.get("url_name")]
        if not ids:
            continue
        name = (unit.get("url_name") or "").removesuffix("-unit")
        section: dict[str, object] = {"id": slug(name) or f"part-{len(sections) + 1}", "questions": ids}
        if unit.get("display_name"):
            section["title"] = unit.get("display_name")
        if draw is not None and 0 < draw < len(ids):
            section["draw"] = draw
        sections.append(section)
    if not pools:
        return None
    ident = (sequential.get("url_name") or "").removesuffix("-quiz")
    if bank_id and ident.startswith(f"{bank_id}-"):
        ident = ident.removeprefix(f"{bank_id}-")
    for section in sections:
        section["id"] = str(section["id"]).removeprefix(f"{ident}-")
    quiz: dict[str, object] = {
        "id": slug(ident) or "quiz",
        "title": sequential.get("display_name") or ident,
        "sections": sections,
    }
    if pools == len(sections):
        quiz["shuffle_questions"] = True
    minutes = whole_number(
        sequential.get("default_time_limit_minutes"), low=0, high=MAX_MINUTES, file=tree.place(sequential),
        line=sequential.sourceline, what="<sequential default_time_limit_minutes>",
    )  # fmt: skip
    if sequential.get("is_time_limited") == "true" and minutes:
        quiz["time_limit_minutes"] = minutes
    return quiz


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _parse_numerical(
    problem: etree._Element, response: etree._Element, place: str, locale: str, lang: str, problems: list[Problem]
) -> ParsedItem[Text] | None:
    """A ``numericalresponse`` as moe-lms writes it (write.build_numerical): ``answer`` and each
    ``additional_answer`` a correct value (ids from ``moe_lms_correct``), the tolerance an absolute
    ``responseparam``, each ``correcthint`` its value's explanation, the unit the input's ``trailing_text``, the
    solution's first block the general explanation and its list the anticipated values."""

    def warn(message: str) -> None:
        problems.append(Problem(place, response.sourceline, message, severity=Severity.WARNING))

    param = response.find("responseparam[@type='tolerance']")
    raw_tolerance = (param.get("default") if param is not None else None) or "0"
    tolerance = number(raw_tolerance)
    if tolerance is None or raw_tolerance.strip().endswith("%"):
        warn(f"the tolerance {raw_tolerance!r} is not an absolute number; moe-lms imports absolute tolerances")
        return None
    answers = [(response.get("answer"), response.find("correcthint"))]
    answers += [(a.get("answer"), a.find("correcthint")) for a in response.iterfind("additional_answer")]
    ids = problem.get(CORRECT_ATTRIBUTE, "").split()
    choices: list[ParsedChoice[Text]] = []
    for index, (raw, hint) in enumerate(answers):
        value = number(raw)
        if value is None:
            warn(f"the answer {raw!r} is not a number (capa also takes formulas; moe-lms imports numbers)")
            return None
        cid = ids[index] if index < len(ids) else f"right-{index + 1}" if index else "right"
        explanation = text_of(hint, lang, inline=False) if hint is not None else None
        choices.append(ParsedChoice(cid, None, True, explanation, float(value), float(tolerance)))
    label = response.find("label")
    stem = text_of(label, lang, inline=False)
    solution = problem.find("solution")
    detailed = solution.find("div[@class='detailed-solution']") if solution is not None else None
    explanation = None
    if detailed is not None:
        blocks = [c for c in detailed if isinstance(c.tag, str)]
        listed = next((b for b in blocks if b.tag == "ul" and b.get("class") == NUMERICAL_LIST), None)
        if blocks and blocks[0] is not listed:
            explanation = text_of(blocks[0], lang, inline=False)
        for li in listed.iterfind("li") if listed is not None else ():
            value, own = number(li.get("data-value")), number(li.get("data-tolerance"))
            div = li.find("div")
            if value is None:
                continue
            text = text_of(div, lang, inline=False) if div is not None else None
            choices.append(
                ParsedChoice(
                    li.get("data-choice") or f"value-{len(choices) + 1}",
                    None,
                    False,
                    text,
                    float(value),
                    float(own or 0),
                )
            )
    entry = response.find("formulaequationinput")
    if entry is None:
        entry = response.find("textline")
    trailing = (entry.get("trailing_text") or "").strip() if entry is not None else ""
    unit = None
    if trailing:
        unit_lang = problem.get(UNIT_LANG_ATTRIBUTE) or lang
        holder = etree.Element("span", {"lang": unit_lang})
        holder.text = trailing
        unit = text_of(holder, unit_lang, inline=True)
    points = number(problem.get("weight"))
    url_name = problem.get("url_name") or posixpath.basename(place).removesuffix(".xml")
    return ParsedItem(
        path=place,
        qid=slug(url_name),
        locale=locale,
        kind=Kind.NUMERICAL,
        points=points if points is not None and points > 0 else 1,
        shuffle=True,
        stem=stem,
        explanation=explanation,
        choices=choices,
        tags=tuple(problem.get(TAGS_ATTRIBUTE, "").split()),
        unit=unit,
    )


def parse_problem(problem: etree._Element, place: str, locale: str, problems: list[Problem]) -> ParsedItem[Text] | None:
    """A choice problem as Studio or moe-lms write it; None (with a warning) for other problems."""
    lang = problem.get("lang") or locale_info(locale).lang
    numerical = [r for r in problem if r.tag == "numericalresponse"]
    if (
        len(numerical) == 1
        and len([r for r in problem.iter() if isinstance(r.tag, str) and r.tag.endswith("response")]) == 1
    ):
        return _parse_numerical(problem, numerical[0], place, locale, lang, problems)
    responses = [r for r in problem if r.tag in ("multiplechoiceresponse", "choiceresponse")]
    others = [
        r.tag
        for r in problem.iter()
        if isinstance(r.tag, str)
        and r.tag.endswith("response")
        and r.tag not in ("multiplechoiceresponse", "choiceresponse")
    ]
    if len(responses) != 1 or others:
        if others:
            what = f"a <{others[0]}>"
        elif responses:
            what = f"{len(responses)} responses"
        else:
            what = "no response"
        problems.append(
            Problem(
                place,
                problem.sourceline,
                f"the problem has {what}; moe-lms imports problems of one multiple choice or checkboxes response",
                severity=Severity.WARNING,
            )
        )
        return None
    response = responses[0]
    multiple = response.tag == "choiceresponse"
    group = response.find("checkboxgroup" if multiple else "choicegroup")
    if group is None:
        problems.append(
            Problem(
                place,
                response.sourceline,
                f"<{tag_of(response)}> has no {'checkboxgroup' if multiple else 'choicegroup'}",
            )
        )
        return None
    label = response.find("label")
    if label is not None:
        stem = text_of(label, lang, inline=False)
    else:  # Studio's older problems: the question is the HTML before the response
        before = etree.Element("div")
        for node in problem:
            if node is response:
                break
            if isinstance(node.tag, str) and node.tag not in ("solution", "script"):
                before.append(copy.deepcopy(node))
        stem = text_of(before, lang, inline=False)
    choices: list[ParsedChoice[Text]] = []
    for index, choice in enumerate(group.iterfind("choice")):
        hints = choice.findall("choicehint")
        hint = next((h for h in hints if (h.get("selected") or "true").lower() == "true"), None)
        choices.append(
            ParsedChoice(
                id=choice.get("name") or _LETTERS[index % 26] + (str(index // 26) if index >= 26 else ""),
                text=text_of(choice, lang, inline=True, skip=("choicehint",)),
                correct=(choice.get("correct") or "").lower() == "true",
                explanation=text_of(hint, lang, inline=False) if hint is not None else None,
            )
        )
    solution = problem.find("solution")
    explanation = None
    if solution is not None:
        detailed = solution.find("div[@class='detailed-solution']")
        explanation = text_of(detailed if detailed is not None else solution, lang, inline=False)
    kind = Kind.MULTIPLE if multiple else Kind.SINGLE
    if problem.get(KIND_ATTRIBUTE) == Kind.TRUE_FALSE.value and not multiple:
        kind = Kind.TRUE_FALSE
    points = number(problem.get("weight"))
    url_name = problem.get("url_name") or posixpath.basename(place).removesuffix(".xml")
    return ParsedItem(
        path=place,
        qid=slug(url_name),
        locale=locale,
        kind=kind,
        points=points if points is not None and points > 0 else 1,
        shuffle=(group.get("shuffle") or "false").lower() == "true",
        stem=stem,
        explanation=explanation,
        choices=choices,
        tags=tuple(problem.get(TAGS_ATTRIBUTE, "").split()),
    )


def read_courses(archives: list[tuple[str, bytes]]) -> tuple[Bank, list[Problem]]:
    """A bank from one course archive per language; raises ProblemsFound with every error, else returns it with
    the warnings."""
    problems: list[Problem] = []
    courses = [read_course(data, name, problems) for name, data in archives]
    by_locale: dict[str, Course] = {}
    for course in courses:
        if course.locale in by_locale:
            problems.append(
                Problem(
                    course.name,
                    None,
                    f"a second course in {course.locale} (the first: {by_locale[course.locale].name})",
                )
            )
        by_locale.setdefault(course.locale, course)
    declared = next((c.source_lang for c in courses if c.source_lang), None)
    source = next((c for c in courses if declared and same_lang(locale_info(c.locale).lang, declared)), courses[0])
    name = source.name
    versions: dict[str, dict[str, ParsedItem[Text]]] = {}
    for course in [source, *(c for c in by_locale.values() if c is not source)]:
        for item in course.items:
            if item.locale in versions.setdefault(item.qid, {}):
                problems.append(Problem(item.path, None, f"question {item.qid!r} appears twice in the course"))
                continue
            versions[item.qid][item.locale] = item
    targets = [loc for loc in by_locale if loc != source.locale]
    questions: list[Question] = []
    translations: dict[str, dict[str, Translation]] = {loc: {} for loc in targets}
    for qid, found in versions.items():
        question = question_of(qid, found, source.locale, problems)
        if question is None:
            continue
        questions.append(question)
        for locale, item in found.items():
            if locale != source.locale:
                translate(question, item, locale, translations[locale], problems)
    title = source.title
    intro = source.intro.markdown() if source.intro is not None else None
    for locale in targets:
        course, catalog = by_locale[locale], translations[locale]
        if course.title != title:
            catalog["title"] = Translation(text=course.title, source=title)
        if intro and course.intro is not None and same_lang(course.intro.lang, locale_info(locale).lang):
            catalog["intro"] = Translation(text=course.intro.markdown(), source=intro)
    raw: dict[str, object] = {
        "id": slug(source.bank_id or posixpath.basename(name).split(".")[0]),
        "title": title,
        "source_locale": source.locale,
        "target_locales": targets,
        "tags": list(source.tags),
        "questions": questions,
        "translations": translations,
    }
    if intro:
        raw["intro"] = intro
    if source.quiz is not None:
        raw["quizzes"] = [source.quiz]
    texts = [*bank_texts(questions), *(t.text for c in translations.values() for t in c.values())]
    tars = [c.tar for c in courses if c.tar is not None]

    def read(path: str) -> bytes:
        relative = path.removeprefix(f"{STATIC}/")
        for course, tar in zip(courses, tars, strict=True):
            root = course_root(tar, course.name)
            file = posixpath.join(root, STATIC, relative) if root else f"{STATIC}/{relative}"
            if file in tar.files:
                return tar.files[file]
        raise KeyError(path)

    raw["media"] = packaged_media(read, f"{STATIC}/", texts, name, problems)
    return validated_bank(raw, name, problems, no_questions="no question of the course could be imported")


def import_courses(archives: Sequence[tuple[str, bytes]], /, *, locale: str | None, max_bytes: int) -> Imported:
    """:func:`read_courses` as the registry's :class:`~moe_lms.formats.Reader`."""
    bank, warnings = read_courses(list(archives))
    return Imported(bank, warnings)


def read_package(data: bytes, *, name: str = "course.tar.gz") -> tuple[Bank, list[Problem]]:
    """A bank from one course archive (one language)."""
    return read_courses([(name, data)])
