import Foundation
import Testing
@testable import EvalBench

/// The verdict in the reports: summary.md (so the job page's step summary), report.html and
/// run.json say whether the gate held, why not, and what it checked; `evalbench report` keeps it.
@Suite("summary.md, report.html and run.json open with the run's verdict", .serialized)
struct VerdictReportTests {
    /// 6 cases; backend b answers the odd ones wrong (3 of 6 pass there).
    private let suite = Suite(name: "geo", cases: (0..<6).map { index in
        EvalCase(id: "case-\(index)", turns: [Turn(prompt: "q\(index)", expect: [Assertion(.contains("q", ignoreCase: false))])])
    })

    private func run(_ out: URL, gate: Gate, environment: [String: String] = [:]) async throws -> RunOutcome {
        var request = RunRequest(suitePaths: [], outputDirectory: out.path, gate: gate, environment: environment)
        request.sources = [.suite(suite)]
        request.configValue = Config(file: nil, backends: [])
        request.providedBackends = [
            FixedAnswerBackend(name: "a"),
            FixedAnswerBackend(name: "b") { prompt in Int(prompt.dropFirst())! % 2 == 1 ? "wrong" : prompt },
        ]
        return try await EvalRun.execute(try EvalRun.load(request), request, transport: DefaultStreamTransport())
    }

    /// The `## Verdict` section of `markdown`, up to the next `## `.
    private func verdictSection(_ markdown: String) -> String? {
        guard let start = markdown.range(of: "## Verdict\n") else { return nil }
        let rest = markdown[start.lowerBound...]
        let end = rest.dropFirst(3).range(of: "\n## ")?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }

    @Test("a failed gate: FAIL, exit 1, why and what the gates checked, first after the title; the step summary shows it first")
    func failedGate() async throws {
        let work = PackagePaths.temporaryDirectory("verdict-fail")
        defer { try? FileManager.default.removeItem(at: work) }
        let stepSummary = work.appendingPathComponent("step-summary.md")
        let outcome = try await run(work.appendingPathComponent("out"), gate: Gate(minPassRate: 0.9),
                                    environment: ["GITHUB_STEP_SUMMARY": stepSummary.path])
        #expect(outcome.verdict.exitStatus == .gateFailed)
        let recorded = try #require(try RunDirectory(outcome.outputDirectory).readMetadata().verdict)
        #expect(recorded.status == "FAIL" && recorded.exitCode == 1)
        #expect(recorded.reasons == outcome.verdict.reasons && recorded.reasons == ["b · none · default: pass rate 50.0% is below --min-pass-rate 90.0%"])
        #expect(recorded.checks.first == "every backend × reasoning × variant passes at least 90.0% of its case runs (--min-pass-rate)")

        let summary = try String(contentsOf: RunDirectory(outcome.outputDirectory).summaryMarkdown, encoding: .utf8)
        let section = try #require(verdictSection(summary))
        #expect(section.contains("**FAIL**: exit 1 (a gate failed, or a significant regression against the baseline)"), "\(section)")
        #expect(section.contains("Why:\n\n- b · none · default: pass rate 50.0% is below --min-pass-rate 90.0%\n"), "\(section)")
        #expect(section.contains("Gates checked:\n\n- every backend × reasoning × variant passes at least 90.0%"), "\(section)")
        let headings = summary.split(separator: "\n").filter { $0.hasPrefix("## ") }
        #expect(headings.prefix(2) == ["## Verdict", "## Results"], "\(headings)")
        let appended = try String(contentsOf: stepSummary, encoding: .utf8)
        #expect(appended == summary + "\n")

        let page = try ParsedXML(try String(contentsOf: outcome.outputDirectory.appendingPathComponent(RunDirectory.FileName.html), encoding: .utf8))
        let verdict = try #require(page.all("section", class: "verdict-fail").first)
        #expect(verdict.text.contains("FAIL: exit 1") && verdict.text.contains("pass rate 50.0% is below --min-pass-rate 90.0%"), "\(verdict.text)")
        let sections = page.all("section").compactMap { $0.attributes["id"] }
        #expect(sections.prefix(2) == ["verdict", "results"], "\(sections)")
    }

    @Test("a gate that held: PASS, exit 0, no reasons, the pass-rate gate named; an interrupted verdict lists no checks")
    func passedGate() async throws {
        let work = PackagePaths.temporaryDirectory("verdict-pass")
        defer { try? FileManager.default.removeItem(at: work) }
        let outcome = try await run(work.appendingPathComponent("out"), gate: Gate(minPassRate: 0.5))
        #expect(outcome.verdict.exitStatus == .success)
        let summary = try String(contentsOf: RunDirectory(outcome.outputDirectory).summaryMarkdown, encoding: .utf8)
        let section = try #require(verdictSection(summary))
        #expect(section.hasPrefix("## Verdict\n\n**PASS**: exit 0 (success, and every gate held)\n"), "\(section)")
        #expect(!section.contains("Why:"))
        #expect(section.contains("- every backend × reasoning × variant passes at least 50.0% of its case runs (--min-pass-rate)"))

        let interruption = RunMetadata.Interruption(unfinishedRequests: 3, plannedRequests: 12)
        let interrupted = RecordedVerdict(interruption.verdict(notes: ["a note"]), checks: [])
        let text = SummaryMarkdown.verdict(interrupted, note: nil)
        #expect(text.contains("**INTERRUPTED**: exit 130") && text.contains("Why:\n\n- 3 of 12 planned requests did not run"))
        #expect(!text.contains("Gates checked:") && text.contains("Notes:\n\n- a note\n"))
    }

    @Test("reports written again for a run that never ended (no end time, no verdict in run.json) say it is unfinished and end at its last request")
    func unfinishedRun() async throws {
        let work = PackagePaths.temporaryDirectory("verdict-unfinished")
        defer { try? FileManager.default.removeItem(at: work) }
        let outcome = try await run(work.appendingPathComponent("out"), gate: Gate(minPassRate: 0.5))
        let directory = RunDirectory(outcome.outputDirectory)
        // As run.json is while the run goes: written at its start, before any end or verdict.
        var metadata = try directory.readMetadata()
        metadata.endedAt = nil
        metadata.verdict = nil
        try metadata.write(to: directory.metadata)
        let results = try directory.readResultTable()
        let later = Date().addingTimeInterval(3_600)
        try EvalRun.writeReports(results, metadata: try directory.readMetadata(), verdictNote: RecordedVerdict.rewrittenNote, to: directory.url)
        let summary = try String(contentsOf: directory.summaryMarkdown, encoding: .utf8)
        #expect(summary.hasPrefix("> **Unfinished: the run stopped before it ended (quit at once, a crash or kill -9), so run.json has no end time; "
            + "these figures cover only the 12 requests recorded (finish it with --resume)**"), "\(summary.prefix(300))")
        #expect(!summary.contains("## Verdict"))
        let last = EvalRun.lastEnd(of: results, after: metadata.startedAt)
        #expect(last >= metadata.startedAt && last < later)
        #expect(summary.contains("to \(ISO8601DateFormatter().string(from: last))"), "the run ends with its last request, not when the report is written")
        #expect(summary.contains("## Recommendation\n\nNo recommendation: the run was interrupted"))
        let rows = try String(contentsOf: directory.file(RunDirectory.FileName.recommendationCSV), encoding: .utf8)
            .split(whereSeparator: \.isNewline).dropFirst()
        #expect(!rows.isEmpty && rows.allSatisfy { $0.hasSuffix(",false") }, "an unfinished run recommends nothing")
    }

    @Test("what the gates checked mirrors how they judge: --min-pass-rate, suites' own gates and the default gate, errors, baseline, --allow-empty")
    func checks() {
        let suiteGates = ["a": SuiteGates(minPassRate: 0.8, maxErrorRate: 0.1)]
        let own = Gate().checks(suites: ["a", "b", "a"], suiteGates: suiteGates, baseline: nil)
        #expect(own == [
            "suite 'a': every backend × reasoning × variant passes at least 80.0% of its case runs (its gates.minPassRate)",
            "every case run of 'b' passes (the default gate)",
            "no backend was stopped by fail fast (defaults.failFastAfter): its pass rate would cover only the case runs sent before",
            "suite 'a': at most 10.0% of its requests sent end in an error (its gates.maxErrorRate)",
            "at least one case ran (--allow-empty lets a run of none pass)",
            "every backend selected could be reached and used",
        ])
        // The command line's flags override the suites' gates, as in `evaluate`.
        let flags = Gate(minPassRate: 0.7, maxErrorRate: 0.05, allowsEmptyRun: true).checks(suites: ["a"], suiteGates: suiteGates, baseline: nil)
        #expect(flags.prefix(4) == [
            "every backend × reasoning × variant passes at least 70.0% of its case runs (--min-pass-rate)",
            "no backend was stopped by fail fast (defaults.failFastAfter): its pass rate would cover only the case runs sent before",
            "at most 5.0% of the requests sent end in an error (--max-error-rate)",
            "a run in which no case ran passes (--allow-empty)",
        ])
        let byDefault = Gate().checks(suites: ["b"], suiteGates: [:], baseline: nil)
        #expect(byDefault.first == "every case run passes (the default gate; --min-pass-rate sets a pass rate instead)")
        #expect(!byDefault.contains { $0.contains("fail fast") }, "under the default gate the failures that stopped it fail the run already")
        #expect(!Gate(minPassRate: 0).checks(suites: ["b"], suiteGates: [:], baseline: nil).contains { $0.contains("fail fast") },
                "--min-pass-rate 0 asks for no gate (a shard that leaves them to its merge)")
        // With a baseline the comparison is the gate: no "every case passes".
        let compared = Gate(everyCaseMustPassByDefault: false).checks(suites: ["b"], suiteGates: [:], baseline: "runs/main")
        #expect(compared.first == "no significant regression against the baseline runs/main (--baseline)")
    }

    @Test("summary.md lists at most 20 reasons under the verdict and counts the rest")
    func cappedReasons() {
        let reasons = (1...25).map { "reason \($0)" }
        let verdict = RecordedVerdict(Gate.Verdict(exitStatus: .gateFailed, reasons: reasons), checks: [])
        let text = SummaryMarkdown.verdict(verdict, note: nil)
        #expect(text.contains("- reason 20\n- … and 5 more in run.json\n"), "\(text)")
        #expect(!text.contains("reason 21"))
    }
}
