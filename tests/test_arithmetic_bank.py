"""The numbers of the shipped bank ``moe-serving-arithmetic`` are right.

For each question this file holds the question's parameters and the formula, recomputes the correct answer,
and checks that exactly the correct choice(s) state it and that every distractor states the number its
explanation says a common mistake produces (forgetting top-k, forgetting the combine, bits for bytes, floor for
ceil, ...). The bank is read with plain YAML, so these tests do not depend on how moe-lms renders math, images
or code: they hold however the rich-content machinery evolves.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml
from lxml import etree

BANK_DIR = Path(__file__).resolve().parents[1] / "question_bank" / "moe-serving-arithmetic"

KiB = 1024
MiB = 1024**2
GiB = 1024**3
BF16 = 2  # bytes per element
FP8 = 1
BITS_PER_BYTE = 8

# "224 KiB", "469 tokens", "3.6 ms", "16": a number and an optional unit.
QUANTITY = re.compile(r"(\d+(?:\.\d+)?)\s*(KiB|MiB|GiB|bytes|ms|µs|tokens)?")
UNIT: dict[str, int | Fraction] = {
    "": 1,
    "B": 1,
    "bytes": 1,
    "KiB": KiB,
    "MiB": MiB,
    "GiB": GiB,
    "ms": Fraction(1, 1000),
    "µs": Fraction(1, 10**6),
    "tokens": 1,
}


def quantities(text: str) -> list[Fraction]:
    """Every number in ``text``, in base units (bytes, seconds, tokens), exactly."""
    return [Fraction(num) * UNIT[unit] for num, unit in QUANTITY.findall(text)]


def flat(text: str) -> str:
    """``text`` with every run of white space (the line breaks of a YAML block among them) as one space."""
    return " ".join(text.split())


def quantity(text: str) -> Fraction:
    (value,) = quantities(text)
    return value


@pytest.fixture(scope="module")
def bank() -> dict[str, Any]:
    with open(BANK_DIR / "bank.yaml", encoding="utf-8") as f:
        data = yaml.safe_load(f)
    assert isinstance(data, dict)
    return data


def question(bank: dict[str, Any], qid: str) -> dict[str, Any]:
    matches: list[dict[str, Any]] = [q for q in bank["questions"] if q["id"] == qid]
    (q,) = matches
    return q


def stated(q: dict[str, Any], c: dict[str, Any]) -> Fraction:
    """What a choice states, in base units: its text's number, or a numerical question's value in its unit."""
    if q.get("kind") == "numerical":
        assert isinstance(c["value"], int | float) and not isinstance(c["value"], bool), (q["id"], c)
        return Fraction(str(c["value"])) * UNIT[q["unit"]]
    return quantity(c["text"])


def assert_single(q: dict[str, Any], correct: Fraction | int, mistakes: dict[str, Fraction | int]) -> None:
    """The one correct choice (or value) states ``correct``; each other one the value of its named mistake."""
    by_value = {c["id"]: stated(q, c) for c in q["choices"]}
    right = [cid for cid, v in by_value.items() if v == correct]
    assert right == [c["id"] for c in q["choices"] if c.get("correct")], (q["id"], by_value, correct)
    wrong = sorted(v for cid, v in by_value.items() if cid not in right)
    assert wrong == sorted(Fraction(m) for m in mistakes.values()), (q["id"], by_value, mistakes)
    assert correct not in mistakes.values(), "a mistake that gives the right number is no distractor"


def test_the_bank_has_the_kinds_and_questions_the_tests_cover(bank: dict[str, Any]) -> None:
    assert bank["id"] == "moe-serving-arithmetic"
    assert bank["source_locale"] == "en" and bank["target_locales"] == ["ur", "vi"]
    ids = [q["id"] for q in bank["questions"]]
    assert ids == [
        "expert-capacity",
        "all-to-all-bytes",
        "local-and-remote",
        "expert-memory-per-gpu",
        "smallest-ep-degree",
        "top-k-dispatch",
        "local-share-true-false",
        "straggler-step-time",
    ]
    assert {q["kind"] for q in bank["questions"]} == {"single", "multiple", "true-false", "numerical"}
    # Issue 30: the learner computes these three and types the number; the old distractors are the values a
    # learner is likely to reach, each explained (the lecturer's review: no back-solving from four options).
    numerical = [q["id"] for q in bank["questions"] if q["kind"] == "numerical"]
    assert numerical == ["expert-capacity", "all-to-all-bytes", "expert-memory-per-gpu"]


def capacity(cf: Fraction, tokens: int, top_k: int, experts: int) -> int:
    return math.ceil(cf * tokens * top_k / experts)


def test_expert_capacity_is_the_ceiling_of_cf_times_tokens_times_k_over_experts(bank: dict[str, Any]) -> None:
    q = question(bank, "expert-capacity")
    E, k, T, CF = 128, 8, 6000, Fraction(5, 4)
    for fact in ("$E = 128$", "$k = 8$", "$T = 6000$", r"$\mathrm{CF} = 1.25$"):
        assert fact in q["stem"]
    # Both 468 (truncation) and 469 are choices, and 59 (k left out) too, so the stem says which convention holds:
    # what the capacity factor multiplies and how it rounds (the lecturer's reviews of 2026-12-01 and -05, L2-1).
    assert "average number of assignments per expert, rounded up" in flat(q["stem"])
    # The explanation names the other convention and what it really gives for this stem: Mesh-TensorFlow's and
    # GShard-style int(tokens * capacity_factor / experts) truncates and leaves k out, so 58, not 468 (M2-1).
    other = int(CF * T / E)
    explanation = flat(q["explanation"])
    assert "`int(tokens * capacity_factor / experts)`" in explanation
    assert f"= {other}$" in explanation and other == 58
    assert "468" not in explanation.replace("468.75", "")
    assert_single(
        q,
        capacity(CF, T, k, E),
        {
            "floor instead of ceil": math.floor(CF * T * k / E),
            "forgot top-k": capacity(CF, T, 1, E),
            "forgot the capacity factor": capacity(Fraction(1), T, k, E),
        },
    )
    assert capacity(CF, T, k, E) == 469


def test_the_capacity_code_in_the_explanation_prints_the_correct_answer(bank: dict[str, Any]) -> None:
    q = question(bank, "expert-capacity")
    (code,) = re.findall(r"```python\n(.*?)```", q["explanation"], re.S)
    out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == str(capacity(Fraction(5, 4), 6000, 8, 128))


def all_to_all_bytes(k: int, hidden: int, bytes_per_element: int, *, combine: bool = True) -> int:
    """Bytes one token moves per MoE layer: one copy out per remote expert (dispatch), one output back (combine)."""
    return (2 if combine else 1) * k * hidden * bytes_per_element


def test_all_to_all_bytes_per_token_count_k_copies_out_and_k_outputs_back(bank: dict[str, Any]) -> None:
    q = question(bank, "all-to-all-bytes")
    h, k = 7168, 8
    assert "$h = 7168$" in q["stem"] and "$k = 8$" in q["stem"] and "bf16 (2 bytes" in q["stem"]
    assert "one copy of the token per selected expert" in flat(q["stem"])  # deduplicating kernels move less
    fp8_copy = h * FP8 + h // 128 * 4  # fp8 elements plus one fp32 scale per 128 of them
    assert fp8_copy == 7392 and f"= {fp8_copy}$" in q["explanation"] and f"= {h * BF16}$" in q["explanation"]
    correct = all_to_all_bytes(k, h, BF16)
    assert_single(
        q,
        correct,
        {
            "forgot the combine": all_to_all_bytes(k, h, BF16, combine=False),
            "forgot top-k": all_to_all_bytes(1, h, BF16),
            "bits counted as bytes": all_to_all_bytes(k, h, BF16 * BITS_PER_BYTE),
        },
    )
    assert correct == 224 * KiB == 229376


def diagram_routing() -> tuple[str, list[str], dict[str, str]]:
    """From the diagram's Graphviz source: the token's GPU, the experts it is dispatched to, each node's GPU."""
    dot = (BANK_DIR / "media-src" / "dispatch-combine.dot").read_text(encoding="utf-8")
    gpu_of: dict[str, str] = {}
    for gpu, body in re.findall(r'subgraph cluster_\w+ \{\s*label="(GPU \d)";(.*?)\n  \}', dot, re.S):
        for node in re.findall(r"^\s*(\w+)\s+\[label=", body, re.M):
            gpu_of[node] = gpu
    dispatched = re.findall(r"\bt -> (E\d);", dot)
    combined = re.findall(r"\b(E\d) -> t \[style=dashed", dot)
    assert sorted(dispatched) == sorted(combined), "every dispatched copy comes back in the combine"
    return gpu_of["t"], dispatched, gpu_of


def test_the_diagram_question_counts_only_the_experts_on_other_gpus(bank: dict[str, Any]) -> None:
    q = question(bank, "local-and-remote")
    home, selected, gpu_of = diagram_routing()
    assert (home, selected) == ("GPU 0", ["E1", "E3", "E4", "E5"])
    assert "top-4 experts E1, E3, E4 and E5" in q["stem"] and "$h = 4096$ in bf16" in q["stem"]
    remote = [e for e in selected if gpu_of[e] != home]
    h = 4096
    correct = all_to_all_bytes(len(remote), h, BF16)
    assert_single(
        q,
        correct,
        {
            "counted the local expert": all_to_all_bytes(len(selected), h, BF16),
            "forgot the combine": all_to_all_bytes(len(remote), h, BF16, combine=False),
            "bits counted as bytes": all_to_all_bytes(len(remote), h, BF16 * BITS_PER_BYTE),
        },
    )
    assert correct == 48 * KiB
    # "Send" alone would be the dispatch, a listed distractor: the stem asks for both directions.
    assert "cross between GPUs for this token in this layer, dispatch and combine together" in flat(q["stem"])
    # The explanation's aside: one copy per destination GPU saves one vector in the dispatch; summing E4's and
    # E5's outputs on GPU 2 before the combine saves one more.
    destinations = len({gpu_of[e] for e in remote})
    dispatch_saved = all_to_all_bytes(len(remote), h, BF16, combine=False) - all_to_all_bytes(
        destinations, h, BF16, combine=False
    )
    both = all_to_all_bytes(destinations, h, BF16)
    assert (dispatch_saved, both) == (8 * KiB, 32 * KiB)
    explanation = flat(q["explanation"])
    assert "= 8$ KiB in the dispatch" in explanation and "32 KiB in all instead of 48 KiB" in explanation


EXPERT_WEIGHTS = 3 * 7168 * 2048  # three matrices of 7168 x 2048 per expert


def expert_bytes_per_gpu(experts: int, ep: int, bytes_per_weight: int, layers: int = 1) -> int:
    assert experts % ep == 0
    return layers * (experts // ep) * EXPERT_WEIGHTS * bytes_per_weight


def test_expert_memory_per_gpu_is_experts_over_ep_times_params_times_bytes(bank: dict[str, Any]) -> None:
    q = question(bank, "expert-memory-per-gpu")
    for fact in ("$E = 256$", r"$7168 \times 2048$", r"$\mathrm{EP} = 32$", "fp8 (1 byte"):
        assert fact in q["stem"]
    correct = expert_bytes_per_gpu(256, 32, FP8)
    assert_single(
        q,
        correct,
        {
            "bf16 instead of fp8": expert_bytes_per_gpu(256, 32, BF16),
            "forgot to divide by EP": expert_bytes_per_gpu(256, 1, FP8),
            "bits counted as bytes": expert_bytes_per_gpu(256, 32, FP8 * BITS_PER_BYTE),
        },
    )
    assert correct == 336 * MiB
    assert f"= {58 * correct // MiB}$ MiB" in q["explanation"]  # 58 layers: 19488 MiB


def smallest_power_of_two_at_least(n: int) -> int:
    return 1 << (n - 1).bit_length()


def test_smallest_ep_degree_rounds_up_to_a_power_of_two_that_fits(bank: dict[str, Any]) -> None:
    q = question(bank, "smallest-ep-degree")
    layers, experts, budget = 58, 256, 48 * GiB
    assert "58 MoE layers" in q["stem"] and "at most 48 GiB" in q["stem"]
    total = expert_bytes_per_gpu(experts, 1, FP8, layers)
    assert total == 609 * GiB
    need = math.ceil(Fraction(total, budget))
    correct = smallest_power_of_two_at_least(need)
    assert expert_bytes_per_gpu(experts, correct, FP8, layers) <= budget
    assert expert_bytes_per_gpu(experts, correct // 2, FP8, layers) > budget
    bf16_total = expert_bytes_per_gpu(experts, 1, BF16, layers)
    assert_single(
        q,
        correct,
        {
            "not a divisor of 256": need,
            "floor instead of ceil": math.floor(Fraction(total, budget)),
            "bf16 instead of fp8": smallest_power_of_two_at_least(math.ceil(Fraction(bf16_total, budget))),
        },
    )
    assert (need, correct) == (13, 16) and experts % need != 0
    # The power-of-two premise holds only without replicated experts (the lecturer's review): with 4 redundant
    # expert slots, 13 GPUs hold 20 slots each and fit.
    assert "no expert is replicated" in flat(q["stem"])
    slots = experts + 4
    assert slots % need == 0 and layers * (slots // need) * EXPERT_WEIGHTS * FP8 <= budget
    assert round(Fraction(slots // need, experts) * 609, 1) == Fraction(476, 10)
    assert r"\frac{20}{256} \times 609 \approx 47.6$ GiB" in flat(q["explanation"])
    assert (256 + 32) // 32 == 9 and "$256 + 32 = 288$ expert slots on 32 GPUs, 9 per GPU" in flat(q["explanation"])
    assert total // 12 > budget  # the floor does not fit


def dispatch_volume(tokens: int, k: int, hidden: int, bytes_per_element: int) -> int:
    return tokens * k * hidden * bytes_per_element


def variants_of(qid: str) -> list[dict[str, Any]]:
    """A parameterised question's variants as the learners get them (issue 31), in the shape of ``question``, with
    the grouping of their numbers taken out (8,800 and LaTeX's 8{,}800 are 8800) so that the arithmetic below reads
    them; at least two, each checked with its own numbers."""
    from moe_lms import variants
    from moe_lms.loader import load_bank

    expanded = variants.expand(load_bank(BANK_DIR))

    def plain(text: str) -> str:
        return re.sub(r"(?<=\d),(?=\d{3})", "", text.replace("{,}", ""))

    found = [
        {
            "id": q.id,
            "kind": q.kind.value,
            "stem": plain(q.stem),
            "explanation": plain(q.explanation),
            "choices": [{"id": c.id, "text": plain(c.text), "correct": c.correct} for c in q.choices],
        }
        for q in expanded.questions
        if q.id.startswith(f"{qid}~")
    ]
    assert len(found) >= 2, qid
    return found


def test_top_k_scales_dispatch_and_combine_linearly() -> None:
    for q in variants_of("top-k-dispatch"):
        assert q["kind"] == "multiple"
        found = re.search(r"\$T = (\d+)\$ tokens per step, the hidden size is \$h = (\d+)\$ in bf16", flat(q["stem"]))
        assert found and "top-2 to top-8" in q["stem"], q["stem"]
        T, h = int(found[1]), int(found[2])
        v2, v8 = dispatch_volume(T, 2, h, BF16), dispatch_volume(T, 8, h, BF16)
        factor = Fraction(v8, v2)
        stated = {c["id"]: quantities(c["text"]) for c in q["choices"]}
        correct_ids = {c["id"] for c in q["choices"] if c["correct"]}
        claims_true = {
            "a": stated["a"] == [v2, v8],  # "grows from 32 MiB to 128 MiB"
            "b": stated["b"] == [factor],  # "the combine grows by the same factor, 4"
            "c": stated["c"] == [v8],  # "stays at 16 MiB": that is top-1, i.e. k forgotten
            "d": stated["d"] == [v2, v8],  # "from 256 MiB to 1024 MiB": bits counted as bytes
        }
        assert {cid for cid, true in claims_true.items() if true} == correct_ids == {"a", "b"}, q["id"]
        assert stated["c"] == [dispatch_volume(T, 1, h, BF16)]
        assert stated["d"] == [dispatch_volume(T, 2, h, BF16 * 8), dispatch_volume(T, 8, h, BF16 * 8)]


def test_the_local_share_statement_is_false_because_one_copy_in_ep_stays_local(bank: dict[str, Any]) -> None:
    q = question(bank, "local-share-true-false")
    assert q["kind"] == "true-false"
    ep, experts, k, h = 8, 64, 2, 4096
    assert r"$\mathrm{EP} = 8$" in q["stem"] and "$E = 64$" in q["stem"] and "$h = 4096$" in q["stem"]
    # Uniform routing: a selected expert is on the token's own GPU with probability (E/EP)/E = 1/EP.
    p_local = Fraction(experts // ep, experts)
    expected_remote = (1 - p_local) * all_to_all_bytes(k, h, BF16, combine=False)
    claimed = quantities(q["stem"].split("True or false:")[1])[-1]
    assert claimed == all_to_all_bytes(k, h, BF16, combine=False) == 16384
    assert expected_remote == 14336 != claimed
    assert [c["text"] for c in q["choices"] if c["correct"]] == ["False"]
    assert r"= 14336 \text{ B}" in q["explanation"]


def test_a_straggler_sets_the_step_time() -> None:
    for q in variants_of("straggler-step-time"):
        found = re.search(
            r"seven GPUs each hold (\d+) tokens for their experts, and one GPU holds (\d+) because .* takes (\d+) µs "
            "per token",
            flat(q["stem"]),
        )
        assert found and "8 GPUs" in q["stem"], q["stem"]
        tokens = [int(found[1])] * 7 + [int(found[2])]
        per_token = Fraction(int(found[3]), 10**6)
        assert_single(
            q,
            max(tokens) * per_token,
            {
                "ignored the straggler": tokens[0] * per_token,
                "mean instead of max": Fraction(sum(tokens), len(tokens)) * per_token,
                "sum instead of max": sum(tokens) * per_token,
            },
        )
        utilisation = Fraction(sum(tokens), len(tokens) * max(tokens))
        assert rf"\approx {float(utilisation):.2f}" in q["explanation"]


def test_the_diagram_is_referenced_with_alt_text_and_is_clean_svg(bank: dict[str, Any]) -> None:
    images = [(alt, src) for q in bank["questions"] for alt, src in re.findall(r"!\[([^\]]*)\]\(([^)]+)\)", q["stem"])]
    assert images and all(alt.strip() for alt, _ in images)
    for _, src in images:
        path = (BANK_DIR / src).resolve()
        assert path.parent == (BANK_DIR / "media").resolve() and path.suffix == ".svg"
        parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
        tree = etree.parse(str(path), parser)
        assert tree.docinfo.doctype == "" and tree.getroot().tag == "{http://www.w3.org/2000/svg}svg"
        assert not tree.xpath("//comment() | //processing-instruction()")
        for el in tree.iter():
            assert etree.QName(el).localname not in {"script", "foreignObject", "style", "image", "a", "use"}
            for name, value in el.attrib.items():
                assert not etree.QName(name).localname.startswith("on"), name
                assert etree.QName(name).localname != "href", name
                assert "http:" not in value and "url(" not in value, (name, value)


CODE_BLOCK = re.compile(r"```.*?```", re.S)
MATH_SPAN = re.compile(r"\$\$.*?\$\$|\$[^$]+?\$", re.S)
IMAGE_PATH = re.compile(r"!\[[^\]]*\]\(([^)]+)\)")


def string_paths(bank: dict[str, Any]) -> dict[str, str]:
    """Every learner-facing string of bank.yaml by its PO msgctxt (the order of moe_lms.model.strings)."""
    paths = {"title": bank["title"], "intro": bank["intro"]}
    paths.update({f"feedback/{k}": v for k, v in bank["feedback"].items()})
    for q in bank["questions"]:
        paths[f"{q['id']}/stem"] = q["stem"]
        paths[f"{q['id']}/explanation"] = q["explanation"]
        if "unit" in q:
            paths[f"{q['id']}/unit"] = q["unit"]
        for c in q["choices"]:
            if "text" in c:
                paths[f"{q['id']}/choices/{c['id']}/text"] = c["text"]
            paths[f"{q['id']}/choices/{c['id']}/explanation"] = c["explanation"]
    return paths


def kept_parts(text: str) -> tuple[list[str], list[str], list[str], list[str]]:
    """What a translation must keep byte-identical: code blocks, formulas, image paths, and the other numbers."""
    code = CODE_BLOCK.findall(text)
    prose = CODE_BLOCK.sub(" ", text)
    math_spans = MATH_SPAN.findall(prose)
    prose = MATH_SPAN.sub(" ", prose)
    images = IMAGE_PATH.findall(prose)
    numbers = re.findall(r"\d+(?:\.\d+)?", IMAGE_PATH.sub(" ", prose))
    return code, sorted(math_spans), images, sorted(numbers)


@pytest.mark.parametrize("locale", ["ur", "vi"])
def test_the_reviewed_translations_are_complete_and_keep_formulas_numbers_code_and_images(
    bank: dict[str, Any], locale: str
) -> None:
    from babel.messages.pofile import read_po

    with open(BANK_DIR / "locales" / f"{locale}.po", "rb") as f:
        catalog = read_po(f)
    sources = string_paths(bank)
    entries = {m.context: m for m in catalog if m.id}
    assert set(entries) == set(sources)
    for path, source in sources.items():
        m = entries[path]
        translated = m.string if isinstance(m.string, str) else ""
        assert m.id == source, f"{path}: stale msgid"
        assert translated, f"{path}: not translated"
        if translated == source:  # only a number or a unit that every locale keeps, e.g. "224 KiB", "16", "MiB"
            # (or, in a parameterised question, one placeholder with its unit: "{s * c / 1000} ms", issue 31)
            number = r"(\d+(\.\d+)?|\{[^{}]+\})"
            assert re.fullmatch(rf"({number} ?)?(KiB|MiB|GiB|ms)?", source), f"{path}: not translated"
        # Reviewed by an independent back-translation pass (REVIEW.md): no longer fuzzy, the draft: comment
        # replaced by one reviewed: comment that says how and with what outcome; a later change adds a reviewed:
        # line, or, written by someone else than its reviewer, is a draft again until its independent pass.
        drafts = [c for c in m.user_comments if c.startswith("draft:")]
        records = [c for c in m.user_comments if c.startswith("reviewed:")]
        if not records:  # a string added since (issue 30's units): a draft until its independent review
            assert m.fuzzy and len(drafts) == 1 and "awaiting an independent review" in drafts[0], path
            assert kept_parts(translated) == kept_parts(source), path
            continue
        # The first record is the pass of 2026-12-01 over the bank's drafts, or, for a string added since (issue 30's
        # units), the independent back-translation pass of 2026-12-05 that cleared its draft.
        first_passes = tuple(f"reviewed: independent back-translation pass {d}; " for d in ("2026-12-01", "2026-12-05"))
        assert records[0].startswith(first_passes), path
        assert all("review" in r and ("fixed:" in r or "matches" in r) for r in records[1:]), path
        if m.fuzzy:
            assert len(drafts) == 1 and "awaiting an independent review" in drafts[0], f"{path}: a draft of whom?"
        else:
            assert drafts == [], path
        assert kept_parts(translated) == kept_parts(source), path
    if locale == "ur":  # right-to-left Arabic script, apart from kept terms, units and formulas
        prose = " ".join(MATH_SPAN.sub(" ", CODE_BLOCK.sub(" ", str(m.string))) for m in entries.values())
        arabic = len(re.findall(r"[\u0600-\u06ff]", prose))
        latin = len(re.findall(r"[A-Za-z]", prose))
        assert arabic > 4 * latin


GLOSSARY_FILE = BANK_DIR / "glossary.yaml"


def mentions(source: str, form: str) -> bool:
    """The glossary convention's match: case-insensitive, on word boundaries, an English plural (-s/-es) too."""
    return re.search(rf"(?<!\w){re.escape(form)}(?:s|es)?(?!\w)", source, re.IGNORECASE) is not None


@pytest.mark.parametrize("locale", ["ur", "vi"])
def test_every_glossary_term_of_a_source_string_has_an_accepted_rendering_in_its_translation(
    bank: dict[str, Any], locale: str
) -> None:
    import unicodedata

    from babel.messages.pofile import read_po

    with open(GLOSSARY_FILE, encoding="utf-8") as f:
        terms = yaml.safe_load(f)["terms"]
    with open(BANK_DIR / "locales" / f"{locale}.po", "rb") as f:
        catalog = read_po(f)
    misses = []
    for m in catalog:
        if not m.id:
            continue
        translation = unicodedata.normalize("NFC", str(m.string)).casefold()
        for term in terms:
            rule = term[locale]
            for form in term["source"]:
                accepted = [form] if rule == "keep" else [rule["use"], *rule.get("also", [])]
                if mentions(str(m.id), form) and not any(
                    unicodedata.normalize("NFC", r).casefold() in translation for r in accepted
                ):
                    misses.append((m.context, form))
    assert misses == []


@pytest.mark.parametrize("locale", ["ur", "vi"])
def test_the_po_files_say_how_they_were_reviewed_and_carry_no_brace_format_flag(locale: str) -> None:
    # Babel guesses python-brace-format from LaTeX braces; the text is no Python format string, and Poedit or
    # msgfmt -c would check the braces as placeholders, so the reviewed files carry no such flag.
    text = (BANK_DIR / "locales" / f"{locale}.po").read_text(encoding="utf-8")
    assert "python-brace-format" not in text
    header = text.split('msgid ""', 1)[0]
    assert "# Reviewed 2026-12-01: all 81 entries" in header
    assert "translated back to English without reading the source" in header
