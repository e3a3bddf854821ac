import Foundation
import Testing
@testable import EvalBench

@Suite("run.json's times")
struct RunMetadataTests {
    private let start = Date(timeIntervalSince1970: 1_767_225_600)

    private func metadata(lasting seconds: TimeInterval) -> RunMetadata {
        RunMetadata(toolVersion: "t", arguments: [], suites: [], config: Config(backends: []), gitCommit: nil,
                    host: .current(), startedAt: start, endedAt: start + seconds, backends: [])
    }

    /// The run's duration as summary.md gives it after `evalbench report` rewrote it from run.json.
    private func rewrittenDuration(_ metadata: RunMetadata, in directory: URL) throws -> String {
        let run = RunDirectory(directory)
        try metadata.write(to: run.metadata)
        try EvalRun.writeReports([fixtureResult(caseID: "a", status: .pass, latencyMs: 10)], metadata: try run.readMetadata(),
                                 to: directory)
        let summary = try String(contentsOf: run.file(RunDirectory.FileName.summaryMarkdown), encoding: .utf8)
        let line = try #require(summary.split(separator: "\n").first { $0.hasPrefix("Run from ") })
        return String(try #require(line.split(separator: "(").dropFirst().first?.split(separator: ")").first))
    }

    @Test("run.json keeps the times to the millisecond, so a rewritten report gives a 0.2 s run as 0.2 s")
    func millisecondTimes() throws {
        let directory = PackagePaths.temporaryDirectory("run-metadata-times")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try rewrittenDuration(metadata(lasting: 0.2), in: directory) == "0.2 s")
        #expect(try rewrittenDuration(metadata(lasting: 3.8), in: directory) == "3.8 s")
        let text = try String(contentsOf: RunDirectory(directory).metadata, encoding: .utf8)
        #expect(text.contains(#""startedAt" : "2026-01-01T00:00:00.000Z""#) && text.contains(#""endedAt" : "2026-01-01T00:00:03.800Z""#),
                "\(text)")
        let read = try RunDirectory(directory).readMetadata()
        #expect(abs(try #require(read.endedAt).timeIntervalSince(read.startedAt) - 3.8) < 0.0005)
    }

    @Test("a run.json written before milliseconds, in whole seconds, is still read")
    func wholeSecondTimes() throws {
        let directory = PackagePaths.temporaryDirectory("run-metadata-old")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = RunDirectory(directory)
        try metadata(lasting: 252).write(to: run.metadata)
        // As JSONEncoder's .iso8601 wrote it: no fractional seconds.
        let old = try String(contentsOf: run.metadata, encoding: .utf8).replacingOccurrences(of: ".000Z", with: "Z")
        #expect(old.contains(#""startedAt" : "2026-01-01T00:00:00Z""#) && old.contains(#""endedAt" : "2026-01-01T00:04:12Z""#))
        try Data(old.utf8).write(to: run.metadata)
        let read = try run.readMetadata()
        #expect(read.startedAt == start && read.endedAt == start + 252)
        try Data(old.replacingOccurrences(of: "2026-01-01T00:04:12Z", with: "yesterday").utf8).write(to: run.metadata)
        #expect(throws: (any Error).self) { try run.readMetadata() }
    }
}

@Test("run.json names a directory absolutely, so that report finds it from anywhere")
func absolutePaths() {
    let here = FileManager.default.currentDirectoryPath
    #expect(RunMetadata.absolutePath("base") == URL(fileURLWithPath: here).appendingPathComponent("base").standardizedFileURL.path)
    #expect(RunMetadata.absolutePath("/tmp/a/../b/") == "/tmp/b")
}
