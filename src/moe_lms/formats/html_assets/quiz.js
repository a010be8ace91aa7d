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
    inputs(form).forEach(function (i) { i.closest(".choice").classList.remove("is-right", "is-wrong", "is-answer"); });
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
