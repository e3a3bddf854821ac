import Foundation
import Testing
@testable import EvalBench

/// Sparse files: their size is what the check reads, and they take no disk.
private func sparseFile(_ url: URL, bytes: Int, startingWith text: String = "") throws {
    try Data(text.utf8).write(to: url)
    let handle = try FileHandle(forWritingTo: url)
    try handle.truncate(atOffset: UInt64(bytes))
    try handle.close()
}

@Suite("Suite, config and dataset files over their size limit are refused before they are read")
struct FileSizeLimitTests {
    @Test("a suite or config file over 64 MiB, such as a model file named by mistake, is a load error with its size")
    func suiteAndConfig() throws {
        let work = PackagePaths.temporaryDirectory("file-size")
        defer { try? FileManager.default.removeItem(at: work) }
        let model = work.appendingPathComponent("model.gguf")
        try sparseFile(model, bytes: RunLimits.maxSuiteFileBytes + 1, startingWith: "GGUF")
        do {
            _ = try SuiteLoader.load(path: model.path)
            Issue.record("a 64 MiB + 1 byte suite must be refused")
        } catch {
            #expect(error.diagnostics.map(\.message) == ["the suite file is 64.0 MiB, more than evalbench reads (64.0 MiB)"])
            #expect(error.diagnostics.first?.fix?.contains("dataset") == true)
        }
        do {
            _ = try ConfigLoader.load(path: model.path)
            Issue.record("a 64 MiB + 1 byte config must be refused")
        } catch {
            #expect(error.diagnostics.first?.message.hasPrefix("the config file is 64.0 MiB") == true, "\(error.diagnostics)")
        }
        let atLimit = work.appendingPathComponent("spaces.json")
        try sparseFile(atLimit, bytes: 1024, startingWith: #"{"format": "evalbench.suite/1", "cases": [{"id": "a", "prompt": "x"}]}"#)
        #expect(RunLimits.fileTooLarge(atLimit.path, what: "suite", limit: 1024) == nil, "the limit itself is allowed")
        #expect(RunLimits.fileTooLarge(work.appendingPathComponent("missing").path, what: "suite", limit: 1) == nil,
                "a missing file is left to the reading, which names it")
    }

    @Test("a dataset file over 512 MiB is an error at the suite's \"path\", before it is read")
    func dataset() throws {
        let work = PackagePaths.temporaryDirectory("dataset-size")
        defer { try? FileManager.default.removeItem(at: work) }
        try sparseFile(work.appendingPathComponent("rows.jsonl"), bytes: RunLimits.maxDatasetFileBytes + 1)
        let suite = work.appendingPathComponent("s.json")
        try Data(#"""
        {"format": "evalbench.suite/1",
         "dataset": {"path": "rows.jsonl", "case": {"prompt": "{{q}}"}}}
        """#.utf8).write(to: suite)
        do {
            _ = try SuiteLoader.load(path: suite.path)
            Issue.record("a 512 MiB + 1 byte dataset must be refused")
        } catch {
            let found = try #require(error.diagnostics.first)
            #expect(found.message == "the dataset file is 512.0 MiB, more than evalbench reads (512.0 MiB)")
            #expect(found.location?.line == 2 && found.path == "$.dataset.path", "\(found)")
        }
    }

    @Test("a missing file, a directory or a device given as a suite or config says which, with a fix that fits")
    func notAFile() throws {
        let work = PackagePaths.temporaryDirectory("not-a-file")
        defer { try? FileManager.default.removeItem(at: work) }
        func refusal(_ path: String, config: Bool = false) -> Diagnostic? {
            do {
                if config { _ = try ConfigLoader.load(path: path) } else { _ = try SuiteLoader.load(path: path) }
                return nil
            } catch {
                return error.diagnostics.first
            }
        }
        let missing = refusal(work.appendingPathComponent("nothere.json").path)
        #expect(missing?.message == "no such suite file" && missing?.fix == "check the path")
        let directory = refusal(work.path)
        #expect(directory?.message == "this is a directory, not a suite file")
        #expect(directory?.fix == "name a suite file (for every suite in a directory: dir/*.json)")
        #expect(refusal(work.path, config: true)?.fix == "name a config file")
        #if os(Linux)
        let device = refusal("/dev/zero")
        #expect(device?.message == "the suite file cannot be read", "a device is never read to its end")
        #endif
    }

    @Test("sizes read as people read them")
    func byteCounts() {
        #expect(ByteCount.text(12) == "12 bytes")
        #expect(ByteCount.text(3 * 1024 + 5) == "3 KiB")
        #expect(ByteCount.text(3 << 19) == "1.5 MiB")
        #expect(ByteCount.text(Int64(5) << 31) == "10.0 GiB")
    }
}
