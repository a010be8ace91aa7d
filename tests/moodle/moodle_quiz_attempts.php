<?php
// moe-lms test driver: simulated learners take a quiz in the real Moodle (4.5) through mod_quiz's attempt API, and
// Moodle's own Responses report makes the download a teacher would get.
//
//   php moodle_quiz_attempts.php MOODLE_DIR setup LOCALE=FILE.xml ...     (stdout: JSON)
//   php moodle_quiz_attempts.php MOODLE_DIR attempts QUIZID < learners.json   (stdout: JSON)
//   php moodle_quiz_attempts.php MOODLE_DIR report QUIZID [csv|json]        (stdout: the download, exactly)
//
// setup: a new course; each locale's Moodle XML through qformat_xml into its own category of the course's
// question bank; a quiz per locale (mod_quiz's generator, deferred feedback, answers shuffled) holding that
// locale's questions in file order (quiz_add_quiz_question). Prints {locale: {quiz, cmid}}.
// attempts: for each learner {"name", "answers": {question idnumber: [answer positions in the file]}} a new user
// enrolled as a student, then quiz_prepare_and_start_new_attempt, quiz_attempt::process_submitted_actions with the
// post data a browser sends for the shuffled order Moodle chose (the answer's position in the file is its
// position among the question's answers by id), and process_finish. Prints {"attempts": N, "seconds": S}.
// report: mod/quiz/report/responses as its download link runs it (download=csv, question text and response
// shown, all attempts of enrolled users): Moodle's table and dataformat code write the CSV to stdout, then exit.

define('CLI_SCRIPT', true);
const MOE_MARK = '=== moe-lms moodle_quiz_attempts.php JSON ===';

$moodledir = $argv[1];
$action = $argv[2];
$rest = array_slice($argv, 3);
$files = [];
foreach ($rest as $arg) {
    if (strpos($arg, '=') !== false) {
        [$locale, $path] = explode('=', $arg, 2);
        $files[$locale] = realpath($path);  // (before config.php: Moodle's set-up changes the working directory)
    }
}
if ($action === 'report') {
    // What the download link of the report's page carries (mod/quiz/report/responses/responses_options.php).
    $_GET = ['id' => 0, 'mode' => 'responses', 'download' => $rest[1] ?? 'csv', 'qtext' => 1, 'resp' => 1, 'right' => 0,
        'attempts' => 'enrolled_with', 'whichtries' => 'lasttry'];
}
require($moodledir . '/config.php');
require_once($CFG->libdir . '/clilib.php');
require_once($CFG->dirroot . '/course/lib.php');
require_once($CFG->dirroot . '/question/engine/lib.php');
require_once($CFG->dirroot . '/question/editlib.php');
require_once($CFG->dirroot . '/question/format.php');
require_once($CFG->dirroot . '/question/format/xml/format.php');
require_once($CFG->dirroot . '/mod/quiz/locallib.php');
require_once($CFG->libdir . '/testing/generator/lib.php');

use mod_quiz\quiz_attempt;
use mod_quiz\quiz_settings;

\core\session\manager::set_user(get_admin());
$PAGE->set_url('/');
$PAGE->set_context(context_system::instance());

function moe_json($data): void {
    echo MOE_MARK, "\n", json_encode($data, JSON_UNESCAPED_UNICODE), "\n";
}

function moe_quietly(callable $fn) {
    ob_start();
    try {
        return $fn();
    } finally {
        fwrite(STDERR, ob_get_clean());
    }
}

function moe_setup(array $files): array {
    global $DB;
    $generator = new testing_data_generator();
    $name = 'moe-stats-' . str_replace('.', '', uniqid('', true));
    $course = create_course((object) ['fullname' => $name, 'shortname' => $name, 'category' => 1]);
    $context = context_course::instance($course->id);
    $top = question_make_default_categories([$context]);
    $made = [];
    foreach ($files as $locale => $file) {
        $category = question_make_default_categories([$context]);
        $category = $DB->get_record('question_categories', ['id' => $category->id]);
        $qformat = new qformat_xml();
        $contexts = new core_question\local\bank\question_edit_contexts($context);
        $qformat->setCategory($category);
        $qformat->setContexts($contexts->having_one_edit_tab_cap('import'));
        $qformat->setCourse($course);
        $qformat->setFilename($file);
        $qformat->setRealfilename(basename($file));
        $qformat->setMatchgrades('error');
        $qformat->setCatfromfile(false);
        $qformat->setContextfromfile(false);
        $qformat->setStoponerror(true);
        $ok = moe_quietly(fn() => $qformat->importpreprocess() && $qformat->importprocess() && $qformat->importpostprocess());
        if (!$ok) {
            throw new moodle_exception('import failed: ' . $file);
        }
        $quiz = $generator->create_module('quiz', ['course' => $course->id, 'name' => "stats $locale",
            'questionsperpage' => 0, 'shuffleanswers' => 1, 'preferredbehaviour' => 'deferredfeedback', 'grade' => 10]);
        foreach ($qformat->questionids as $questionid) {
            quiz_add_quiz_question($questionid, $quiz);
        }
        quiz_settings::create($quiz->id)->get_grade_calculator()->recompute_quiz_sumgrades();
        $made[$locale] = ['quiz' => (int) $quiz->id, 'cmid' => (int) $quiz->cmid, 'questions' => count($qformat->questionids)];
    }
    return ['course' => (int) $course->id, 'quizzes' => $made];
}

function moe_attempts(int $quizid, array $learners): array {
    global $DB;
    $generator = new testing_data_generator();
    $quiz = $DB->get_record('quiz', ['id' => $quizid], '*', MUST_EXIST);
    $started = microtime(true);
    $studentrole = $DB->get_field('role', 'id', ['shortname' => 'student']);
    $timing = ['users' => 0.0, 'start' => 0.0, 'submit' => 0.0, 'finish' => 0.0];
    foreach ($learners as $learner) {
        $t0 = microtime(true);
        $user = $generator->create_user(['firstname' => $learner['name'], 'lastname' => 'Learner',
            'email' => $learner['name'] . '@example.invalid']);
        $generator->enrol_user($user->id, $quiz->course, $studentrole);
        $t1 = microtime(true);
        $timing['users'] += $t1 - $t0;
        $quizobj = quiz_settings::create($quizid, $user->id);
        $timenow = time();
        $attempt = quiz_prepare_and_start_new_attempt($quizobj, 1, null, false, [], [], $user->id);
        $t2 = microtime(true);
        $timing['start'] += $t2 - $t1;
        $attemptobj = quiz_attempt::create($attempt->id);
        $quba = question_engine::load_questions_usage_by_activity($attemptobj->get_uniqueid());
        $post = [];
        foreach ($attemptobj->get_slots() as $slot) {
            $qa = $quba->get_question_attempt($slot);
            $question = $qa->get_question();
            $ids = array_keys($question->answers);
            sort($ids);  // the answers' order in the file, which is the bank's choice order
            $order = $question->get_order($qa);
            $chosen = array_map(fn($position) => $ids[$position], $learner['answers'][$question->idnumber] ?? []);
            $prefix = $qa->get_field_prefix();
            $post[$prefix . ':sequencecheck'] = $qa->get_sequence_check_count();
            if ($question instanceof qtype_multichoice_multi_question) {
                foreach ($order as $key => $answerid) {
                    $post[$prefix . 'choice' . $key] = in_array($answerid, $chosen) ? '1' : '0';
                }
            } else if ($chosen) {
                $post[$prefix . 'answer'] = (string) array_search($chosen[0], $order);
            }
        }
        $post['slots'] = implode(',', $attemptobj->get_slots());  // (as the attempt form posts it)
        $attemptobj->process_submitted_actions($timenow, false, $post);
        $t3 = microtime(true);
        $timing['submit'] += $t3 - $t2;
        $attemptobj = quiz_attempt::create($attempt->id);
        $attemptobj->process_finish($timenow, false);
        $timing['finish'] += microtime(true) - $t3;
    }
    return ['attempts' => count($learners), 'seconds' => round(microtime(true) - $started, 2),
        'timing' => array_map(fn($t) => round($t, 2), $timing)];
}

function moe_report(int $quizid): void {
    global $DB, $PAGE, $CFG;
    require_once($CFG->dirroot . '/mod/quiz/report/reportlib.php');
    require_once($CFG->dirroot . '/mod/quiz/report/responses/report.php');
    $quiz = $DB->get_record('quiz', ['id' => $quizid], '*', MUST_EXIST);
    $cm = get_coursemodule_from_instance('quiz', $quiz->id, $quiz->course, false, MUST_EXIST);
    $course = $DB->get_record('course', ['id' => $quiz->course], '*', MUST_EXIST);
    $_GET['id'] = $cm->id;
    $PAGE->set_cm($cm, $course);
    $PAGE->set_url('/mod/quiz/report.php', ['id' => $cm->id, 'mode' => 'responses']);
    $report = new quiz_responses_report();
    $report->display($quiz, $cm, $course);  // (downloading: it writes the CSV and exits)
}

if ($action === 'setup') {
    moe_json(moe_setup($files));
} else if ($action === 'attempts') {
    $learners = json_decode(stream_get_contents(STDIN), true, 512, JSON_THROW_ON_ERROR);
    moe_json(moe_attempts((int) $rest[0], $learners));
} else if ($action === 'report') {
    moe_report((int) $rest[0]);
} else {
    fwrite(STDERR, "unknown action $action\n");
    exit(2);
}
