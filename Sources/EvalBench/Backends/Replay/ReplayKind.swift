import Foundation

/// Kind `replay`: answers from an earlier run's results.jsonl, and one backend's options.
public struct ReplayKind: BackendKind {
    /// The config's `kind` value, `replay`.
    public static let name = "replay"
    /// The keys a `replay` backend accepts; `from` is required.
    public static let keys: [ConfigKey] = [
        ConfigKey("from", .filePath, required: true, check: runDirectoryProblem), .model, .concurrency,
    ]
    /// Not counted free: a replayed answer costs what the config prices it at, else its cost is unknown.
    public static let costsMoney = true

    /// The earlier run's directory (resolved against the config's directory; checked to exist at load).
    public var from: String

    /// The options of a `replay` backend answering from the run directory `from`.
    public init(from: String) {
        self.from = from
    }

    /// The options from the loader's values for `keys`; nil when `from` is missing.
    public init?(_ values: ConfigValues) {
        guard let from = values.string("from") else { return nil }
        self.from = from
    }

    /// A backend that answers from `from`'s results.jsonl, read once now; it is unavailable when
    /// that file cannot be read.
    public func makeBackend(_ config: BackendConfig, context: BackendContext) throws -> any Backend {
        ReplayBackend(name: config.name, model: config.model, directory: URL(fileURLWithPath: from),
                      concurrency: config.concurrency ?? context.defaultConcurrency)
    }

    /// Never answered from the response cache: its answers are already recorded, in `from`,
    /// and two replay backends of one model but different recordings must not share them.
    public static let answersAreCacheable = false

    /// The recording it answers from (unused, as it is never cached, but honest if it were).
    public var cacheIdentity: [String: JSONValue] { ["from": .string(from)] }

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
