"""Banks and fixtures shared by the Canvas tests and the bench."""

from __future__ import annotations

import io
import zipfile

from moe_lms.model import Bank, Choice, Kind, Question, Translation, strings


def make_bank(questions: int = 6, *, locales: tuple[str, ...] = ("ur", "vi"), bank_id: str = "ep-demo") -> Bank:
    """A bank with single- and multiple-answer questions, Urdu and Vietnamese translated (every 7th string left out)."""
    qs = []
    for n in range(1, questions + 1):
        multiple = n % 5 == 0
        choices = tuple(
            Choice(
                id=f"c{c}",
                text=f"Choice {c} of question {n}" + (" with `code`" if c == 1 else ""),
                correct=(c in (1, 3)) if multiple else c == (n % 4) + 1,
                explanation=f"Why choice {c} of question {n} is {'right' if c == 1 else 'what it is'}.",
            )
            for c in range(1, 5)
        )
        qs.append(
            Question(
                id=f"q{n:04d}",
                kind=Kind.MULTIPLE if multiple else Kind.SINGLE,
                points=2 if n % 3 == 0 else 1,
                shuffle=n % 7 != 0,
                stem=f"Question {n}: which **expert** gets token {n}?",
                explanation=f"Tokens go to the expert the router picks; question {n}.",
                choices=choices,
            )
        )
    bank = Bank(id=bank_id, title="Expert parallelism drill", intro="Ten *quick* questions.", source_locale="en",
                target_locales=locales, questions=tuple(qs))  # fmt: skip
    translations: dict[str, dict[str, Translation]] = {}
    for locale in locales:
        catalog = {}
        for i, (path, source) in enumerate(strings(bank)):
            if i % 7 != 3:
                catalog[path] = Translation(text=f"[{locale}] {source}", source=source)
        translations[locale] = catalog
    return bank.model_copy(update={"translations": translations})


def stand_in_package(items: int, namespace: str = "http://www.imsglobal.org/xsd/imsqti_v2p1") -> bytes:
    """The shape Canvas's converter looks at: a manifest with a QTI 2.1 namespace and item resources."""
    resources = "".join(
        f'<resource identifier="item-{n}" type="imsqti_item_xmlv2p1" href="items/item-{n}.xml"/>' for n in range(items)
    )
    manifest = (
        f'<manifest xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:qti="{namespace}" identifier="m">'
        f"<organizations/><resources>{resources}</resources></manifest>"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as package:
        package.writestr("imsmanifest.xml", manifest)
        for n in range(items):
            package.writestr(f"items/item-{n}.xml", "<assessmentItem/>")
    return buffer.getvalue()
