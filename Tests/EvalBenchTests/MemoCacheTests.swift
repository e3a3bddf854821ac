import Testing
@testable import EvalBench

@Suite("Values worked out once per key")
struct MemoCacheTests {
    @Test("a key's value is made once and then found; at its limit the cache forgets every key and starts over")
    func madeOnceAndBounded() {
        let cache = MemoCache<Int, String>(limit: 3)
        var made = 0
        func value(_ key: Int) -> String { cache.value(for: key) { made += 1; return "v\(key)" } }
        #expect(value(1) == "v1" && value(1) == "v1" && made == 1)
        #expect(value(2) == "v2" && value(3) == "v3" && made == 3)
        #expect(cache.value(for: 1) == "v1")
        // A fourth key: the three kept are forgotten, the fourth kept.
        #expect(value(4) == "v4" && made == 4)
        #expect(cache.value(for: 1) == nil && cache.value(for: 4) == "v4")
    }
}
