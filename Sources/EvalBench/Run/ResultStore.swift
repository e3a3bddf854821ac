import Foundation

/// Appends each finished result to `results.jsonl` the moment it is recorded, one line
/// per write(2), so a crash or `kill -9` keeps every finished result.
package actor ResultStore {
    package let url: URL
    private let handle: FileHandle
    private let encoder: JSONEncoder
    private(set) var results: [RequestResult] = []

    /// Opens (creating or appending to) `results.jsonl`, keeping `existing` as already recorded.
    package init(url: URL, existing: [RequestResult] = []) throws {
        self.url = url
        if !FileManager.default.fileExists(atPath: url.path) {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        }
        handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        encoder = Self.makeEncoder()
        results = existing
    }

    package func append(_ result: RequestResult) throws {
        var line = try encoder.encode(result)
        line.append(0x0A)
        try handle.write(contentsOf: line)
        results.append(result)
    }

    package func all() -> [RequestResult] { results }

    package func close() throws {
        try handle.synchronize()
        try handle.close()
    }

    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    /// Reads a `results.jsonl`; a torn last line (a crash mid-write) is skipped, any other
    /// bad line is an error naming its line number.
    package static func read(_ url: URL) throws -> [RequestResult] {
        let data = try Data(contentsOf: url)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var results: [RequestResult] = []
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() where !line.isEmpty {
            do {
                results.append(try decoder.decode(RequestResult.self, from: Data(line)))
            } catch {
                if index == lines.count - 1 { break }
                throw Diagnostic(file: url.path, location: SourceLocation(line: index + 1, column: 1),
                                 message: "not a result line: \(error)",
                                 fix: "remove or repair the line; results.jsonl holds one JSON result per line")
            }
        }
        return results
    }
}
