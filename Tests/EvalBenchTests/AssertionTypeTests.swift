import Testing
@testable import EvalBench

private func result(_ assertion: Assertion, _ output: String) async -> AssertionResult {
    await Grader().grade(assertion, GradingInput(output: output, latencyMs: nil, ttftMs: nil, usage: Usage()))
}

private func result(_ check: Assertion.Check, _ output: String) async -> AssertionResult {
    await result(Assertion(check), output)
}

private func schema(_ text: String) throws -> JSONSchema {
    try JSONSchema(validating: JSONValue(JSONDocument(data: Data(text.utf8), file: "schema").root))
}

import Foundation

@Suite("Assertion types")
struct AssertionTypeTests {
    @Test("json passes on one JSON value, tolerates a code fence and notes it, and says where parsing failed")
    func json() async {
        let plain = await result(.json, #" {"label": "cat"} "#)
        #expect(plain.passed)
        #expect(plain.note == nil)
        let fenced = await result(.json, "Here you go:\n```json\n{\"label\": \"cat\"}\n```\nAnything else?")
        #expect(fenced.passed)
        #expect(fenced.note == "the JSON was inside a Markdown code fence, which was removed")
        let broken = await result(.json, #"{"label": cat}"#)
        #expect(!broken.passed)
        #expect(broken.message?.hasPrefix("expected the answer to be JSON; got no JSON: ") == true)
        #expect(broken.message?.contains("(line 1, column 11)") == true)
    }

    @Test("jsonSchema names the failing pointer and rule, and counts the other violations")
    func jsonSchema() async throws {
        let check = Assertion.Check.jsonSchema(try schema("""
            {"type": "object", "required": ["label", "score"],
             "properties": {"label": {"enum": ["cat", "dog"]}, "score": {"type": "number", "minimum": 0}}}
            """))
        #expect(await result(check, #"{"label": "cat", "score": 0.5}"#).passed)
        let bad = await result(check, #"{"label": "cow", "score": -1}"#)
        #expect(!bad.passed)
        #expect(bad.pointer == "/label")
        #expect(bad.message == #"at /label: expected the answer's JSON to match the schema (rule 'enum'); got enum: expected one of "cat", "dog", found "cow" (and 1 more: at /score: minimum: expected a number ≥ 0, found -1)"#)
        let notJSON = await result(check, "cat")
        #expect(notJSON.message?.contains("got no JSON") == true)
    }

    @Test("jsonPath equals, contains, matches and approx; a wildcard passes when any value does")
    func jsonPath() async throws {
        let answer = #"{"items": [{"name": "Tea", "price": 3.49}, {"name": "Cake", "price": 4}], "tags": ["hot", "sweet"]}"#
        func check(_ path: String, _ expectation: JSONExpectation) async throws -> AssertionResult {
            await result(.jsonPath(try JSONPathQuery(parsing: path), expectation), answer)
        }
        #expect(try await check("$.items[0].name", .equals(.string("Tea"), ignoreCase: false)).passed)
        #expect(try await check("$.items[0].name", .equals(.string("tea"), ignoreCase: true)).passed)
        #expect(try await check("$['items'][-1].price", .equals(.number(4), ignoreCase: false)).passed)
        #expect(try await check("$.tags", .contains(.string("sweet"), ignoreCase: false)).passed)
        #expect(try await check("$.items[1].name", .contains(.string("ak"), ignoreCase: false)).passed)
        #expect(try await check("$.items[*].name", .matches("^C", ignoreCase: false)).passed)
        #expect(try await check("$.items[0].price", .approx(3.5, tolerance: 0.01)).passed)
        let far = try await check("$.items[0].price", .approx(3.5, tolerance: 0.001))
        #expect(!far.passed)
        #expect(far.message == "at /items/0/price: expected the value at $.items[0].price to be a number within 0.001 of 3.5; got 3.49")
        let none = try await check("$.items[*].price", .equals(.number(5), ignoreCase: false))
        #expect(none.message?.contains("2 values, none of them matching: /items/0/price = 3.49, /items/1/price = 4") == true)
        let missing = try await check("$.total", .exists)
        #expect(!missing.passed)
        #expect(missing.message?.contains("nothing: $.total selects no value") == true)
    }

    @Test("jsonPointer follows RFC 6901 escapes and says how far it got")
    func jsonPointer() async throws {
        let answer = #"{"a/b": {"m~n": [10, 20]}}"#
        let found = await result(.jsonPointer(try JSONPointer(parsing: "/a~1b/m~0n/1"), .equals(.number(20), ignoreCase: false)), answer)
        #expect(found.passed)
        #expect(found.pointer == "/a~1b/m~0n/1")
        let outOfRange = await result(.jsonPointer(try JSONPointer(parsing: "/a~1b/m~0n/2"), .exists), answer)
        #expect(outOfRange.message == "at /a~1b/m~0n/2: expected the value to be present; got nothing: /a~1b/m~0n has 2 element(s), so index 2 is out of range")
    }

    @Test("containsAll lists what is missing; containsAny needs one")
    func containsAllAny() async {
        let all = await result(.containsAll(["Paris", "Lyon", "Nice"], ignoreCase: false), "Paris and Nice")
        #expect(!all.passed)
        #expect(all.actual == #""Paris and Nice" (missing "Lyon")"#)
        #expect(await result(.containsAll(["paris", "nice"], ignoreCase: true), "Paris and Nice").passed)
        #expect(await result(.containsAny(["Lyon", "Nice"], ignoreCase: false), "Paris and Nice").passed)
        let any = await result(.containsAny(["Lyon", "Lille"], ignoreCase: false), "Paris")
        #expect(any.message == #"expected the answer to contain one of "Lyon", "Lille"; got "Paris" (none of them)"#)
    }

    @Test("lengthBetween counts characters of the trimmed answer, with either bound optional")
    func lengthBetween() async {
        #expect(await result(.lengthBetween(min: 2, max: 5), " héllo\n").passed)
        #expect(await result(.lengthBetween(min: 1, max: 1), "👍🏽").passed, "one grapheme cluster is one character")
        #expect(await result(.lengthBetween(min: nil, max: 3), "abc").passed)
        let long = await result(.lengthBetween(min: 6, max: nil), "short")
        #expect(long.message == #"expected the answer (trimmed) to have at least 6 characters; got 5 characters: "short""#)
    }

    @Test("label normalises the answer and tells an unknown label from the wrong known one")
    func label() async {
        let check = Assertion.Check.label(expected: "positive", labels: ["positive", "negative", "neutral"])
        #expect(await result(check, "  **Positive.**\n").passed)
        #expect(await result(check, "\"POSITIVE\"").passed)
        let wrong = await result(check, "Negative!")
        #expect(!wrong.passed)
        #expect(wrong.actual == #"the wrong known label "negative""#)
        let unknown = await result(check, "It is mostly good.")
        #expect(unknown.actual == #"an unknown label: "It is mostly good.", normalised to "it is mostly good""#)
    }

    @Test("keywords passes when the share present reaches minRatio")
    func keywords() async {
        let check = Assertion.Check.keywords(["flour", "eggs", "milk", "sugar"], minRatio: 0.75, ignoreCase: true)
        #expect(await result(check, "Flour, eggs and milk.").passed)
        let short = await result(check, "Flour and eggs.")
        #expect(!short.passed)
        #expect(short.actual == #"2 of 4 (50%), missing "milk", "sugar" in "Flour and eggs.""#)
        #expect(short.expected?.contains("at least 75% of the keywords") == true)
    }

    @Test("not: true inverts any assertion and says so when it fails")
    func inverted() async {
        let notJSON = Assertion(.json, inverted: true)
        #expect(await result(notJSON, "plain words").passed)
        let failed = await result(notJSON, "[1, 2]")
        #expect(!failed.passed)
        #expect(failed.inverted)
        #expect(failed.name == "not json")
        #expect(failed.message == "expected the opposite of: the answer to be JSON (not: true); got [1,2]")
        #expect(await result(Assertion(.contains("Paris", ignoreCase: false), inverted: true), "Rome").passed)
    }

    @Test("A named assertion is a metric; its weight is recorded")
    func namedAndWeighted() async {
        let named = await result(Assertion(.json, name: "valid-json", weight: 3), "{}")
        #expect(named.metric == "valid-json")
        #expect(named.name == "valid-json")
        #expect(named.weight == 3)
        let unnamed = await result(.json, "{}")
        #expect(unnamed.metric == nil)
        #expect(unnamed.weight == 1)
    }

    @Test("Without a threshold a turn passes when every assertion does; with one, when the weighted score reaches it")
    func threshold() async {
        let assertions = [
            Assertion(.contains("a", ignoreCase: false), weight: 3),
            Assertion(.contains("b", ignoreCase: false)),
        ]
        let grade = await Grader().grade(assertions, GradingInput(output: "a", latencyMs: nil, ttftMs: nil, usage: Usage()))
        #expect(grade.score.value == 0.75)
        #expect(!grade.passes(threshold: nil))
        #expect(grade.passes(threshold: 0.75))
        #expect(!grade.passes(threshold: 0.8))
        let empty = await Grader().grade([], GradingInput(output: "", latencyMs: nil, ttftMs: nil, usage: Usage()))
        #expect(empty.score.value == nil)
        #expect(empty.passes(threshold: 1))
    }

    @Test("Weights such as 0.1 and 0.2 reach a threshold of their exact share despite binary rounding")
    func thresholdRounding() {
        let results = [AssertionResult(type: "json", name: "a", passed: true, weight: 0.1),
                       AssertionResult(type: "json", name: "b", passed: true, weight: 0.2),
                       AssertionResult(type: "json", name: "c", passed: false, weight: 0.7)]
        #expect(WeightedScore(results).passes(threshold: 0.3))
        #expect(!WeightedScore(results).passes(threshold: 0.31))
    }

    @Test("An explanation cuts the answer to 200 characters")
    func truncation() async {
        let long = String(repeating: "x", count: 500)
        let failed = await result(.contains("y", ignoreCase: false), long)
        #expect(failed.actual == "\"" + String(repeating: "x", count: 200) + "…\"")
    }

    @Test("Results written before weights and explanations existed still decode, with weight 1")
    func decodesOldResults() throws {
        let old = #"{"type": "contains", "name": "contains \"x\"", "passed": false, "message": "no"}"#
        let decoded = try JSONDecoder().decode(AssertionResult.self, from: Data(old.utf8))
        #expect(decoded.weight == 1)
        #expect(!decoded.inverted)
        #expect(decoded.metric == nil)
    }
}
