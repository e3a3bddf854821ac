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
    /// `checkingSecrets`, an `apiKeyEnv` or `headersFromEnv` variable that is unset or empty in
    /// `environment` (named, never its value). Only
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
            guard checkingSecrets else { continue }
            diagnostics += missingSecrets(of: config.backends[index], at: index, file: file, environment: environment)
        }
        return diagnostics
    }

    /// The `apiKeyEnv` and `headersFromEnv` variables of `backend` that are unset or empty, each
    /// at the config key that names it.
    private static func missingSecrets(of backend: BackendConfig, at index: Int, file: String,
                                       environment: [String: String]) -> [Diagnostic] {
        func state(_ variable: String) -> String? {
            guard let value = environment[variable] else { return "is not set" }
            if value.isEmpty { return "is empty" }
            // Sent as a header, a line break would end the line and start another (a secret
            // file's trailing newline, copied into the variable, does this).
            if value.unicodeScalars.contains(where: ConfigValueReader.isForbiddenInHeaderValue) {
                return "holds a line break or another control character (a secret file's trailing newline?), which a header cannot carry"
            }
            return nil
        }
        var diagnostics: [Diagnostic] = []
        let fix = { (variable: String) in "export \(variable)=... before running, or select another backend with --backend" }
        if let variable = backend.options.apiKeyEnv, let state = state(variable) {
            diagnostics.append(Diagnostic(
                file: file, location: backend.keyLocations["apiKeyEnv"], path: "$.backends[\(index)].apiKeyEnv",
                message: "backend '\(backend.name)' reads its API key from the environment variable \(variable), which \(state)",
                fix: fix(variable)))
        }
        for (header, variable) in (backend.options.headersFromEnv ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let state = state(variable) else { continue }
            diagnostics.append(Diagnostic(
                file: file, location: backend.keyLocations["headersFromEnv"],
                path: JSONPath.root.key("backends").index(index).key("headersFromEnv").key(header).description,
                message: "backend '\(backend.name)' sends the header '\(header)' from the environment variable \(variable), which \(state)",
                fix: fix(variable)))
        }
        return diagnostics
    }
}
