import Foundation

/// An append-only array of plain values (no references) kept in memory only a block at a
/// time: each full block of `elementsPerBlock` is written to an unlinked temporary file, and
/// reads of written blocks are served from a small cache of the file's windows. A
/// `ResultTable`'s rows (96 bytes a result) live here, so its memory grows with what results
/// share, not with how many there are: 88 MB for a million results otherwise.
///
/// Copies share the file: a written block never changes, each block's place in the file is
/// held by the copy that wrote it, and two copies that go on appending write their blocks to
/// different places. When no file can be made, blocks stay in memory.
package struct FileBackedArray<Element: BitwiseCopyable & Sendable>: RandomAccessCollection, Sendable {
    /// A power of two.
    private let elementsPerBlock: Int
    private let blockShift: Int
    private var blocks: [Block] = []
    /// The block being filled (always in memory).
    private var tail: [Element] = []
    private var file: BlockFile?
    private var fileUnavailable = false
    private let fileBytesLimit: Int64?
    package private(set) var count = 0

    private enum Block {
        case file(offset: Int64)
        case memory([Element])
    }

    /// An empty array whose blocks hold `elementsPerBlock` elements (rounded up to a power of
    /// two; tests pass small blocks so that a few elements reach the file). `keepsInMemory`
    /// keeps every block in memory, as when no file can be made; `fileBytes`, for tests, makes
    /// writes past that size of file fail, as on a full disk.
    package init(elementsPerBlock: Int = 4_096, keepsInMemory: Bool = false, fileBytes: Int64? = nil) {
        fileUnavailable = keepsInMemory
        fileBytesLimit = fileBytes
        var shift = 0
        while 1 << shift < Swift.max(1, elementsPerBlock) { shift += 1 }
        blockShift = shift
        self.elementsPerBlock = 1 << shift
        precondition(MemoryLayout<Element>.stride > 0, "FileBackedArray: elements of size 0")
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { count }

    /// Blocks held in the file, and in memory (the block being filled among them).
    package var blocksHeld: (inFile: Int, inMemory: Int) {
        let inFile = blocks.reduce(0) { count, block in
            if case .file = block { return count + 1 }
            return count
        }
        return (inFile, blocks.count - inFile + (tail.isEmpty ? 0 : 1))
    }

    package subscript(index: Int) -> Element {
        precondition(index >= 0 && index < count, "FileBackedArray: index \(index) out of range 0..<\(count)")
        let block = index >> blockShift
        let within = index & (elementsPerBlock - 1)
        guard block < blocks.count else { return tail[within] }
        switch blocks[block] {
        case let .memory(elements):
            return elements[within]
        case let .file(offset):
            // `file` is set before any block is written to it.
            return file!.element(at: offset + Int64(within * MemoryLayout<Element>.stride))
        }
    }

    package mutating func append(_ element: Element) {
        if tail.isEmpty { tail.reserveCapacity(elementsPerBlock) }
        tail.append(element)
        count += 1
        if tail.count == elementsPerBlock { writeTail() }
    }

    /// Moves the full block being filled to the file, or keeps it in memory when there is none.
    private mutating func writeTail() {
        if file == nil, !fileUnavailable {
            file = BlockFile(blockBytes: elementsPerBlock * MemoryLayout<Element>.stride,
                             elementStride: MemoryLayout<Element>.stride, writableBytes: fileBytesLimit)
            fileUnavailable = file == nil
        }
        if let file, let offset = tail.withUnsafeBytes({ file.append($0) }) {
            blocks.append(.file(offset: offset))
        } else {
            blocks.append(.memory(tail))
        }
        tail = []
    }
}

/// The file of a `FileBackedArray`'s blocks, and a cache of its windows shared by every copy
/// of the array: direct-mapped, each window a whole number of elements that lies within one
/// block, so an element is never split between two windows. Reports read results mostly in
/// file order (plan order is close to the order results were recorded), a few streams at once.
private final class BlockFile: @unchecked Sendable {
    // @unchecked: `tags` and the windows' bytes are read and written under `lock`.
    private let file: UnlinkedFile
    private let lock = NSLock()
    private let windowBytes: Int
    private static let windowCount = 256
    /// Which window of the file (its offset / `windowBytes`) each slot holds; -1 for none.
    private var tags = [Int64](repeating: -1, count: windowCount)
    private let windows: UnsafeMutableRawBufferPointer

    init?(blockBytes: Int, elementStride: Int, writableBytes: Int64? = nil) {
        guard let file = UnlinkedFile(prefix: "evalbench-rows", writableBytes: writableBytes) else { return nil }
        self.file = file
        // At most 128 elements a window, and a window divides a block (both are powers of two times the stride).
        windowBytes = min(blockBytes, 128 * elementStride)
        windows = UnsafeMutableRawBufferPointer.allocate(byteCount: windowBytes * Self.windowCount, alignment: 16)
    }

    deinit { windows.deallocate() }

    /// Writes a whole block at the end of the file; where it starts, or nil when it could not be written.
    func append(_ block: UnsafeRawBufferPointer) -> Int64? {
        file.append(block)
    }

    /// The element written at `offset`.
    func element<Element: BitwiseCopyable>(at offset: Int64) -> Element {
        let window = offset / Int64(windowBytes)
        let slot = Int(window & Int64(Self.windowCount - 1))
        let start = slot * windowBytes
        return lock.withLock {
            if tags[slot] != window {
                // Blocks are written whole before any of their elements is read, so the window is all there.
                file.read(into: UnsafeMutableRawBufferPointer(rebasing: windows[start..<(start + windowBytes)]),
                          at: window * Int64(windowBytes))
                tags[slot] = window
            }
            return windows.loadUnaligned(fromByteOffset: start + Int(offset - window * Int64(windowBytes)), as: Element.self)
        }
    }
}
