"""IMS Common Cartridge 1.1: the one package Blackboard Learn, D2L Brightspace, Sakai, Schoology, Canvas and Moodle
all import. ``write`` makes one (QTI 1.2.1 items in the CC profile, see :mod:`..qti12`), ``read`` turns one back
into a bank, ``validate`` checks one against the official CC 1.1 schemas and what they cannot say."""

from __future__ import annotations

from .. import NO, YES, Format, Guide, Held, Offer, ShelfEntry, checker, lazy, one_package


def _sniff(data: bytes, name: str) -> int:
    """A cartridge, or any zip of QTI 1.2 (a Canvas QTI package too: the same checks hold for both)."""
    if name.lower().endswith(".imscc"):
        return YES
    holds_qti12 = lazy(".cc11.validate:holds_qti12")
    return YES if (data[:4] == b"PK\x03\x04" or name.lower().endswith(".zip")) and holds_qti12(data) else NO


def _guide(held: Held, first: bool) -> list[str]:
    return [
        "Moodle and Canvas users: take the Moodle XML file or the Canvas package instead. Moodle's cartridge "
        "restore gives the quiz a fixed sum of marks (4) and maximum grade (10) whatever the questions are worth, "
        "shows learners no feedback (review options off: tick **The attempt** first, or the other boxes stay "
        "disabled), runs in adaptive mode without penalties (set **How questions behave: Deferred feedback**), "
        "appends a multiple-answer question's choice feedback to its general feedback, and gives every wrong "
        "choice of a multiple-answer question 0 instead of a penalty; Canvas's keeps the quiz title but not its "
        "introduction, nor the overall correct/incorrect messages (Canvas users: take the `.canvas-qti.zip`). These "
        "are the platforms' importers, not the file (see docs/how-to/import-into-lms.md).",
        "",
        "A `.imscc` file is an IMS Common Cartridge 1.1: the questions as a question bank, and the quiz of its "
        "language with each choice's explanation as feedback and the general explanation.",
        "",
        "Use the course's import tool for Common Cartridge (IMS CC) packages and choose the file of your "
        "language: in Blackboard Learn *Packages and Utilities → Import Package*, in Brightspace *Course Admin → "
        "Import/Export/Copy Components*, in Sakai *Site Info → Import from File*, in Schoology the course's "
        "*Import* option. Canvas (*Settings → Import Course Content → Common Cartridge 1.x Package*) and "
        "Moodle (course *Restore*) read it too, though each has a better file of its own (see its section).",
        "",
    ]


FORMAT = Format(
    name="cc11",
    warnings=lazy(".caveats:cc11"),  # what it cannot carry of a quiz, or what to do after importing it
    description="IMS Common Cartridge 1.1 (question bank and a quiz per language, QTI 1.2.1)",
    suffix=".imscc",
    write=lazy(".cc11.write:write"),  # (imported when used: check lists the registry without it)
    # ccv1p1_qtiasiv1p2p1_v1p0.xsd: assessmentType holds exactly one section, sectionType only items (no section,
    # no selection_ordering); and a cartridge holds at most one question bank. (Canvas's own CC export keeps the
    # first pick_count questions of a group and drops the draw: lib/cc/qti/qti_generator.rb add_cc_group.)
    quiz_refusal=(
        "the Common Cartridge 1.1 profile of QTI allows an assessment one section of items, without sections or "
        "selection (ccv1p1_qtiasiv1p2p1_v1p0.xsd), so a quiz's sections and draws would be lost; export canvas-qti, "
        "qti21 or moodle for them, or cc11 without --quiz for every question"
    ),
    label="Common Cartridge",
    read=one_package(".cc11.read:read_package"),
    read_help="""Read the choice questions of an IMS Common Cartridge (.imscc) into a bank directory.

    Its question bank and quizzes are read, with each choice's feedback as its explanation; the same question in
    several languages becomes one question with translations. Hostile packages (paths outside the package,
    symbolic links, entities, oversized or too many files) are refused with the reason.
    """,
    check=checker(".cc11.validate:check_package"),
    check_what="QTI 1.2 package",
    check_schemas="cc11",
    sniff=_sniff,
    shelf=ShelfEntry(
        label="Common Cartridge",
        offers=(
            Offer(
                10,
                "**Blackboard Learn, D2L Brightspace, Sakai, Schoology** (or any platform that imports IMS Common "
                "Cartridge)",
                "the `.imscc` cartridge",
            ),
            Offer(23, "**Canvas**", "the `.imscc` cartridge (its quiz keeps the title but not the intro)"),
        ),
        guide=(Guide(20, "Blackboard, Brightspace, Sakai, Schoology: the Common Cartridge", _guide),),
    ),
)
