import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

@Suite("Prompt variants")
struct VariantTests {
    @Test("variants load with their overrides and become the plan's variant axis; --variant filters")
    func loadAndPlan() throws {
        let suite = try SuiteLoader.load(data: Data("""
        { "format": "evalbench.suite/1", "suite": "v", "instructions": "Base.", "vars": { "tone": "briefly" },
          "variants": [ { "name": "base" },
                        { "name": "tight", "instructions": "Answer {{tone}}.", "prompt": "{{prompt}} (one word)",
                          "options": { "temperature": 0.5 }, "output": { "schema": { "type": "string" } } } ],
          "cases": [ { "id": "c", "turns": [ { "prompt": "one" }, { "prompt": "two" } ] } ] }
        """.utf8), file: "v.json")
        #expect(suite.variants.map(\.name) == ["base", "tight"])
        let plan = Planner.plan([suite], PlanSelection(backends: ["x"]))
        #expect(plan.caseRuns.map(\.key) == ["v/c/base/x/none/1", "v/c/tight/x/none/1"])
        let tight = plan.caseRuns[1].evalCase
        #expect(tight.instructions == "Answer briefly.")
        #expect(tight.turns.map(\.prompt) == ["one (one word)", "two (one word)"])
        #expect(tight.options.temperature == 0.5)
        #expect(tight.output?.schema == .object(["type": .string("string")]))
        #expect(plan.caseRuns[0].evalCase.instructions == "Base.")
        let filtered = Planner.plan([suite], PlanSelection(backends: ["x"], variants: ["tight"]))
        #expect(filtered.caseRuns.map(\.variant) == ["tight"])
    }

    @Test("a prompt template may write {{ prompt }} with spaces, as any variable")
    func spacedPlaceholder() throws {
        let suite = try SuiteLoader.load(data: Data(#"{"format": "evalbench.suite/1", "suite": "v", "variants": [{"name": "a", "prompt": "{{ prompt }} (one word)"}], "cases": [{"id": "c", "prompt": "p"}]}"#.utf8), file: "v.json")
        let plan = Planner.plan([suite], PlanSelection(backends: ["x"]))
        #expect(plan.caseRuns.first?.evalCase.turns.map(\.prompt) == ["p (one word)"])
        // An unknown variable is the one problem: the placeholder is there, however the rest rendered.
        do {
            _ = try SuiteLoader.load(data: Data(#"{"format": "evalbench.suite/1", "suite": "v", "variants": [{"name": "a", "prompt": "{{ prompt }} in {{stlye}}"}], "cases": [{"id": "c", "prompt": "p"}]}"#.utf8), file: "v.json")
            Issue.record("must not load")
        } catch {
            #expect(!error.diagnostics.map(\.message).contains("the variant's prompt template has no {{prompt}}"), "\(error.diagnostics)")
            #expect(error.diagnostics.count == 1)
        }
    }

    @Test("a variable's value is inserted as written: a {{prompt}} or {{ other }} in it is not filled in when a variant wraps the prompt")
    func valuesAreNotTemplates() throws {
        let suite = try SuiteLoader.load(data: Data(#"""
        {"format": "evalbench.suite/1", "suite": "v",
         "vars": {"braces": "{{prompt}}", "spaced": "{{ prompt }}", "other": "{{ tone }}", "tone": "calm"},
         "variants": [{"name": "wrapped", "instructions": "{{braces}} {{other}}",
                       "prompt": "{{braces}} {{spaced}} {{other}} {{tone}}: {{ prompt }}"}],
         "cases": [{"id": "c", "prompt": "{{braces}} {{other}} Q"}]}
        """#.utf8), file: "v.json")
        let wrapped = try #require(Planner.plan([suite], PlanSelection(backends: ["x"])).caseRuns.first?.evalCase)
        #expect(wrapped.turns.map(\.prompt) == ["{{prompt}} {{ prompt }} {{ tone }} calm: {{prompt}} {{ tone }} Q"])
        #expect(wrapped.instructions == "{{prompt}} {{ tone }}")
    }

    @Test("a dataset row's value that reads {{prompt}} is sent as written inside a variant's template")
    func rowValuesAreNotTemplates() throws {
        let directory = PackagePaths.temporaryDirectory("variant-row-values")
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(#"{"id": "1", "q": "{{prompt}} and {{ tone }}"}"#.utf8).write(to: directory.appendingPathComponent("rows.jsonl"))
        let file = directory.appendingPathComponent("s.json")
        try Data(#"""
        {"format": "evalbench.suite/1", "suite": "s", "vars": {"tone": "calm"},
         "variants": [{"name": "wrapped", "prompt": "Q: {{prompt}} ({{tone}})"}],
         "dataset": {"path": "rows.jsonl", "case": {"prompt": "{{q}}"}}}
        """#.utf8).write(to: file)
        let suite = try SuiteLoader.load(path: file.path)
        let wrapped = try #require(Planner.plan([suite], PlanSelection(backends: ["x"])).caseRuns.first?.evalCase)
        #expect(wrapped.turns.map(\.prompt) == ["Q: {{prompt}} and {{ tone }} (calm)"])
    }

    @Test("a variant built in Swift puts the prompt where its template says {{prompt}} or {{ prompt }}, and nowhere else")
    func swiftTemplate() {
        let variant = PromptVariant(name: "v", promptTemplate: "{{prompt}} / {{ prompt }} / {{tone}}")
        let wrapped = variant.applied(to: EvalCase(id: "c", prompt: "say {{prompt}}", expect: []))
        #expect(wrapped.turns.map(\.prompt) == ["say {{prompt}} / say {{prompt}} / {{tone}}"])
    }

    @Test("a prompt template without {{prompt}} and a duplicate variant name are load errors")
    func problems() {
        do {
            _ = try SuiteLoader.load(data: Data(#"{"format": "evalbench.suite/1", "suite": "v", "variants": [{"name": "a", "prompt": "Hello"}, {"name": "a"}], "cases": [{"id": "c", "prompt": "p"}]}"#.utf8), file: "v.json")
            Issue.record("must not load")
        } catch {
            let messages = error.diagnostics.map(\.message)
            #expect(messages.contains("the variant's prompt template has no {{prompt}}"))
            #expect(messages.contains { $0.hasPrefix("duplicate variant name 'a'") })
        }
    }
}

extension LoopbackNetworkTests {
    @Test("two variants on a fake: the Variants section compares them and lists the case that flipped; an unknown --variant is a load error")
    func variantReport() async throws {
        let server = FakeOpenAIServer { request in
            let long = (request.messages.first?.content.count ?? 0) > 20
            let question = request.messages.last?.content ?? ""
            let answer = long || question.contains("France") ? "Paris" : "No idea"
            return FakeOpenAIServer.Script(steps: [.content(answer)], usage: .init(promptTokens: long ? 60 : 12, completionTokens: 1))
        }
        try server.start()
        defer { server.stop() }
        let fixture = try RunFixture("variants",
                                     suite: """
        { "format": "evalbench.suite/1", "suite": "v",
          "variants": [ { "name": "long", "instructions": "A long and careful set of instructions." }, { "name": "short", "instructions": "Be brief." } ],
          "cases": [ { "id": "france", "prompt": "France?", "expect": [ { "type": "contains", "value": "Paris" } ] },
                     { "id": "other", "prompt": "Other?", "expect": [ { "type": "contains", "value": "Paris" } ] } ] }
        """,
                                     config: #"{"backends": [{"name": "fake", "kind": "openai", "baseURL": "\#(server.baseURL.absoluteString)/v1"}]}"#)
        defer { fixture.remove() }
        let out = fixture.directory.appendingPathComponent("out")
        let request = fixture.request()
        let outcome = try await EvalRun.execute(try EvalRun.load(request), request, transport: URLSessionStreamTransport())
        #expect(outcome.results.count == 4)
        let summary = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("## Variants"))
        // "A long and careful set of instructions." is 39 characters: 10 tokens estimated; "Be brief." 3.
        #expect(summary.contains("| fake · none | long | 100.0% [34.2–100.0] | 2/2 | 10.0 | 60.0 |"), "\(summary)")
        #expect(summary.contains("| fake · none | short | 50.0% [9.5–90.5] | 1/2 | 3.0 | 12.0 |"))
        #expect(summary.contains("Cases whose verdict differs between variants (1):"))
        #expect(summary.contains("| v/other on fake · none (repeat 1) | pass | fail |"))

        var bad = request
        bad.variants = ["shrot"]
        do {
            _ = try EvalRun.load(bad)
            Issue.record("an unknown variant must not load")
        } catch let error as LoadError {
            #expect(error.diagnostics.first?.message == "no variant named 'shrot'; did you mean 'short'?")
        }
    }
}
