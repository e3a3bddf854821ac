import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

private func problems(_ text: String) -> [Diagnostic] { suiteProblems(text, file: "i.json") }

/// Instructions that are empty or only whitespace, as written or as rendered, are refused at
/// load as an empty prompt is: Anthropic answers a system text of only whitespace with
/// bad_request. Without `instructions`, none are sent, as before.
@Suite("Blank instructions are refused at load, wherever they are written")
struct BlankInstructionsTests {
    @Test("the suite's, a variant's, a case's and a turn's blank instructions are each refused at their value, with path and fix")
    func asWritten() {
        let found = problems("""
        {"format": "evalbench.suite/1", "instructions": " ",
         "variants": [{"name": "v", "instructions": ""}],
         "cases": [
          {"id": "blank", "instructions": "\\n\\t", "prompt": "p"},
          {"id": "turn", "turns": [{"prompt": "one", "instructions": "  "}]},
          {"id": "fine", "instructions": " Be brief. ", "prompt": "p"},
          {"id": "absent", "prompt": "p"}]}
        """)
        #expect(found.map(\.message) == ["the instructions are only whitespace", "the instructions are empty",
                                         "the instructions are only whitespace", "the instructions are only whitespace"])
        #expect(found.map(\.path) == ["$.instructions", "$.variants[0].instructions", "$.cases[0].instructions",
                                      "$.cases[1].turns[0].instructions"])
        #expect(found.map(\.location) == [SourceLocation(line: 1, column: 49), SourceLocation(line: 2, column: 45),
                                          SourceLocation(line: 4, column: 35), SourceLocation(line: 5, column: 62)])
        #expect(found.allSatisfy { $0.file == "i.json" && $0.fix == "write the instructions the model should follow, or remove \"instructions\"" },
                "\(found)")
    }

    @Test("instructions with text, or none at all, load as written")
    func fine() throws {
        let suite = try SuiteLoader.load(data: Data("""
        {"format": "evalbench.suite/1", "cases": [
          {"id": "none", "prompt": "p"},
          {"id": "some", "instructions": " Be brief.\\n", "turns": [{"prompt": "p", "instructions": "Be terse."}]}]}
        """.utf8), file: "i.json")
        #expect(suite.cases.map(\.instructions) == [nil, " Be brief.\n"])
        #expect(suite.cases[1].turns[0].switchTo?.instructions == "Be terse.")
    }

    @Test("instructions whose vars render them blank are refused at the template, naming the variables")
    func renderedFromVars() {
        let found = problems("""
        {"format": "evalbench.suite/1", "vars": {"sys": " "},
         "instructions": "{{sys}}",
         "cases": [
          {"id": "inherits", "prompt": "p"},
          {"id": "own", "vars": {"role": ""}, "instructions": "{{role}}", "prompt": "p"},
          {"id": "turn", "turns": [{"prompt": "p", "instructions": "{{ sys }}"}]},
          {"id": "overrides", "vars": {"sys": "Be brief."}, "prompt": "p"}]}
        """)
        #expect(found.map(\.message) == ["the instructions '{{sys}}' render empty: 'sys' is empty or only whitespace",
                                         "the instructions '{{role}}' render empty: 'role' is empty",
                                         "the instructions '{{ sys }}' render empty: 'sys' is empty or only whitespace"])
        #expect(found.map(\.path) == ["$.instructions", "$.cases[1].instructions", "$.cases[2].turns[0].instructions"])
        #expect(found.map(\.location) == [SourceLocation(line: 2, column: 18), SourceLocation(line: 5, column: 55),
                                          SourceLocation(line: 6, column: 60)])
        #expect(found.map(\.fix) == ["check the variable that rendered empty: give 'sys' a value in the case's or the suite's \"vars\"",
                                     "check the variable that rendered empty: give 'role' a value in the case's or the suite's \"vars\"",
                                     "check the variable that rendered empty: give 'sys' a value in the case's or the suite's \"vars\""])
    }

    @Test("a dataset row that renders the case template's instructions blank is refused, naming the row and the column to fill")
    func renderedFromDatasetRow() throws {
        let directory = PackagePaths.temporaryDirectory("blank-instructions-dataset")
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("{\"sys\": \"Be brief.\"}\n{\"sys\": \" \"}\n".utf8).write(to: directory.appendingPathComponent("rows.jsonl"))
        let suite = directory.appendingPathComponent("s.json")
        try Data("""
        {"format": "evalbench.suite/1", "suite": "s",
         "dataset": {"path": "rows.jsonl", "case": {"instructions": "{{sys}}", "prompt": "p"}}}
        """.utf8).write(to: suite)
        let found = loadDiagnostics { () throws(LoadError) in _ = try SuiteLoader.load(path: suite.path) }
        #expect(found.map(\.message) == ["the instructions '{{sys}}' render empty: 'sys' is empty or only whitespace (dataset row 2, rows.jsonl:2)"])
        #expect(found.first?.path == "$.dataset.case.instructions")
        #expect(found.first?.location == SourceLocation(line: 2, column: 61))
        #expect(found.first?.fix == "check the variable that rendered empty: fill the dataset row's column 'sys', or leave the row out")
    }

    @Test("a suite built in Swift with blank instructions on a case, a turn's switch or a variant is a LoadError naming each")
    func suiteBuiltInSwift() {
        var suite = Suite(name: "s", cases: [
            EvalCase(id: "c", instructions: " ", turns: [Turn(prompt: "one"), Turn(prompt: "two", switchTo: TurnSwitch(instructions: ""))]),
            EvalCase(id: "fine", prompt: "p", expect: [], instructions: "Be brief."),
        ])
        suite.variants = [PromptVariant(name: "plain"), PromptVariant(name: "blank", instructions: "\n")]
        let found = loadDiagnostics { () throws(LoadError) in try SuiteChecks.check(suite) }
        #expect(found.map(\.path) == ["$.cases[0].instructions", "$.cases[0].turns[1].instructions", "$.variants[1].instructions"],
                "\(found)")
        #expect(found.map(\.message) == ["case 'c' has instructions that are empty or only whitespace",
                                         "turn 2 of case 'c' switches to instructions that are empty or only whitespace",
                                         "variant 'blank' has instructions that are empty or only whitespace"])
        #expect(found.allSatisfy { $0.file == "suite 's' (built in Swift)" && $0.fix?.contains("(instructions:) the text") == true })
    }
}
