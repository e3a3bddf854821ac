/// A JSON string appended as UTF-8 bytes, the two ways evalbench writes them: `"` and `\`
/// escaped, `\n \r \t`, and any other control character as `\u00xx` (lower-case hex), the
/// rest (`/`, DEL, non-ASCII) as it is; with `shortBackspaceAndFormFeed`, `\b` and `\f` as
/// JSONEncoder writes them (results.jsonl), else as `\u0008` and `\u000c` (request bodies). Every
/// byte of a multi-byte UTF-8 sequence is 0x80 or above, so bytes are scanned and the runs
/// between escapes copied whole.
enum JSONStringBytes {
    static func append(_ string: String, to bytes: inout [UInt8], shortBackspaceAndFormFeed: Bool) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            var mark = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if index > mark { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[mark..<index])) }
                mark = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x08 where shortBackspaceAndFormFeed: bytes.append(UInt8(ascii: "b"))
                case 0x0C where shortBackspaceAndFormFeed: bytes.append(UInt8(ascii: "f"))
                default:
                    bytes.append(contentsOf: "u00".utf8)
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 0x0F)])
                }
            }
            if utf8.count > mark { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[mark...])) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hex = Array("0123456789abcdef".utf8)
}
