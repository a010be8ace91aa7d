<?php
// moe-lms test driver for a real Moodle (4.5): import a file through Moodle's own importer, then take every choice
// of every imported question through Moodle's question engine, and print what Moodle stored and showed as JSON.
//
//   php moodle_questions.php MOODLE_DIR import xml|gift FILE
//   php moodle_questions.php MOODLE_DIR restore FILE.imscc
//
// import: a new course, the file through qformat_xml / qformat_gift (question/format/*/format.php) into the course's
// question bank, with the categories the file names (as the Import page does with "Get category from file").
// restore: a new course restored from the cartridge by Moodle's restore (backup/util/ui/restore_ui... without the
// UI: restore_controller), which converts it first with backup/converter/imscc11 (backup/cc/cc112moodle.php). That
// converter loads its templates by a path relative to backup/ (backup/cc/includes/constants.php SHEET_*) and keeps
// static state (cc112moodle::$instances, ::$manifest) between conversions: one conversion per PHP process.
//
// For each question: name, idnumber, qtype, the stored texts (HTML as Moodle stored it), each answer's text, fraction
// and feedback, the overall feedback messages; then "graded": for each choice alone (and, with several correct
// answers, for the set of correct ones) the mark Moodle's question engine gave and the feedback its renderer showed
// (the chosen answer's feedback, the overall message, the general feedback, and the whole question's HTML), with
// every feedback shown. A numerical (or short-answer) question is graded for each typed answer MOE_TYPED (a JSON
// file: idnumber => [typed text, …]) lists for its idnumber, else for each of its answers and 123456: the mark, the
// state and the feedback shown for each.
//
//   php moodle_questions.php MOODLE_DIR css boost
//
// css: the theme's stylesheet as Moodle serves it (theme_config::get_css_content), to lay the questions out as a
// student's browser does.
// Everything goes to stdout as one JSON document; Moodle's own progress output goes to stderr.

define('CLI_SCRIPT', true);
// What the JSON follows on stdout (Moodle's importers print as they go, and some of it escapes output buffering).
const MOE_MARK = '=== moe-lms moodle_questions.php JSON ===';

if ($argc < 4) {
    fwrite(STDERR, "usage: moodle_questions.php MOODLE_DIR import xml|gift FILE | restore FILE.imscc\n");
    exit(2);
}
$moodledir = $argv[1];
$action = $argv[2];
$file = realpath($argv[$argc - 1]);  // (before config.php: Moodle's set-up changes the working directory)
require($moodledir . '/config.php');
require_once($CFG->libdir . '/clilib.php');
require_once($CFG->dirroot . '/course/lib.php');
require_once($CFG->dirroot . '/question/engine/lib.php');
require_once($CFG->dirroot . '/question/editlib.php');
require_once($CFG->dirroot . '/question/format.php');

\core\session\manager::set_user(get_admin());
$PAGE->set_url('/');
$PAGE->set_context(context_system::instance());

/** A course of its own for each run, so nothing depends on what earlier runs left. */
function moe_new_course(): stdClass {
    $name = 'moe-' . str_replace('.', '', uniqid('', true));
    return create_course((object) ['fullname' => $name, 'shortname' => $name, 'category' => 1]);
}

/** Run $fn with Moodle's output (notifications, progress) on stderr: stdout carries the JSON alone. */
function moe_quietly(callable $fn) {
    ob_start();
    try {
        return $fn();
    } finally {
        fwrite(STDERR, ob_get_clean());
    }
}

function moe_import(string $format, string $file): array {
    global $CFG;
    $course = moe_new_course();
    $context = context_course::instance($course->id);
    $category = question_make_default_categories([$context]);
    require_once($CFG->dirroot . "/question/format/{$format}/format.php");
    $class = "qformat_{$format}";
    $qformat = new $class();
    $contexts = new core_question\local\bank\question_edit_contexts($context);
    $qformat->setCategory($category);
    $qformat->setContexts($contexts->having_one_edit_tab_cap('import'));
    $qformat->setCourse($course);
    $qformat->setFilename($file);
    $qformat->setRealfilename(basename($file));
    $qformat->setMatchgrades('error');
    $qformat->setCatfromfile(true);
    $qformat->setContextfromfile(true);
    $qformat->setStoponerror(true);
    $ok = moe_quietly(fn() => $qformat->importpreprocess() && $qformat->importprocess() && $qformat->importpostprocess());
    if (!$ok) {
        throw new moodle_exception('import failed: ' . $file);
    }
    return ['course' => $course->id, 'questions' => array_map('moe_question', $qformat->questionids)];
}

function moe_restore(string $file): array {
    global $CFG, $DB, $USER;
    require_once($CFG->dirroot . '/backup/util/includes/restore_includes.php');
    $folder = 'moe-' . str_replace('.', '', uniqid('', true));
    $path = make_backup_temp_directory($folder);
    if (!get_file_packer('application/vnd.moodle.backup')->extract_to_pathname($file, $path)) {
        throw new moodle_exception('cannot unzip ' . $file);
    }
    $course = moe_new_course();
    chdir($CFG->dirroot . '/backup');  // the CC converter's templates: 'cc/sheets/…' (backup/cc/includes/constants.php)
    moe_quietly(function () use ($folder, $course, $USER) {
        $rc = new restore_controller($folder, $course->id, backup::INTERACTIVE_NO, backup::MODE_GENERAL, $USER->id,
            backup::TARGET_EXISTING_DELETING);
        if ($rc->get_status() == backup::STATUS_REQUIRE_CONV) {
            $rc->convert();
        }
        if (!$rc->execute_precheck()) {
            $results = $rc->get_precheck_results();
            if (!empty($results['errors'])) {
                throw new moodle_exception('restore precheck: ' . json_encode($results));
            }
        }
        $rc->execute_plan();
        $rc->destroy();
    });
    $quizzes = [];
    foreach ($DB->get_records('quiz', ['course' => $course->id], 'id') as $quiz) {
        $slots = $DB->get_records_sql(
            "SELECT qs.slot, qs.maxmark, q.id AS questionid
               FROM {quiz_slots} qs
               JOIN {question_references} qr ON qr.itemid = qs.id AND qr.component = 'mod_quiz'
                    AND qr.questionarea = 'slot'
               JOIN {question_versions} qv ON qv.questionbankentryid = qr.questionbankentryid
               JOIN {question} q ON q.id = qv.questionid
              WHERE qs.quizid = ? ORDER BY qs.slot", [$quiz->id]);
        $quizzes[] = [
            'name' => $quiz->name,
            'sumgrades' => (float) $quiz->sumgrades,
            'grade' => (float) $quiz->grade,
            'reviewoptions' => [
                'attempt' => (int) $quiz->reviewattempt,
                'correctness' => (int) $quiz->reviewcorrectness,
                'specificfeedback' => (int) $quiz->reviewspecificfeedback,
                'generalfeedback' => (int) $quiz->reviewgeneralfeedback,
            ],
            'slots' => array_values(array_map(fn($s) => ['maxmark' => (float) $s->maxmark,
                'question' => moe_question($s->questionid)], $slots)),
        ];
    }
    $context = context_course::instance($course->id);
    $bank = $DB->get_fieldset_sql(
        "SELECT q.id FROM {question} q
           JOIN {question_versions} qv ON qv.questionid = q.id
           JOIN {question_bank_entries} qbe ON qbe.id = qv.questionbankentryid
           JOIN {question_categories} qc ON qc.id = qbe.questioncategoryid
          WHERE qc.contextid = ? AND q.parent = 0 ORDER BY q.id", [$context->id]);
    // The cartridge's files land in the course's legacy files (backup/converter/moodle1: course_files), which
    // restored text links to as …/file.php/<course id>/<path>.
    $files = [];
    foreach (get_file_storage()->get_area_files($context->id, 'course', 'legacy', 0, 'filepath, filename', false) as $f) {
        $files[] = ltrim($f->get_filepath(), '/') . $f->get_filename();
    }
    return ['course' => $course->id, 'quizzes' => $quizzes, 'files' => $files,
        'bank' => array_map('moe_question', $bank)];
}

/** What Moodle stored for one question, and what its engine made of each choice. */
function moe_question($id): array {
    $question = question_bank::load_question($id);
    $answers = [];
    if ($question instanceof qtype_truefalse_question) {  // (its answers are Moodle's own True and False)
        $choices = [$question->trueanswerid, $question->falseanswerid];
        $answers[] = ['text' => get_string('true', 'qtype_truefalse'), 'fraction' => $question->rightanswer ? 1.0 : 0.0,
            'feedback' => $question->truefeedback];
        $answers[] = ['text' => get_string('false', 'qtype_truefalse'), 'fraction' => $question->rightanswer ? 0.0 : 1.0,
            'feedback' => $question->falsefeedback];
    } else if (isset($question->answers)) {
        $choices = array_keys($question->answers);
        foreach ($question->answers as $answer) {
            $answers[] = ['text' => $answer->answer, 'fraction' => (float) $answer->fraction,
                'feedback' => $answer->feedback]
                + (property_exists($answer, 'tolerance') ? ['tolerance' => (float) $answer->tolerance] : []);
        }
    } else {  // (not a choice question: a quiz's random slot, a description)
        return ['id' => (int) $id, 'name' => $question->name, 'qtype' => $question->get_type_name()];
    }
    $found = [
        'id' => (int) $id,
        'name' => $question->name,
        'idnumber' => $question->idnumber,
        'qtype' => $question->get_type_name(),
        'questiontext' => $question->questiontext,
        'generalfeedback' => $question->generalfeedback,
        'defaultmark' => (float) $question->defaultmark,
        'single' => property_exists($question, 'layout') ? !($question instanceof qtype_multichoice_multi_question) : true,
        'answers' => $answers,
        'correctfeedback' => $question->correctfeedback ?? null,
        'incorrectfeedback' => $question->incorrectfeedback ?? null,
        'graded' => [],
    ];
    if ($question instanceof qtype_numerical_question || $question instanceof qtype_shortanswer_question) {
        if ($question instanceof qtype_numerical_question) {
            $found['units'] = array_keys($question->ap->get_unit_options() ?: []);
        }
        // What MOE_TYPED lists for it, else each of its answers as written (but a catch-all *) and one no answer is.
        $typed = moe_typed()[$question->idnumber] ?? array_merge(
            array_values(array_filter(array_map(fn($a) => (string) $a->answer, $question->answers), fn($t) => $t !== '*')),
            ['123456']);
        foreach ($typed as $text) {
            $found['graded'][] = ['typed' => $text] + moe_respond($question->id, ['answer' => $text]);
        }
        return $found;
    }
    $sets = array_map(fn($a) => [$a], $choices);
    if ($question instanceof qtype_multichoice_multi_question) {
        $correct = array_values(array_filter($choices, fn($a) => $question->answers[$a]->fraction > 0));
        if (count($correct) > 1) {
            $sets[] = $correct;
        }
    }
    foreach ($sets as $set) {
        $found['graded'][] = moe_answer($question->id, $set, $choices);
    }
    return $found;
}

/** What MOE_TYPED lists to type into each numerical question, by idnumber. */
function moe_typed(): array {
    $path = getenv('MOE_TYPED');
    return $path ? json_decode(file_get_contents($path), true) : [];
}

/** One attempt at question $id with this response: mark, fraction, state and what was shown. */
function moe_respond($id, array $response): array {
    $question = question_bank::load_question($id);
    $quba = question_engine::make_questions_usage_by_activity('core_question_preview', context_system::instance());
    $quba->set_preferred_behaviour('deferredfeedback');
    $slot = $quba->add_question($question, $question->defaultmark);
    $quba->start_question($slot);
    $quba->process_action($slot, $response);
    $quba->finish_all_questions();
    return moe_shown($quba, $slot);
}

/** One attempt at question $id choosing the answers $chosen (ids among $choices, the answers in stored order):
 * mark, fraction and what was shown. */
function moe_answer($id, array $chosen, array $choices): array {
    $question = question_bank::load_question($id);
    $quba = question_engine::make_questions_usage_by_activity('core_question_preview', context_system::instance());
    $quba->set_preferred_behaviour('deferredfeedback');
    $slot = $quba->add_question($question, $question->defaultmark);
    $quba->start_question($slot);
    $qa = $quba->get_question_attempt($slot);
    $attempted = $qa->get_question();
    if ($attempted instanceof qtype_truefalse_question) {
        $chosenid = $chosen[0];
        $response = ['answer' => $chosenid == $attempted->trueanswerid ? 1 : 0];
    } else {
        $order = $attempted->get_order($qa);
        $response = [];
        foreach ($order as $position => $answerid) {
            if ($attempted instanceof qtype_multichoice_multi_question) {
                $response['choice' . $position] = in_array($answerid, $chosen) ? 1 : 0;
            } else if (in_array($answerid, $chosen)) {
                $response['answer'] = $position;
            }
        }
    }
    $quba->process_action($slot, $response);
    $quba->finish_all_questions();
    return ['chosen' => array_values(array_map(fn($a) => array_search($a, $choices), $chosen))]
        + moe_shown($quba, $slot);
}

/** The mark, fraction and state of a finished attempt, and the feedback its renderer showed. */
function moe_shown(question_usage_by_activity $quba, int $slot): array {
    $qa = $quba->get_question_attempt($slot);
    $options = new question_display_options();
    $options->marks = question_display_options::MARK_AND_MAX;
    $options->correctness = question_display_options::VISIBLE;
    $options->feedback = question_display_options::VISIBLE;
    $options->numpartscorrect = question_display_options::VISIBLE;
    $options->generalfeedback = question_display_options::VISIBLE;
    $options->rightanswer = question_display_options::VISIBLE;
    $html = $quba->render_question($slot, $options);
    $dom = new DOMDocument();
    @$dom->loadHTML('<?xml encoding="utf-8"?><div>' . $html . '</div>');
    $xpath = new DOMXPath($dom);
    $pick = function (string $query) use ($xpath, $dom): array {
        $found = [];
        foreach ($xpath->query($query) as $node) {
            $found[] = $dom->saveHTML($node);
        }
        return $found;
    };
    $has = "contains(concat(' ', normalize-space(@class), ' '), ' %s ')";
    return [
        'mark' => $qa->get_mark(),
        'fraction' => $qa->get_fraction(),
        'state' => (string) $qa->get_state(),
        'choice_feedback' => $pick("//*[" . sprintf($has, 'answer') . "]//*[" . sprintf($has, 'specificfeedback') . "]"),
        'outcome_feedback' => $pick("//*[" . sprintf($has, 'outcome') . "]//*[" . sprintf($has, 'specificfeedback') . "]"),
        'general_feedback' => $pick("//*[" . sprintf($has, 'generalfeedback') . "]"),
        'html' => $html,  // (the whole question as the review page shows it: what a student reads)
    ];
}

try {
    if ($action === 'import' && $argc === 5 && in_array($argv[3], ['xml', 'gift'], true)) {
        $result = moe_import($argv[3], $file);
    } else if ($action === 'restore' && $argc === 4) {
        $result = moe_restore($file);
    } else if ($action === 'css' && $argc === 4) {
        echo theme_config::load(clean_param($argv[3], PARAM_THEME))->get_css_content();
        exit(0);
    } else {
        fwrite(STDERR, "unknown action\n");
        exit(2);
    }
} catch (Throwable $e) {
    fwrite(STDERR, get_class($e) . ': ' . $e->getMessage() . "\n" . $e->getTraceAsString() . "\n");
    exit(1);
}
echo "\n", MOE_MARK, "\n", json_encode($result, JSON_PRETTY_PRINT | JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES), "\n";
