#if (os(macOS) || os(Linux)) && !EVALBENCH_NO_PROCESS
import Foundation

/// Runs short helper commands (`git rev-parse`); macOS and Linux only (see `Platform`).
package enum Subprocess {
    /// The trimmed standard output of `arguments` run through `/usr/bin/env`, or nil when it
    /// cannot start, exits non-zero or prints nothing. Standard error is discarded.
    package static func output(of arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}
#endif
