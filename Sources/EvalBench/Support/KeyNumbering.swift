/// Keys numbered 0, 1, 2, … in the order they first come: cases, rows and groups that are
/// counted in arrays indexed by their number, with the dictionary finding a key's number.
extension Dictionary where Value: FixedWidthInteger {
    /// The number of `key`: the one it was given, or the next (the dictionary's count) when it
    /// is new, in which case `isNew` is true and the caller adds its slot to its arrays.
    mutating func number(of key: Key) -> (number: Value, isNew: Bool) {
        if let known = self[key] { return (known, false) }
        let number = Value(truncatingIfNeeded: count)
        self[key] = number
        return (number, true)
    }
}
