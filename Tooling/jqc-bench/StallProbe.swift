import Foundation

/// How often this machine takes the CPU away from a running thread (issue 17: the context for reading a
/// p99 of operations that last microseconds). A busy loop reads the monotonic clock for `duration` and
/// counts the gaps between two readings longer than `threshold`: time the thread did not run (the host
/// preempting this virtual CPU, interrupts). On the 2-core VM the bench runs on, such gaps come at a few
/// hundred a second and mostly last 20–80 µs; the thread's CPU-time clock counts them too, so the guest cannot
/// tell them from work. An operation of `d` seconds is hit with probability at least `rate × d` (its own
/// system calls add more: the write bench's answers were hit about twice as often), so once that passes 1 %
/// its p99 is a stall, not the operation.
struct StallProbe {
    /// Gaps longer than the threshold, per second of the loop.
    let perSecond: Double
    /// The median and longest such gap, in seconds.
    let medianGap: Double
    let longestGap: Double
    /// The loop's length and the threshold, in seconds.
    let duration: Double
    let threshold: Double

    /// Runs the loop on the calling thread.
    static func measure(duration: Double = 2, threshold: Double = 10e-6) -> StallProbe {
        func now() -> Double {
            var time = timespec()
            clock_gettime(CLOCK_MONOTONIC, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
        let start = now()
        var last = start
        var gaps = Samples()
        while last - start < duration {
            let reading = now()
            if reading - last > threshold { gaps.add(reading - last) }
            last = reading
        }
        let elapsed = last - start
        return StallProbe(
            perSecond: Double(gaps.values.count) / elapsed, medianGap: gaps.values.isEmpty ? 0 : gaps.median,
            longestGap: gaps.values.max() ?? 0, duration: elapsed, threshold: threshold)
    }

    /// The longest operation these gaps alone hit in under 1 % of its samples (`rate × d < 1 %`), in seconds.
    var clearOperation: Double { perSecond > 0 ? 0.01 / perSecond : .infinity }

    /// The report row: context for the p99 rows (no target).
    func row(_ when: String) -> ReportRow {
        ReportRow(
            benchmark: "Machine stalls (\(when))",
            ours: String(format: "%.0f gaps/s > %.0f µs", perSecond, threshold * 1e6),
            reference: "—", ratio: "—", target: "context for the p99 rows", verdict: .info,
            note: "a busy loop reading the monotonic clock for "
                + String(format: "%.1f s", duration) + ": median gap \(format(ms: medianGap)), longest "
                + "\(format(ms: longestGap)); these gaps alone hit more than 1 % of the samples of any operation longer "
                + "than \(format(ms: clearOperation)), whose p99 is then a stall (an operation's own system calls add more)"
        )
    }
}
