import Foundation

/// The largest values evalbench accepts for each limit a suite, config or command line sets.
/// Above them a value is a typo or an attack: `"timeoutSeconds": 1e300` crashed the first
/// request, `"repeat": 1000000000` filled the memory building the matrix. Each is refused at
/// load, where it is written, with the bound in the message.
package enum RunLimits {
    /// A request timeout: one day.
    package static let maxTimeoutSeconds = 86_400.0
    /// The shortest timeout: a millisecond. Below it (`1e-300`, a typo) every request would
    /// time out before it was sent.
    package static let minTimeoutSeconds = 0.001
    /// Requests in flight, overall or on one backend.
    package static let maxConcurrency = 1_024
    /// Repeats of each case.
    package static let maxRepeat = 100_000
    /// Retries of one request.
    package static let maxRetries = 100
    /// Token limits: a context window, `maxOutputTokens`, a thinking budget.
    package static let maxTokens = 100_000_000
    /// An assertion's weight in the weighted score.
    package static let maxWeight = 1_000_000.0
    /// A price per million tokens, or per request, in US dollars.
    package static let maxPrice = 1_000_000.0
    /// Shards of one run (`--shard K/N`, `--shards N`, and N as run.json records it). GitHub
    /// Actions runs at most 256 jobs of a matrix and GitLab's `parallel` at most 200; a Kubernetes
    /// Indexed Job allows 100,000 completions, but every shard is a machine with its own model
    /// server or rate-limit budget, and past a few thousand most shards of any suite hold no case
    /// (they run one in N of the cases). Above it N is a typo (`--shard 1/1000000000` was taken,
    /// and merging its part recomputed each case's shard for every N).
    package static let maxShards = 10_000
    /// Requests a run's matrix may send unless `--max-requests` raises it.
    package static let defaultMaxRequests = 1_000_000
    /// The largest `defaults.maxResponseBytes`: 2 GiB.
    package static let maxResponseBytes = 1 << 31
    /// The largest suite or config file read: 64 MiB, some 300,000 inline cases. A suite is read
    /// whole and parsed into a tree, so a model file named by mistake (`run model.gguf`) took
    /// its size in memory and more before it was found not to be JSON.
    package static let maxSuiteFileBytes = 64 << 20
    /// The largest dataset file a suite names: 512 MiB, millions of rows.
    package static let maxDatasetFileBytes = 512 << 20

    /// A problem when the file at `path` is larger than `limit` bytes, nil when it is not (or
    /// is no regular file: reading it says why).
    package static func fileTooLarge(_ path: String, what: String, limit: Int) -> String? {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber,
              size.int64Value > Int64(limit) else { return nil }
        return "the \(what) file is \(ByteCount.text(size.int64Value)), more than evalbench reads (\(ByteCount.text(Int64(limit))))"
    }
}

extension RunLimits {
    /// The bound of a backend's whole-number key: its concurrency, a token count, else no
    /// count a machine could act on (a kind's own keys get a bound as large as memory allows).
    static func largestInteger(for key: String) -> Int {
        switch key {
        case "concurrency": maxConcurrency
        case "contextSize", "maxOutputTokens", "thinkingBudget": maxTokens
        case "retries": maxRetries
        default: 1 << 40
        }
    }

    /// The bound of a backend's numeric key: a timeout, else no number beyond 1e15.
    static func largestNumber(for key: String) -> Double {
        key.hasSuffix("Seconds") ? maxTimeoutSeconds : 1e15
    }

    /// The smallest value of a positive number `key` (a time in seconds at least a millisecond);
    /// nil when any value above 0 is taken.
    static func smallestNumber(for key: String) -> Double? {
        key.hasSuffix("Seconds") ? minTimeoutSeconds : nil
    }
}
