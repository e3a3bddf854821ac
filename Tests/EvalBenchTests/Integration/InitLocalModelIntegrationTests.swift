import Foundation
import Testing
@testable import EvalBench

/// `evalbench init` in an empty folder, then `evalbench run` on the real local model
/// (issue 21, item 4): the starter files load, run and pass, and init refuses to overwrite.
@Suite("evalbench init on the real local model", .enabled(if: integrationEnabled, "set EVALBENCH_INTEGRATION=1 (scripts/test does) after scripts/setup-local-model"), .serialized)
struct InitLocalModelIntegrationTests {
    @Test("init writes the starter files; run evals/starter.json answers every case on the local model; a second init writes nothing")
    func initThenRun() async throws {
        let work = PackagePaths.temporaryDirectory("init-local")
        defer { try? FileManager.default.removeItem(at: work) }
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let created = try await runEvalbench(["init"], in: work)
        #expect(created.status == 0, "\(created.stderr)")
        for file in StarterFiles.files.map(\.path) {
            #expect(FileManager.default.fileExists(atPath: work.appendingPathComponent(file).path), "\(file)")
        }
        let examples = try await runEvalbench(["validate", "evals/starter.json", "--config", "evalbench.examples.json"], in: work)
        #expect(examples.status == 0, "every example kind loads: \(examples.stderr)")

        let run = try await runEvalbench(["run", "evals/starter.json", "--out", "out", "--no-progress"], in: work)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("local · none · default") && run.stdout.contains("PASS"), "\(run.stdout)")
        let results = try RunDirectory(work.appendingPathComponent("out")).readResults(role: "starter")
        #expect(results.count == 4, "3 cases, one of them 2 turns")
        #expect(results.allSatisfy { $0.status == .pass }, "\(results.map { "\($0.caseID) \($0.turn): \($0.output ?? "-")" })")

        let again = try await runEvalbench(["init"], in: work)
        #expect(again.status == 2)
        #expect(again.stderr.contains("already exist"), "\(again.stderr)")
    }
}
