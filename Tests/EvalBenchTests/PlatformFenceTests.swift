import Foundation
import Testing

/// The library must compile for iOS and visionOS, which Package.swift declares and where an app's
/// test host runs the Apple evals. `Process` and the home directory exist on macOS and Linux
/// only, so every file of the library that uses them is fenced whole (or at each use) with the
/// condition below; building with `-DEVALBENCH_NO_PROCESS` compiles what iOS compiles of
/// those files.
@Suite("Platform fences")
struct PlatformFenceTests {
    static let fence = "#if (os(macOS) || os(Linux)) && !EVALBENCH_NO_PROCESS"
    static let macOSAndLinuxOnly = ["Process()", "homeDirectoryForCurrentUser", "Pipe()"]

    /// Each library source file with its text.
    static func librarySources() throws -> [(path: String, text: String)] {
        let root = PackagePaths.root.appendingPathComponent("Sources/EvalBench")
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        var files: [(String, String)] = []
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            files.append((url.path.replacingOccurrences(of: root.path + "/", with: ""),
                          try String(contentsOf: url, encoding: .utf8)))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    /// The uses of a macOS/Linux-only API that no fence encloses, as "file:line: text".
    static func unfencedUses(in path: String, _ text: String) -> [String] {
        var depth = 0
        var fencedDepths: [Int] = []
        var unfenced: [String] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("#if") {
                depth += 1
                if trimmed == fence { fencedDepths.append(depth) }
            } else if trimmed.hasPrefix("#else") || trimmed.hasPrefix("#elseif") {
                if fencedDepths.last == depth { fencedDepths.removeLast() }
            } else if trimmed.hasPrefix("#endif") {
                if fencedDepths.last == depth { fencedDepths.removeLast() }
                depth -= 1
            } else if !trimmed.hasPrefix("//"), fencedDepths.isEmpty,
                      macOSAndLinuxOnly.contains(where: { trimmed.contains($0) }) {
                unfenced.append("\(path):\(index + 1): \(trimmed)")
            }
        }
        return unfenced
    }

    @Test("no library file starts a process or reads the home directory outside the macOS/Linux fence")
    func processUseIsFenced() throws {
        let sources = try Self.librarySources()
        #expect(sources.count > 50, "found only \(sources.count) library sources; is the package root right?")
        let unfenced = sources.flatMap { Self.unfencedUses(in: $0.path, $0.text) }
        #expect(unfenced.isEmpty, "fence these with \(Self.fence):\n\(unfenced.joined(separator: "\n"))")
    }

    @Test("the fence check finds an unfenced use, ignores a fenced one and the #else branch counts as unfenced")
    func fenceCheckCanFail() {
        let text = """
        let a = Process()
        \(Self.fence)
        let b = Process()
        #else
        let c = Process()
        #endif
        """
        #expect(Self.unfencedUses(in: "x.swift", text) == ["x.swift:1: let a = Process()", "x.swift:5: let c = Process()"])
    }
}
