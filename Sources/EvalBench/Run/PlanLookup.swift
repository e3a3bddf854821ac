import Foundation

/// Finds the run of a plan that a recorded result belongs to, from the parts of its key (suite,
/// case, variant, the backend and level planned, repeat), and says why a result has none:
/// `--resume` keeps a finished result only when this run plans its case run. It holds the
/// names of the slots and backends the plan's runs use (its cases × variants, a few backends),
/// and what levels and repeats each suite runs at; the runs themselves are searched in place,
/// since a plan holds them in the order of their coordinates. A million planned runs add no
/// string, and no memory, here.
package struct PlanLookup: Sendable {
    /// Why a result's case run is not in the plan: the first part of its key the plan lacks.
    package enum Mismatch: Int, CaseIterable, Sendable {
        case suite, caseID, variant, backend, reasoning, repeatIndex, caseRun

        /// What the names given with it are, one and several.
        var noun: (one: String, several: String) {
            switch self {
            case .suite: ("suite", "suites")
            case .caseID: ("case", "cases")
            case .variant: ("variant", "variants")
            case .backend: ("backend", "backends")
            case .reasoning: ("reasoning level", "reasoning levels")
            case .repeatIndex: ("repeat", "repeats")
            case .caseRun: ("case run", "case runs")
            }
        }
    }

    private let runs: PlannedCaseRuns
    /// The slots the runs use, by name (several for runs given as values, each in a slot of its own).
    private var slotsByName: [PlanSlotName: [UInt32]] = [:]
    private var backendNumbers: [String: UInt32] = [:]
    /// The position of each run given with a key other than its parts joined, by that key.
    private var runsByGivenKey: [String: Int] = [:]
    private var cases: Set<String> = []
    private var levelsBySuite: [String: Set<UInt8>] = [:]
    private var repeatsBySuite: [String: Set<Int>] = [:]

    /// A lookup of `runs`: one pass over them, reading each run's coordinates only.
    package init(_ runs: PlannedCaseRuns) {
        self.runs = runs
        var usedBackends: Set<UInt32> = []
        // The levels and repeats of the slot being read, added to its suite's when the next begins.
        var slot: (number: UInt32, suite: String)?
        var levels: Set<UInt8> = [], repeats: Set<Int> = []
        for position in runs.indices {
            let coordinates = runs.coordinates(at: position)
            if slot?.number != coordinates.slot {
                if let suite = slot?.suite {
                    add(levels: levels, repeats: repeats, to: suite)
                    levels = []
                    repeats = []
                }
                let name = runs.slotName(Int(coordinates.slot))
                slot = (coordinates.slot, name.suite)
                slotsByName[name, default: []].append(coordinates.slot)
                cases.insert("\(name.suite)/\(name.caseID)")
            }
            levels.insert(coordinates.reasoning)
            repeats.insert(coordinates.repeatIndex)
            usedBackends.insert(coordinates.backend)
        }
        if let suite = slot?.suite { add(levels: levels, repeats: repeats, to: suite) }
        for number in usedBackends { backendNumbers[runs.backendNames[Int(number)]] = number }
        for (position, key) in runs.givenKeys { runsByGivenKey[key] = position }
    }

    private mutating func add(levels: Set<UInt8>, repeats: Set<Int>, to suite: String) {
        levelsBySuite[suite, default: []].formUnion(levels)
        repeatsBySuite[suite, default: []].formUnion(repeats)
    }

    /// The position in the plan of the run `result` belongs to (the run whose key it records),
    /// or nil when the plan has none.
    package func position(of result: RequestResult) -> Int? {
        if !runsByGivenKey.isEmpty, let position = runsByGivenKey[result.key] { return position }
        guard let planned = PlannedCaseRun.plannedBackendAndLevel(of: result),
              let slots = slotsByName[PlanSlotName(suite: result.suite, caseID: result.caseID, variant: result.variant)],
              let backend = backendNumbers[planned.backend] else { return nil }
        let level = UInt8(ReasoningLevel.allCases.firstIndex(of: planned.reasoning) ?? 0)
        for slot in slots {
            let wanted = PlanCoordinates(slot: slot, backend: backend, reasoning: level, repeatIndex: result.repeatIndex)
            // The key was read as this run's parts joined: it is the run's own unless runs were given keys.
            if let position = search(wanted), runsByGivenKey.isEmpty || runs[position].key == result.key { return position }
        }
        return nil
    }

    /// The position of the run at `wanted`, found by halving: the runs come in coordinate order.
    private func search(_ wanted: PlanCoordinates) -> Int? {
        var low = 0, high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if runs.coordinates(at: middle) < wanted { low = middle + 1 } else { high = middle }
        }
        return low < runs.count && runs.coordinates(at: low) == wanted ? low : nil
    }

    /// Why the plan has no run for `result` (`position(of:)` is nil), and the name that says
    /// it: the suite, `suite/case`, `suite/variant`, backend, level or repeat the plan does not
    /// run, or the key of a case run whose parts it runs, but not together.
    package func mismatch(of result: RequestResult) -> (Mismatch, name: String) {
        let planned = PlannedCaseRun.plannedBackendAndLevel(of: result)
        guard let levels = levelsBySuite[result.suite], let repeats = repeatsBySuite[result.suite] else {
            return (.suite, result.suite)
        }
        if !cases.contains("\(result.suite)/\(result.caseID)") { return (.caseID, "\(result.suite)/\(result.caseID)") }
        if slotsByName[PlanSlotName(suite: result.suite, caseID: result.caseID, variant: result.variant)] == nil {
            return (.variant, "\(result.suite)/\(result.variant)")
        }
        guard let planned else { return (.caseRun, result.key) }
        if backendNumbers[planned.backend] == nil { return (.backend, planned.backend) }
        if let level = ReasoningLevel.allCases.firstIndex(of: planned.reasoning), !levels.contains(UInt8(level)) {
            return (.reasoning, planned.reasoning.rawValue)
        }
        if !repeats.contains(result.repeatIndex) { return (.repeatIndex, String(result.repeatIndex)) }
        return (.caseRun, result.key)
    }
}
