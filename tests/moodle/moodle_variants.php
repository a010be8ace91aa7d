<?php
// moe-lms test driver for per-student variants (issue 31) in a real Moodle (4.5): import a Moodle XML file whose
// parameterised question is a category of its variants, make a quiz whose one slot is a random question from that
// category (what a teacher adds with "a random question"), and let several students attempt it through the quiz
// engine (mod/quiz locallib: quiz_create_attempt, quiz_start_new_attempt, quiz_attempt::process_submitted_actions,
// process_finish, as mod/quiz/tests/attempt_walkthrough_test.php does).
//
//   php moodle_variants.php MOODLE_DIR CATEGORY_IDNUMBER ATTEMPTS CHOICES.json FILE.xml
//
// CHOICES.json: {"<question idnumber>": ["<answer text for even attempts>", "<answer text for odd attempts>"]}.
// For each attempt: the drawn question (idnumber, text), the answer chosen, the mark the engine gave, and the
// feedback the review shows (the chosen answer's feedback and the general feedback), as JSON on stdout.

define('CLI_SCRIPT', true);
const MOE_MARK = '=== moe-lms moodle_variants.php JSON ===';

if ($argc !== 6) {
    fwrite(STDERR, "usage: moodle_variants.php MOODLE_DIR CATEGORY_IDNUMBER ATTEMPTS CHOICES.json FILE.xml\n");
    exit(2);
}
[$moodledir, $categoryidnumber, $attempts, $choicesfile, $file] = array_slice($argv, 1);
$file = realpath($file);
$choices = json_decode(file_get_contents($choicesfile), true);
require($moodledir . '/config.php');
require_once($CFG->libdir . '/clilib.php');
require_once($CFG->dirroot . '/course/lib.php');
require_once($CFG->dirroot . '/question/engine/lib.php');
require_once($CFG->dirroot . '/question/editlib.php');
require_once($CFG->dirroot . '/question/format.php');
require_once($CFG->dirroot . '/question/format/xml/format.php');
require_once($CFG->dirroot . '/mod/quiz/locallib.php');
require_once($CFG->libdir . '/testing/generator/lib.php');

\core\session\manager::set_user(get_admin());
$PAGE->set_url('/');
$PAGE->set_context(context_system::instance());

function moe_quietly(callable $fn) {
    ob_start();
    try {
        return $fn();
    } finally {
        fwrite(STDERR, ob_get_clean());
    }
}

try {
    $generator = new testing_data_generator();
    $name = 'moe-variants-' . str_replace('.', '', uniqid('', true));
    $course = create_course((object) ['fullname' => $name, 'shortname' => $name, 'category' => 1]);
    $context = context_course::instance($course->id);
    $category = question_make_default_categories([$context]);
    $qformat = new qformat_xml();
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
    if (!moe_quietly(fn() => $qformat->importpreprocess() && $qformat->importprocess() && $qformat->importpostprocess())) {
        throw new moodle_exception('import failed: ' . $file);
    }
    $pool = $DB->get_record('question_categories', ['idnumber' => $categoryidnumber, 'contextid' => $context->id],
        '*', MUST_EXIST);
    $inpool = $DB->count_records_sql(
        "SELECT COUNT(1) FROM {question_bank_entries} WHERE questioncategoryid = ?", [$pool->id]);

    $quiz = $generator->create_module('quiz', ['course' => $course->id, 'questionsperpage' => 0, 'grade' => 1,
        'sumgrades' => 1, 'preferredbehaviour' => 'deferredfeedback']);
    quiz_add_random_questions($quiz, 0, $pool->id, 1);
    $quizobj = mod_quiz\quiz_settings::create($quiz->id);

    $results = [];
    for ($n = 0; $n < (int) $attempts; $n++) {
        $user = $generator->create_user();
        $generator->enrol_user($user->id, $course->id, 'student');
        \core\session\manager::set_user($user);
        $quba = question_engine::make_questions_usage_by_activity('mod_quiz', $quizobj->get_context());
        $quba->set_preferred_behaviour($quizobj->get_quiz()->preferredbehaviour);
        $timenow = time();
        $attempt = quiz_create_attempt($quizobj, 1, null, $timenow, false, $user->id);
        quiz_start_new_attempt($quizobj, $quba, $attempt, 1, $timenow);
        quiz_attempt_save_started($quizobj, $quba, $attempt);
        $attemptobj = mod_quiz\quiz_attempt::create($attempt->id);
        $question = $attemptobj->get_question_attempt(1)->get_question();
        $answer = $choices[$question->idnumber][$n % 2];
        $attemptobj->process_submitted_actions($timenow, false, [1 => ['answer' => $answer]]);
        $attemptobj->process_finish($timenow, false);
        $attemptobj = mod_quiz\quiz_attempt::create($attempt->id);
        $quba = question_engine::load_questions_usage_by_activity($attemptobj->get_uniqueid());
        $options = new question_display_options();
        $options->marks = question_display_options::MARK_AND_MAX;
        $options->correctness = question_display_options::VISIBLE;
        $options->feedback = question_display_options::VISIBLE;
        $options->generalfeedback = question_display_options::VISIBLE;
        $html = $quba->render_question(1, $options);
        $dom = new DOMDocument();
        @$dom->loadHTML('<?xml encoding="utf-8"?><div>' . $html . '</div>');
        $xpath = new DOMXPath($dom);
        $pick = function (string $class) use ($xpath, $dom): array {
            $found = [];
            foreach ($xpath->query("//*[contains(concat(' ', normalize-space(@class), ' '), ' $class ')]") as $node) {
                $found[] = $dom->saveHTML($node);
            }
            return $found;
        };
        $results[] = [
            'user' => $user->username,
            'idnumber' => $question->idnumber,
            'questiontext' => $question->questiontext,
            'chosen' => $answer,
            'mark' => (float) $quba->get_question_mark(1),
            'sumgrades' => (float) $attemptobj->get_sum_marks(),
            'state' => (string) $attemptobj->get_question_attempt(1)->get_state(),
            'specific_feedback' => $pick('specificfeedback'),
            'general_feedback' => $pick('generalfeedback'),
        ];
        \core\session\manager::set_user(get_admin());
    }
    $result = ['course' => $course->id, 'pool_size' => $inpool, 'attempts' => $results];
} catch (Throwable $e) {
    fwrite(STDERR, get_class($e) . ': ' . $e->getMessage() . "\n" . $e->getTraceAsString() . "\n");
    exit(1);
}
echo "\n", MOE_MARK, "\n", json_encode($result, JSON_PRETTY_PRINT | JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES), "\n";
