<?php
// Drive qti-sdk (oat-sa/qti-sdk, the engine of TAO) through whole test sessions, as a delivery system does: the
// assessmentTest is made compact (each assessmentItemRef resolved to its item's declarations and response
// processing, what qtism's XmlCompactDocument::createFromXmlAssessmentTestDocument does, here from stdin rather than
// the file system), SessionManager builds each session's route (qtism\runtime\tests\AbstractSessionManager::
// createRoute: each section's <selection> draws its items), and each item of the route is attempted: beginAttempt,
// endAttempt with a response (response processing), moveNext, until the session ends (outcome processing).
// argv[1]: qti-sdk's src/ folder. stdin: {"test": XML, "items": {href as the test writes it: XML}, "sessions": N,
// "answers": {item identifier: [[choice ids for even sessions], [choice ids for odd sessions]]}}.
// Prints JSON: per session {"items": [{"identifier", "response", "score"}], "score": the test's SCORE}.

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

use qtism\common\datatypes\files\FileSystemFileManager;
use qtism\common\datatypes\QtiIdentifier;
use qtism\common\enums\BaseType;
use qtism\common\enums\Cardinality;
use qtism\data\AssessmentItemRef;
use qtism\data\ExtendedAssessmentItemRef;
use qtism\data\ExtendedAssessmentSection;
use qtism\data\ExtendedAssessmentTest;
use qtism\data\ExtendedTestPart;
use qtism\data\storage\xml\XmlDocument;
use qtism\runtime\common\MultipleContainer;
use qtism\runtime\common\ResponseVariable;
use qtism\runtime\common\State;
use qtism\runtime\tests\SessionManager;

$in = json_decode(stream_get_contents(STDIN), true, 512, JSON_THROW_ON_ERROR);
$testDoc = new XmlDocument();
$testDoc->loadFromString($in['test']);
$test = $testDoc->getDocumentComponent();

// The compact test (XmlCompactDocument's job): refs carry their item's declarations and response processing.
$parts = $test->getTestParts();
foreach ($parts->getArrayCopy() as $part) {
    $sections = $part->getAssessmentSections();
    foreach ($sections->getArrayCopy() as $section) {
        $sectionParts = $section->getSectionParts();
        foreach ($sectionParts->getArrayCopy() as $ref) {
            if (!$ref instanceof AssessmentItemRef) {
                continue;
            }
            $compact = ExtendedAssessmentItemRef::createFromAssessmentItemRef($ref);
            $itemDoc = new XmlDocument();
            $itemDoc->loadFromString($in['items'][$ref->getHref()]);
            $item = $itemDoc->getDocumentComponent();
            foreach ($item->getResponseDeclarations() as $d) {
                $compact->addResponseDeclaration($d);
            }
            foreach ($item->getOutcomeDeclarations() as $d) {
                $compact->addOutcomeDeclaration($d);
            }
            foreach ($item->getModalFeedbackRules() as $rule) {
                $compact->addModalFeedbackRule($rule);
            }
            if ($item->hasResponseProcessing()) {
                $compact->setResponseProcessing($item->getResponseProcessing());
            }
            $compact->setShufflings($item->getShufflings());
            $compact->setAdaptive($item->isAdaptive());
            $compact->setTimeDependent($item->isTimeDependent());
            $sectionParts->replace($ref, $compact);
        }
        $sections->replace($section, ExtendedAssessmentSection::createFromAssessmentSection($section));
    }
    $parts->replace($part, ExtendedTestPart::createFromTestPart($part));
}
$test = ExtendedAssessmentTest::createFromAssessmentTest($test);

$manager = new SessionManager(new FileSystemFileManager());
$out = [];
for ($n = 0; $n < $in['sessions']; $n++) {
    $session = $manager->createAssessmentTestSession($test);
    $session->beginTestSession();
    $items = [];
    while ($session->isRunning()) {
        $ref = $session->getCurrentAssessmentItemRef();
        $id = $ref->getIdentifier();
        $declaration = $ref->getResponseDeclarations()['RESPONSE'];
        $chosen = $in['answers'][$id][$n % 2];
        if ($declaration->getCardinality() === Cardinality::MULTIPLE) {
            $value = new MultipleContainer(BaseType::IDENTIFIER, array_map(fn ($c) => new QtiIdentifier($c), $chosen));
        } else {
            $value = new QtiIdentifier($chosen[0]);
        }
        $session->beginAttempt();
        $session->endAttempt(new State([
            new ResponseVariable('RESPONSE', $declaration->getCardinality(), BaseType::IDENTIFIER, $value),
        ]));
        $items[] = ['identifier' => $id, 'response' => $chosen, 'score' => $session["{$id}.SCORE"]->getValue()];
        $session->moveNext();
    }
    $out[] = ['items' => $items, 'score' => $session['SCORE']->getValue()];
}
echo json_encode($out, JSON_PRETTY_PRINT), "\n";
