import Foundation
import Testing
@testable import EvalBench

/// The array a `ResultTable`'s rows live in: blocks in a temporary file, read back through a
/// cache of the file's windows, exactly as appended, from any copy and any thread.
@Suite("FileBackedArray keeps full blocks in a temporary file and reads them back exactly")
struct FileBackedArrayTests {
    /// A plain value of an odd size (24 bytes with padding), so windows and blocks are not powers of two in bytes.
    struct Element: Equatable, BitwiseCopyable, Sendable {
        var index: Int64
        var check: UInt32
        var tag: UInt8
    }

    static func element(_ index: Int, copy: UInt8 = 0) -> Element {
        Element(index: Int64(index), check: UInt32(truncatingIfNeeded: index &* 2_654_435_761), tag: copy)
    }

    @Test("full blocks go to the file, the block being filled stays in memory, and every element reads back")
    func blocksInTheFile() {
        var array = FileBackedArray<Element>(elementsPerBlock: 100)
        #expect(array.blocksHeld == (inFile: 0, inMemory: 0))
        for index in 0..<1_000 {
            array.append(Self.element(index))
            // Read while the file grows: the last element, and one from the first block.
            #expect(array[index] == Self.element(index))
            #expect(array[index / 2] == Self.element(index / 2))
        }
        // 100 is rounded up to 128 a block: 7 blocks written, 104 elements in the eighth.
        #expect(array.blocksHeld == (inFile: 7, inMemory: 1))
        #expect(array.count == 1_000 && Array(array) == (0..<1_000).map { Self.element($0) })
    }

    @Test("more windows than the cache holds read back in order, backwards and at random")
    func manyWindows() {
        // 300 blocks of 128 elements, each block one window: more than the cache's 256 slots.
        var array = FileBackedArray<Element>(elementsPerBlock: 128)
        let count = 300 * 128 + 17
        for index in 0..<count { array.append(Self.element(index)) }
        #expect(array.blocksHeld.inFile == 300)
        for index in 0..<count { #expect(array[index] == Self.element(index)) }
        for index in (0..<count).reversed() { #expect(array[index] == Self.element(index)) }
        var generator = SplitMix64(seed: 11)
        for _ in 0..<20_000 {
            let index = Int(generator.next() % UInt64(count))
            #expect(array[index] == Self.element(index))
        }
        // Windows 256 slots apart share a slot: reading them in turn reads each again, still right.
        for round in 0..<50 {
            let index = (round % 2) * 256 * 128 + round
            #expect(array[index] == Self.element(index))
        }
    }

    @Test("copies share what was written and write their own blocks once they go on apart")
    func copiesGoOnApart() {
        var first = FileBackedArray<Element>(elementsPerBlock: 4)
        for index in 0..<10 { first.append(Self.element(index)) }
        var second = first
        for index in 10..<30 {
            first.append(Self.element(index, copy: 1))
            second.append(Self.element(index, copy: 2))
        }
        for index in 0..<30 {
            let tag: UInt8 = index < 10 ? 0 : 1
            #expect(first[index] == Self.element(index, copy: tag))
            #expect(second[index] == Self.element(index, copy: index < 10 ? 0 : 2))
        }
        #expect(first.blocksHeld == (inFile: 7, inMemory: 1) && second.blocksHeld == (inFile: 7, inMemory: 1))
    }

    @Test("threads reading at once, each its own stretch, read every element right")
    func concurrentReads() {
        var array = FileBackedArray<Element>(elementsPerBlock: 64)
        let count = 50_000
        for index in 0..<count { array.append(Self.element(index)) }
        let reader = array
        let wrong = concurrentMap(Array(0..<8)) { thread -> Int in
            var wrong = 0
            var generator = SplitMix64(seed: UInt64(thread))
            for step in 0..<20_000 {
                // Half in order from the thread's own start, half at random.
                let index = step % 2 == 0 ? (thread * 6_000 + step / 2) % count : Int(generator.next() % UInt64(count))
                if reader[index] != Self.element(index) { wrong += 1 }
            }
            return wrong
        }
        #expect(wrong == Array(repeating: 0, count: 8))
    }

    @Test("once the file cannot take a block (a full disk), that block and the later ones stay in memory; nothing is lost")
    func fullDisk() {
        let blockBytes = Int64(8 * MemoryLayout<Element>.stride)
        var array = FileBackedArray<Element>(elementsPerBlock: 8, fileBytes: 3 * blockBytes + blockBytes / 2)
        for index in 0..<100 { array.append(Self.element(index)) }
        #expect(array.blocksHeld == (inFile: 3, inMemory: 10))
        #expect(Array(array) == (0..<100).map { Self.element($0) })
        #expect(array[5] == Self.element(5) && array[77] == Self.element(77))
    }

    @Test("without a file (none could be made), blocks stay in memory and read back the same")
    func inMemory() {
        var array = FileBackedArray<Element>(elementsPerBlock: 8, keepsInMemory: true)
        for index in 0..<100 { array.append(Self.element(index)) }
        #expect(array.blocksHeld == (inFile: 0, inMemory: 13))
        #expect(Array(array) == (0..<100).map { Self.element($0) })
    }
}
