import Foundation

/// evalbench's own response cache (`--cache`): answers stored by the backend's identity and
/// the full request, repeat index included so repeats stay independent samples. A cached
/// answer is graded again but flagged, and left out of latency statistics. Errors are never
/// stored. Not to be confused with a provider's prompt cache, which `cached_input_tokens` measures.
package actor ResponseCache {
    /// One stored answer, with the measurements of the request that produced it.
    struct Entry: Codable {
        var text: String
        var reasoningText: String?
        var timing: RequestTiming
        var usage: Usage
        var finishReason: String?
        var model: String?
        var toolCalls: [ToolCall]?
        var handledToolCalls: [ToolCallRecord]?
    }

    package nonisolated let directory: URL
    /// The most bytes the cache keeps; the least recently used entries go first.
    package nonisolated let maximumBytes: Int
    private var hits = 0
    private var misses = 0
    private var index: CacheIndex?
    /// The key-prefix folders known to exist, so that a store does not ask the file system again.
    private var folders: Set<String> = []
    /// Says, once a run, that answers cannot be stored; standard error unless given.
    private nonisolated let warn: @Sendable (String) -> Void
    private var warned = false

    /// The default directory: `$EVALBENCH_CACHE/responses`, else `~/.cache/evalbench/responses`.
    package static func defaultDirectory(environment: [String: String]) -> URL {
        Platform.cacheDirectory(environment: environment).appendingPathComponent("responses")
    }

    package init(directory: URL, maximumBytes: Int = 256 * 1024 * 1024,
                 warn: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data("evalbench: \($0)\n".utf8)) }) {
        self.directory = directory
        self.maximumBytes = maximumBytes
        self.warn = warn
    }

    /// The key of `request` on a backend whose identity is `backend`, at `repeatIndex`.
    package static func key(backend identity: String, request: ModelRequest, repeatIndex: Int) -> String {
        var parts: [String: Any] = [
            "backend": identity,
            "messages": request.messages.map(Self.keyPart),
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
        // Only a request with tools carries these, so keys without tools stay what they were.
        if !request.tools.isEmpty {
            parts["tools"] = request.tools.map { ["name": $0.name, "description": $0.description, "parameters": RawJSON($0.parametersText)] }
            parts["toolChoice"] = request.options.toolChoice?.text ?? "auto"
            // A backend that answers calls itself (Foundation Models) answers from these: a
            // changed canned result is a different request.
            if !request.cannedTools.isEmpty {
                parts["toolResults"] = request.cannedTools.map { tool in
                    tool.results.map { ["when": $0.when?.jsonText ?? "default", "content": $0.content, "error": $0.isError] as [String: Any] }
                }
            }
        }
        return SHA256.hex(JSONWriter.data(parts))
    }

    /// One message of a key: role and content, and a tool round's calls or results when it has them.
    private static func keyPart(_ message: ChatMessage) -> [String: Any] {
        var part: [String: Any] = ["role": message.role.rawValue, "content": message.content]
        if !message.toolCalls.isEmpty {
            part["toolCalls"] = message.toolCalls.map { ["id": $0.id, "name": $0.name, "arguments": $0.argumentsText] }
        }
        if !message.toolOutputs.isEmpty {
            part["toolOutputs"] = message.toolOutputs.map { ["id": $0.callID, "content": $0.content, "error": $0.isError] }
        }
        return part
    }

    func lookup(_ key: String) -> ModelResponse? {
        let url = file(key)
        guard let data = try? Data(contentsOf: url), let entry = try? JSONDecoder().decode(Entry.self, from: data) else {
            misses += 1
            return nil
        }
        hits += 1
        // Touch it: eviction goes by last use, in the index and on disk for the next process.
        let now = Date()
        try? FileManager.default.setAttributes([.modificationDate: now], ofItemAtPath: url.path)
        updateIndex { $0.record(key, size: data.count, lastUse: now) }
        return ModelResponse(text: entry.text, reasoningText: entry.reasoningText, timing: entry.timing, usage: entry.usage,
                             finishReason: entry.finishReason, model: entry.model, toolCalls: entry.toolCalls ?? [],
                             handledToolCalls: entry.handledToolCalls ?? [])
    }

    func store(_ response: ModelResponse, key: String) {
        let entry = Entry(text: response.text, reasoningText: response.reasoningText, timing: response.timing,
                          usage: response.usage, finishReason: response.finishReason, model: response.model,
                          toolCalls: response.toolCalls.isEmpty ? nil : response.toolCalls,
                          handledToolCalls: response.handledToolCalls.isEmpty ? nil : response.handledToolCalls)
        guard let data = try? JSONEncoder().encode(entry) else { return }
        let url = file(key)
        let folder = String(key.prefix(2))
        // Not atomic (a temporary file and a rename cost more than the write): an entry torn by
        // a crash does not decode, and a lookup that cannot decode is a miss, never a wrong answer.
        if !folders.contains(folder) || (try? data.write(to: url)) == nil {
            // A folder not made yet, or removed since (`cache clear` in another process).
            var cause: (any Error)?
            do { try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true) } catch { cause = error }
            folders.insert(folder)
            do {
                try data.write(to: url)
            } catch {
                // Silently, every later run would miss: the cache would seem to work and never hit.
                if !warned {
                    warned = true
                    warn("warning: the response cache cannot store answers in \(directory.path) (\(ResultStore.describe(cause ?? error))), so this run's answers are not cached; set EVALBENCH_CACHE to a directory you can write")
                }
                return
            }
        }
        let evicted = updateIndex { index in
            index.record(key, size: data.count, lastUse: Date())
            return index.evict(toFit: maximumBytes)
        }
        for key in evicted { try? FileManager.default.removeItem(at: file(key)) }
    }

    /// Hits and misses so far.
    package var counts: (hits: Int, misses: Int) { (hits, misses) }

    /// Removes every answer evalbench stored (files named by a key, in folders named by the
    /// key's first two characters) and nothing else; returns how many there were.
    @discardableResult
    package func clear() -> Int {
        let keys = CacheIndex.scan(directory).keys
        for key in keys { try? FileManager.default.removeItem(at: file(key)) }
        for prefix in Set(keys.map { String($0.prefix(2)) }) {
            let folder = directory.appendingPathComponent(prefix)
            if (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.isEmpty == true {
                try? FileManager.default.removeItem(at: folder)
            }
        }
        index = CacheIndex()
        folders = []
        return keys.count
    }

    private func file(_ key: String) -> URL {
        directory.appendingPathComponent(String(key.prefix(2))).appendingPathComponent(key + ".json")
    }

    /// Changes the index, read from the directory once per process: every later store and
    /// lookup updates it instead of scanning the directory again. In place: a copy taken out
    /// and put back would copy the whole dictionary on every store, quadratic over a run.
    private func updateIndex<Result>(_ change: (inout CacheIndex) -> Result) -> Result {
        if index == nil { index = CacheIndex.scan(directory) }
        return change(&index!)
    }
}

/// The stored answers' sizes and last uses, so that a store costs O(1) and eviction, which
/// removes the least recently used down to 90% of the budget, is amortised over many stores.
struct CacheIndex: Sendable {
    private(set) var entries: [String: (size: Int, lastUse: Date)] = [:]
    private(set) var totalBytes = 0

    var keys: [String] { Array(entries.keys) }

    /// Whether `name` is a file evalbench writes: a SHA-256 key in hex and `.json`.
    static func key(ofFileNamed name: String, inFolder folder: String) -> String? {
        guard name.hasSuffix(".json") else { return nil }
        let key = String(name.dropLast(5))
        let hex = key.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
        guard key.count == 64, hex, key.hasPrefix(folder) else { return nil }
        return key
    }

    /// The answers stored under `directory`, skipping every file evalbench did not write.
    static func scan(_ directory: URL) -> CacheIndex {
        var index = CacheIndex()
        let manager = FileManager.default
        for folder in (try? manager.contentsOfDirectory(atPath: directory.path)) ?? [] where folder.count == 2 {
            let folderURL = directory.appendingPathComponent(folder)
            for name in (try? manager.contentsOfDirectory(atPath: folderURL.path)) ?? [] {
                guard let key = key(ofFileNamed: name, inFolder: folder),
                      let attributes = try? manager.attributesOfItem(atPath: folderURL.appendingPathComponent(name).path)
                else { continue }
                let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
                index.record(key, size: size, lastUse: attributes[.modificationDate] as? Date ?? .distantPast)
            }
        }
        return index
    }

    mutating func record(_ key: String, size: Int, lastUse: Date) {
        if let old = entries[key] { totalBytes -= old.size }
        entries[key] = (size, lastUse)
        totalBytes += size
    }

    /// Removes the least recently used entries once the total passes `budget`, down to 90% of
    /// it; returns the removed keys.
    mutating func evict(toFit budget: Int) -> [String] {
        guard totalBytes > budget else { return [] }
        let target = budget - budget / 10
        var removed: [String] = []
        for (key, entry) in entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) where totalBytes > target {
            entries[key] = nil
            totalBytes -= entry.size
            removed.append(key)
        }
        return removed
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
