import Foundation

/// A linear axis with "nice" ticks (1, 2 or 5 × 10ⁿ apart) that cover every value plotted on
/// it, and the tick labels to print.
package struct Axis: Sendable, Equatable {
    /// The tick values, ascending; the first and last are the axis's ends.
    package let ticks: [Double]
    /// The distance between two ticks.
    package let step: Double

    /// The lowest tick.
    package var lower: Double { ticks.first ?? 0 }
    /// The highest tick.
    package var upper: Double { ticks.last ?? 1 }

    /// An axis covering `values` (non-finite ones ignored) with at most about `tickCount` ticks,
    /// at least `minimumStep` apart. `includingZero` starts a positive axis at 0. No values, or
    /// a range of zero width, still gives an axis of non-zero width; a range too wide for a
    /// Double to hold is clamped to ±4.4e307.
    package init(covering values: [Double], includingZero: Bool = false, tickCount: Int = 6, minimumStep: Double = 0) {
        let finite = values.filter(\.isFinite)
        var low = finite.min() ?? 0
        var high = finite.max() ?? (includingZero ? 1 : 0)
        if includingZero {
            low = min(low, 0)
            high = max(high, 0)
        }
        if !(high - low).isFinite {
            low = max(low, -Double.greatestFiniteMagnitude / 4)
            high = min(high, Double.greatestFiniteMagnitude / 4)
        }
        if high - low <= abs(high) * 1e-12 {
            // A single value: widen around it, or to 0…1 when it is 0.
            let pad = high == 0 ? 1 : abs(high) * 0.1
            if low == 0 && includingZero { high = pad } else { low -= pad; high += pad }
        }
        var step = Self.niceStep(covering: (high - low) / Double(max(tickCount - 1, 1)))
        if step < minimumStep { step = minimumStep }
        let first = (low / step).rounded(.down)
        let last = (high / step).rounded(.up)
        ticks = stride(from: first, through: last, by: 1).map { $0 * step }
        self.step = step
    }

    /// The smallest of 1, 2 or 5 × 10ⁿ that is at least `raw`.
    static func niceStep(covering raw: Double) -> Double {
        guard raw > 0, raw.isFinite else { return 1 }
        let power = pow(10, floor(log10(raw)))
        let fraction = raw / power
        let nice: Double = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10
        return nice * power
    }

    /// `value`'s position between the axis's ends: 0 at `lower`, 1 at `upper`.
    func fraction(_ value: Double) -> Double {
        (value - lower) / (upper - lower)
    }

    /// A tick's label with as many decimals as the step needs (`0.25` → 2), and scientific
    /// notation (`1.5e-9`, `2e12`) for values too small or too large to print plainly.
    package func label(_ tick: Double) -> String {
        let places = step >= 1 ? 0 : Int((-log10(step)).rounded(.up))
        let magnitude = max(abs(lower), abs(upper))
        if places > 6 || magnitude >= 1e9 { return Self.scientific(tick) }
        return DecimalText.fixed(tick, places: places) ?? "n/a"
    }

    static func scientific(_ value: Double) -> String {
        guard value != 0 else { return "0" }
        let exponent = Int(floor(log10(abs(value))))
        let mantissa = value / pow(10, Double(exponent))
        return (DecimalText.trimmed(mantissa, maxPlaces: 2) ?? "n/a") + "e" + String(exponent)
    }
}
