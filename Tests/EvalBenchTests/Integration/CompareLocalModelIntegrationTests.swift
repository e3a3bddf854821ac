import Foundation
import Testing
@testable import EvalBench

/// The regression gate on the real local model: the quickstart run twice compares as no
/// significant change, and a copy whose few-shot examples all answer "banana" (a deliberately
/// broken prompt) compares as a regression that names the cases it broke.
@Suite("Comparing runs on the real local model", .enabled(if: integrationEnabled, "set EVALBENCH_INTEGRATION=1 (scripts/test does) after scripts/setup-local-model"), .serialized)
struct CompareLocalModelIntegrationTests {
    @Test("two quickstart runs: no significant change (exit 0); a broken prompt: a regression (exit 1) naming the flipped cases")
    func quickstartBaseline() async throws {
        let work = PackagePaths.temporaryDirectory("compare-local")
        defer { try? FileManager.default.removeItem(at: work) }
        let quickstart = PackagePaths.root.appendingPathComponent("evals/quickstart.json")
        let base = work.appendingPathComponent("base"), again = work.appendingPathComponent("again")
        let broken = work.appendingPathComponent("broken")

        // The baseline, gated on nothing but errors: the quickstart has a case meant to fail.
        let first = try await runEvalbench(["run", quickstart.path, "--out", base.path, "--min-pass-rate", "0", "--no-progress"])
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")

        // The same suite again, compared with the baseline as the run ends.
        let second = try await runEvalbench(["run", quickstart.path, "--out", again.path, "--baseline", base.path, "--no-progress"])
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(second.stdout.contains("compared with \(base.path): No significant change"), "\(second.stdout)")
        let againReport = try String(contentsOf: again.appendingPathComponent("compare.md"), encoding: .utf8)
        #expect(againReport.contains("**No significant change"), "\(againReport)")

        let same = try await runEvalbench(["compare", base.path, again.path, "--out", work.appendingPathComponent("same").path])
        #expect(same.status == 0, "\(same.stdout)\(same.stderr)")
        #expect(same.stdout.contains("evalbench: No significant change"), "\(same.stdout)")

        // The broken prompt: the suite's instructions with every few-shot answer turned into "banana".
        var suite = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: quickstart)) as? [String: Any])
        let instructions = try #require(suite["instructions"] as? String)
        let bananas = instructions.replacingOccurrences(of: #"A: [^\n]+"#, with: "A: banana", options: .regularExpression)
        #expect(bananas != instructions && bananas.contains("A: banana"))
        suite["instructions"] = bananas
        suite.removeValue(forKey: "$schema")
        let brokenSuite = work.appendingPathComponent("quickstart-broken.json")
        try JSONSerialization.data(withJSONObject: suite, options: [.prettyPrinted, .sortedKeys]).write(to: brokenSuite)
        let third = try await runEvalbench(["run", brokenSuite.path, "--out", broken.path, "--min-pass-rate", "0", "--no-progress"])
        #expect(third.status == 0, "\(third.stdout)\(third.stderr)")

        let compared = try await runEvalbench(["compare", base.path, broken.path])
        #expect(compared.status == 1, "\(compared.stdout)\(compared.stderr)")
        #expect(compared.stdout.contains("evalbench: Regression: local · none · default: pass rate −"), "\(compared.stdout)")

        // compare.md names each case that passed in the baseline and fails now, with why.
        let baseline = RunAggregate(try ResultStore.read(base.appendingPathComponent("results.jsonl")))
        let current = RunAggregate(try ResultStore.read(broken.appendingPathComponent("results.jsonl")))
        let passedBefore = Set(baseline.caseRuns.filter { $0.status == .pass }.map(\.caseID))
        let flipped = current.caseRuns.filter { $0.status != .pass && passedBefore.contains($0.caseID) }.map(\.caseID)
        #expect(flipped.count >= 6, "the broken prompt fails most cases: \(flipped)")
        let report = try String(contentsOf: broken.appendingPathComponent("compare.md"), encoding: .utf8)
        #expect(report.contains("**Regression: "), "\(report)")
        for caseID in flipped {
            #expect(report.contains("| quickstart/\(caseID) | local · none · default | 1 | pass → fail | current run: "),
                    "\(caseID) is named in compare.md")
        }
        let rows = try parseCSV(String(contentsOf: broken.appendingPathComponent("compare.csv"), encoding: .utf8))
        let records = rows.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(rows[0], $0)) }
        let local = try #require(records.first { $0["backend"] == "local" })
        #expect(local["verdict"] == "regression" && local["pass_to_fail"] == String(flipped.count), "\(local)")
    }
}
