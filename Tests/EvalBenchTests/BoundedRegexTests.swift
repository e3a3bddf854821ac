import Foundation
import Testing
@testable import EvalBench

@Suite("Regular expressions that cannot stall a run")
struct BoundedRegexTests {
    @Test("a catastrophic pattern gives up at the time limit instead of running for seconds", .timeLimit(.minutes(1)))
    func timesOut() throws {
        let regex = try NSRegularExpression(pattern: "(.*a){25}")
        let text = String(repeating: "a", count: 40) + "b"
        #expect(BoundedRegex.firstMatch(regex, in: text, timeLimit: 0.2) == .timedOut(seconds: 0.2))
    }

    @Test("ordinary patterns match and miss as before")
    func ordinary() throws {
        let regex = try NSRegularExpression(pattern: #"\bParis\b"#)
        #expect(BoundedRegex.firstMatch(regex, in: "It is Paris.") == .matched)
        #expect(BoundedRegex.firstMatch(regex, in: "It is Lyon.") == .noMatch)
    }

    @Test("a regex assertion that times out fails undecided and says why")
    func assertionFailsUndecided() async {
        // Two seconds of matching, on a thread of its own rather than one of the test pool's.
        let outcome = await offThePool { TextChecks.regex("(x+x+)+y", String(repeating: "x", count: 5000), false, negated: true) }
        // ICU needs about 2^5000 steps here. A notRegex that times out must not pass: the
        // answer might match.
        #expect(!outcome.holds)
        #expect(outcome.note?.contains("still matching after 2 s") == true, "\(outcome.note ?? "no note")")
    }

    @Test("shapes known to explode are named", arguments: [
        "(.*a){25}", "(a+)+", "(\\w*)*", "(?:.+,)+$", "([a-z]+)*x", "(x+){10}", "(a{2,})+",
    ])
    func catastrophicShapes(pattern: String) {
        #expect(BoundedRegex.catastrophicShape(in: pattern) != nil, "\(pattern)")
    }

    @Test("safe patterns are not flagged", arguments: [
        "^\\d{4}-\\d{2}-\\d{2}$", "(ab)+", "(\\d+,){3}", "(?>a+)+", "[(a+)+]", "\\(a+\\)+", "(a+){2}", "Paris|London",
    ])
    func safeShapes(pattern: String) {
        #expect(BoundedRegex.catastrophicShape(in: pattern) == nil, "\(pattern)")
    }

    @Test("a suite with a catastrophic pattern is refused at load with its place and a fix")
    func refusedAtLoad() {
        let text = """
        {"format": "evalbench.suite/1", "cases": [{"id": "a", "prompt": "p", "expect": [
          {"type": "regex", "pattern": "(.*a){25}"}]}]}
        """
        do {
            _ = try SuiteLoader.load(data: Data(text.utf8), file: "r.json")
            Issue.record("the suite loaded")
        } catch {
            let diagnostic = error.diagnostics.first
            #expect(diagnostic?.message.contains("exponential time") == true)
            #expect(diagnostic?.location?.line == 2)
            #expect(diagnostic?.path == "$.cases[0].expect[0].pattern")
            #expect(diagnostic?.fix?.contains("(?:[^x]*x)") == true)
        }
    }
}
