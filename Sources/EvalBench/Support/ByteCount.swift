import Foundation

/// A size in bytes as people read it: "12 bytes", "3 KiB", "1.5 MiB", "2.0 GiB".
package enum ByteCount {
    package static func text(_ count: Int64) -> String {
        count >= 1 << 30 ? String(format: "%.1f GiB", Double(count) / Double(1 << 30))
            : count >= 1 << 20 ? String(format: "%.1f MiB", Double(count) / Double(1 << 20))
            : count >= 1024 ? "\(count / 1024) KiB" : "\(count) bytes"
    }
}
