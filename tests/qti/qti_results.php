<?php
// moe-lms test driver for qti-sdk (oat-sa/qti-sdk, the engine of TAO): each simulated learner takes moe-lms's
// QTI 2.1 items in their locale, one item session each (beginItemSession, beginAttempt, endAttempt with the
// learner's RESPONSE: the engine's response processing sets SCORE), and the engine's own result builder
// (qtism\runtime\results\ItemResultBuilder) turns each session into an itemResult; each learner's are one
// assessmentResult, written with XmlResultDocument and validated against imsqti_result_v2p1.xsd (qti-sdk's copy).
// argv[1]: qti-sdk's src/ folder; argv[2]: the output folder.
// stdin: {"items": {identifier: item XML}, "learners": [{"name": N, "session": S, "items": [[identifier, [ids]]]}]}
// stdout: JSON {"files": [paths], "scores": {learner: {identifier: SCORE}}}.

$src = $argv[1];
$outdir = $argv[2];
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
use qtism\common\datatypes\QtiUri;
use qtism\common\enums\BaseType;
use qtism\common\enums\Cardinality;
use qtism\data\results\AssessmentResult;
use qtism\data\results\Context;
use qtism\data\results\ItemResultCollection;
use qtism\data\results\SessionIdentifier;
use qtism\data\results\SessionIdentifierCollection;
use qtism\data\storage\xml\XmlDocument;
use qtism\data\storage\xml\XmlResultDocument;
use qtism\runtime\common\MultipleContainer;
use qtism\runtime\common\ResponseVariable;
use qtism\runtime\common\State;
use qtism\runtime\results\ItemResultBuilder;
use qtism\runtime\tests\AssessmentItemSession;

$in = json_decode(stream_get_contents(STDIN), true, 512, JSON_THROW_ON_ERROR);
$items = [];
foreach ($in['items'] as $identifier => $xml) {
    $doc = new XmlDocument();
    $doc->loadFromString($xml);
    $items[$identifier] = $doc->getDocumentComponent();
}
$files = [];
$scores = [];
foreach ($in['learners'] as $n => $learner) {
    $results = new ItemResultCollection();
    foreach ($learner['items'] as [$identifier, $choices]) {
        $item = $items[$identifier];
        $session = new AssessmentItemSession($item);
        $session->beginItemSession();
        $session->beginAttempt();
        $declaration = $item->getResponseDeclarations()['RESPONSE'];
        if ($declaration->getCardinality() === Cardinality::MULTIPLE) {
            $value = new MultipleContainer(BaseType::IDENTIFIER, array_map(fn ($c) => new QtiIdentifier($c), $choices));
        } else {
            $value = $choices ? new QtiIdentifier($choices[0]) : null;
        }
        $responses = new State([new ResponseVariable('RESPONSE', $declaration->getCardinality(), BaseType::IDENTIFIER, $value)]);
        $session->endAttempt($responses);
        $scores[$learner['name']][$identifier] = $session['SCORE']->getValue();
        $results[] = (new ItemResultBuilder($session))->buildResult();
    }
    $context = new Context(new QtiIdentifier($learner['name']), new SessionIdentifierCollection([
        new SessionIdentifier(new QtiUri('urn:moe-lms:test-delivery'), new QtiIdentifier($learner['session'])),
    ]));
    $result = new AssessmentResult($context, null, $results);
    $doc = new XmlResultDocument('2.1.0', $result);
    $path = sprintf('%s/result-%05d.xml', $outdir, $n);
    $xml = $doc->saveToString();
    if ($n < 3) {  // the engine's own schema check, on the first few (it reads the XSD each time)
        (new XmlResultDocument())->loadFromString($xml, true);
    }
    file_put_contents($path, $xml);
    $files[] = $path;
}
echo json_encode(['files' => $files, 'scores' => $scores]), "\n";
