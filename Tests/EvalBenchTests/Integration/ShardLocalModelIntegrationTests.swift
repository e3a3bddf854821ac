import Foundation
import Testing
@testable import EvalBench

/// Issue 20's test on this machine: 3 shard processes of the quickstart on the real local
/// model, merged, give the summary.csv counts and pass rates of one unsharded run; merge
/// refuses a missing shard by name.
@Suite("Sharded runs on the real local model", .enabled(if: integrationEnabled, "set EVALBENCH_INTEGRATION=1 (scripts/test does) after scripts/setup-local-model"), .serialized)
struct ShardLocalModelIntegrationTests {
    @Test("3 shards of the quickstart merged: summary.csv's counts, pass rates and intervals equal one unsharded run's; a missing shard is refused by name")
    func quickstartInThreeShards() async throws {
        let work = PackagePaths.temporaryDirectory("shard-local")
        defer { try? FileManager.default.removeItem(at: work) }
        let quickstart = PackagePaths.root.appendingPathComponent("evals/quickstart.json").path
        let whole = work.appendingPathComponent("whole")
        let single = try await runEvalbench(["run", quickstart, "--out", whole.path, "--min-pass-rate", "0", "--no-progress", "--quiet"])
        #expect(single.status == 0, "\(single.stdout)\(single.stderr)")
        var shards: [String] = []
        for index in 1...3 {
            let out = work.appendingPathComponent("shard-\(index)").path
            // Shard 3 as a Kubernetes Indexed Job's pod would run it.
            let shard = index == 3 ? ["--shard", "auto", "--shards", "3"] : ["--shard", "\(index)/3"]
            let part = try await runEvalbench(["run", quickstart, "--out", out, "--min-pass-rate", "0", "--no-progress", "--quiet"] + shard,
                                        environment: ["JOB_COMPLETION_INDEX": "2"])
            #expect(part.status == 0, "\(part.stdout)\(part.stderr)")
            shards.append(out)
        }
        let merged = work.appendingPathComponent("merged")
        let merge = try await runEvalbench(["merge"] + shards + ["--out", merged.path, "--min-pass-rate", "0"])
        #expect(merge.status == 0, "\(merge.stdout)\(merge.stderr)")
        #expect(merge.stdout.contains("local · none · default"), "the headline: \(merge.stdout)")
        let columns = ["backend", "reasoning", "variant", "cases", "passed", "failed", "errors", "skipped",
                       "pass_rate", "pass_rate_low", "pass_rate_high"]
        let table = { (directory: URL) throws -> [[String]] in
            let rows = try parseCSV(String(contentsOf: directory.appendingPathComponent("summary.csv"), encoding: .utf8))
            let indexes = try columns.map { name in try #require(rows[0].firstIndex(of: name)) }
            return rows.map { row in indexes.map { row[$0] } }
        }
        let mergedTable = try table(merged)
        #expect(mergedTable == (try table(whole)))
        #expect(mergedTable.count == 2 && mergedTable[1][3] == "16", "one group of the 16 cases: \(mergedTable)")

        let missing = try await runEvalbench(["merge", shards[0], shards[2], "--out", work.appendingPathComponent("partial").path])
        #expect(missing.status == 2, "\(missing.stdout)\(missing.stderr)")
        let secondShard = ["capital-france", "capital-japan", "capital-england", "capital-egypt", "largest-planet", "opposite-hot"]
        #expect(missing.stderr.contains("shard 2/3 is missing: no results for 6 cases: "
                                        + secondShard.map { "quickstart/\($0)" }.joined(separator: ", ")), "\(missing.stderr)")
    }
}
