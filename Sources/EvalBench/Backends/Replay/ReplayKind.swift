import Foundation

/// Kind `replay`: answers from an earlier run's results.jsonl, and one backend's options.
public struct ReplayKind: BackendKind {
    public static let name = "replay"
    public static let keys: [ConfigKey] = [
        ConfigKey("from", .filePath, required: true, check: runDirectoryProblem), .model, .concurrency,
    ]
    /// Not counted free: a replayed answer costs what the config prices it at, else its cost is unknown.
    public static let costsMoney = true

    /// The earlier run's directory (resolved against the config's directory; checked to exist at load).
    public var from: String

    public init(from: String) {
        self.from = from
    }

    public init?(_ values: ConfigValues) {
        guard let from = values.string("from") else { return nil }
        self.from = from
    }

    public func makeBackend(_ config: BackendConfig, context: BackendContext) throws -> any Backend {
        ReplayBackend(name: config.name, model: config.model, directory: URL(fileURLWithPath: from),
                      concurrency: config.concurrency ?? context.defaultConcurrency)
    }

    public var cacheIdentity: [String: JSONValue] { [:] }

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
