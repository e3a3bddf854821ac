import Foundation
import Testing
@testable import EvalBench

@Suite("Output and resume directories are checked when the command is read")
struct OutputDirectoryCheckTests {
    @Test("a file where --out's directory, or one of its parents, should be is a problem naming both; a missing or existing directory is not")
    func files() throws {
        let work = PackagePaths.temporaryDirectory("out-check")
        defer { try? FileManager.default.removeItem(at: work) }
        let file = work.appendingPathComponent("afile")
        try Data("x".utf8).write(to: file)
        #expect(OutputDirectoryCheck.problem(work.path, option: "--out") == nil)
        #expect(OutputDirectoryCheck.problem(work.appendingPathComponent("new/deeper").path, option: "--out") == nil)
        let isFile = try #require(OutputDirectoryCheck.problem(file.path, option: "--out"))
        #expect(isFile.message == "--out \(file.path) is a file, not a directory")
        #expect(isFile.fix?.contains("evalbench creates it when it is missing") == true)
        let under = try #require(OutputDirectoryCheck.problem(file.appendingPathComponent("sub/x").path, option: "--out"))
        #expect(under.message == "--out \(file.path)/sub/x cannot be made: \(file.path) is a file, not a directory")
        #if os(Linux)
        // Not even root may make a directory in another process's /proc entry.
        let unwritable = try #require(OutputDirectoryCheck.problem("/proc/1/evalbench-out", option: "--out"))
        #expect(unwritable.message == "--out /proc/1/evalbench-out cannot be made: evalbench cannot write in /proc/1")
        #endif
    }

    @Test("an output that is a kept directory, written another way or through a symbolic link, is named; another is not")
    func overwrite() throws {
        let work = PackagePaths.temporaryDirectory("overwrite-check")
        defer { try? FileManager.default.removeItem(at: work) }
        let kept = work.appendingPathComponent("main")
        try FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true)
        let link = work.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: kept)
        for same in [kept.path, kept.path + "/", work.path + "/other/../main", link.path] {
            let problem = OutputDirectoryCheck.overwrite(same, option: "--out", kept: [(kept.path, "--baseline")])
            #expect(problem?.message == "--out and --baseline name the same directory, \(kept.path): its results would be overwritten", "\(same)")
        }
        #expect(OutputDirectoryCheck.overwrite(work.appendingPathComponent("new").path, option: "--out", kept: [(kept.path, "--baseline")]) == nil)
    }

    @Test("a missing, file or empty --resume directory is a load error, and load makes no directory")
    func resume() throws {
        let work = PackagePaths.temporaryDirectory("resume-check")
        defer { try? FileManager.default.removeItem(at: work) }
        let file = work.appendingPathComponent("afile")
        try Data("x".utf8).write(to: file)
        let empty = work.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let missing = work.appendingPathComponent("missing")
        func problems(resume: URL?, out: URL?) -> [String] {
            var request = RunRequest(suitePaths: [], outputDirectory: out?.path, resumeDirectory: resume?.path, environment: [:])
            request.sources = [.suite(Suite(name: "s", cases: [EvalCase(id: "a", turns: [Turn(prompt: "q")])]))]
            request.configValue = Config(file: nil, backends: [])
            request.providedBackends = [FixedAnswerBackend(name: "a")]
            do {
                _ = try EvalRun.load(request)
                return []
            } catch let error as LoadError {
                return error.diagnostics.map(\.message)
            } catch {
                return ["not a load error: \(error)"]
            }
        }
        #expect(problems(resume: missing, out: nil) == ["the resumed run directory does not exist"])
        #expect(!FileManager.default.fileExists(atPath: missing.path))
        #expect(problems(resume: file, out: nil) == ["the resumed run directory is a file"])
        #expect(problems(resume: empty, out: nil) == ["the resumed run directory has no results.jsonl"])
        #expect(problems(resume: nil, out: file) == ["--out \(file.path) is a file, not a directory"])
        #expect(problems(resume: nil, out: work.appendingPathComponent("fresh")) == [])
    }

    @Test("a run whose --out or --resume is its --baseline is refused at load, and the baseline is left as it was")
    func baselineKept() async throws {
        let work = PackagePaths.temporaryDirectory("baseline-kept")
        defer { try? FileManager.default.removeItem(at: work) }
        let baseline = work.appendingPathComponent("main")
        func request(out: URL?, resume: URL? = nil, baseline: URL? = nil) -> RunRequest {
            var request = RunRequest(suitePaths: [], outputDirectory: out?.path, resumeDirectory: resume?.path, environment: [:])
            request.baselineDirectory = baseline?.path
            request.sources = [.suite(Suite(name: "s", cases: [EvalCase(id: "a", turns: [Turn(prompt: "q")])]))]
            request.configValue = Config(file: nil, backends: [])
            request.providedBackends = [FixedAnswerBackend(name: "a")]
            return request
        }
        let first = request(out: baseline)
        _ = try await EvalRun.execute(try EvalRun.load(first), first, transport: DefaultStreamTransport())
        let before = try Data(contentsOf: baseline.appendingPathComponent("results.jsonl"))
        for same in [request(out: baseline, baseline: baseline), request(out: nil, resume: baseline, baseline: baseline)] {
            do {
                _ = try EvalRun.load(same)
                Issue.record("a run into its own baseline must be refused")
            } catch let error as LoadError {
                #expect(error.diagnostics.map(\.message).contains { $0.hasSuffix("name the same directory, \(baseline.path): its results would be overwritten") },
                        "\(error.diagnostics)")
            }
        }
        #expect(try Data(contentsOf: baseline.appendingPathComponent("results.jsonl")) == before)
        _ = try EvalRun.load(request(out: work.appendingPathComponent("next"), baseline: baseline))
    }
}
