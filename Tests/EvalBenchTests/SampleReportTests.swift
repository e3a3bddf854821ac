import Foundation
import Testing
@testable import EvalBench

/// reports/sample is checked in so that a visitor sees real output without running anything;
/// this keeps it equal to what the current code writes from its results.jsonl and run.json.
@Suite("reports/sample matches what the current code writes")
struct SampleReportTests {
    static let sample = PackagePaths.root.appendingPathComponent("reports/sample")

    @Test("rewriting the sample's reports from its results.jsonl and run.json gives the checked-in files, byte for byte")
    func sampleIsCurrent() throws {
        let copy = PackagePaths.temporaryDirectory("sample-report")
        defer { try? FileManager.default.removeItem(at: copy) }
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        for name in ["results.jsonl", "run.json"] {
            try FileManager.default.copyItem(at: Self.sample.appendingPathComponent(name), to: copy.appendingPathComponent(name))
        }
        let run = RunDirectory(copy)
        // As `evalbench report` writes them (scripts/sample-report ends with it).
        try EvalRun.writeReports(try run.readResults(), metadata: try run.readMetadata(),
                                 verdictNote: RecordedVerdict.rewrittenNote, to: copy)
        let written = try FileManager.default.contentsOfDirectory(atPath: copy.path).sorted()
        let checkedIn = try FileManager.default.contentsOfDirectory(atPath: Self.sample.path).sorted()
        #expect(written == checkedIn, "the sample's files; refresh it with scripts/sample-report --reports-only")
        for name in written where !["results.jsonl", "run.json"].contains(name) {
            let expected = try Data(contentsOf: copy.appendingPathComponent(name))
            let found = try? Data(contentsOf: Self.sample.appendingPathComponent(name))
            #expect(found == expected, "reports/sample/\(name) is not what the code writes now: run scripts/sample-report --reports-only")
        }
    }

    @Test("the sample is a real local-model run on two backends, with nothing of the machine it ran on")
    func sampleIsReal() throws {
        let metadata = try RunDirectory(Self.sample).readMetadata()
        #expect(metadata.config.backends.map(\.kind) == ["llama-server", "llama-server"])
        #expect(metadata.suites.map(\.path) == ["evals/quickstart.json"])
        let results = try RunDirectory(Self.sample).readResults()
        #expect(Set(results.map(\.backend)) == ["gemma-qa", "gemma-own-template"])
        #expect(results.allSatisfy { $0.timing?.latencyMs != nil }, "every request was timed: answers from a real server")
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.sample.path) {
            let text = try String(decoding: Data(contentsOf: Self.sample.appendingPathComponent(name)), as: UTF8.self)
            #expect(!text.contains("/root/") && !text.contains("/home/") && !text.contains("/tmp/"), "\(name) names a path of the machine")
        }
    }
}
