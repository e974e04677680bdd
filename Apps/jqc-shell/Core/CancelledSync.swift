import JQCSync

/// The outbox counted by kind (`photo`, `inspection`, `issue`): what waits and what failed, from
/// `AppComposition.outboxStatus()`.
struct OutboxTally: Equatable {
    /// Items waiting to be sent, by kind.
    var pending: [String: Int]
    /// Failed items, by kind.
    var failed: [String: Int]

    /// The tally of `status` (pending keys are plural, `photos`; failed items carry singular kinds).
    init(_ status: (pending: [String: Int], failed: [FailedOutboxItem])) {
        pending = Dictionary(
            status.pending.map { ($0.key.hasSuffix("s") ? String($0.key.dropLast()) : $0.key, $0.value) },
            uniquingKeysWith: +)
        failed = Dictionary(status.failed.map { ($0.kind, 1) }, uniquingKeysWith: +)
    }

    init(pending: [String: Int], failed: [String: Int] = [:]) {
        self.pending = pending
        self.failed = failed
    }

    /// Items not yet on the server (waiting or failed) of `kind`.
    func unsynced(_ kind: String) -> Int { (pending[kind] ?? 0) + (failed[kind] ?? 0) }
}

/// The sentence after Ctrl-C stopped `sync` (issue 14): what really happened to each kind of item, from the
/// outbox before the pass and after it — "everything stays queued" only when the server confirmed nothing (a
/// request cut off may still have arrived: the next sync sends it again and the server matches it by `local_id`).
enum CancelledSync {
    /// - Parameters:
    ///   - before: the outbox when the command started, or `nil` when it could not be read.
    ///   - after: the outbox after the cancellation, or `nil` when it could not be read.
    static func sentence(before: OutboxTally?, after: OutboxTally?) -> String {
        guard let before, let after else { return "Sync cancelled; see 'status' for what is still queued." }
        let kinds = Set(before.pending.keys).union(before.failed.keys).union(after.pending.keys).union(
            after.failed.keys
        ).sorted { order($0) < order($1) }
        var landed: [(String, Int)] = []
        var failed: [(String, Int)] = []
        var queued: [(String, Int)] = []
        for kind in kinds {
            let arrived = before.unsynced(kind) - after.unsynced(kind)
            if arrived > 0 { landed.append((kind, arrived)) }
            let newlyFailed = (after.failed[kind] ?? 0) - (before.failed[kind] ?? 0)
            if newlyFailed > 0 { failed.append((kind, newlyFailed)) }
            if let waiting = after.pending[kind], waiting > 0 { queued.append((kind, waiting)) }
        }
        if landed.isEmpty && failed.isEmpty {
            guard !queued.isEmpty else { return "Sync cancelled; nothing was waiting to be sent." }
            return "Sync cancelled before the server confirmed anything; everything stays queued (\(list(queued))) "
                + "and the next sync sends \(total(queued) == 1 ? "it" : "them")."
        }
        var parts: [String] = []
        if !landed.isEmpty { parts.append("\(list(landed)) reached the server before the cancel") }
        if !failed.isEmpty { parts.append("\(list(failed)) failed (see 'status')") }
        if !queued.isEmpty {
            parts.append(
                "\(list(queued)) \(total(queued) == 1 ? "is" : "are") still queued and the next sync sends "
                    + (total(queued) == 1 ? "it" : "them"))
        } else {
            parts.append("nothing is left queued")
        }
        return "Sync cancelled: " + parts.joined(separator: "; ") + "."
    }

    private static func order(_ kind: String) -> Int {
        ["photo": 0, "inspection": 1, "issue": 2][kind] ?? 3
    }

    private static func total(_ counts: [(String, Int)]) -> Int { counts.reduce(0) { $0 + $1.1 } }

    /// `1 inspection and 2 photos`.
    private static func list(_ counts: [(String, Int)]) -> String {
        let items = counts.map { "\($0.1) \($0.0)\($0.1 == 1 ? "" : "s")" }
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
    }
}
