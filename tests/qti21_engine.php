<?php
// Drive qti-sdk (oat-sa/qti-sdk, the engine of TAO) as a delivery system drives an item of a test: the item
// session takes the testPart's itemSessionControl (an assessmentItemRef's or section's first, if any), then each
// try of stdin's "tries" is an attempt: beginAttempt (which refuses an attempt beyond maxAttempts), the response,
// endAttempt (response processing), then the candidate closes the feedback the engine shows (suspend: the session
// ends there when no try is left, as the spec's item session lifecycle says). Prints JSON: per try {"score": SCORE} or {"refused": the engine's message}.
// argv[1]: qti-sdk's src/ folder. stdin: {"test": XML, "item": XML, "item_identifier": ID, "tries": [[ids], ...]}.

$src = $argv[1];
spl_autoload_register(function (string $class) use ($src): void {
    if (strncmp($class, 'qtism\\', 6) === 0) {
        $file = $src . '/' . str_replace('\\', '/', $class) . '.php';
    } elseif (strncmp($class, 'qti\\customOperators\\', 20) === 0) {
        $file = $src . '/qtism/runtime/expressions/operators/custom/' . substr($class, 20) . '.php';
    } else {
        return;
    }
    if (is_file($file)) {
        require $file;
    }
});

use qtism\common\datatypes\QtiIdentifier;
use qtism\common\enums\BaseType;
use qtism\common\enums\Cardinality;
use qtism\data\storage\xml\XmlDocument;
use qtism\runtime\common\MultipleContainer;
use qtism\runtime\common\ResponseVariable;
use qtism\runtime\common\State;
use qtism\runtime\tests\AssessmentItemSession;
use qtism\runtime\tests\AssessmentItemSessionException;
use qtism\runtime\tests\AssessmentItemSessionState;

$in = json_decode(stream_get_contents(STDIN), true, 512, JSON_THROW_ON_ERROR);
$testDoc = new XmlDocument();
$testDoc->loadFromString($in['test']);
$test = $testDoc->getDocumentComponent();
$itemDoc = new XmlDocument();
$itemDoc->loadFromString($in['item']);
$item = $itemDoc->getDocumentComponent();

// The itemSessionControl in force for the item: its assessmentItemRef's, else its sections', else its testPart's.
$control = null;
foreach ($test->getTestParts() as $part) {
    $control = $part->getItemSessionControl();
    foreach ($part->getAssessmentSections() as $section) {
        foreach ($section->getSectionParts() as $ref) {
            if ($ref->getIdentifier() === $in['item_identifier']) {
                $control = $ref->getItemSessionControl() ?? $section->getItemSessionControl() ?? $control;
                $navigation = $part->getNavigationMode();
                $submission = $part->getSubmissionMode();
            }
        }
    }
}
if (!isset($navigation)) {
    fwrite(STDERR, "item {$in['item_identifier']} is not in the test\n");
    exit(2);
}
$session = new AssessmentItemSession($item, $navigation, $submission);
if ($control !== null) {
    $session->setItemSessionControl($control);
}
$session->beginItemSession();
$declaration = $item->getResponseDeclarations()['RESPONSE'];
$out = [];
foreach ($in['tries'] as $choices) {
    try {
        $session->beginAttempt();
    } catch (AssessmentItemSessionException $e) {
        $out[] = ['refused' => $e->getMessage()];
        continue;
    }
    if ($declaration->getCardinality() === Cardinality::MULTIPLE) {
        $value = new MultipleContainer(BaseType::IDENTIFIER, array_map(fn ($c) => new QtiIdentifier($c), $choices));
    } else {
        $value = new QtiIdentifier($choices[0]);
    }
    $responses = new State([new ResponseVariable('RESPONSE', $declaration->getCardinality(), BaseType::IDENTIFIER, $value)]);
    $session->endAttempt($responses);
    $out[] = ['score' => $session['SCORE']->getValue()];
    if ($session->getState() === AssessmentItemSessionState::MODAL_FEEDBACK) {
        $session->suspend();
    }
}
echo json_encode($out), "\n";
