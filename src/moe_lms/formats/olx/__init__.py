"""Open edX OLX: a course export that Studio's *Import* takes (``.tar.gz``, one course per language). ``write``
makes one, ``read`` turns one (or one per language) back into a bank, ``validate`` checks one as Open edX would
read it: the course tree resolves, every problem is a choice problem with a key and a hint for each choice."""

from __future__ import annotations

from .. import NO, YES, Format, Guide, Held, Offer, ShelfEntry, checker, lazy


def _sniff(data: bytes, name: str) -> int:
    return YES if data[:2] == b"\x1f\x8b" else NO  # a gzip file: the tar.gz of a course


def _guide(held: Held, first: bool) -> list[str]:
    return [
        "A `.olx.tar.gz` file is an Open edX course in one language: one section holding the quiz, a unit per "
        "question, each a multiple-choice (or checkboxes) problem whose every choice shows its explanation when "
        "chosen, with the general explanation under *Show answer*.",
        "",
        "1. In Studio, create a course (or open an empty one) and go to **Content → Import** (older Studio: "
        "**Tools → Import**).",
        "2. Choose the `.olx.tar.gz` of your language and **Replace my course with the one above**.",
        "3. Wait for *Success*, then **View updated outline**; the quiz is the course's first section.",
        "",
        "Import replaces the course's content: import into a new course, or export the old one first.",
        "",
        *(
            [
                "A quiz's `.olx.tar.gz` has a unit per section instead; a section that draws is a *problem bank* "
                "showing each learner as many of its problems as the quiz draws. It needs Open edX Sumac or later "
                "(an older Studio imports the course and hides the problem banks), and edx-platform PR 37830 "
                "(Ulmo: its backport, PR 38296) or the grade counts the problems a learner was not shown. The quiz's "
                "subsection is graded (one *Quiz* grader), each problem takes one submission, and a timed quiz needs "
                "timed exams enabled on the platform (see docs/how-to/open-edx.md).",
                "",
            ]
            if held.quizzes
            else []
        ),
    ]


FORMAT = Format(
    name="olx",
    warnings=lazy(".caveats:olx"),  # what it cannot carry of a quiz, or what to do after importing it
    description="Open edX course (OLX .tar.gz for Studio's Import: a quiz of capa choice problems, one language)",
    suffix=".olx.tar.gz",
    write=lazy(".olx.write:write"),  # (imported when used: check lists the registry without it)
    one_locale_per_file=True,
    quizzes=True,
    label="Open edX course",
    read=lazy(".olx.read:import_courses"),
    read_several=True,
    read_help="""Read Open edX course exports (.tar.gz, one per language) into a bank directory.

    Every choice problem of the course (multiple choice, checkboxes) becomes a question, each choice's hint its
    explanation and the problem's solution the general one. A course holds one language: give the export of each
    language the bank has, the source language's first (moe-lms's own exports say which it is), and the others
    become its translations. Hostile archives (paths outside it, links, oversized or too many files) are refused.
    """,
    check=checker(".olx.validate:check_course", xsd=False),
    check_what="Open edX course",
    check_detail="structure, answer keys and hints",
    sniff=_sniff,
    shelf=ShelfEntry(
        label="Open edX course",
        offers=(
            Offer(60, "**Open edX** (edX, and the MOOC platforms of many universities)", "the `.olx.tar.gz` course"),
        ),
        guide=(Guide(60, "Open edX", _guide),),
    ),
)
