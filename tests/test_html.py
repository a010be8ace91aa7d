"""The take-the-quiz page as a document: self-contained, accessible markup, languages marked, deterministic."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import lxml.html
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from lxml.html import HtmlElement

from moe_lms.cli import main
from moe_lms.formats import ExportOptions, get
from moe_lms.formats.html import render
from moe_lms.loader import save_bank
from moe_lms.model import Bank

from .sample_bank import sample_bank
from .strategies import banks

HTML = get("html")


def page(bank: Bank, locale: str = "en", siblings: tuple[str, ...] = ()) -> HtmlElement:
    return lxml.html.document_fromstring(render(bank, locale, siblings=siblings))


def test_the_page_is_one_file_that_fetches_nothing() -> None:
    doc = page(sample_bank())
    assert doc.xpath("//link") == []
    assert doc.xpath("//script[@src]") == []
    assert doc.xpath("//*[@src]") == []
    styles = " ".join(s.text for s in doc.xpath("//style"))
    assert "@font-face" not in styles and "url(" not in styles and "@import" not in styles


def test_a_content_security_policy_allows_only_the_pages_own_script_and_style() -> None:
    doc = page(sample_bank())
    [policy] = doc.xpath("//meta[@http-equiv='Content-Security-Policy']/@content")
    [script] = doc.xpath("//script")
    [style] = doc.xpath("//style")
    digest = base64.b64encode(hashlib.sha256(script.text.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in policy
    assert "default-src 'none'" in policy
    assert "sha256-" in policy.split("style-src")[1]
    assert style.text


def test_bank_html_cannot_bring_a_script_of_its_own() -> None:
    bank = sample_bank(intro='Hi <script>alert(1)</script><img src="x" onerror="alert(2)">')
    doc = page(bank)
    assert len(doc.xpath("//script")) == 1
    assert doc.xpath("//@onerror") == []


def test_single_answer_questions_are_radio_buttons_and_multiple_answer_ones_checkboxes_each_with_a_label() -> None:
    doc = page(sample_bank())
    assert {i.get("type") for i in doc.xpath("//form[@id='q-ep-distributes']//input")} == {"radio"}
    assert {i.get("type") for i in doc.xpath("//form[@id='q-ep-costs']//input")} == {"checkbox"}
    for box in doc.xpath("//input"):
        assert doc.xpath(f"//label[@for='{box.get('id')}']"), box.get("id")


def test_each_choice_group_is_named_by_its_question_and_stem() -> None:
    doc = page(sample_bank())
    [fieldset] = doc.xpath("//form[@id='q-ep-distributes']//fieldset")
    for ref in fieldset.get("aria-labelledby").split():
        assert doc.get_element_by_id(ref) is not None


def test_without_javascript_every_answer_and_explanation_is_in_a_details_element() -> None:
    doc = page(sample_bank())
    [key] = doc.xpath("//form[@id='q-ep-distributes']//details[@class='key']")
    text = key.text_content()
    assert "That is data parallelism, not expert parallelism." in text
    assert "Each GPU hosts a subset of the experts." in text
    assert "Expert parallelism shards the experts" in text
    assert key.xpath(".//li[@class='right']/@data-choice") == ["b"]
    # Things only the script can use start hidden, so a page without it shows none of them.
    assert all(e.get("hidden") is not None for e in doc.xpath("//*[@class='actions' or @class='result']"))


def test_title_and_intro_come_from_the_bank_in_the_pages_locale() -> None:
    doc = page(sample_bank(), "ur")
    assert doc.findtext(".//title") == "ایم او ای سروِنگ کے لیے ماہرین کی متوازیت"
    assert doc.xpath("string(//h1)") == "ایم او ای سروِنگ کے لیے ماہرین کی متوازیت"
    assert "جوابات اور وضاحتیں" in doc.xpath("string(//*[contains(@class, 'intro')])")


def test_urdu_pages_are_right_to_left_with_a_nastaliq_font_stack() -> None:
    doc = page(sample_bank(), "ur")
    assert (doc.get("lang"), doc.get("dir")) == ("ur", "rtl")
    assert '"Noto Nastaliq Urdu"' in doc.findtext(".//style")
    assert (page(sample_bank(), "vi").get("lang"), page(sample_bank(), "vi").get("dir")) == ("vi", "ltr")


def test_text_that_falls_back_to_the_source_says_its_real_language_and_direction() -> None:
    doc = page(sample_bank(), "ur")
    [explanation] = doc.xpath(
        "//form[@id='q-ep-distributes']//li[@data-choice='c']//div[contains(@class, 'choice-explanation')]"
    )
    assert (explanation.get("lang"), explanation.get("dir")) == ("en", "ltr")
    assert "fallback" in explanation.get("class")
    translated = doc.xpath(
        "//form[@id='q-ep-distributes']//li[@data-choice='b']//div[contains(@class, 'choice-explanation')]"
    )[0]
    assert translated.get("lang") is None  # in the page's language
    assert "انگریزی" in doc.xpath("string(//footer)")  # "English", in Urdu


def test_a_locale_without_page_words_of_its_own_shows_english_ones_marked_as_english() -> None:
    bank = sample_bank(target_locales=("sw",), translations={})
    doc = page(bank, "sw")
    [button] = doc.xpath("//form[@id='q-ep-distributes']//button/span")
    assert (button.text, button.get("lang")) == ("Check", "en")


def test_the_language_switcher_links_sibling_pages_in_bank_order_and_marks_the_current_one() -> None:
    doc = lxml.html.document_fromstring(HTML.dump(sample_bank(), ExportOptions(("ur", "en", "vi"))))
    links = doc.xpath("//nav[@class='languages']//a")
    assert [a.get("href") for a in links] == ["sample-quiz.en.html", "sample-quiz.ur.html", "sample-quiz.vi.html"]
    assert [a.get("aria-current") for a in links] == [None, "page", None]
    assert [a.get("lang") for a in links] == ["en", "ur", "vi"]


def test_a_single_locale_page_has_no_language_switcher() -> None:
    doc = lxml.html.document_fromstring(HTML.dump(sample_bank(), ExportOptions(("vi",))))
    assert doc.xpath("//nav") == []


def test_the_page_is_byte_identical_each_time() -> None:
    assert render(sample_bank(), "ur", siblings=("en", "ur")) == render(sample_bank(), "ur", siblings=("en", "ur"))


def test_export_html_writes_the_source_locale_page_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save_bank(sample_bank(), tmp_path / "bank")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["export", "--format", "html", "bank"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert lxml.html.parse(str(tmp_path / "sample-quiz.en.html")).getroot().get("lang") == "en"


def test_export_html_in_one_locale_to_a_named_file(tmp_path: Path) -> None:
    save_bank(sample_bank(), tmp_path / "bank")
    target = tmp_path / "quiz.html"
    result = CliRunner().invoke(
        main, ["export", "--format", "html", str(tmp_path / "bank"), "--locale", "ur", "-o", str(target)]
    )
    assert result.exit_code == 0, result.output
    assert lxml.html.parse(str(target)).getroot().get("dir") == "rtl"


@settings(max_examples=40, deadline=None)
@given(banks())
def test_any_bank_makes_a_page_per_locale_with_one_labelled_input_per_choice(bank: Bank) -> None:
    for locale in bank.locales:
        doc = page(bank, locale, siblings=bank.locales)
        assert doc.get("lang") == locale.replace("_", "-")
        assert doc.get("dir") == ("rtl" if locale in ("ur", "ar") else "ltr")
        assert len(doc.xpath("//fieldset//input")) == sum(len(q.choices) for q in bank.questions)
        assert len(doc.xpath("//script")) == 1
        assert len(doc.xpath("//ol[@class='key-list']/li")) == sum(len(q.choices) for q in bank.questions)
