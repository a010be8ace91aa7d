"""A text Moodle XML cannot carry is refused, naming the text that holds it, wherever it is in a question and
whether it is plain or Markdown, in every export of the bank that shows it (each locale, drafts, multilang)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from moe_lms.formats import ExportOptions, moodle
from moe_lms.loader import load_bank
from moe_lms.model import Bank
from moe_lms.problems import ProblemsFound

SHIPPED = sorted(Path(__file__).resolve().parents[1].joinpath("question_bank").iterdir())


def written(bank: Bank, options: ExportOptions) -> bytes | list[str]:
    """The file, or the problems that stopped it (or what else was raised: the renderer refuses a surrogate, which
    only a bank made past the model's checks holds)."""
    out = io.BytesIO()
    try:
        moodle.write(bank, options, out)
    except ProblemsFound as exc:
        return [str(p) for p in exc.problems]
    except UnicodeEncodeError as exc:
        return [repr(exc)]
    return out.getvalue()


def every_export(bank: Bank) -> list[ExportOptions]:
    options = [ExportOptions((locale,), include_drafts=d) for locale in bank.locales for d in (False, True)]
    options.append(ExportOptions(bank.locales))
    if len(bank.locales) > 1:
        options += [ExportOptions(bank.locales, multilang=True, include_drafts=d) for d in (False, True)]
    return options


def _with_text(bank: Bank, where: str, text: str) -> Bank:
    """The bank with one text of its first question replaced, past the model's checks (as a model_construct'd or
    model_copy'd bank reaches a writer)."""
    q = bank.questions[0]
    if where == "tag":
        q = q.model_copy(update={"tags": (text,)})
    elif where.startswith("choice"):
        field = where.split()[1]
        choices = (q.choices[0].model_copy(update={field: text}), *q.choices[1:])
        q = q.model_copy(update={"choices": choices})
    else:
        q = q.model_copy(update={where: text})
    return bank.model_copy(update={"questions": (q, *bank.questions[1:])})


@pytest.mark.parametrize("where", ["stem", "explanation", "choice text", "choice explanation", "tag"])
@pytest.mark.parametrize("bad", ["\x01", "\x0b", "\ufffe", "\ud800"])
@pytest.mark.parametrize("markdown", [False, True])
def test_a_character_xml_cannot_carry_is_refused_and_named(where: str, bad: str, markdown: bool) -> None:
    bank = load_bank(SHIPPED[0])
    bank = _with_text(bank, where, ("**x** " if markdown else "plain ") + bad + " text")
    for options in every_export(bank):
        result = written(bank, options)
        # (A draft may stand in for the source text; the renderer makes U+FFFD of what Markdown text holds.)
        if bank.source_locale in options.locales and not options.include_drafts and not markdown:
            assert isinstance(result, list) and any("XML 1.0 cannot carry" in p for p in result), options
