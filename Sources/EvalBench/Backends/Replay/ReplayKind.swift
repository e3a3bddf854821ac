import Foundation

/// Kind `replay`: answers from an earlier run's results.jsonl, and one backend's options.
public struct ReplayKind: BackendKind {
    /// The config's `kind` value, `replay`.
    public static let name = "replay"
    /// The keys a `replay` backend accepts; `from` is required.
    public static let keys: [ConfigKey] = [
        ConfigKey("from", .filePath, required: true, check: runDirectoryProblem), ConfigKey("backend", .string),
        .model, .concurrency,
    ]
    /// Not counted free: a replayed answer costs what the config prices it at, else its cost is unknown.
    public static let costsMoney = true

    /// The earlier run's directory (resolved against the config's directory; checked to exist at load).
    public var from: String
    /// `backend`: which of the recorded run's backends answers. Required when the recording
    /// has answers from more than one (the loader lists them); nil takes the only one.
    public var backend: String?

    /// The options of a `replay` backend answering from the run directory `from`, with the
    /// answers of the recorded backend `backend` (nil: the recording's only backend).
    public init(from: String, backend: String? = nil) {
        self.from = from
        self.backend = backend
    }

    /// The options from the loader's values for `keys`; nil when `from` is missing.
    public init?(_ values: ConfigValues) {
        guard let from = values.string("from") else { return nil }
        self.from = from
        backend = values.string("backend")
    }

    /// A recording with answers from several backends must say which answers, and a named one
    /// must be in it: otherwise every request would be answered by whichever was written last.
    public func problems(of config: BackendConfig, among backends: [BackendConfig]) -> [ConfigProblem] {
        guard let recorded = try? Self.recordedBackends(in: from) else { return [] }
        if let backend {
            guard !recorded.contains(backend) else { return [] }
            let hint = suggestion(for: backend, among: recorded).map { "; did you mean '\($0)'?" } ?? ""
            return [ConfigProblem(key: "backend", message: "the recording in \(from) has no answers from backend '\(backend)'\(hint)",
                                  fix: "recorded backends: \(recorded.joined(separator: ", "))")]
        }
        guard recorded.count > 1 else { return [] }
        return [ConfigProblem(key: "from", message: "the recording in \(from) has answers from \(recorded.count) backends, so which one answers is ambiguous",
                              fix: "add \"backend\": one of \(recorded.map { "\"\($0)\"" }.joined(separator: ", "))")]
    }

    /// The backends a run directory's results.jsonl has answers from, in first-seen order.
    static func recordedBackends(in directory: String) throws -> [String] {
        var names: [String] = []
        for result in try RunDirectory(path: directory).readResults(role: "replayed") where !names.contains(result.backend) {
            names.append(result.backend)
        }
        return names
    }

    /// A backend that answers from `from`'s results.jsonl, read once now; it is unavailable when
    /// that file cannot be read.
    public func makeBackend(_ config: BackendConfig, context: BackendContext) throws -> any Backend {
        ReplayBackend(name: config.name, model: config.model, directory: URL(fileURLWithPath: from),
                      concurrency: config.concurrency ?? context.defaultConcurrency, recordedBackend: backend)
    }

    /// Never answered from the response cache: its answers are already recorded, in `from`,
    /// and two replay backends of one model but different recordings must not share them.
    public static let answersAreCacheable = false

    /// The recording it answers from (unused, as it is never cached, but honest if it were).
    public var cacheIdentity: [String: JSONValue] {
        ["from": .string(from)].merging(backend.map { ["backend": .string($0)] } ?? [:]) { first, _ in first }
    }

    /// `from` must be a directory holding results.jsonl.
    @Sendable static func runDirectoryProblem(_ value: ConfigValue) -> ConfigProblem? {
        guard case let .string(path) = value else { return nil }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return ConfigProblem(key: "from", message: "'from' names \(path), which is not a directory",
                                 fix: "name an earlier run's output directory (the --out of `evalbench run`), relative to the config's directory")
        }
        guard FileManager.default.fileExists(atPath: RunDirectory(path: path).results.path) else {
            return ConfigProblem(key: "from", message: "'from' names \(path), which has no results.jsonl",
                                 fix: "name the directory an earlier `evalbench run` wrote its results.jsonl into")
        }
        return nil
    }
}
