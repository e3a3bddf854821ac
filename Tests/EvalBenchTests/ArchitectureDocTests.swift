import Foundation
import Testing

/// docs/architecture.md is the map of the code: it must describe every folder of Sources/ and
/// name only paths that exist, so that a change of layout that forgets it fails here.
@Suite("docs/architecture.md matches the tree")
struct ArchitectureDocTests {
    static let document = PackagePaths.root.appendingPathComponent("docs/architecture.md")

    /// Every folder under `Sources/`, relative to it (`EvalBench/Backends/OpenAI`).
    static func sourceFolders() -> [String] {
        let root = PackagePaths.root.appendingPathComponent("Sources")
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey])
        var folders: [String] = []
        while let url = enumerator?.nextObject() as? URL {
            guard (try? url.resourceValues(forKeys: [.isDirectoryKey]))?.isDirectory == true else { continue }
            folders.append(url.path.replacingOccurrences(of: root.path + "/", with: ""))
        }
        return folders.sorted()
    }

    @Test("every folder of Sources/ is described: a target by its path, a library folder by its name")
    func everyFolderDescribed() throws {
        let text = try String(contentsOf: Self.document, encoding: .utf8)
        let folders = Self.sourceFolders()
        #expect(folders.count > 10, "found the source folders")
        let missing = folders.filter { folder in
            let parts = folder.split(separator: "/")
            if parts.count == 1 { return !text.contains("Sources/\(folder)") }
            let inLibrary = parts.dropFirst().joined(separator: "/")
            return !(text.contains("`\(inLibrary)/`") || text.contains("`\(parts.last!)/`"))
        }
        #expect(missing.isEmpty, "describe these folders in docs/architecture.md: \(missing)")
    }

    @Test("every path the document names exists")
    func namedPathsExist() throws {
        let text = try String(contentsOf: Self.document, encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"`((?:Sources|Tests|Benchmarks|examples|schemas|scripts|docs)/[A-Za-z0-9_./+-]+)`"#)
        let paths = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
        #expect(paths.count > 10, "found the paths")
        let root = PackagePaths.root
        let missing = paths.filter { path in
            !FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path)
                && !FileManager.default.fileExists(atPath: root.appendingPathComponent("Sources/EvalBench").appendingPathComponent(path).path)
        }
        #expect(missing.isEmpty, "these paths in docs/architecture.md do not exist: \(missing)")
    }

    @Test("every file a layer row names exists in that layer")
    func namedFilesExist() throws {
        let text = try String(contentsOf: Self.document, encoding: .utf8)
        let library = PackagePaths.root.appendingPathComponent("Sources/EvalBench")
        var missing: [String] = []
        for line in text.components(separatedBy: "\n") where line.hasPrefix("| `") && line.contains("/` |") {
            guard let end = line.range(of: "/` |") else { continue }
            let folder = String(line[line.index(line.startIndex, offsetBy: 3)..<end.lowerBound])
            guard FileManager.default.fileExists(atPath: library.appendingPathComponent(folder).path) else {
                missing.append(folder)
                continue
            }
        }
        #expect(missing.isEmpty, "layer rows naming folders that do not exist: \(missing)")
    }
}
