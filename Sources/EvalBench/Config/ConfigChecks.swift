import Foundation

/// The checks a config built in Swift gets in place of the loader's (distinct backend names,
/// each kind's own rules beside the other backends), and the joining of the caller's own
/// backends (`Evaluation.backends`) to a config.
enum ConfigChecks {
    static func check(_ config: Config) throws(LoadError) {
        let file = config.file ?? "config (built in Swift)"
        var diagnostics: [Diagnostic] = []
        var seen: Set<String> = []
        for (index, backend) in config.backends.enumerated() {
            if backend.name.isEmpty {
                diagnostics.append(Diagnostic(file: file, path: "$.backends[\(index)].name", message: "backend \(index) has an empty name",
                                              fix: "give every backend a short, distinct name such as \"local\""))
            } else if !seen.insert(backend.name).inserted {
                diagnostics.append(Diagnostic(file: file, path: "$.backends[\(index)].name",
                                              message: "the backend name '\(backend.name)' is used twice",
                                              fix: "give every backend a distinct name"))
            }
            for problem in backend.options.problems(of: backend, among: config.backends) {
                diagnostics.append(Diagnostic(file: file, path: "$.backends[\(index)].\(problem.key)",
                                              message: problem.message, fix: problem.fix))
            }
        }
        guard diagnostics.isEmpty else { throw LoadError(diagnostics) }
    }

    /// Adds each of `backends` to `config` under its name; a name the config already has is an error.
    static func add(_ backends: [any Backend], to config: inout Config) throws(LoadError) {
        var diagnostics: [Diagnostic] = []
        for backend in backends {
            guard config.backend(named: backend.name) == nil else {
                diagnostics.append(Diagnostic(file: config.file ?? "config (built in Swift)",
                                              message: "the backend '\(backend.name)' passed in Evaluation.backends has the name of a configured backend",
                                              fix: "give the backend you pass a name of its own"))
                continue
            }
            config.backends.append(BackendConfig(name: backend.name, model: backend.model, concurrency: backend.concurrency,
                                                 options: ProvidedBackendKind(backend)))
        }
        guard diagnostics.isEmpty else { throw LoadError(diagnostics) }
    }
}
