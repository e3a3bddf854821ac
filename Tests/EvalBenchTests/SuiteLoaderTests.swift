import Foundation
import Testing
@testable import EvalBench

private func load(_ text: String, file: String = "geo.json") throws(LoadError) -> Suite {
    try SuiteLoader.load(data: Data(text.utf8), file: file)
}

/// The diagnostics loading `text` reports; empty when it loads.
private func problems(_ text: String) -> [Diagnostic] {
    loadDiagnostics { () throws(LoadError) in _ = try load(text) }
}

@Suite("Loading suites")
struct SuiteLoaderTests {
    @Test("The design's example suite loads with templates rendered and suite defaults applied")
    func loadsExample() throws {
        let suite = try load("""
        {
          "format": "evalbench.suite/1",
          "suite": "geography",
          "instructions": "Answer with a single word.",
          "options": { "temperature": 0, "maxOutputTokens": 16 },
          "vars": { "style": "one word" },
          "cases": [
            { "id": "capital-france", "prompt": "What is the capital of France?",
              "expect": [ { "type": "contains", "value": "Paris" } ] },
            { "id": "trip", "tags": ["multi-turn"],
              "turns": [
                { "prompt": "Plan a day in Kyoto in {{style}}." },
                { "prompt": "Now make it rainy-day friendly.",
                  "expect": [ { "type": "regex", "pattern": "(?i)museum|temple" } ] } ] }
          ]
        }
        """)
        #expect(suite.name == "geography")
        #expect(suite.cases.map(\.id) == ["capital-france", "trip"])
        #expect(suite.cases[0].instructions == "Answer with a single word.")
        #expect(suite.cases[0].options == GenerationOptions(temperature: 0, maxOutputTokens: 16))
        #expect(suite.cases[0].turns == [Turn(prompt: "What is the capital of France?",
                                              expect: [Assertion(.contains("Paris", ignoreCase: false))])])
        #expect(suite.cases[1].tags == ["multi-turn"])
        #expect(suite.cases[1].turns[0].prompt == "Plan a day in Kyoto in one word.")
        #expect(suite.cases[1].turns[1].expect == [Assertion(.regex("(?i)museum|temple", ignoreCase: false))])
    }

    @Test("Without a 'suite' key the name is the file's base name without extension")
    func defaultName() throws {
        let suite = try load(#"{"format": "evalbench.suite/1", "cases": [{"id": "a", "prompt": "p"}]}"#,
                             file: "evals/capitals.json")
        #expect(suite.name == "capitals")
        #expect(suite.file == "evals/capitals.json")
    }

    @Test("Malformed JSON is one diagnostic with the exact line and column")
    func malformedJSON() throws {
        let found = problems("{\n  \"format\": \"evalbench.suite/1\",\n  \"cases\": [ { \"id\": \"a\" \"prompt\": \"p\" } ]\n}")
        #expect(found.count == 1)
        #expect(found.first?.location == SourceLocation(line: 3, column: 26))
        #expect(found.first?.message == "expected ',' or '}' after an object member, found '\"'")
    }

    @Test("An unknown key gets a did-you-mean, its JSON path and the allowed keys")
    func unknownKey() throws {
        let found = problems("""
        {"format": "evalbench.suite/1", "cases": [
          {"id": "a", "prompt": "p"},
          {"id": "b", "promt": "p"}]}
        """)
        let typo = try #require(found.first { $0.message.hasPrefix("unknown key") })
        #expect(typo.message == "unknown key 'promt'; did you mean 'prompt'?")
        #expect(typo.path == "$.cases[1].promt")
        #expect(typo.location == SourceLocation(line: 3, column: 15))
        #expect(typo.fix?.contains("id, description, prompt, turns") == true)
    }

    @Test("A wrong type says what was expected and what was found")
    func wrongType() throws {
        let found = problems("""
        {"format": "evalbench.suite/1", "options": {"temperature": "0.2", "maxOutputTokens": 0},
         "cases": [{"id": "a", "prompt": "p", "tags": "geo"}]}
        """)
        #expect(found.map(\.message) == [
            "'temperature' must be a number from 0 to 2, found a string",
            "'maxOutputTokens' must be a whole number of at least 1, found 0",
            "'tags' must be an array of strings, found a string",
        ])
        #expect(found[0].fix == "remove the quotes around the value")
        #expect(found[0].path == "$.options.temperature")
    }

    @Test("A duplicate case id points at the second one and names the first's line")
    func duplicateIDs() throws {
        let found = problems("""
        {"format": "evalbench.suite/1", "cases": [
          {"id": "same", "prompt": "p"},
          {"id": "other", "prompt": "p"},
          {"id": "same", "prompt": "p"}]}
        """)
        #expect(found.count == 1)
        #expect(found[0].message == "duplicate case id 'same'; it is first used at line 2")
        #expect(found[0].location == SourceLocation(line: 4, column: 10))
        #expect(found[0].path == "$.cases[2].id")
    }

    @Test("Case ids are limited to letters, digits, '.', '_' and '-', since they go into result keys")
    func idCharset() throws {
        let found = problems(#"{"format": "evalbench.suite/1", "cases": [{"id": "a/b c", "prompt": "p"}, {"id": "", "prompt": "p"}]}"#)
        #expect(found.map(\.path) == ["$.cases[0].id", "$.cases[1].id"])
        #expect(found[0].fix?.contains("\"a-b-c\"") == true)
        #expect(found[1].message == "the case id is empty")
        // A suggestion never starts with '-' (it would read as an option after --case), and names an example when nothing is left.
        #expect(ObjectReader.resultKeySuggestion(for: "=cmd", what: "case id") == "cmd")
        #expect(ObjectReader.resultKeySuggestion(for: "é-ü", what: "case id") == "capital-france")
        #expect(ObjectReader.resultKeySuggestion(for: "", what: "backend name") == "local")
        #expect(ObjectReader.resultKeySuggestion(for: "my model (v2)", what: "backend name") == "my-model-v2")
    }

    @Test("An unknown template variable is an error naming it and the vars available")
    func unknownVariable() throws {
        let found = problems("""
        {"format": "evalbench.suite/1", "vars": {"city": "Kyoto"},
         "cases": [{"id": "a", "prompt": "Visit {{citty}} and {{ mood }}", "vars": {"style": "short"}}]}
        """)
        #expect(found.map(\.message) == ["unknown template variable 'citty'; did you mean 'city'?",
                                         "unknown template variable 'mood'"])
        #expect(found[0].fix?.contains("city, style") == true)
        #expect(found[0].path == "$.cases[0].prompt")
        #expect(found[0].location == SourceLocation(line: 2, column: 34))
    }

    @Test("Case vars override suite vars, and numbers and booleans become text")
    func varsPrecedence() throws {
        let suite = try load("""
        {"format": "evalbench.suite/1", "vars": {"city": "Paris", "n": 3},
         "instructions": "Be {{tone}}.",
         "cases": [
           {"id": "a", "vars": {"city": "Kyoto", "tone": true}, "prompt": "{{city}} x{{n}}",
            "expect": [{"type": "contains", "value": "{{city}}"}]}]}
        """)
        #expect(suite.cases[0].turns[0].prompt == "Kyoto x3")
        #expect(suite.cases[0].instructions == "Be true.")
        #expect(suite.cases[0].turns[0].expect == [Assertion(.contains("Kyoto", ignoreCase: false))])
    }

    @Test("Case options merge over suite options; case instructions replace suite instructions")
    func optionMerging() throws {
        let suite = try load("""
        {"format": "evalbench.suite/1", "instructions": "suite", "options": {"temperature": 0.5, "seed": 7, "stop": "\\n"},
         "cases": [
           {"id": "a", "prompt": "p", "instructions": "case", "options": {"temperature": 1, "stop": ["END", "STOP"]}},
           {"id": "b", "prompt": "p"}]}
        """)
        #expect(suite.cases[0].options == GenerationOptions(temperature: 1, seed: 7, stop: ["END", "STOP"]))
        #expect(suite.cases[0].instructions == "case")
        #expect(suite.cases[1].options == GenerationOptions(temperature: 0.5, seed: 7, stop: ["\n"]))
        #expect(suite.cases[1].instructions == "suite")
    }

    @Test("An invalid regex is reported at its pattern")
    func invalidRegex() throws {
        let found = problems(#"{"format": "evalbench.suite/1", "cases": [{"id": "a", "prompt": "p", "expect": [{"type": "regex", "pattern": "(abc"}]}]}"#)
        #expect(found.count == 1)
        #expect(found[0].message == "the pattern '(abc' is not a valid regular expression")
        #expect(found[0].path == "$.cases[0].expect[0].pattern")
    }

    @Test("A case needs exactly one of 'prompt' and 'turns'")
    func promptXorTurns() throws {
        let found = problems("""
        {"format": "evalbench.suite/1", "cases": [
          {"id": "both", "prompt": "p", "turns": [{"prompt": "q"}]},
          {"id": "neither"}]}
        """)
        #expect(found.map(\.message) == ["a case has either 'prompt' or 'turns', not both",
                                         "missing required key 'prompt'"])
        #expect(found.map(\.path) == ["$.cases[0].turns", "$.cases[1]"])
        #expect(found[1].fix?.contains("turns") == true)
    }

    @Test("A case-level expect is appended to the last turn; a turn's own expect stays with it")
    func caseExpectOnLastTurn() throws {
        let suite = try load("""
        {"format": "evalbench.suite/1", "cases": [{"id": "chat",
          "turns": [{"prompt": "one", "expect": [{"type": "contains", "value": "1"}]},
                    {"prompt": "two", "expect": [{"type": "equals", "value": "2", "ignoreCase": true}]}],
          "expect": [{"type": "maxLatencyMs", "value": 500, "name": "fast", "weight": 2}]}]}
        """)
        let turns = suite.cases[0].turns
        #expect(turns[0].expect == [Assertion(.contains("1", ignoreCase: false))])
        #expect(turns[1].expect == [Assertion(.equals("2", ignoreCase: true)),
                                    Assertion(.maxLatencyMs(500), name: "fast", weight: 2)])
    }

    @Test("Assertion types and their fields are checked, with did-you-mean on a typo")
    func assertionFields() throws {
        let found = problems("""
        {"format": "evalbench.suite/1", "cases": [{"id": "a", "prompt": "p", "expect": [
          {"type": "contain", "value": "x"},
          {"type": "contains", "pattern": "x", "value": "y"},
          {"type": "minCacheHitRatio", "value": 1.5},
          {"type": "maxOutputTokens", "value": 2.5},
          {"type": "equals", "weight": 0}]}]}
        """)
        #expect(found.map(\.message) == [
            "unknown assertion type 'contain'; did you mean 'contains'?",
            "'pattern' is not used by type 'contains'",
            "'value' must be a number from 0 to 1, found 1.5",
            "'value' must be a whole number of at least 0, found 2.5",
            "missing required key 'value'",
            "'weight' must be a number greater than 0, found 0",
        ])
    }

    @Test("Several problems across the file are reported at once, in source order")
    func severalAtOnce() throws {
        let found = problems("""
        {"format": "evalbench.suite/2", "repeat": 0, "descripton": "x",
         "cases": [{"id": "a", "prompt": 3}, {"id": "b", "turns": []}]}
        """)
        #expect(found.map(\.message) == [
            "unsupported format 'evalbench.suite/2'",
            "'repeat' must be a whole number of at least 1, found 0",
            "unknown key 'descripton'; did you mean 'description'?",
            "'prompt' must be a string, found 3",
            "'turns' must be a non-empty array of turns, found an empty array",
        ])
        #expect(found.allSatisfy { $0.file == "geo.json" && $0.location != nil && $0.path != nil })
    }

    @Test("A missing format and missing cases are both reported, with fixes")
    func requiredTopLevel() throws {
        let found = problems("{}")
        #expect(found.map(\.message) == ["missing required key 'format'", "missing required key 'cases'"])
        #expect(found[0].fix == "add \"format\": \"evalbench.suite/1\"")
    }

    @Test("Loading a missing file is a diagnostic, not a crash")
    func missingFile() throws {
        #expect(throws: LoadError.self) { try SuiteLoader.load(path: "/nonexistent/suite.json") }
    }
}
