import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

private func problems(_ text: String) -> [Diagnostic] { suiteProblems(text, file: "e.json") }

/// A prompt that is empty or only whitespace, as written or as rendered, is refused at load:
/// Anthropic answers such a message with bad_request, and it is nearly always a typo or a
/// variable that rendered to nothing.
@Suite("An empty prompt is refused at load, wherever it comes from")
struct EmptyPromptTests {
    @Test("a case's empty or whitespace-only prompt is refused at its value, with its path and a fix; a prompt with text is not")
    func casePrompt() {
        let found = problems("""
        {"format": "evalbench.suite/1", "cases": [
          {"id": "empty", "prompt": ""},
          {"id": "blank", "prompt": " \\n\\t "},
          {"id": "fine", "prompt": " 2 + 2? "}]}
        """)
        #expect(found.map(\.message) == ["the prompt is empty", "the prompt is only whitespace"])
        #expect(found.map(\.path) == ["$.cases[0].prompt", "$.cases[1].prompt"])
        #expect(found.map(\.location) == [SourceLocation(line: 2, column: 29), SourceLocation(line: 3, column: 29)])
        #expect(found.allSatisfy { $0.file == "e.json" && $0.fix == "write the message the model should answer" }, "\(found)")
    }

    @Test("a turn's empty prompt is refused at that turn, by its index, and the other turns are not")
    func turnPrompt() {
        let found = problems("""
        {"format": "evalbench.suite/1", "cases": [
          {"id": "fine", "prompt": "p"},
          {"id": "chat", "turns": [{"prompt": "one"}, {"prompt": "two"},
                                   {"prompt": "   "}]}]}
        """)
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.message == "the prompt is only whitespace")
        #expect(found.first?.path == "$.cases[1].turns[2].prompt")
        #expect(found.first?.location == SourceLocation(line: 4, column: 39))
        #expect(found.first?.fix == "write the message the model should answer")
    }

    @Test("a template whose vars render it empty is refused at the template, naming the variables and where to give them a value")
    func renderedFromVars() {
        let found = problems("""
        {"format": "evalbench.suite/1", "vars": {"topic": ""},
         "cases": [
          {"id": "suite-var", "prompt": "{{topic}}"},
          {"id": "case-vars", "vars": {"a": " ", "b": ""}, "turns": [{"prompt": "{{a}}\\n{{ b }}"}]},
          {"id": "overridden", "vars": {"topic": "tides"}, "prompt": " {{topic}} "}]}
        """)
        #expect(found.map(\.message) == ["the prompt '{{topic}}' renders empty: 'topic' is empty",
                                         "the prompt '{{a}}\n{{ b }}' renders empty: 'a', 'b' are empty or only whitespace"])
        #expect(found.map(\.path) == ["$.cases[0].prompt", "$.cases[1].turns[0].prompt"])
        #expect(found.map(\.location) == [SourceLocation(line: 3, column: 33), SourceLocation(line: 4, column: 73)])
        #expect(found.map(\.fix) == ["check the variable that rendered empty: give 'topic' a value in the case's or the suite's \"vars\"",
                                     "check the variable that rendered empty: give 'a', 'b' a value in the case's or the suite's \"vars\""])
    }

    @Test("a dataset row that renders the case template's prompt empty is refused at the template, naming the dataset file, row and column")
    func renderedFromDatasetRow() throws {
        let directory = PackagePaths.temporaryDirectory("empty-prompt-dataset")
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("{\"id\": \"1\", \"q\": \"What?\"}\n{\"id\": \"2\", \"q\": \"\"}\n{\"id\": \"3\", \"q\": \" \"}\n".utf8)
            .write(to: directory.appendingPathComponent("rows.jsonl"))
        try Data("q,note\nWhy?,x\n,y\n".utf8).write(to: directory.appendingPathComponent("rows.csv"))
        let suite = directory.appendingPathComponent("s.json")
        func load(_ text: String) throws -> [Diagnostic] {
            try Data(text.utf8).write(to: suite)
            return loadDiagnostics { () throws(LoadError) in _ = try SuiteLoader.load(path: suite.path) }
        }

        let jsonLines = try load("""
        {"format": "evalbench.suite/1", "suite": "s",
         "dataset": {"path": "rows.jsonl", "case": {"id": "q-{{id}}", "prompt": "{{q}}"}}}
        """)
        #expect(jsonLines.map(\.message) == ["the prompt '{{q}}' renders empty: 'q' is empty (dataset row 2, rows.jsonl:2)",
                                             "the prompt '{{q}}' renders empty: 'q' is empty or only whitespace (dataset row 3, rows.jsonl:3)"])
        #expect(jsonLines.allSatisfy { $0.file == suite.path && $0.path == "$.dataset.case.prompt" }, "\(jsonLines)")
        #expect(jsonLines.allSatisfy { $0.location == SourceLocation(line: 2, column: 73) }, "\(jsonLines)")
        #expect(jsonLines.allSatisfy { $0.fix == "check the variable that rendered empty: fill the dataset row's column 'q', or leave the row out" })

        // A column and a template var, both empty: each is named where it is given a value.
        let csv = try load("""
        {"format": "evalbench.suite/1", "suite": "s",
         "dataset": {"path": "rows.csv", "case": {"vars": {"tail": ""}, "prompt": "{{q}}{{tail}}"}}}
        """)
        #expect(csv.map(\.message) == ["the prompt '{{q}}{{tail}}' renders empty: 'q', 'tail' are empty (dataset row 2, rows.csv:3)"])
        #expect(csv.first?.fix == "check the variable that rendered empty: fill the dataset row's column 'q', or leave the row out; "
                                  + "give 'tail' a value in the case's or the suite's \"vars\"")
        #expect(csv.first?.location == SourceLocation(line: 2, column: 75))
    }

    @Test("a variant cannot make a prompt empty: a case's empty prompt is refused though a variant wraps it, and an empty template lacks {{prompt}}")
    func variantPrompt() {
        let found = problems("""
        {"format": "evalbench.suite/1",
         "variants": [{"name": "wrapped", "prompt": "{{prompt}} (one word)"}, {"name": "blank", "prompt": ""}],
         "cases": [{"id": "c", "prompt": ""}]}
        """)
        #expect(found.map(\.message) == ["the variant's prompt template has no {{prompt}}", "the prompt is empty"])
        #expect(found.map(\.path) == ["$.variants[1].prompt", "$.cases[0].prompt"])
        #expect(found.map(\.location) == [SourceLocation(line: 2, column: 99), SourceLocation(line: 3, column: 34)])
    }

    @Test("a suite built in Swift with an empty turn prompt or an empty variant template is a LoadError naming each")
    func suiteBuiltInSwift() {
        var suite = Suite(name: "s", cases: [EvalCase(id: "c", turns: [Turn(prompt: "one"), Turn(prompt: " \n")])])
        suite.variants = [PromptVariant(name: "plain"), PromptVariant(name: "blank", promptTemplate: "")]
        let found = loadDiagnostics { () throws(LoadError) in try SuiteChecks.check(suite) }
        #expect(found.map(\.path) == ["$.cases[0].turns[1].prompt", "$.variants[1].prompt"], "\(found)")
        #expect(found.map(\.message) == ["turn 2 of case 'c' has an empty prompt",
                                         "variant 'blank' has an empty prompt template, so every prompt it wraps is sent empty"])
        #expect(found.allSatisfy { $0.file == "suite 's' (built in Swift)" && $0.fix != nil })
    }
}

extension LoopbackNetworkTests {
    /// Suites with an empty prompt and with whitespace-only instructions, and the error each gets.
    static let blankTexts: [(suite: String, error: String)] = [
        (#"{"format": "evalbench.suite/1", "suite": "s", "cases": [{"id": "b", "prompt": "", "expect": [{"type": "contains", "value": "4"}]}]}"#,
         ":1:79: error: the prompt is empty (at $.cases[0].prompt)\n  fix: write the message the model should answer"),
        (#"{"format": "evalbench.suite/1", "suite": "s", "instructions": " ", "cases": [{"id": "b", "prompt": "2 + 2?"}]}"#,
         ":1:63: error: the instructions are only whitespace (at $.instructions)\n"
            + "  fix: write the instructions the model should follow, or remove \"instructions\""),
    ]

    @Test("evalbench run with an empty prompt or whitespace-only instructions exits 2 with file:line:column, path and fix, and sends Anthropic nothing",
          arguments: blankTexts)
    func blankTextSendsNothing(_ suite: String, error: String) async throws {
        let server = FakeAnthropicServer(replies: [.init(steps: [.text("4")])])
        try server.start()
        defer { server.stop() }
        let fixture = try RunFixture("blank-text-run", suite: suite, config: """
            {"backends": [{"name": "claude", "kind": "anthropic", "model": "claude-test", "baseURL": "\(server.baseURL.absoluteString)",
                           "apiKeyEnv": "EVALBENCH_TEST_ANTHROPIC_KEY"}]}
            """)
        defer { fixture.remove() }
        let run = try await runEvalbench(["run", fixture.suitePath, "--config", fixture.configPath,
                                          "--out", fixture.directory.appendingPathComponent("out").path],
                                         environment: ["EVALBENCH_TEST_ANTHROPIC_KEY": "sk-ant-test"])
        #expect(run.status == ExitStatus.usage.rawValue, "\(run.stderr)")
        #expect(run.stderr.contains(fixture.suitePath + error + "\n"), "\(run.stderr)")
        #expect(server.requests.isEmpty)
    }
}
