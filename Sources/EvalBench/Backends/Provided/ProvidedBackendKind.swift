import Foundation

/// Kind `provided`: a backend the caller passed as a value (`Evaluation.backends`), not made
/// from a config. No config file can name it (it is not in `BackendKindRegistry.builtIn`);
/// run.json records only the kind, and reading a run back shows it as a recorded kind.
/// Its cost is unknown, never 0, as evalbench cannot know what its requests cost.
struct ProvidedBackendKind: BackendKind {
    static let name = "provided"
    static let keys: [ConfigKey] = []
    static let costsMoney = true
    let backend: any Backend

    init(_ backend: any Backend) {
        self.backend = backend
    }

    init?(_ values: ConfigValues) { nil }

    init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                debugDescription: "a provided backend cannot be read back from a file"))
    }

    /// Nothing beyond the shared fields: the backend is code, not configuration.
    func encode(to encoder: any Encoder) throws {}

    static func == (lhs: ProvidedBackendKind, rhs: ProvidedBackendKind) -> Bool {
        lhs.backend.name == rhs.backend.name && lhs.backend.kind == rhs.backend.kind
    }

    func makeBackend(_ config: BackendConfig, context: BackendContext) throws -> any Backend { backend }

    /// Never answered from the response cache: evalbench cannot tell what shapes its answers.
    static let answersAreCacheable = false
    var cacheIdentity: [String: JSONValue] { ["provided": .string(backend.name)] }
}
