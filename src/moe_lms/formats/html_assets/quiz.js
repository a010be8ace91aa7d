/* moe-lms take-the-quiz page: grades each question in the browser; nothing leaves the page. */
(function () {
  "use strict";
  var doc = document;
  var root = doc.documentElement;
  root.classList.add("js");
  var forms = Array.prototype.slice.call(doc.querySelectorAll("form.question"));
  var templates = doc.getElementById("templates");
  var score = doc.getElementById("score");
  var progress = doc.querySelector(".progress");
  var number = new Intl.NumberFormat(root.lang, { maximumFractionDigits: 2 });
  var percent = new Intl.NumberFormat(root.lang, { style: "percent", maximumFractionDigits: 0 });

  function template(selector) {
    return templates.querySelector(selector).cloneNode(true);
  }

  function fill(text, values) {
    return text.replace(/\{(\w+)\}/g, function (whole, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? values[name] : whole;
    });
  }

  /* The page's decimal separator (vi ",", en "."), as its language writes numbers. */
  var decimalPoint = ".";
  try {
    new Intl.NumberFormat(root.lang).formatToParts(1.5).forEach(function (part) {
      if (part.type === "decimal") { decimalPoint = part.value; }
    });
  } catch (e) { /* an unknown language: "." */ }

  /* A typed number, as moe_lms.numeric.typed_number reads it: any Unicode decimal digits (Urdu ۴۶۹: a digit's
     value is its distance from the start of its run of ten), "." or U+066B or the locale's own separator as the
     decimal point (a "," only where the locale writes it so: vi 468,75), spaces between digit groups ignored.
     NaN when the text is no number. */
  function typedNumber(text) {
    var out = "";
    Array.from(text.normalize("NFKC").trim()).forEach(function (ch) {
      if (/\p{Nd}/u.test(ch)) {
        var code = ch.codePointAt(0), start = code;
        while (/\p{Nd}/u.test(String.fromCodePoint(start - 1))) { start -= 1; }
        out += String((code - start) % 10);
      } else if (/[\u2212\u2012\u2013]/.test(ch)) {
        out += "-";
      } else if (/[\s\u00a0\u202f\u2009_'\u066c]/.test(ch)) {
        return;
      } else if (ch === "\u066b" || (ch === decimalPoint && ch !== ".")) {
        out += ".";
      } else {
        out += ch;
      }
    });
    if (!/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(out)) { return NaN; }
    var n = Number(out);
    return isFinite(n) ? n : NaN;
  }

  /* The key's entry whose range (value ± tolerance) holds x: the bank's ranges never overlap. */
  function matching(form, x) {
    var entries = Array.prototype.slice.call(form.querySelectorAll(".key-list li"));
    return entries.filter(function (li) {
      var v = Number(li.dataset.value), t = Number(li.dataset.tolerance);
      return Math.abs(x - v) <= t + 1e-9 * Math.max(1, Math.abs(v));
    })[0] || null;
  }

  /* A line "label: value" and the entry's explanation under it. */
  function valueBlock(labelName, value, entry, className) {
    var block = doc.createElement("div");
    block.className = className;
    var label = template('[data-label="' + labelName + '"]');
    label.removeAttribute("data-label");
    label.className = "chosen-label";
    var heading = doc.createElement("p");
    heading.append(label, ": ", value);
    block.append(heading);
    if (entry) {
      block.dataset.choice = entry.dataset.choice;
      block.append(entry.querySelector(".choice-explanation").cloneNode(true));
    }
    return block;
  }

  /* Grade a typed number: full points inside a right value's range, else none; show the explanation of the
     value whose range holds it (an anticipated wrong value's, or the right one's), then the right answer. */
  function checkNumeric(form) {
    var box = form.querySelector(".number-box");
    var nudge = form.querySelector(".nudge");
    clearMarks(form);
    if (!box.value.trim()) {
      nudge.textContent = template('[data-label="choose-first"]').textContent;
      box.focus();
      return;
    }
    var typed = typedNumber(box.value);
    if (isNaN(typed)) {
      nudge.textContent = form.dataset.notANumber;
      box.setAttribute("aria-invalid", "true");
      box.focus();
      return;
    }
    nudge.textContent = "";
    var entry = matching(form, typed);
    var right = entry !== null && entry.dataset.correct === "true";
    var verdict = right ? "correct" : "incorrect";
    var first = form.dataset.state !== "checked";
    form.dataset.state = "checked";
    if (first) {
      form.dataset.earned = String(right ? Number(form.dataset.points) : 0);
    }
    box.classList.add(right ? "is-right" : "is-wrong");
    var result = form.querySelector(".result");
    result.className = "result " + verdict;
    var verdictNode = template('[data-verdict="' + verdict + '"]');
    verdictNode.removeAttribute("data-verdict");
    result.append(verdictNode);
    var shown = doc.createElement("bdi");
    shown.dir = "ltr";
    shown.className = "value";
    shown.textContent = box.value.trim();
    result.append(valueBlock("your-answer", shown, entry, "chosen " + (right ? "right" : "wrong")));
    if (!right) {
      form.querySelectorAll('.key-list li[data-correct="true"]').forEach(function (li) {
        result.append(valueBlock("right-answer", li.querySelector(".value").cloneNode(true), li, "answer right"));
      });
    }
    result.append(form.querySelector(".general").cloneNode(true));
    result.hidden = false;
    form.querySelector("details.key").hidden = false;
    result.focus();
    var done = updateProgress();
    if (first && done === forms.length) {
      showScore();
    }
  }

  function inputs(form) {
    return Array.prototype.slice.call(form.querySelectorAll("fieldset input"));
  }

  /* The share of the points earned: single answer all or nothing; multiple answer +1/right for each right
     choice, -1/wrong for each wrong one, never below zero (Moodle's usual weights). */
  function fraction(form) {
    var chosen = inputs(form).filter(function (i) { return i.checked; });
    if (form.dataset.kind !== "multiple") {
      return chosen.length === 1 && chosen[0].dataset.correct === "true" ? 1 : 0;
    }
    var right = Number(form.dataset.right), wrong = Number(form.dataset.wrong), total = 0;
    chosen.forEach(function (i) {
      total += i.dataset.correct === "true" ? 1 / right : -1 / (wrong || 1);
    });
    return Math.max(0, Math.min(1, Math.round(total * 1e6) / 1e6));
  }

  function updateProgress() {
    var done = forms.filter(function (f) { return f.dataset.state === "checked"; }).length;
    progress.querySelector("progress").value = done;
    progress.querySelector(".progress-text").textContent = fill(progress.dataset.template, {
      done: number.format(done), total: number.format(forms.length)
    });
    return done;
  }

  function showScore() {
    var earned = 0, total = Number(score.dataset.total);
    forms.forEach(function (f) { earned += Number(f.dataset.earned); });
    score.querySelector(".score-text").textContent = fill(score.dataset.template, {
      score: number.format(earned), total: number.format(total), percent: percent.format(total ? earned / total : 0)
    });
    score.hidden = false;
    score.focus();
  }

  function clearMarks(form) {
    inputs(form).forEach(function (i) {
      (i.closest(".choice") || i).classList.remove("is-right", "is-wrong", "is-answer");
      i.removeAttribute("aria-invalid");
    });
    var result = form.querySelector(".result");
    result.replaceChildren();
    result.hidden = true;
  }

  /* One choice and its explanation under a label ("Your choice", "Right answer"). The choice sits in a <bdi>,
     so a line mixing the page's language and a fallback's (Urdu and English) reads in order. */
  function explained(form, input, labelName, className) {
    var entry = form.querySelector('.key-list li[data-choice="' + input.value + '"]');
    var block = doc.createElement("div");
    block.className = className;
    block.dataset.choice = input.value;
    var label = template('[data-label="' + labelName + '"]');
    label.removeAttribute("data-label");
    label.className = "chosen-label";
    var choice = doc.createElement("bdi");
    choice.append(entry.querySelector(".letter").cloneNode(true), " ", entry.querySelector(".choice-text").cloneNode(true));
    var heading = doc.createElement("p");
    heading.append(label, ": ", choice);
    block.append(heading, entry.querySelector(".choice-explanation").cloneNode(true));
    return block;
  }

  /* Grade the chosen answer and explain each chosen choice. A learner may change the answer and check
     again to learn; the score keeps each question's first check. */
  function check(form) {
    if (form.dataset.kind === "numerical") {
      checkNumeric(form);
      return;
    }
    var boxes = inputs(form);
    var chosen = boxes.filter(function (i) { return i.checked; });
    var nudge = form.querySelector(".nudge");
    clearMarks(form);
    if (!chosen.length) {
      nudge.textContent = template('[data-label="choose-first"]').textContent;
      boxes[0].focus();
      return;
    }
    nudge.textContent = "";
    var share = fraction(form);
    var verdict = share === 1 ? "correct" : share === 0 ? "incorrect" : "partially_correct";
    var first = form.dataset.state !== "checked";
    form.dataset.state = "checked";
    if (first) {
      form.dataset.earned = String(share * Number(form.dataset.points));
    }
    chosen.forEach(function (i) {
      i.closest(".choice").classList.add(i.dataset.correct === "true" ? "is-right" : "is-wrong");
    });

    var result = form.querySelector(".result");
    result.className = "result " + verdict;
    var verdictNode = template('[data-verdict="' + verdict + '"]');
    verdictNode.removeAttribute("data-verdict");
    result.append(verdictNode);
    chosen.forEach(function (i) {
      result.append(explained(form, i, "your-choice", "chosen " + (i.dataset.correct === "true" ? "right" : "wrong")));
    });
    /* After a wrong or partly wrong answer, the right choices the learner missed, each with its explanation. */
    if (verdict !== "correct") {
      boxes.filter(function (i) { return i.dataset.correct === "true" && !i.checked; }).forEach(function (i) {
        i.closest(".choice").classList.add("is-answer");
        result.append(explained(form, i, "right-answer", "answer right"));
      });
    }
    result.append(form.querySelector(".general").cloneNode(true));
    result.hidden = false;
    form.querySelector("details.key").hidden = false;
    result.focus();
    var done = updateProgress();
    if (first && done === forms.length) {
      showScore();
    }
  }

  function reset() {
    forms.forEach(function (form) {
      form.reset();
      delete form.dataset.state;
      delete form.dataset.earned;
      clearMarks(form);
      form.querySelector(".nudge").textContent = "";
      var key = form.querySelector("details.key");
      key.open = false;
      key.hidden = true;
    });
    score.hidden = true;
    updateProgress();
    inputs(forms[0])[0].focus();
  }

  forms.forEach(function (form) {
    form.querySelector(".actions").hidden = false;
    form.querySelector("details.key").hidden = true;
    form.addEventListener("change", function () { clearMarks(form); });
    form.addEventListener("input", function (event) {
      if (event.target.classList.contains("number-box")) { clearMarks(form); }
    });
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      check(form);
    });
    /* Enter on a choice checks the question, for checkboxes as for radio buttons. */
    form.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && (event.target.type === "checkbox" || event.target.type === "radio")) {
        event.preventDefault();
        check(form);
      }
    });
  });
  score.querySelector(".start-over").addEventListener("click", reset);
  progress.hidden = false;
  updateProgress();
})();
