/* moe-lms quiz page: draws each attempt's questions from the sections' pools, before quiz.js grades them.
   Without JavaScript every question of every pool stays on the page. "New attempt" keeps the attempt's score,
   draws anew from fresh copies of the questions, and runs the grading script again on them. */
(function () {
  "use strict";
  var doc = document;
  var root = doc.documentElement;
  var main = doc.getElementById("quiz");
  var sections = Array.prototype.slice.call(main.querySelectorAll("section.quiz-section"));
  var score = doc.getElementById("score");
  var attempts = doc.getElementById("attempts");
  var number = new Intl.NumberFormat(root.lang, { maximumFractionDigits: 2 });
  var percent = new Intl.NumberFormat(root.lang, { style: "percent", maximumFractionDigits: 0 });
  var allowed = Number(attempts.dataset.allowed);  /* 0: as many as the learner likes */
  var pools = sections.map(function (section) {
    return Array.prototype.slice.call(section.querySelectorAll("form.question")).map(function (form) {
      var pristine = form.cloneNode(true);  /* (a copy has no listeners: each attempt's forms are new) */
      form.remove();
      return pristine;
    });
  });
  var done = [];

  function fill(text, values) {
    return text.replace(/\{(\w+)\}/g, function (whole, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? values[name] : whole;
    });
  }

  /* k of the n indices 0..n-1, uniformly (a partial Fisher-Yates shuffle), in pool order unless shuffled. */
  function pick(n, k, shuffled) {
    var order = [];
    for (var i = 0; i < n; i++) { order.push(i); }
    for (var j = 0; j < k; j++) {
      var r = j + Math.floor(Math.random() * (n - j));
      var t = order[j]; order[j] = order[r]; order[r] = t;
    }
    var chosen = order.slice(0, k);
    return shuffled ? chosen : chosen.sort(function (a, b) { return a - b; });
  }

  function draw() {
    var forms = [];
    sections.forEach(function (section, s) {
      Array.prototype.slice.call(section.querySelectorAll("form.question")).forEach(function (f) { f.remove(); });
      var pool = pools[s];
      pick(pool.length, Number(section.dataset.draw), section.dataset.shuffle === "true").forEach(function (i) {
        var form = pool[i].cloneNode(true);
        section.append(form);
        forms.push(form);
      });
    });
    var total = 0;
    forms.forEach(function (form, k) {
      form.querySelector("h2").textContent = fill(main.dataset.questionOf, {
        n: number.format(k + 1), total: number.format(forms.length)
      });
      total += Number(form.dataset.points);
    });
    score.dataset.total = String(total);
    var bar = doc.querySelector(".progress progress");
    bar.max = forms.length;
    return forms;
  }

  function record(forms) {
    var earned = 0, total = Number(score.dataset.total);
    forms.forEach(function (f) { earned += Number(f.dataset.earned || 0); });
    done.push(fill(attempts.dataset.template, {
      n: number.format(done.length + 1), score: number.format(earned), total: number.format(total),
      percent: percent.format(total ? earned / total : 0)
    }));
    var list = attempts.querySelector("ol");
    var item = doc.createElement("li");
    item.textContent = done[done.length - 1];
    list.append(item);
    list.hidden = false;
  }

  var current = draw();
  var button = attempts.querySelector("button.new-attempt");
  function limit() {
    button.disabled = allowed > 0 && done.length + 1 >= allowed;
  }
  button.addEventListener("click", function () {
    record(current);
    current = draw();
    limit();
    score.hidden = true;
    var startOver = score.querySelector(".start-over");
    startOver.replaceWith(startOver.cloneNode(true));  /* (the grading script wires the fresh one) */
    var grader = doc.querySelector("script[data-grader]");  /* (after this script: found once the page is read) */
    var again = doc.createElement("script");
    again.dataset.grader = "";
    again.textContent = grader.textContent;
    grader.replaceWith(again);
    var first = current[0] && current[0].querySelector("fieldset input");
    if (first) { first.focus(); }
  });
  limit();
  attempts.hidden = false;
})();
