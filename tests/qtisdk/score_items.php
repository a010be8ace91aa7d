<?php
// moe-lms test driver for a real QTI 2.1 engine: oat-sa/qti-sdk (qtism, TAO's engine), loaded without composer as
// ../shared/qti-sdk/README.md says. For each item and each response it runs an item session as a delivery system
// does (qtism\runtime\tests\AssessmentItemSession: beginItemSession, beginAttempt, endAttempt with the response,
// which runs the item's responseProcessing) and prints the outcomes and the modalFeedback the outcomes show.
//
//   php score_items.php QTISDK_SRC JOBS.json
//
// JOBS.json: [{"file": "item.xml", "responses": ["469", "468.75", null, …]}, …]: each response is the value of
// RESPONSE (single cardinality), given in the type the item declares (a float response: the typed number as a
// delivery system hands it over; null: no answer). Prints one JSON document: per item, per response, SCORE, the
// FEEDBACK identifiers and the identifier and text of each modalFeedback shown (showHide show: shown when FEEDBACK
// holds its identifier; hide: when it does not).

if ($argc !== 3) {
    fwrite(STDERR, "usage: score_items.php QTISDK_SRC JOBS.json\n");
    exit(2);
}
$src = rtrim($argv[1], '/');
spl_autoload_register(function (string $class) use ($src): void {
    $custom = 'qti\\customOperators\\';
    if (str_starts_with($class, $custom)) {
        $path = "$src/qtism/runtime/expressions/operators/custom/" . substr($class, strlen($custom)) . '.php';
    } else {
        $path = "$src/" . str_replace('\\', '/', $class) . '.php';
    }
    if (is_file($path)) {
        require_once $path;
    }
});

use qtism\common\datatypes\QtiFloat;
use qtism\common\datatypes\QtiIdentifier;
use qtism\common\datatypes\QtiInteger;
use qtism\common\datatypes\QtiString;
use qtism\common\enums\BaseType;
use qtism\common\enums\Cardinality;
use qtism\data\storage\xml\XmlDocument;
use qtism\runtime\common\ResponseVariable;
use qtism\runtime\common\State;
use qtism\runtime\tests\AssessmentItemSession;

function moe_value(int $baseType, $value) {
    if ($value === null) {
        return null;
    }
    switch ($baseType) {
        case BaseType::FLOAT:
            return new QtiFloat((float) $value);
        case BaseType::INTEGER:
            return new QtiInteger((int) $value);
        case BaseType::IDENTIFIER:
            return new QtiIdentifier((string) $value);
        default:
            return new QtiString((string) $value);
    }
}

function moe_score(string $file, array $responses): array {
    $doc = new XmlDocument('2.1');
    $doc->loadFromString(file_get_contents($file), true);  // (validated against qti-sdk's own QTI 2.1 XSD)
    $item = $doc->getDocumentComponent();
    $declaration = $item->getResponseDeclarations()['RESPONSE'];
    $results = [];
    foreach ($responses as $response) {
        $session = new AssessmentItemSession($item);
        $session->beginItemSession();
        $session->beginAttempt();
        $variable = new ResponseVariable('RESPONSE', Cardinality::SINGLE, $declaration->getBaseType(),
            moe_value($declaration->getBaseType(), $response));
        $session->endAttempt(new State([$variable]));
        $feedback = $session['FEEDBACK'];
        $ids = [];
        if ($feedback !== null) {
            foreach ($feedback as $value) {
                $ids[] = $value->getValue();
            }
        }
        $shown = [];
        foreach ($item->getModalFeedbacks() as $modal) {
            $has = in_array($modal->getIdentifier(), $ids, true);
            if ($has === ($modal->getShowHide() === 0)) {  // ShowHide::SHOW is 0
                $text = '';
                foreach ($modal->getContent() as $component) {
                    $text .= ' ' . moe_text($component);
                }
                $shown[] = ['identifier' => $modal->getIdentifier(), 'text' => trim(preg_replace('/\s+/u', ' ', $text))];
            }
        }
        $score = $session['SCORE'];
        $results[] = ['response' => $response, 'score' => $score === null ? null : $score->getValue(),
            'feedback' => $ids, 'shown' => $shown];
    }
    return ['file' => $file, 'identifier' => $item->getIdentifier(), 'results' => $results];
}

/** The text of a body component and its descendants. */
function moe_text($component): string {
    if ($component instanceof qtism\data\content\TextRun) {
        return $component->getContent();
    }
    $text = '';
    if (method_exists($component, 'getContent')) {
        foreach ($component->getContent() as $child) {
            $text .= moe_text($child);
        }
    }
    return $text;
}

try {
    $jobs = json_decode(file_get_contents($argv[2]), true, 512, JSON_THROW_ON_ERROR);
    $out = [];
    foreach ($jobs as $job) {
        $out[] = moe_score($job['file'], $job['responses']);
    }
} catch (Throwable $e) {
    fwrite(STDERR, get_class($e) . ': ' . $e->getMessage() . "\n" . $e->getTraceAsString() . "\n");
    exit(1);
}
echo json_encode($out, JSON_PRETTY_PRINT | JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES), "\n";
