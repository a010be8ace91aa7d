"""Writing an Open edX course in OLX: the bank in one language as a course with one quiz, for Studio's *Import*.

Layout (every name fixed, entries in a fixed order, fixed times and owners, gzip time 0: the same bank gives the
same bytes)::

    course/course.xml                   <course url_name=LOCALE org="moe-lms" course=BANK-ID/>
    course/course/LOCALE.xml            the course: display_name, language; its one chapter
    course/chapter/BANK-ID.xml          the chapter: the quiz (a sequential)
    course/sequential/BANK-ID-quiz.xml  the quiz: the intro's unit, then a unit per question
    course/vertical/*.xml               the units (verticals): an html block (intro) or a problem
    course/html/BANK-ID-intro.xml       the intro, inline HTML
    course/problem/QUESTION-ID.xml      one capa problem per question
    course/static/media/…               the images the texts show, referred to as /static/media/…
    course/policies/LOCALE/policy.json  a quiz's: its subsection graded as "Quiz"; timed exams on when it is timed
    course/policies/LOCALE/grading_policy.json   a quiz's: one grader, "Quiz", the whole grade

How Open edX reads it (openedx/edx-platform xmodule/modulestore/xml.py and xml_importer.py; xblocks-contrib's
capa, ``xblocks_contrib/problem/capa/responsetypes.py``): a single-answer or true/false question is a
``multiplechoiceresponse`` whose ``choicegroup`` holds a ``<choice>`` per choice with its explanation as
``<choicehint>`` (shown with the grade when that choice is submitted); a multiple-answer question is a
``choiceresponse``/``checkboxgroup`` whose choices carry their explanation as ``<choicehint selected="true">``. The
stem is the response's ``<label>`` (capa moves it into the legend of the choices), the general explanation the
problem's ``<solution>`` (shown with *Show answer*), the points its ``weight``. Each choice's ``name`` is its bank
id (capa calls it ``choice_<name>``), so an import finds the same choices again. Math is ``\\(…\\)`` / ``\\[…\\]``
for the MathJax that Open edX runs on problems and HTML blocks; code blocks stay ``<pre><code>`` with their
language as a class. Every text is wrapped in an element that says its language and direction (``lang``/``dir``):
right-to-left text reads right to left, and a string that fell back to the source language says so.

A quiz's course is graded as Studio's import reads a course's policies (edx-platform
``xmodule/modulestore/xml.py`` ``XMLModuleStore.load_course``: ``policies/<course url_name>/policy.json``, a map
from ``<category>/<url_name>`` to the block's fields; ``xmodule/course_block.py`` ``CourseBlock.parse_xml``:
``policies/<url_name>/grading_policy.json``, whose ``GRADER`` and ``GRADE_CUTOFFS`` replace the defaults): the
subsection is ``graded`` with ``format`` "Quiz", the one grader's type, worth the whole grade; a timed quiz sets the
course's ``enable_timed_exams`` (``CourseFields.enable_timed_exams``, off unless the platform enables special
exams), without which the subsection is not timed.

Studio takes checkboxes with ``shuffle`` as written but never shuffles them (capa shuffles only a ``choicegroup``);
a multiple-answer question is graded all or nothing (capa's default for ``choiceresponse``).
"""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from collections.abc import Callable
from typing import BinaryIO

from lxml import etree

from ...locales import LocalizedView, Resolved, locale_info, resolve
from ...media import shown_media
from ...model import Bank, Kind, MediaItem, Question, Quiz, quiz_bank, resolve_quiz
from ...numeric import number_text
from ...problems import Problem, ProblemsFound
from ...richtext import Profile, readable_text, render_block, render_inline, rendering
from .. import ExportOptions
from ..ims.xhtml import add_text, append_fragment

ROOT = "course"  # the folder every entry is in (Studio finds course.xml in it)
ORG = "moe-lms"
STATIC = "static"
# 1980-01-01 00:00:00 UTC, the time every zip moe-lms writes carries too.
MTIME = 315_532_800
TITLE_LIMIT = 80
# What capa has no place for, kept where Open edX keeps any attribute it does not know (an XBlock's xml_attributes,
# written back on export): a question's kind when it is true/false, tags, and the bank's source language.
KIND_ATTRIBUTE = "moe_lms_kind"
TAGS_ATTRIBUTE = "moe_lms_tags"
SOURCE_ATTRIBUTE = "moe_lms_source_language"
CORRECT_ATTRIBUTE = "moe_lms_correct"  # a numerical problem's correct values' ids, in answer order
UNIT_LANG_ATTRIBUTE = "moe_lms_unit_lang"  # the language of a numerical problem's unit, when not the course's


def static_url(item: MediaItem) -> str:
    """How problems and HTML blocks refer to a packaged image (Open edX rewrites /static/ to the course's asset)."""
    return f"/{STATIC}/{item.path}"


def profile(bank: Bank) -> Profile:
    """Math for MathJax, images from static/, code blocks unhighlighted (capa shows its own styles)."""
    return Profile(math="tex", image_url=static_url, media=bank.media, highlight="none")


def num(value: float) -> str:
    number = float(value)
    return str(int(number)) if number.is_integer() else repr(number)


def shorten(text: str, limit: int = TITLE_LIMIT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def title_of(markdown: str, limit: int = TITLE_LIMIT) -> str:
    """A display name: plain text, a formula as the symbols it renders to (Studio shows no math in names)."""
    return shorten(readable_text(markdown), limit)


# --- names ------------------------------------------------------------------------------------------------------


def chapter_name(bank: Bank) -> str:
    return bank.id


def quiz_name(bank: Bank, quiz: Quiz | None = None) -> str:
    """The subsection's url_name: ``BANK-quiz``, or a quiz's ``BANK-QUIZ-quiz`` (so an import finds the quiz's id)."""
    return f"{bank.id}-quiz" if quiz is None else f"{bank.id}-{quiz.id}-quiz"


def intro_name(bank: Bank) -> str:
    return f"{bank.id}-intro"


def unit_name(question_id: str) -> str:
    return f"{question_id}-unit"


def run_name(locale: str) -> str:
    return locale


# --- HTML into OLX ----------------------------------------------------------------------------------------------


def _copy_html(source: etree._Element, parent: etree._Element) -> None:
    """Append a plain-XML copy of one parsed HTML element (no HtmlElement classes, comments dropped)."""
    if not isinstance(source.tag, str):
        add_text(parent, source.tail)
        return
    element = etree.SubElement(parent, source.tag, dict(source.attrib))
    element.text = source.text
    for child in source:
        _copy_html(child, element)
    element.tail = source.tail


def append_html(parent: etree._Element, fragment: str) -> None:
    """Append sanitised HTML (text.py's) to an OLX element; raises ValueError for characters XML cannot carry."""
    append_fragment(parent, fragment, _copy_html, "p")


def text_element(parent: etree._Element, tag: str, resolved: Resolved, render: Callable[[str], str]) -> etree._Element:
    """One string as HTML in a ``tag`` element that names its language and direction."""
    info = locale_info(resolved.lang.replace("-", "_"))
    element = etree.SubElement(parent, tag, {"lang": info.lang, "dir": info.direction})
    append_html(element, render(resolved.text))
    return element


# --- the files --------------------------------------------------------------------------------------------------


def _nl(element: etree._Element, indent: str = "\n") -> etree._Element:
    element.tail = indent
    return element


NUMERICAL_LIST = "moe-anticipated"  # the class of the solution's list of anticipated values


def build_numerical(question: Question, view: LocalizedView) -> etree._Element:
    """A numerical question as a capa ``numericalresponse``: ``answer`` the first correct value, ``additional_answer``
    each other one, ``responseparam type="tolerance"`` their tolerance (absolute: capa's compare_with_tolerance reads
    a number so), a ``formulaequationinput`` whose ``trailing_text`` is the unit, ``correcthint`` the right value's
    explanation (capa shows it with the grade). capa has no hint for a wrong number: NumericalResponse
    (xblocks_contrib/problem/capa/responsetypes.py) declares ``numericalhint`` but no check_hint_condition, and its
    get_extended_hints answers only a correct grade. So each anticipated value, with its tolerance and explanation,
    is listed in the ``solution`` after the general explanation (shown with *Show answer*), as a list whose items
    carry ``data-choice``, ``data-value`` and ``data-tolerance`` for an import to read back."""
    correct = question.correct_choices
    tolerances = {question.tolerance_of(c) for c in correct}
    if len(tolerances) > 1:
        raise ValueError(
            f"question {question.id!r}: its correct values have different tolerances, and capa's numericalresponse "
            "has one tolerance for all of its answers"
        )
    problem = etree.Element(
        "problem",
        {"display_name": title_of(view.stem(question).text), "weight": num(question.points), "markdown": "null"},
    )
    problem.set(KIND_ATTRIBUTE, question.kind.value)
    problem.set(CORRECT_ATTRIBUTE, " ".join(c.id for c in correct))  # (capa has no place for a value's id)
    if question.tags:
        problem.set(TAGS_ATTRIBUTE, " ".join(question.tags))
    problem.text = "\n"
    response = _nl(
        etree.SubElement(problem, "numericalresponse", {"answer": number_text(question.value_of(correct[0]))})
    )
    response.text = "\n"
    label = _nl(etree.SubElement(response, "label"))
    text_element(label, "div", view.stem(question), render_block)
    _nl(etree.SubElement(response, "responseparam", {"type": "tolerance", "default": number_text(tolerances.pop())}))
    entry = _nl(etree.SubElement(response, "formulaequationinput", {"size": "12"}))
    unit = view.unit(question)
    if unit is not None:
        entry.set("trailing_text", readable_text(unit.text))
        if unit.lang != view.info.lang:  # (trailing text is plain: a fallback's language is said here)
            problem.set(UNIT_LANG_ATTRIBUTE, unit.lang)
    hint = _nl(etree.SubElement(response, "correcthint"))
    text_element(hint, "div", view.choice_explanation(question, correct[0]), render_block)
    for choice in correct[1:]:
        more = _nl(etree.SubElement(response, "additional_answer", {"answer": number_text(question.value_of(choice))}))
        text_element(
            etree.SubElement(more, "correcthint"), "div", view.choice_explanation(question, choice), render_block
        )
    solution = _nl(etree.SubElement(problem, "solution"))
    detailed = etree.SubElement(solution, "div", {"class": "detailed-solution"})
    text_element(detailed, "div", view.explanation(question), render_block)
    anticipated = [c for c in question.choices if not c.correct]
    if anticipated:
        items = etree.SubElement(detailed, "ul", {"class": NUMERICAL_LIST})
        for choice in anticipated:
            value, tolerance = question.value_of(choice), question.tolerance_of(choice)
            item = etree.SubElement(
                items,
                "li",
                {"data-choice": choice.id, "data-value": number_text(value), "data-tolerance": number_text(tolerance)},
            )
            shown = number_text(value) + (f" ± {number_text(tolerance)}" if tolerance else "")
            etree.SubElement(item, "bdi", {"dir": "ltr"}).text = shown
            text_element(item, "div", view.choice_explanation(question, choice), render_block)
    return problem


def build_problem(question: Question, view: LocalizedView) -> etree._Element:
    """One question as a capa problem in the view's language."""
    if question.numerical:
        return build_numerical(question, view)
    problem = etree.Element(
        "problem",
        {"display_name": title_of(view.stem(question).text), "weight": num(question.points), "markdown": "null"},
    )
    if question.kind is Kind.TRUE_FALSE:
        problem.set(KIND_ATTRIBUTE, question.kind.value)
    if question.tags:
        problem.set(TAGS_ATTRIBUTE, " ".join(question.tags))
    problem.text = "\n"
    multiple = question.kind is Kind.MULTIPLE
    response = _nl(etree.SubElement(problem, "choiceresponse" if multiple else "multiplechoiceresponse"))
    response.text = "\n"
    label = _nl(etree.SubElement(response, "label"))
    text_element(label, "div", view.stem(question), render_block)
    group = _nl(etree.SubElement(response, "checkboxgroup" if multiple else "choicegroup"))
    if not multiple:
        group.set("type", "MultipleChoice")
    group.set("shuffle", "true" if question.shuffle else "false")
    group.text = "\n"
    for choice in question.choices:
        element = _nl(etree.SubElement(group, "choice", {"correct": "true" if choice.correct else "false"}))
        element.set("name", choice.id)
        text_element(element, "span", view.choice_text(question, choice), render_inline)
        hint = etree.SubElement(element, "choicehint", {"selected": "true"} if multiple else {})
        text_element(hint, "div", view.choice_explanation(question, choice), render_block)
    solution = _nl(etree.SubElement(problem, "solution"))
    detailed = etree.SubElement(solution, "div", {"class": "detailed-solution"})
    text_element(detailed, "div", view.explanation(question), render_block)
    return problem


def _leaf(tag: str, attrib: dict[str, str], children: list[tuple[str, str]]) -> etree._Element:
    element = etree.Element(tag, attrib)
    if children:
        element.text = "\n"
    for child_tag, url_name in children:
        _nl(etree.SubElement(element, child_tag, {"url_name": url_name}))
    return element


GRADER_TYPE = "Quiz"  # the assignment type of a quiz's subsection (its ``format``) and of its one grader
PASS_CUTOFF = 0.5  # Open edX's default GRADE_CUTOFFS (xmodule/course_metadata_utils.py DEFAULT_GRADING_POLICY)


def policies(bank: Bank, run: str, quiz: Quiz) -> list[tuple[str, bytes]]:
    """A quiz's course policy and grading policy, as Studio's import reads them (see the module docstring)."""
    course: dict[str, object] = {}
    if quiz.time_limit_minutes is not None:
        course["enable_timed_exams"] = True
    policy = {
        f"course/{run}": course,
        f"sequential/{quiz_name(bank, quiz)}": {"graded": True, "format": GRADER_TYPE},
    }
    grader = {"type": GRADER_TYPE, "short_label": GRADER_TYPE, "min_count": 1, "drop_count": 0, "weight": 1.0}
    grading = {"GRADER": [grader], "GRADE_CUTOFFS": {"Pass": PASS_CUTOFF}}
    return [
        (f"policies/{run}/grading_policy.json", _json(grading)),
        (f"policies/{run}/policy.json", _json(policy)),
    ]


def _json(value: object) -> bytes:
    return (json.dumps(value, indent=4, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def files(bank: Bank, view: LocalizedView, quiz: Quiz | None = None) -> list[tuple[str, bytes]]:
    """Every file of the course of one locale, in archive order (paths inside ROOT); with ``quiz``, of that quiz
    (``bank`` then holds its questions alone: :func:`moe_lms.model.quiz_bank`)."""
    title = title_of(view.title.text, 1000)
    out: list[tuple[str, bytes]] = []

    def put(path: str, element: etree._Element) -> None:
        out.append((path, etree.tostring(element, encoding="utf-8") + b"\n"))

    run = run_name(view.locale)
    put("course.xml", etree.Element("course", {"url_name": run, "org": ORG, "course": bank.id}))
    attrib = {"display_name": title, "language": view.info.lang, SOURCE_ATTRIBUTE: locale_info(bank.source_locale).lang}
    if bank.tags:
        attrib[TAGS_ATTRIBUTE] = " ".join(bank.tags)
    course = _leaf("course", attrib, [("chapter", chapter_name(bank))])
    put(f"course/{run}.xml", course)
    put(
        f"chapter/{chapter_name(bank)}.xml",
        _leaf("chapter", {"display_name": title}, [("sequential", quiz_name(bank, quiz))]),
    )
    if quiz is None:
        _whole_bank(bank, view, title, put)
    else:
        _quiz(bank, view, quiz, put)
    if quiz is not None:
        out += policies(bank, run, quiz)
    for image in shown_media([view]):
        out.append((f"{STATIC}/{image.path}", image.data))
    return out


Put = Callable[[str, etree._Element], None]


def _whole_bank(bank: Bank, view: LocalizedView, title: str, put: Put) -> None:
    """The whole bank as the chapter's one sequential: the intro's unit, then a unit per question."""
    units = ([unit_name(intro_name(bank))] if view.intro is not None else []) + [
        unit_name(q.id) for q in bank.questions
    ]
    put(
        f"sequential/{quiz_name(bank)}.xml",
        _leaf("sequential", {"display_name": title}, [("vertical", u) for u in units]),
    )
    if view.intro is not None:
        put(
            f"vertical/{unit_name(intro_name(bank))}.xml",
            _leaf("vertical", {"display_name": title}, [("html", intro_name(bank))]),
        )
        block = etree.Element("html", {"display_name": title})
        text_element(block, "div", view.intro, render_block)
        put(f"html/{intro_name(bank)}.xml", block)
    for number, question in enumerate(bank.questions, 1):
        name = f"{number}. {title_of(view.stem(question).text)}"
        put(
            f"vertical/{unit_name(question.id)}.xml",
            _leaf("vertical", {"display_name": shorten(name)}, [("problem", question.id)]),
        )
        put(f"problem/{question.id}.xml", build_problem(question, view))


def section_name(quiz: Quiz, section_id: str) -> str:
    return f"{quiz.id}-{section_id}"


def _quiz(bank: Bank, view: LocalizedView, quiz: Quiz, put: Put) -> None:
    """A quiz as the chapter's one sequential (its time limit: a timed subsection) of a unit per section; a section
    that draws, or every section when the quiz shuffles, is a problem bank (``itembank``, Open edX's
    ``ItemBankBlock``, edx-platform ``xmodule/item_bank_block.py``: ``max_count`` of its children, picked and
    ordered at random for each learner, -1 for all), its problems inline in the course (no content library). The
    quiz's intro opens the first unit; each problem carries its points and one submission (``max_attempts="1"``:
    capa's ``max_attempts`` counts the submissions of a problem, after each of which it shows what is right; Open edX
    has no attempts at a whole subsection, :func:`warnings` says so)."""
    title = title_of(view.quiz_title(quiz).text, 1000)
    sequential = {"display_name": title, "graded": "true", "format": GRADER_TYPE}
    if quiz.time_limit_minutes is not None:
        sequential |= {"is_time_limited": "true", "default_time_limit_minutes": str(quiz.time_limit_minutes)}
    sections = resolve_quiz(bank, quiz)
    put(
        f"sequential/{quiz_name(bank, quiz)}.xml",
        _leaf("sequential", sequential, [("vertical", unit_name(section_name(quiz, d.id))) for d in sections]),
    )
    intro = view.quiz_intro(quiz)
    for number, drawn in enumerate(sections):
        heading = view.section_title(quiz, drawn.section)
        name = title_of(heading.text) if heading else drawn.id
        children: list[tuple[str, str]] = []
        if number == 0 and intro is not None:
            children.append(("html", intro_name(bank)))
            block = etree.Element("html", {"display_name": title})
            text_element(block, "div", intro, render_block)
            put(f"html/{intro_name(bank)}.xml", block)
        if drawn.draws or quiz.shuffle_questions:
            children.append(("itembank", section_name(quiz, drawn.id)))
            count = str(drawn.draw) if drawn.draws else "-1"
            pool = _leaf(
                "itembank", {"display_name": name, "max_count": count}, [("problem", q.id) for q in drawn.questions]
            )
            put(f"itembank/{section_name(quiz, drawn.id)}.xml", pool)
        else:
            children += [("problem", q.id) for q in drawn.questions]
        put(
            f"vertical/{unit_name(section_name(quiz, drawn.id))}.xml",
            _leaf("vertical", {"display_name": name}, children),
        )
        for question in drawn.scored():
            problem = build_problem(question, view)
            problem.set("max_attempts", "1")
            put(f"problem/{question.id}.xml", problem)


def tar_gz(entries: list[tuple[str, bytes]], out: BinaryIO) -> None:
    """A gzipped tar of ``entries`` (paths under ROOT/): in this order, fixed times, owners and modes, gzip
    header time 0 and no file name, so the same entries give the same bytes."""
    directories: list[str] = []
    with (
        gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0) as compressed,
        tarfile.open(fileobj=compressed, mode="w", format=tarfile.PAX_FORMAT) as archive,
    ):
        for path, data in entries:
            full = f"{ROOT}/{path}"
            parts = full.split("/")[:-1]
            for depth in range(1, len(parts) + 1):
                folder = "/".join(parts[:depth])
                if folder not in directories:
                    directories.append(folder)
                    archive.addfile(_info(folder, None))
            archive.addfile(_info(full, len(data)), io.BytesIO(data))


def _info(name: str, size: int | None) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.mtime = MTIME
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    if size is None:
        info.type, info.mode = tarfile.DIRTYPE, 0o755
    else:
        info.size, info.mode = size, 0o644
    return info


def write(bank: Bank, options: ExportOptions, out: BinaryIO) -> None:
    """The course of ``options.locales[0]`` as an OLX ``.tar.gz`` into ``out``; with ``options.quiz``, the quiz."""
    locale = options.locales[0]
    quiz = None if options.quiz is None else bank.quiz(options.quiz)
    if quiz is not None:
        bank = quiz_bank(bank, quiz)
    view = resolve(bank, locale, include_drafts=options.include_drafts)
    with rendering(profile(bank)):
        try:
            entries = files(bank, view, quiz)
        except ValueError as exc:  # characters XML cannot carry, from a translation
            raise ProblemsFound([Problem(f"locale {locale}", None, str(exc))]) from None
    tar_gz(entries, out)
