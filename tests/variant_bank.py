"""A bank with parameterised questions, for the tests of per-student variants (issue 31).

``capacity`` is the issue's example as a single-answer question (its truncating distractor collides with the key
whenever 1.25·T·k/E is whole, so those combinations are never drawn); ``powers`` is a multiple-answer question;
``plain`` an ordinary one. ur and vi translate the templates, placeholders and all.
"""

from __future__ import annotations

import math
from pathlib import Path

BANK_YAML = """\
id: variant-demo
title: Variants demo
source_locale: en
target_locales: [ur, vi]
questions:
  - id: plain
    stem: Which is a prime number?
    explanation: 7 has no divisor but 1 and itself.
    choices:
      - id: a
        text: "7"
        correct: true
        explanation: Only 1 and 7 divide it.
      - id: b
        text: "9"
        explanation: 3 divides 9.
  - id: capacity
    params:
      T: [4000, 6000, 8000]
      k: [2, 4, 8]
      E: [64, 128]
    variants: 6
    stem: >-
      A batch of $T = {T}$ tokens, top-{k} routing over $E = {E}$ experts, capacity factor 1.25. How many
      tokens can each expert accept?
    explanation: >-
      The average load per expert times the capacity factor is 1.25 × {T} × {k} / {E} = {1.25 * T * k / E},
      rounded up.
    choices:
      - id: right
        text: "{ceil(1.25 * T * k / E)}"
        correct: true
        explanation: "{1.25 * T * k / E} rounded up is {ceil(1.25 * T * k / E)}."
      - id: truncated
        text: "{floor(1.25 * T * k / E)}"
        explanation: "This rounds {1.25 * T * k / E} down; the buffer must hold every slot."
      - id: no-factor
        text: "{ceil(T * k / E)}"
        explanation: "This leaves out the capacity factor: {T} × {k} / {E} = {T * k / E:.2f}."
  - id: powers
    kind: multiple
    params:
      n: [3, 4, 5]
    stem: Which numbers are at most $2^{{{n}}}$?
    explanation: "$2^{{{n}}} = {2 ** n}$."
    choices:
      - id: equal
        text: "{2 ** n}"
        correct: true
        explanation: "{2 ** n} is $2^{{{n}}}$ itself."
      - id: below
        text: "{2 ** n - 1}"
        correct: true
        explanation: "{2 ** n - 1} is one less than {2 ** n}."
      - id: above
        text: "{2 ** n + 1}"
        explanation: "{2 ** n + 1} is one more than {2 ** n}."
"""

_HEADER = """\
msgid ""
msgstr ""
"Language: {locale}\\n"
"MIME-Version: 1.0\\n"
"Content-Type: text/plain; charset=utf-8\\n"
"Content-Transfer-Encoding: 8bit\\n"

"""

# (path, source, vi, ur): the capacity question's texts, translated once as templates.
TRANSLATED = [
    (
        "capacity/stem",
        "A batch of $T = {T}$ tokens, top-{k} routing over $E = {E}$ experts, capacity factor 1.25. How many "
        "tokens can each expert accept?",
        "Một lô $T = {T}$ token, định tuyến top-{k} qua $E = {E}$ chuyên gia, hệ số dung lượng 1,25. Mỗi chuyên "
        "gia nhận được bao nhiêu token?",
        "$T = {T}$ ٹوکن کا ایک بیچ، $E = {E}$ ماہرین پر ٹاپ-{k} روٹنگ، کیپیسٹی فیکٹر 1.25۔ "
        "ہر ماہر کتنے ٹوکن لے سکتا ہے؟",
    ),
    (
        "capacity/explanation",
        "The average load per expert times the capacity factor is 1.25 × {T} × {k} / {E} = {1.25 * T * k / E}, "
        "rounded up.",
        "Tải trung bình mỗi chuyên gia nhân hệ số dung lượng là 1,25 × {T} × {k} / {E} = {1.25 * T * k / E}, làm "
        "tròn lên.",
        "فی ماہر اوسط بوجھ ضرب کیپیسٹی فیکٹر 1.25 × {T} × {k} / {E} = {1.25 * T * k / E} ہے، اوپر کی طرف گول۔",
    ),
    (
        "capacity/choices/right/explanation",
        "{1.25 * T * k / E} rounded up is {ceil(1.25 * T * k / E)}.",
        "{1.25 * T * k / E} làm tròn lên là {ceil(1.25 * T * k / E)}.",
        "{1.25 * T * k / E} کو اوپر گول کرنے سے {ceil(1.25 * T * k / E)} ملتا ہے۔",
    ),
]


def po_text(locale: str, entries: list[tuple[str, str, str]], fuzzy: bool = False) -> str:
    def quoted(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

    body = [_HEADER.replace("{locale}", locale)]
    for path, source, text in entries:
        body.append(
            ("#, fuzzy\n" if fuzzy else "") + f"msgctxt {quoted(path)}\nmsgid {quoted(source)}\n"
            f"msgstr {quoted(text)}\n\n"
        )
    return "".join(body)


def write_bank(directory: Path, bank_yaml: str = BANK_YAML, *, fuzzy: bool = False) -> Path:
    (directory / "locales").mkdir(parents=True, exist_ok=True)
    (directory / "bank.yaml").write_text(bank_yaml, encoding="utf-8")
    for locale, column in (("vi", 2), ("ur", 3)):
        entries = [(row[0], row[1], row[column]) for row in TRANSLATED]
        (directory / "locales" / f"{locale}.po").write_text(po_text(locale, entries, fuzzy), encoding="utf-8")
    return directory


def capacity_key(T: int, k: int, E: int) -> int:
    return math.ceil(1.25 * T * k / E)


# The example as written there: a numerical question whose values are expressions.
NUMERICAL_YAML = """\
id: numerical-variants
title: Numerical variants
source_locale: en
target_locales: [vi]
questions:
  - id: capacity-per-learner
    kind: numerical
    params:
      T: [4000, 6000, 8000]
      k: [2, 4, 8]
      E: [64, 128]
    variants: 6
    unit: tokens
    stem: >-
      A batch of $T = {T}$ tokens, top-{k} routing over $E = {E}$ experts, capacity factor 1.25, rounding
      up. How many tokens can each expert accept?
    explanation: "1.25 × {T} × {k} / {E} = {1.25 * T * k / E}, rounded up to {ceil(1.25 * T * k / E)}."
    choices:
      - id: right
        value: "{ceil(1.25 * T * k / E)}"
        correct: true
        explanation: "{1.25 * T * k / E} rounded up is {ceil(1.25 * T * k / E)}."
      - id: truncated
        value: "{floor(1.25 * T * k / E)}"
        explanation: "This rounds {1.25 * T * k / E} down."
      - id: no-factor
        value: "{T * k / E}"
        explanation: "This leaves out the capacity factor 1.25."
"""
