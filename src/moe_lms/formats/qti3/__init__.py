"""QTI 3.0 content packages (IMS CP 1.2 in the QTI 3 profile): ``write`` makes one, ``read`` turns one back into a
bank, ``validate`` checks one against the QTI 3 schemas and what they cannot say."""

from __future__ import annotations

from .. import NO, YES, Format, Guide, Held, Offer, ShelfEntry, checker, lazy, one_package


def _sniff(data: bytes, name: str) -> int:
    holds_qti3 = lazy(".qti3.validate:holds_qti3")
    return YES if _zip(data, name) and holds_qti3(data) else NO


def _zip(data: bytes, name: str) -> bool:
    return data[:4] == b"PK\x03\x04" or name.lower().endswith(".zip")


def _guide(held: Held, first: bool) -> list[str]:
    return [
        "The `.qti3.zip` files are QTI 3.0 content packages: an item per question with each choice's explanation "
        "as its feedback and the general explanation, and a test. In TAO, choose *Import* in *Items* (or *Tests*) "
        "and its QTI content package format, then the file of your language; other QTI 3 platforms take them "
        "where they import *QTI 3* or *IMS Content Package* files.",
        "",
        *(
            [
                "A quiz's test draws, shuffles and is timed as the quiz is, for a delivery system that runs QTI 3 "
                "tests; an item player such as Citolab's shows every item, in order and untimed. QTI has no "
                "attempts at a whole test: set them in the delivery system (see docs/how-to/qti3.md).",
                "",
            ]
            if held.quizzes
            else []
        ),
    ]


FORMAT = Format(
    name="qti3",
    warnings=lazy(".caveats:qti3"),  # what it cannot carry of a quiz, or what to do after importing it
    description="QTI 3.0 content package (zip: items, a test per language, manifest)",
    suffix=".qti3.zip",
    write=lazy(".qti3.write:write"),  # (imported when used: check lists the registry without it)
    quizzes=True,
    label="QTI 3.0 package",
    read=one_package(".qti3.read:read_package"),
    read_help="""Read the choice items of a QTI 3.0 package into a bank directory.

    Items of one question in several languages become one question with translations; each choice's modal
    feedback becomes its explanation. Hostile packages are refused as for qti21.
    """,
    check=checker(".qti3.validate:check_package"),
    check_what="QTI 3.0 package",
    check_schemas="qti3",
    sniff=_sniff,
    shelf=ShelfEntry(
        label="QTI 3.0 package",
        offers=(Offer(50, "**TAO, Amp-up, Citolab** and other QTI 3.0 platforms", "the `.qti3.zip` package"),),
        guide=(Guide(50, "QTI 3.0 platforms", _guide),),
    ),
)
