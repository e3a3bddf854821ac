import Foundation
import Testing
@testable import EvalBench

/// The diagnostics of a suite with one case whose `expect` is `assertions`, on line 2.
private func problems(_ assertions: String, caseExtra: String = "") -> [Diagnostic] {
    let text = "{\"format\": \"evalbench.suite/1\", \"cases\": [{\"id\": \"a\", \"prompt\": \"p\"\(caseExtra), \"expect\": [\n\(assertions)]}]}"
    do {
        _ = try SuiteLoader.load(data: Data(text.utf8), file: "g.json")
        return []
    } catch {
        return error.diagnostics
    }
}

private func loaded(_ assertions: String) throws -> [Assertion] {
    let text = "{\"format\": \"evalbench.suite/1\", \"cases\": [{\"id\": \"a\", \"prompt\": \"p\", \"expect\": [\n\(assertions)]}]}"
    return try SuiteLoader.load(data: Data(text.utf8), file: "g.json").cases[0].turns[0].expect
}

@Suite("Loading assertions")
struct AssertionLoadingTests {
    @Test("Each new type loads into its check, with not, weight and name")
    func loadsEveryType() throws {
        let assertions = try loaded("""
            {"type": "json", "not": true, "weight": 2, "name": "no-json"},
            {"type": "jsonPath", "path": "$.a[0]", "approx": 1.5, "tolerance": 0.1},
            {"type": "jsonPointer", "pointer": "/a~1b", "equals": {"x": [1]}},
            {"type": "containsAll", "values": ["a", "b"], "ignoreCase": true},
            {"type": "containsAny", "values": ["a"]},
            {"type": "lengthBetween", "max": 10},
            {"type": "label", "labels": ["Yes", "No"], "value": "yes"},
            {"type": "keywords", "values": ["x", "y"], "minRatio": 0.5}
            """)
        #expect(assertions[0] == Assertion(.json, name: "no-json", weight: 2, inverted: true))
        #expect(assertions[1].check == .jsonPath(try JSONPathQuery(parsing: "$.a[0]"), .approx(1.5, tolerance: 0.1)))
        #expect(assertions[2].check == .jsonPointer(JSONPointer(tokens: ["a/b"]), .equals(.object(["x": .array([.number(1)])]), ignoreCase: false)))
        #expect(assertions[3].check == .containsAll(["a", "b"], ignoreCase: true))
        #expect(assertions[4].check == .containsAny(["a"], ignoreCase: false))
        #expect(assertions[5].check == .lengthBetween(min: nil, max: 10))
        #expect(assertions[6].check == .label(expected: "yes", labels: ["Yes", "No"]))
        #expect(assertions[7].check == .keywords(["x", "y"], minRatio: 0.5, ignoreCase: false))
    }

    @Test("An invalid schema is reported at the exact line and column with its JSON path")
    func invalidSchema() throws {
        let found = problems("""
            {"type": "jsonSchema", "schema": {"type": "object",
              "properties": {"age": {"type": "int", "minimum": 5, "maximum": 1}},
              "requird": ["age"], "$ref": "#/$defs/none"}}
            """)
        #expect(found.map(\.message) == [
            "invalid schema: unknown type name 'int'; did you mean 'integer'?",
            "invalid schema: 'minimum' (5) is greater than 'maximum' (1), so nothing can pass",
            "invalid schema: unsupported schema keyword 'requird'; did you mean 'required'?",
            "invalid schema: '$ref' \"#/$defs/none\" does not resolve",
        ])
        #expect(found.map(\.path) == [
            "$.cases[0].expect[0].schema.properties.age.type",
            "$.cases[0].expect[0].schema.properties.age.minimum",
            "$.cases[0].expect[0].schema.requird",
            "$.cases[0].expect[0].schema[\"$ref\"]",
        ])
        #expect(found[0].location == SourceLocation(line: 3, column: 34))
        #expect(found[2].location == SourceLocation(line: 4, column: 3), "an unknown keyword points at its key")
        #expect(found[2].description.hasPrefix("g.json:4:3: error: invalid schema: unsupported schema keyword"))
    }

    @Test("A schema that is not an object, or is missing, is an error")
    func schemaShape() {
        #expect(problems(#"{"type": "jsonSchema", "schema": "object"}"#).map(\.message)
                == ["invalid schema: a schema must be an object or a boolean, found a string"])
        #expect(problems(#"{"type": "jsonSchema"}"#).map(\.message) == ["missing required key 'schema'"])
    }

    @Test("A JSONPath or JSON pointer that cannot parse is reported with a fix")
    func badPaths() {
        let found = problems("""
            {"type": "jsonPath", "path": "$..name"},
            {"type": "jsonPath", "path": "items[0]"},
            {"type": "jsonPointer", "pointer": "items/0"},
            {"type": "jsonPointer", "pointer": "/a~x"}
            """)
        #expect(found.map(\.message) == [
            "the JSONPath '$..name' does not parse: recursive descent '..' is not supported (character 3)",
            "the JSONPath 'items[0]' does not parse: a JSONPath starts with '$' (character 1)",
            "the JSON pointer 'items/0' is not valid: a JSON pointer starts with '/', or is empty for the whole answer",
            "the JSON pointer '/a~x' is not valid: '~' in a JSON pointer must be followed by 0 or 1",
        ])
        #expect(found.map(\.path) == ["$.cases[0].expect[0].path", "$.cases[0].expect[1].path",
                                      "$.cases[0].expect[2].pointer", "$.cases[0].expect[3].pointer"])
        #expect(found[1].fix?.hasPrefix("write \"$.items[0]\"") == true)
        #expect(found[2].fix == "write \"/items/0\"")
    }

    @Test("jsonPath and jsonPointer take one expectation; approx needs a tolerance; a bad 'matches' regex is caught")
    func expectations() {
        let found = problems("""
            {"type": "jsonPath", "path": "$.a", "equals": 1, "contains": 1},
            {"type": "jsonPath", "path": "$.a", "tolerance": 0.1},
            {"type": "jsonPointer", "pointer": "/a", "approx": 1},
            {"type": "jsonPointer", "pointer": "/a", "matches": "[a-"},
            {"type": "jsonPath", "path": "$.a", "tolerence": 1}
            """)
        #expect(found.map(\.message) == [
            "'equals' and 'contains' cannot both be given",
            "'tolerance' applies only with 'approx'",
            "missing required key 'tolerance'",
            "the pattern '[a-' is not a valid regular expression",
            "unknown key 'tolerence'; did you mean 'tolerance'?",
        ])
        #expect(found[3].path == "$.cases[0].expect[3].matches")
    }

    @Test("Text checks need non-empty values; lengthBetween needs a bound and min ≤ max; keywords need minRatio in 0…1")
    func textFields() {
        let found = problems("""
            {"type": "containsAll"},
            {"type": "containsAny", "values": []},
            {"type": "containsAll", "values": ["a", ""]},
            {"type": "lengthBetween"},
            {"type": "lengthBetween", "min": 9, "max": 3},
            {"type": "keywords", "values": ["a"], "minRatio": 1.5},
            {"type": "keywords", "values": ["a"]},
            {"type": "containsAny", "value": "x", "values": ["x"]}
            """)
        #expect(found.map(\.message) == [
            "missing required key 'values'",
            "'values' must be a non-empty array of strings, found an empty array",
            "each element of 'values' must be non-empty text",
            "missing required key 'min'",
            "'min' (9) is greater than 'max' (3), so no answer can pass",
            "'minRatio' must be a number from 0 to 1, found 1.5",
            "missing required key 'minRatio'",
            "'value' is not used by type 'containsAny'",
        ])
    }

    @Test("A label check's value must be one of its labels, and labels must differ once normalised")
    func labelFields() {
        let found = problems("""
            {"type": "label", "labels": ["positive", "negative"], "value": "positiv"},
            {"type": "label", "labels": ["Yes", "yes."], "value": "yes"},
            {"type": "label", "value": "x"}
            """)
        #expect(found.map(\.message) == [
            "the expected label 'positiv' is not one of 'labels'; did you mean 'positive'?",
            "the labels 'Yes' and 'yes.' are the same once normalised (trimmed, case-folded, punctuation removed)",
            "missing required key 'labels'",
        ])
        #expect(found[1].path == "$.cases[0].expect[1].labels[1]")
    }

    @Test("not must be a boolean, a name must not be empty, and a case threshold is from 0 to 1")
    func common() {
        let found = problems(#"{"type": "json", "not": "yes", "name": " "}"#, caseExtra: #", "threshold": 1.2"#)
        // In source order: the threshold is on the case's line, before its expect list.
        #expect(found.map(\.message) == [
            "'threshold' must be a number from 0 to 1, found 1.2",
            "'not' must be true or false, found a string",
            "the assertion name is empty",
        ])
        #expect(problems(#"{"type": "json", "schema": {}}"#).map(\.message) == ["'schema' is not used by type 'json'"])
    }

    @Test("A case threshold loads onto the case")
    func threshold() throws {
        let text = #"{"format": "evalbench.suite/1", "cases": [{"id": "a", "prompt": "p", "threshold": 0.5}]}"#
        #expect(try SuiteLoader.load(data: Data(text.utf8), file: "t.json").cases[0].threshold == 0.5)
    }

    @Test("evals/graders.json loads and uses every assertion type built for it")
    func exampleSuite() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("evals/graders.json")
        let suite = try SuiteLoader.load(path: url.path)
        let types = Set(suite.cases.flatMap { $0.turns.flatMap { $0.expect.map(\.type) } })
        #expect(types.isSuperset(of: ["json", "jsonSchema", "jsonPath", "jsonPointer", "containsAll", "containsAny",
                                      "lengthBetween", "label", "keywords"]))
        let assertions = suite.cases.flatMap { $0.turns.flatMap(\.expect) }
        #expect(assertions.contains { $0.inverted })
        #expect(assertions.contains { $0.weight != nil })
        #expect(suite.cases.contains { $0.threshold != nil })
    }
}
