/// Some of a group's timed samples (a tag's share of a group's latencies), held against the
/// whole group's samples, sorted: each sample found there, bit for bit, is held as its
/// position, 4 bytes, until one bit per sample of the whole group is less, and then as that
/// bit. Equal values take the bits of the whole's equal values in turn (the whole has at least
/// as many of each as any subset of it); only past 64 of them, or past the whole's count, does
/// a position met again count in a small dictionary. A sample not found there is kept as
/// itself (4 bytes when a whole microsecond, see `TimedSamples`). `sortedValues()` gives back
/// exactly the samples inserted, so percentiles over them are exact, while a million-sample
/// group's tags take a few hundred kilobytes rather than 8 bytes a sample each.
struct SampleSubset {
    /// The whole group's samples, ascending (shared with the whole group's summary, not copied).
    private let whole: TimedSamples
    private var positions: [UInt32] = []
    /// One bit per sample of `whole` once in use; then `positions` is empty.
    private var bits: [UInt64] = []
    /// How many more times than once a position's bit was set.
    private var extra: [UInt32: UInt32] = [:]
    /// Samples not found in `whole`.
    private var others = TimedSamples()
    /// Samples inserted.
    private(set) var count = 0
    /// Positions counted again in the dictionary (for tests: equal values take their run's bits).
    var positionsCountedAgain: Int { extra.count }

    init(of whole: TimedSamples) {
        self.whole = whole
    }

    mutating func insert(_ value: Double) {
        count += 1
        guard whole.count < Int(UInt32.max), let position = whole.firstPosition(ofSorted: value) else {
            others.append(value)
            return
        }
        if bits.isEmpty {
            positions.append(UInt32(position))
            // Past one bit per sample of the whole, a bit set is the smaller.
            if positions.count &* 32 > whole.count &+ 64 { useBits() }
        } else {
            mark(position)
        }
    }

    private mutating func useBits() {
        bits = [UInt64](repeating: 0, count: (whole.count + 63) / 64)
        for position in positions { mark(Int(position)) }
        positions = []
    }

    /// Sets the bit of `position`, the first of a run of equal values in `whole`, or else of
    /// the first of the run's next few positions whose bit is clear; past them, counts it again.
    /// (A run's bits are set from its start, so the ones set are a prefix of it.) Equal values
    /// in a whole of distinct timings are seldom more than a few, and a dictionary entry per
    /// such position was most of a tag's samples.
    private mutating func mark(_ position: Int) {
        var candidate = position
        while candidate < whole.count, candidate < position + Self.runScan {
            let word = candidate >> 6, bit = UInt64(1) << UInt64(candidate & 63)
            if bits[word] & bit == 0 {
                bits[word] |= bit
                return
            }
            candidate += 1
            guard candidate < whole.count, whole.sameSample(candidate, position) else { break }
        }
        extra[UInt32(position), default: 0] += 1
    }

    /// How many positions of a run of equal values `mark` tries before counting one again.
    private static let runScan = 64

    /// Every sample inserted, ascending.
    func sortedValues() -> TimedSamples {
        var found = TimedSamples()
        found.reserveCapacity(count - others.count)
        if bits.isEmpty {
            // Positions ascending give values ascending, since `whole` is.
            for position in positions.sorted() { found.append(whole[Int(position)]) }
        } else {
            for (wordIndex, word) in bits.enumerated() {
                var rest = word
                while rest != 0 {
                    let position = wordIndex << 6 | rest.trailingZeroBitCount
                    let times = 1 + Int(extra[UInt32(position)] ?? 0)
                    for _ in 0..<times { found.append(whole[position]) }
                    rest &= rest - 1
                }
            }
        }
        guard !others.isEmpty else { return found }
        // Merge the two ascending lists.
        var rest = others
        rest.sort()
        var merged = TimedSamples()
        merged.reserveCapacity(found.count + rest.count)
        var i = 0, j = 0
        while i < found.count || j < rest.count {
            if j == rest.count || i < found.count && !(rest[j] < found[i]) {
                merged.append(found[i])
                i += 1
            } else {
                merged.append(rest[j])
                j += 1
            }
        }
        return merged
    }
}
