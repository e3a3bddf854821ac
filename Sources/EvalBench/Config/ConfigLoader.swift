import Foundation

/// Loads and validates the backend config (`evalbench.json`), reporting every problem at once,
/// and checks that the backends a run selects can be used in the current environment.
package enum ConfigLoader {
    /// Reads and loads the config at `path`; relative paths in it are resolved against its directory.
    /// `kinds` are the backend kinds it may name.
    package static func load(path: String, kinds: BackendKindRegistry = .builtIn) throws(LoadError) -> Config {
        let data = try SuiteLoader.readFile(path, what: "config")
        return try load(data: data, file: path,
                        baseDirectory: URL(fileURLWithPath: path).deletingLastPathComponent().path, kinds: kinds)
    }

    /// Loads a config from its bytes; `file` names it in diagnostics, and `baseDirectory` is
    /// where relative paths (`modelPath`, `chatTemplateFile`, `serverPath`) start from.
    package static func load(data: Data, file: String, baseDirectory: String,
                            kinds: BackendKindRegistry = .builtIn) throws(LoadError) -> Config {
        let root: JSONNode
        do {
            root = try JSONDocument(data: data, file: file).root
        } catch {
            throw LoadError([error])
        }
        let log = DiagnosticLog(file: file)
        var config = Config(file: file, backends: [])
        if let reader = ObjectReader(root, path: .root, log: log, what: "a config") {
            ConfigReader(log: log, values: ConfigValueReader(log: log, baseDirectory: baseDirectory), kinds: kinds)
                .read(reader, into: &config)
        }
        try log.throwIfAny()
        return config
    }

    /// Problems with running the named backends here: a name that is not configured, or, when
    /// `checkingSecrets`, an `apiKeyEnv` variable that is unset or empty in `environment`. Only
    /// the named backends are checked: another backend's missing key is no problem for a run
    /// that does not use it. An empty `backends` selects `defaults.backends`, or every
    /// configured backend when that is unset.
    package static func checkSelection(_ config: Config, backends: [String], environment: [String: String],
                                      checkingSecrets: Bool = true) -> [Diagnostic] {
        let file = config.file ?? "evalbench.json"
        let configured = config.backends.map(\.name)
        let selected = backends.isEmpty ? (config.defaults.backends ?? configured) : backends
        var diagnostics: [Diagnostic] = []
        for name in selected {
            guard let index = config.backends.firstIndex(where: { $0.name == name }) else {
                let hint = suggestion(for: name, among: configured).map { "; did you mean '\($0)'?" } ?? ""
                diagnostics.append(Diagnostic(file: file, message: "no backend named '\(name)'\(hint)",
                                              fix: "configured backends: \(configured.joined(separator: ", "))"))
                continue
            }
            guard checkingSecrets, let variable = config.backends[index].options.apiKeyEnv else { continue }
            let state = environment[variable] == nil ? "is not set" : (environment[variable]!.isEmpty ? "is empty" : nil)
            if let state {
                diagnostics.append(Diagnostic(
                    file: file, location: config.backends[index].keyLocations["apiKeyEnv"], path: "$.backends[\(index)].apiKeyEnv",
                    message: "backend '\(name)' reads its API key from the environment variable \(variable), which \(state)",
                    fix: "export \(variable)=... before running, or select another backend with --backend"))
            }
        }
        return diagnostics
    }
}

