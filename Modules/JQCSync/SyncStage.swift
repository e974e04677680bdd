import Foundation
import JQCKit

/// Whether a stage sends local work or fetches server data.
public enum SyncDirection: String, Sendable, Codable {
    /// Sends outbox items (photos, inspections, issues, queued edits).
    case push
    /// Fetches server data (reference data, assigned issues, schedules, …).
    case pull
}

/// One step of a sync pass, contributed by a feature through its ``FeatureModule`` (SPEC.md §2: the sync
/// engine knows no feature). The pass runs the stages in the order ``StageOrder/sorted(_:)`` derives from
/// their directions and ``constraints``; a pull's or a best-effort stage's failure is reported but never stops
/// the pipeline (seed 001 rule 49; issue 21). Only a stop-error (offline, signed out, update required) stops it.
public protocol SyncStage: Sendable {
    /// A short name shown by `sync` and `status` (`photos`, `inspections`, `reference`, …).
    var name: String { get }
    /// Push or pull.
    var direction: SyncDirection { get }
    /// Where it runs relative to other stages (by name), declared by its feature; none by default.
    var constraints: [StageConstraint] { get }
    /// Whether a failure of the whole stage is tolerated (reported, the pass continues). A pull stage's failure is
    /// always tolerated (pulls stand alone, issue 21); for a push stage `false` stops the pass, so later pushes keep
    /// their order.
    var isBestEffort: Bool { get }
    /// Does the stage's work.
    /// - Parameter pass: what this pass allows (explicit or automatic) and how to judge item failures.
    /// - Returns: counts for the report.
    /// - Throws: ``SyncStopError`` to stop the whole pass (update required, signed out, offline); any other
    ///   error fails this stage (and stops the pass unless the stage is best-effort).
    func run(_ pass: SyncPass) async throws -> StageReport
}

extension SyncStage {
    /// No constraint: the stage runs in registration order among its direction.
    public var constraints: [StageConstraint] { [] }
}

/// What one stage did in a pass (SHELL.md `sync` JSON: `{name, pushed, pulled, failed, seconds}`).
public struct StageReport: Sendable, Equatable, Codable {
    /// The stage's name.
    public var name: String
    /// Items the server accepted.
    public var pushed: Int
    /// Records received from the server.
    public var pulled: Int
    /// Items that failed in this pass (refused, or out of tries).
    public var failed: Int
    /// Items left pending for a later pass (transient failures, backoff).
    public var deferred: Int
    /// Wall time of the stage, in seconds.
    public var seconds: Double
    /// The stage's own failure as a sentence, when the whole stage failed (best-effort or not).
    public var error: String?
    /// Why the last deferred item waits, as a sentence (e.g. the server's 5xx), when a try was made and kept it
    /// pending; `nil` when nothing was tried and deferred.
    public var deferredReason: String?
    /// Pulled records that could not be read, one sentence each naming the list and the JSON path
    /// (`issues: data[2].id: expected an integer, got 12.5`); each is also counted in ``failed`` (issue 21).
    public var problems: [String]? = nil
    /// Why the first item that was not tried waits (its parent, its photos, its backoff), as the sentence its
    /// outbox row records (`deferred_reason`); `nil` when every deferred item was tried (issue 18).
    public var waitingReason: String?

    /// A report with counts.
    public init(
        name: String = "", pushed: Int = 0, pulled: Int = 0, failed: Int = 0, deferred: Int = 0,
        seconds: Double = 0, error: String? = nil
    ) {
        self.name = name
        self.pushed = pushed
        self.pulled = pulled
        self.failed = failed
        self.deferred = deferred
        self.seconds = seconds
        self.error = error
    }
}

/// An error that stops the whole pass; every item stays as it was (SPEC.md §4). Its code is `sync.<kind>`.
public struct SyncStopError: CodedError, Equatable {
    /// Why the pass stopped.
    public enum Kind: String, CodedErrorKind {
        /// No connection (or the manual offline switch).
        case offline
        /// Nobody is signed in, or the refresh token was rejected.
        case signedOut = "signed_out"
        /// The server refused this build (426); no further request is sent until the build changes.
        case updateRequired = "update_required"
        /// The local store cannot be used.
        case storeUnavailable = "store_unavailable"
        /// The pass was cancelled.
        case cancelled
        /// A stage that is not best-effort failed; the stages after it did not run (reported, not thrown).
        case stageFailed = "stage_failed"
        /// Another process is running a pass over the same data directory, so this automatic pass was
        /// skipped (an explicit pass waits instead; issue 15).
        case passRunningElsewhere = "pass_running_elsewhere"
        /// The codes' module part, `sync`.
        public static var module: String { "sync" }
    }

    /// Why.
    public let kind: Kind
    /// The sentence shown to the inspector.
    public let message: String
    /// The error that made the pass stop (the ``/JQCNetwork/APIError`` or store failure), when there was one.
    public let cause: (any Error)?

    /// A stop with a sentence, and the error behind it when there is one.
    public init(_ kind: Kind, _ message: String, cause: (any Error)? = nil) {
        self.kind = kind
        self.message = message
        self.cause = cause
    }

    /// `sync.<kind>` (`sync.offline`, `sync.signed_out`, …).
    public var code: String { kind.code }

    /// Same kind, sentence and cause (``/JQCKit/sameCause(_:_:)``).
    public static func == (first: SyncStopError, second: SyncStopError) -> Bool {
        first.kind == second.kind && first.message == second.message && sameCause(first.cause, second.cause)
    }
}

extension StageReport {
    /// A pull's report: `pulled` records received, and each unreadable record as a failure with its sentence
    /// (``problems``).
    /// - Parameters:
    ///   - pulled: records received and applied.
    ///   - problems: one sentence per unreadable record (``/JQCNetwork/DecodedList/problems(_:)``).
    public static func pull(pulled: Int, problems: [String]) -> StageReport {
        var report = StageReport(pulled: pulled, failed: problems.count)
        report.problems = problems.isEmpty ? nil : problems
        return report
    }
}
