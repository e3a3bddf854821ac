import Foundation

/// `run.json`: what ran, where, with which inputs, and when.
package struct RunMetadata: Sendable, Codable, Equatable {
    package var tool: String = "evalbench"
    package var toolVersion: String
    package var arguments: [String]
    package var suites: [SuiteFile]
    /// The configuration as loaded; it holds names of key variables, never keys.
    package var config: Config
    package var gitCommit: String?
    package var host: Host
    package var startedAt: Date
    package var endedAt: Date?
    /// How each backend sends each reasoning level, or why it cannot.
    package var backends: [BackendInfo]
    /// `--target`: the recommendation's pass-rate target over every suite's own; nil when not given.
    package var target: Double?
    /// When the run was interrupted: how many of its planned requests did not run, and how
    /// many were planned. Nil for a run that went to the end.
    package var interruption: Interruption?

    package struct Interruption: Sendable, Codable, Equatable {
        package var unfinishedRequests: Int
        package var plannedRequests: Int
        /// For a merge (`evalbench merge`), the directories of the interrupted parts, which are
        /// what `--resume` finishes; nil for a run.
        package var parts: [String]?

        package init(unfinishedRequests: Int, plannedRequests: Int, parts: [String]? = nil) {
            self.unfinishedRequests = unfinishedRequests
            self.plannedRequests = plannedRequests
            self.parts = parts
        }

        /// Read range-checked, as a shard's counts are: `merge` sums them over its parts, and an
        /// edited run.json must not make that sum overflow or a headline say -3 of 2.
        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            unfinishedRequests = try container.decode(Int.self, forKey: .unfinishedRequests)
            plannedRequests = try container.decode(Int.self, forKey: .plannedRequests)
            parts = try container.decodeIfPresent([String].self, forKey: .parts)
            guard (0...ShardRecord.largestCount).contains(plannedRequests) else {
                throw DecodingError.dataCorruptedError(forKey: .plannedRequests, in: container,
                                                       debugDescription: "must be a count from 0 to \(ShardRecord.largestCount), got \(plannedRequests)")
            }
            guard (0...plannedRequests).contains(unfinishedRequests) else {
                throw DecodingError.dataCorruptedError(forKey: .unfinishedRequests, in: container,
                                                       debugDescription: "must be a count from 0 to plannedRequests (\(plannedRequests)), got \(unfinishedRequests)")
            }
        }

        /// The line every report opens with.
        package var headline: String {
            "Interrupted: \(unfinishedRequests) of \(plannedRequests) planned requests did not run; these figures cover only the ones that finished (\(howToFinish))"
        }

        /// The verdict on an interrupted run, whatever the gates said: they judge a whole plan,
        /// and a partial run neither passes nor fails them. `notes` are kept.
        package func verdict(notes: [String]) -> Gate.Verdict {
            Gate.Verdict(exitStatus: .interrupted,
                         reasons: ["\(unfinishedRequests) of \(plannedRequests) planned requests did not run; the gates were not applied (\(howToFinish))"],
                         notes: notes)
        }

        /// A run is finished by resuming it; a merge, by resuming its interrupted parts and merging again.
        private var howToFinish: String {
            guard let parts, !parts.isEmpty else { return "finish it with --resume" }
            return "finish \(parts.joined(separator: ", ")) with `evalbench run ... --resume DIR` and merge again"
        }
    }
    /// `InputDigest.suites` and `InputDigest.config`: equal in the parts `merge` accepts.
    package var suitesSHA256: String?
    package var configSHA256: String?
    /// `--shard K/N`: which part of the run this is; nil for a whole run.
    package var shard: ShardRecord?
    /// The part directories `evalbench merge` combined into this run; nil for a run.
    package var mergedFrom: [String]?
    /// For a merge of only some of a run's shards (`merge --allow-partial`): each missing or
    /// unfinished shard, said with the cases and case runs it leaves out; nil for a whole run.
    package var partialMerge: [String]?
    /// `--baseline`: the earlier run's directory, made absolute (`absolutePath`), so that `evalbench report` shows its
    /// answers beside this run's again; nil without one.
    package var baseline: String?
    /// The verdict the run (or merge) ended with, so that `evalbench report` writes it again;
    /// nil in run.json files from before it was recorded, and while the run is going.
    package var verdict: RecordedVerdict?

    package struct SuiteFile: Sendable, Codable, Equatable {
        package var path: String
        package var suite: String
        package var sha256: String
        /// The suite's `target`, for the recommendation when reports are rewritten.
        package var target: Double?
        /// Each case's digest by id (`ResumeCheck.digest`), so that `--resume` can tell which
        /// cases changed; nil in run.json files from before it was recorded.
        package var cases: [String: String]?
        /// The suite's `gates`, for `merge` to apply them as the run did.
        package var gates: SuiteGates?
        /// Each prompt variant's digest by name (`ResumeCheck.digest(_:)`; a suite without
        /// variants has one, `default`), so that `--resume` can tell which variants changed:
        /// a variant is applied to every case and is not part of a case's digest. Nil in
        /// run.json files from before it was recorded.
        package var variants: [String: String]?

        package init(path: String, suite: String, sha256: String, target: Double? = nil, cases: [String: String]? = nil,
                     gates: SuiteGates? = nil, variants: [String: String]? = nil) {
            self.path = path
            self.suite = suite
            self.sha256 = sha256
            self.target = target
            self.cases = cases
            self.gates = gates
            self.variants = variants
        }
    }

    package struct Host: Sendable, Codable, Equatable {
        package var name: String
        package var operatingSystem: String
        package var processorCount: Int
        package var memoryBytes: UInt64

        package static func current() -> Host {
            let info = ProcessInfo.processInfo
            return Host(name: info.hostName, operatingSystem: info.operatingSystemVersionString,
                        processorCount: info.processorCount, memoryBytes: info.physicalMemory)
        }
    }

    package struct BackendInfo: Sendable, Codable, Equatable {
        package var name: String
        package var kind: String
        package var model: String?
        package var availability: String
        package var reasoning: [String: String]
        /// How the backend sent the cases' `output` schemas; nil when no case had one.
        package var structuredOutput: String?
    }

    package init(toolVersion: String, arguments: [String], suites: [SuiteFile], config: Config,
                gitCommit: String?, host: Host, startedAt: Date, endedAt: Date?, backends: [BackendInfo]) {
        self.toolVersion = toolVersion
        self.arguments = arguments
        self.suites = suites
        self.config = config
        self.gitCommit = gitCommit
        self.host = host
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.backends = backends
    }

    /// `path` from the current directory, as run.json records a directory it names: `evalbench
    /// report DIR` run from elsewhere finds it again.
    package static func absolutePath(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// The line every report of a run that never ended opens with (its run.json has no end
    /// time: it quit at once on a second Ctrl-C, crashed or was killed), `recorded` requests in.
    package static func unfinishedHeadline(recorded: Int) -> String {
        "Unfinished: the run stopped before it ended (quit at once, a crash or kill -9), so run.json has no end time; "
            + "these figures cover only the \(recorded) requests recorded (finish it with --resume)"
    }

    /// For a partial merge, the line every report opens with; nil for a whole run.
    package var partialMergeHeadline: String? {
        guard let partialMerge, !partialMerge.isEmpty else { return nil }
        return "Partial merge: " + partialMerge.joined(separator: "; ")
            + "; these figures cover only the results merged (run or finish the shards named and merge again)"
    }

    package func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Self.timestamp(date))
        }
        do {
            try TemporaryFiles.writeAtomically(encoder.encode(self), to: url)
        } catch {
            throw ReportWriteFailure(path: url.path, reason: error.localizedDescription)
        }
    }

    package static func read(from url: URL) throws -> RunMetadata {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = date(fromTimestamp: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not an ISO 8601 time")
            }
            return date
        }
        return try decoder.decode(RunMetadata.self, from: Data(contentsOf: url))
    }

    /// A time as run.json writes it: ISO 8601 to the millisecond (`2026-01-01T00:00:03.800Z`).
    /// Whole seconds made `evalbench report` give a 0.2 s run as 0.0 s and a 3.8 s one as 4.0 s.
    package static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// A time of run.json: with milliseconds, or in the whole seconds of files written before them.
    package static func date(fromTimestamp text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    /// The commit of the git work tree around `directory`, if there is one; nil where this
    /// platform cannot start processes.
    package static func gitCommit(in directory: URL) -> String? {
        #if (os(macOS) || os(Linux)) && !EVALBENCH_NO_PROCESS
        Subprocess.output(of: ["git", "-C", directory.path, "rev-parse", "HEAD"])
        #else
        nil
        #endif
    }

    /// The same, waited for on a thread of its own (`offThePool`): `git` runs for milliseconds
    /// to tens of them. A library caller's app, or a test process running many runs at once,
    /// stalled on it.
    package static func gitCommit(in directory: URL) async -> String? {
        await offThePool { gitCommit(in: directory) as String? }
    }
}
