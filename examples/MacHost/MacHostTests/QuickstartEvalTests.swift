import EvalBench
import Foundation
import XCTest

/// Runs evalbench's quickstart suite (the repository's evals/, copied into this bundle as a
/// folder reference) on the on-device model and on Private Cloud Compute, from inside the signed
/// MacHost app that hosts this bundle (TEST_HOST): the only place PCC's entitlement exists.
///
/// scripts/mac-evals passes its options as TEST_RUNNER_EVALBENCH_* variables; xcodebuild strips
/// the TEST_RUNNER_ prefix, so this test reads EVALBENCH_*:
/// - EVALBENCH_OUT: where the report files go (scripts/mac-evals copies them out from there)
/// - EVALBENCH_SUITE, EVALBENCH_CONFIG: a suite and a config other than the bundled ones
/// - EVALBENCH_BACKENDS: comma-separated backend names (default: on-device,pcc)
/// - EVALBENCH_REASONING: comma-separated levels (none,light,moderate,deep)
/// - EVALBENCH_REPEAT, EVALBENCH_MIN_PASS_RATE (default 0.8)
/// - EVALBENCH_REQUIRE_APPLE=1: fail, rather than skip, when no Apple model can run here
final class QuickstartEvalTests: XCTestCase {
    func testQuickstartOnTheAppleModels() async throws {
        let environment = ProcessInfo.processInfo.environment
        let resources = try XCTUnwrap(Bundle(for: Self.self).resourceURL, "the test bundle has no resources")
        let suite = environment["EVALBENCH_SUITE"] ?? resources.appendingPathComponent("evals/quickstart.json").path
        let config = environment["EVALBENCH_CONFIG"] ?? resources.appendingPathComponent("evalbench-apple.json").path
        var evaluation = Evaluation(suites: [.file(suite)], config: .file(config))
        evaluation.backendNames = Self.list(environment["EVALBENCH_BACKENDS"]) ?? ["on-device", "pcc"]
        if let levels = Self.list(environment["EVALBENCH_REASONING"]) {
            evaluation.reasoning = try levels.map { try XCTUnwrap(ReasoningLevel(rawValue: $0), "unknown reasoning level \($0)") }
        }
        evaluation.repeatCount = environment["EVALBENCH_REPEAT"].flatMap(Int.init)
        evaluation.gate = Gate(minPassRate: environment["EVALBENCH_MIN_PASS_RATE"].flatMap(Double.init) ?? 0.8)
        evaluation.outputDirectory = environment["EVALBENCH_OUT"]
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("evalbench-machost-\(UUID().uuidString)").path

        let report: EvaluationReport
        do {
            report = try await evaluation.run()
        } catch let error as EvaluationError {
            // Nothing could run: no Apple Intelligence on this Mac (a CI runner), or OS 26 and
            // no entitlement. The reasons say which.
            if environment["EVALBENCH_REQUIRE_APPLE"] == "1" { throw error }
            throw XCTSkip("no Apple model can run here: \(error)")
        }
        print("evalbench report: \(report.outputDirectory.path)")
        print(report.headline)
        for note in report.verdict.notes { print("evalbench note: \(note)") }
        XCTAssertEqual(report.exitStatus, .success,
                       "pass rate \(report.passRate); failures: \(report.failures.map(\.key)); verdict: \(report.verdict); report: \(report.outputDirectory.path)")
    }

    private static func list(_ value: String?) -> [String]? {
        guard let value, !value.isEmpty else { return nil }
        return value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
