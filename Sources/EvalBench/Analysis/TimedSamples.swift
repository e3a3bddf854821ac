/// A group's timed samples (latencies or TTFTs, in ms), held in 4 bytes each rather than 8
/// while every one is a whole number of microseconds below 2³² µs (71 minutes), as every
/// timing evalbench records is (`Stopwatch` rounds to the microsecond): the sample is kept as
/// that number, and reads back bit for bit as the `Double` it was (n / 1000 is the double
/// nearest n thousandths, as is the JSON text of it). The first sample that is not such a
/// number (a results file written before timings were rounded, a backend's own figure) moves
/// the group to 8-byte samples, so every value reads back exactly as added and percentiles
/// over them stay exact: compact, never approximate.
///
/// A million-request report's samples were most of the memory a request added to it.
public struct TimedSamples: RandomAccessCollection, ExpressibleByArrayLiteral, Sendable, Equatable {
    /// The samples in microseconds, while `doubles` is nil.
    private var micros: [UInt32] = []
    /// The samples themselves, once one is not a whole number of microseconds in range.
    private var doubles: [Double]?

    /// None.
    public init() {}

    /// The samples listed, in their order.
    public init(arrayLiteral values: Double...) {
        self.init(values)
    }

    /// `values`, in their order.
    public init<Values: Sequence<Double>>(_ values: Values) {
        for value in values { append(value) }
    }

    /// 0.
    public var startIndex: Int { 0 }
    /// The number of samples.
    public var endIndex: Int { doubles?.count ?? micros.count }

    /// The sample at `position`, bit for bit the `Double` appended there.
    public subscript(position: Int) -> Double {
        if let doubles { return doubles[position] }
        return Double(micros[position]) / 1000
    }

    /// Whether each sample takes 4 bytes (every one a whole number of microseconds in range).
    package var isCompact: Bool { doubles == nil }

    /// Adds `value` after the others.
    public mutating func append(_ value: Double) {
        if doubles == nil {
            if let micro = Self.microseconds(exactly: value) {
                micros.append(micro)
                return
            }
            doubles = micros.map { Double($0) / 1000 }
            micros = []
        }
        doubles!.append(value)
    }

    /// Reserves room for `count` samples in all, in the form they are held in now.
    public mutating func reserveCapacity(_ count: Int) {
        if doubles == nil { micros.reserveCapacity(count) } else { doubles!.reserveCapacity(count) }
    }

    /// Sorts the samples ascending, in place. Microseconds sort as the values they stand for.
    public mutating func sort() {
        if doubles == nil { micros.sort() } else { doubles!.sort() }
    }

    /// Gives back the room the samples' storage grew into beyond their count (up to as much
    /// again as they take, as an array doubles when it grows): for samples kept once collected.
    public mutating func shrinkToFit() {
        if let values = doubles {
            guard values.capacity > values.count else { return }
            doubles = [Double](unsafeUninitializedCapacity: values.count) { buffer, count in
                count = buffer.initialize(from: values).1
            }
        } else {
            guard micros.capacity > micros.count else { return }
            let values = micros
            micros = [UInt32](unsafeUninitializedCapacity: values.count) { buffer, count in
                count = buffer.initialize(from: values).1
            }
        }
    }

    /// In samples sorted ascending, the first position holding a value with `value`'s bits, by
    /// binary search; nil when none. Held as microseconds, they are searched as such (no
    /// division a step; a value that is not a whole microsecond cannot be among them).
    func firstPosition(ofSorted value: Double) -> Int? {
        guard let doubles else {
            guard let micro = Self.microseconds(exactly: value) else { return nil }
            let low = Self.lowerBound(micro, in: micros)
            return low < micros.count && micros[low] == micro ? low : nil
        }
        let low = Self.lowerBound(value, in: doubles)
        // Equal values (0 and -0 aside) have equal bits, and the first of them is at `low`.
        return low < doubles.count && doubles[low].bitPattern == value.bitPattern ? low : nil
    }

    /// Whether positions `first` and `second` hold the same bits.
    func sameSample(_ first: Int, _ second: Int) -> Bool {
        guard let doubles else { return micros[first] == micros[second] }
        return doubles[first].bitPattern == doubles[second].bitPattern
    }

    /// The first position in ascending `sorted` whose value is not below `value`.
    private static func lowerBound<Value: Comparable>(_ value: Value, in sorted: [Value]) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let middle = low + (high - low) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The samples as an array of `Double` (a copy, for code that needs one).
    public var array: [Double] { doubles ?? micros.map { Double($0) / 1000 } }

    /// Whether both hold equal samples in the same order, however each holds them.
    public static func == (lhs: TimedSamples, rhs: TimedSamples) -> Bool {
        lhs.elementsEqual(rhs)
    }

    /// The whole number of microseconds `ms` milliseconds is, when `ms` is exactly the double
    /// that number / 1000 gives (so it reads back bit for bit) and it fits in 32 bits; else nil.
    /// -0 is not 0's bits, and is kept as itself.
    static func microseconds(exactly ms: Double) -> UInt32? {
        let scaled = (ms * 1000).rounded()
        guard scaled >= 0, scaled <= Double(UInt32.max) else { return nil }
        let micro = UInt32(scaled)
        return (Double(micro) / 1000).bitPattern == ms.bitPattern ? micro : nil
    }
}
