import Foundation

/// `run.json`: what ran, where, with which inputs, and when.
public struct RunMetadata: Sendable, Codable, Equatable {
    public var tool: String = "evalbench"
    public var toolVersion: String
    public var arguments: [String]
    public var suites: [SuiteFile]
    /// The configuration as loaded; it holds names of key variables, never keys.
    public var config: Config
    public var gitCommit: String?
    public var host: Host
    public var startedAt: Date
    public var endedAt: Date?
    /// How each backend sends each reasoning level, or why it cannot.
    public var backends: [BackendInfo]
    /// `--target`: the recommendation's pass-rate target over every suite's own; nil when not given.
    public var target: Double?

    public struct SuiteFile: Sendable, Codable, Equatable {
        public var path: String
        public var suite: String
        public var sha256: String
        /// The suite's `target`, for the recommendation when reports are rewritten.
        public var target: Double?

        public init(path: String, suite: String, sha256: String, target: Double? = nil) {
            self.path = path
            self.suite = suite
            self.sha256 = sha256
            self.target = target
        }
    }

    public struct Host: Sendable, Codable, Equatable {
        public var name: String
        public var operatingSystem: String
        public var processorCount: Int
        public var memoryBytes: UInt64

        public static func current() -> Host {
            let info = ProcessInfo.processInfo
            return Host(name: info.hostName, operatingSystem: info.operatingSystemVersionString,
                        processorCount: info.processorCount, memoryBytes: info.physicalMemory)
        }
    }

    public struct BackendInfo: Sendable, Codable, Equatable {
        public var name: String
        public var kind: String
        public var model: String?
        public var availability: String
        public var reasoning: [String: String]
        /// How the backend sent the cases' `output` schemas; nil when no case had one.
        public var structuredOutput: String?
    }

    public init(toolVersion: String, arguments: [String], suites: [SuiteFile], config: Config,
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

    public func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        try encoder.encode(self).write(to: url, options: .atomic)
    }

    public static func read(from url: URL) throws -> RunMetadata {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(RunMetadata.self, from: Data(contentsOf: url))
    }

    /// The commit of the git work tree around `directory`, if there is one; nil where this
    /// platform cannot start processes.
    public static func gitCommit(in directory: URL) -> String? {
        #if (os(macOS) || os(Linux)) && !EVALBENCH_NO_PROCESS
        Subprocess.output(of: ["git", "-C", directory.path, "rev-parse", "HEAD"])
        #else
        nil
        #endif
    }
}
