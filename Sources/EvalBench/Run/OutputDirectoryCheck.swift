#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Whether a directory named on the command line (`run --out`, `merge --out`, `compare --out`)
/// can take the files evalbench writes, checked when the command is read, before any backend
/// starts or any request is sent: a file where the directory should be was found only when the
/// first file was written, as exit 3 with Foundation's error.
package enum OutputDirectoryCheck {
    /// Why `path`, given as `option`, cannot be written into, or nil when it can: it is a file,
    /// a file stands where one of its parents should be, or the directory it would be made in
    /// (or it itself) is not writable. A missing directory is fine: it is created.
    package static func problem(_ path: String, option: String) -> Diagnostic? {
        let files = FileManager.default
        let fix = "name a directory for \(option) (evalbench creates it when it is missing)"
        var isDirectory: ObjCBool = false
        if files.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                return Diagnostic(file: path, message: "\(option) \(path) is a file, not a directory", fix: fix + ", or move the file")
            }
            return writable(path) ? nil : Diagnostic(file: path, message: "\(option) \(path) is a directory evalbench cannot write in",
                                                     fix: fix + " that you can write in")
        }
        var ancestor = URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent()
        while true {
            if files.fileExists(atPath: ancestor.path, isDirectory: &isDirectory) {
                guard isDirectory.boolValue else {
                    return Diagnostic(file: path, message: "\(option) \(path) cannot be made: \(ancestor.path) is a file, not a directory",
                                      fix: fix + " under a directory")
                }
                return writable(ancestor.path) ? nil
                    : Diagnostic(file: path, message: "\(option) \(path) cannot be made: evalbench cannot write in \(ancestor.path)",
                                 fix: fix + " where you can write")
            }
            let parent = ancestor.deletingLastPathComponent()
            if parent.path == ancestor.path { return nil }
            ancestor = parent
        }
    }

    /// A problem when `path`, given as `option`, is the same directory as one of `kept` (a
    /// baseline, a shard being merged), which the command reads and would then overwrite.
    package static func overwrite(_ path: String, option: String, kept: [(path: String, option: String)]) -> Diagnostic? {
        let target = resolved(path)
        guard let other = kept.first(where: { resolved($0.path) == target }) else { return nil }
        return Diagnostic(file: path, message: "\(option) and \(other.option) name the same directory, \(other.path): its results would be overwritten",
                          fix: "write to another directory with \(option), and keep \(other.path) as it is")
    }

    /// Whether two paths name one directory, once `.`, `..` and symbolic links are resolved.
    package static func sameDirectory(_ first: String, _ second: String) -> Bool {
        resolved(first) == resolved(second)
    }

    /// `path` absolute, with `.`, `..` and symbolic links (of the parts that exist) resolved.
    private static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    private static func writable(_ path: String) -> Bool { access(path, W_OK | X_OK) == 0 }
}
