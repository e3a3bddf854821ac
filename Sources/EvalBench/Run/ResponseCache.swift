import Foundation

/// evalbench's own response cache (`--cache`): answers stored by the backend's identity and
/// the full request, repeat index included so repeats stay independent samples. A cached
/// answer is graded again but flagged, and left out of latency statistics. Errors are never
/// stored. Not to be confused with a provider's prompt cache, which `cached_input_tokens` measures.
public actor ResponseCache {
    /// One stored answer, with the measurements of the request that produced it.
    struct Entry: Codable {
        var text: String
        var reasoningText: String?
        var timing: RequestTiming
        var usage: Usage
        var finishReason: String?
        var model: String?
    }

    public nonisolated let directory: URL
    /// The most bytes the cache keeps; the least recently used entries go first.
    public nonisolated let maximumBytes: Int
    private var hits = 0
    private var misses = 0

    /// The default directory: `$EVALBENCH_CACHE/responses`, else `~/.cache/evalbench/responses`.
    public static func defaultDirectory(environment: [String: String]) -> URL {
        let base = environment["EVALBENCH_CACHE"].map { URL(fileURLWithPath: $0) }
            // NSHomeDirectory, not homeDirectoryForCurrentUser, which iOS and visionOS lack.
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".cache/evalbench")
        return base.appendingPathComponent("responses")
    }

    public init(directory: URL, maximumBytes: Int = 256 * 1024 * 1024) {
        self.directory = directory
        self.maximumBytes = maximumBytes
    }

    /// The key of `request` on a backend whose identity is `backend`, at `repeatIndex`.
    public static func key(backend identity: String, request: ModelRequest, repeatIndex: Int) -> String {
        var parts: [String: Any] = [
            "backend": identity,
            "messages": request.messages.map { ["role": $0.role.rawValue, "content": $0.content] },
            "reasoning": request.reasoning.rawValue,
            "repeat": repeatIndex,
        ]
        if let instructions = request.instructions { parts["instructions"] = instructions }
        if let output = request.output { parts["output"] = ["name": output.name, "schema": RawJSON(output.schemaText)] }
        var options: [String: Any] = [:]
        if let value = request.options.temperature { options["temperature"] = value }
        if let value = request.options.maxOutputTokens { options["maxOutputTokens"] = value }
        if let value = request.options.topP { options["topP"] = value }
        if let value = request.options.seed { options["seed"] = value }
        if let value = request.options.stop { options["stop"] = value }
        parts["options"] = options
        return SHA256.hex(JSONWriter.data(parts))
    }

    func lookup(_ key: String) -> ModelResponse? {
        let url = file(key)
        guard let data = try? Data(contentsOf: url), let entry = try? JSONDecoder().decode(Entry.self, from: data) else {
            misses += 1
            return nil
        }
        hits += 1
        // Touch it: eviction goes by last use.
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: url.path)
        return ModelResponse(text: entry.text, reasoningText: entry.reasoningText, timing: entry.timing, usage: entry.usage,
                             finishReason: entry.finishReason, model: entry.model)
    }

    func store(_ response: ModelResponse, key: String) {
        let entry = Entry(text: response.text, reasoningText: response.reasoningText, timing: response.timing,
                          usage: response.usage, finishReason: response.finishReason, model: response.model)
        guard let data = try? JSONEncoder().encode(entry) else { return }
        let url = file(key)
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? data.write(to: url, options: .atomic)
        evictIfNeeded()
    }

    /// Hits and misses so far.
    public var counts: (hits: Int, misses: Int) { (hits, misses) }

    /// Removes every stored answer; returns how many there were.
    @discardableResult
    public func clear() -> Int {
        let files = entries()
        for entry in files { try? FileManager.default.removeItem(at: entry.url) }
        return files.count
    }

    private func file(_ key: String) -> URL {
        directory.appendingPathComponent(String(key.prefix(2))).appendingPathComponent(key + ".json")
    }

    private func entries() -> [(url: URL, size: Int, date: Date)] {
        guard let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.fileSizeKey, .contentModificationDateKey]) else { return [] }
        var result: [(URL, Int, Date)] = []
        for case let url as URL in enumerator where url.pathExtension == "json" {
            let values = try? url.resourceValues(forKeys: [.fileSizeKey, .contentModificationDateKey])
            result.append((url, values?.fileSize ?? 0, values?.contentModificationDate ?? .distantPast))
        }
        return result
    }

    private func evictIfNeeded() {
        var all = entries()
        var total = all.reduce(0) { $0 + $1.size }
        guard total > maximumBytes else { return }
        all.sort { $0.date < $1.date }
        for entry in all where total > maximumBytes {
            try? FileManager.default.removeItem(at: entry.url)
            total -= entry.size
        }
    }
}

/// What makes two backends answer alike, for cache keys: the kind, the model, the reasoning
/// overrides and what the kind says shapes a request (`BackendKind.cacheIdentity`), not
/// names, prices, limits or headers.
enum ResponseCacheIdentity {
    static func of(_ config: BackendConfig) -> String {
        var parts: [String: Any] = config.options.cacheIdentity.mapValues(\.foundationObject)
        parts["kind"] = config.kind
        if let value = config.model { parts["model"] = value }
        if let value = config.reasoning {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            if let data = try? encoder.encode(value) { parts["reasoning"] = String(decoding: data, as: UTF8.self) }
        }
        return JSONWriter.string(parts)
    }
}
