import Foundation
import Testing
@testable import EvalBench

/// Report files are written beside their final names and renamed into place; a second Ctrl-C
/// removes the ones being written, so no `.name.<uuid>.tmp` is left in the run's directory.
@Suite("temporary report files: written whole, and removed when the process quits at once", .serialized)
struct TemporaryFilesTests {
    /// An empty directory of its own for a test.
    private func scratch(_ name: String) throws -> URL {
        let directory = PackagePaths.temporaryDirectory(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    private func hidden(_ directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") }
    }

    @Test("writeAtomically replaces the file whole and leaves no temporary file or registration")
    func atomicWrite() throws {
        let directory = try scratch("temporary-files-atomic")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("summary.md")
        try TemporaryFiles.writeAtomically(Data("first".utf8), to: file)
        try TemporaryFiles.writeAtomically(Data("second".utf8), to: file)
        #expect(try String(contentsOf: file, encoding: .utf8) == "second")
        #expect(try hidden(directory).isEmpty)
        #expect(!TemporaryFiles.inFlight.contains { $0.hasPrefix(directory.path) })
        // A directory that is not there: the error is thrown, nothing is left registered.
        #expect(throws: (any Error).self) {
            try TemporaryFiles.writeAtomically(Data("x".utf8), to: directory.appendingPathComponent("missing/summary.md"))
        }
        #expect(!TemporaryFiles.inFlight.contains { $0.hasPrefix(directory.path) })
    }

    @Test("a report being written in pieces is removed by removeAll; a sink dropped unfinished leaves nothing")
    func sinks() throws {
        let directory = try scratch("temporary-files-sink")
        defer { try? FileManager.default.removeItem(at: directory) }
        let junit = directory.appendingPathComponent("junit.xml")
        let sink = try ReportFileSink(junit)
        try sink.write("<testsuites>")
        #expect(try hidden(directory).count == 1, "the half-written report is a hidden file beside junit.xml")
        // This directory's only: other tests write reports at the same time.
        #expect(TemporaryFiles.removeAll(in: directory) == 1)
        #expect(try hidden(directory).isEmpty)
        #expect(throws: ReportWriteFailure.self) { try sink.finish() }
        #expect(!FileManager.default.fileExists(atPath: junit.path))

        do {
            let dropped = try ReportFileSink(directory.appendingPathComponent("results.csv"))
            try dropped.write("suite,case\n")
            #expect(try hidden(directory).count == 1)
        }
        #expect(try hidden(directory).isEmpty, "a sink whose writer threw before finish removes its file")
        #expect(!TemporaryFiles.inFlight.contains { $0.hasPrefix(directory.path) })
    }

    @Test("results.jsonl written whole (a resumed run's start, a merge) goes through a registered file, which removeAll takes away mid-write")
    func resultsFile() throws {
        let directory = try scratch("temporary-files-results")
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = RunDirectory(directory)
        _ = try run.writeResults(streaming: (0..<3).map { fixtureResult(caseID: "c\($0)", status: .pass) })
        #expect(try ResultStore.read(run.results).count == 3)
        #expect(try hidden(directory).isEmpty)
        // Quitting at once while the lines are being written: the temporary file goes, results.jsonl stays as it was.
        let quitting = (0..<3).lazy.map { index -> RequestResult in
            if index == 2 { #expect(TemporaryFiles.removeAll(in: directory) == 1) }
            return fixtureResult(caseID: "d\(index)", status: .pass)
        }
        #expect(throws: ReportWriteFailure.self) { _ = try run.writeResults(streaming: quitting) }
        #expect(try hidden(directory).isEmpty)
        #expect(try ResultStore.read(run.results).map(\.caseID) == ["c0", "c1", "c2"])
    }
}
