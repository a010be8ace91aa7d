"""Work stays bounded whatever a bank holds: a limit with a clear error, or an algorithm linear in the input."""

from __future__ import annotations

import re
import time

from moe_lms import richtext
from moe_lms.glossary import FormMatcher, Glossary, Term


def test_three_thousand_glossary_terms_against_400_kb_of_text_take_well_under_a_second_or_two() -> None:
    """Every form begins as the text's words do: the alternation regex tried all 3,000 at each word (18 s for
    this text, and 120 s did not finish the issue's), the automaton reads the text once."""
    glossary = Glossary([Term((f"expert layer{i}",), {}) for i in range(3000)])
    text = "expert layer expert " * 20_000 + "expert layer7s."
    began = time.perf_counter()
    found = glossary.matches(text)
    assert time.perf_counter() - began < 5
    assert [form for _term, form in found] == ["expert layer7"]


def test_the_matcher_finds_what_the_alternation_found() -> None:
    forms = ["expert parallelism", "expert", "all-to-all", "MoE", "top-k"]
    ordered = sorted(forms, key=lambda f: (-len(f), f))
    alternation = "|".join(r"\s+".join(map(re.escape, form.split())) for form in ordered)
    regex = re.compile(rf"(?<!\w)(?:{alternation})(?:e?s)?(?!\w)", re.IGNORECASE)
    text = "Expert\n  parallelisms and experts; all-to-all MoEs, top-k_ _expert, EXPERT PARALLELISM."
    assert FormMatcher(forms).findall(text) == regex.findall(text)
    assert FormMatcher(forms).sub(" ", text) == regex.sub(" ", text)


def test_a_code_block_past_the_highlighting_limit_is_shown_plain() -> None:
    code = "x = 1\n" * (richtext.MAX_HIGHLIGHT // 6 + 1)
    began = time.perf_counter()
    block = richtext.code_block(code, "python", highlight="inline")
    assert time.perf_counter() - began < 2
    assert block.startswith('<pre dir="ltr" style="line-height:1.45"><code class="language-python">x = 1')
    assert richtext.code_block("x = 1\n", "python", highlight="inline").startswith('<pre dir="ltr" class="code"')
