/// An inspection's lifecycle status, with the seeds' raw values (seed 001 §6, "LocalInspection Status Flow").
public enum InspectionStatus: String, Sendable, Codable, CaseIterable {
    /// Being filled in on the device.
    case draft
    /// Submitted by the inspector; sent to the server by the outbox.
    case completed
}

/// Where a record stands in the outbox, with the seeds' raw values (seed 001 §7).
public enum SyncStatus: String, Sendable, Codable, CaseIterable {
    /// Waiting to be sent (or being retried).
    case pending
    /// The server has it.
    case synced
    /// Refused by the server or out of tries; kept until the inspector retries or discards it.
    case failed
}

/// An issue's severity (CONTRACT.md "Issues": `severity` ∈ low, medium, high, critical), least to most
/// urgent; a newer server's value is kept as ``other(_:)`` (``WireValue``).
public enum IssueSeverity: WireValue {
    /// `low`.
    case low
    /// `medium`.
    case medium
    /// `high`.
    case high
    /// `critical`.
    case critical
    /// A severity this build does not know, as the server sent it.
    case other(String)

    /// `low`, `medium`, `high`, `critical`, in that order.
    public static let known: [IssueSeverity] = [.low, .medium, .high, .critical]

    /// The wire string (CONTRACT.md's, or the server's own for ``other(_:)``).
    public var rawValue: String {
        switch self {
        case .low: "low"
        case .medium: "medium"
        case .high: "high"
        case .critical: "critical"
        case .other(let value): value
        }
    }
}

/// An issue's workflow status (CONTRACT.md "Issues": open, in_progress, resolved); a newer server's value
/// is kept as ``other(_:)`` (``WireValue``).
public enum IssueStatus: WireValue {
    /// Not yet being worked on (`open`).
    case open
    /// Being worked on (`in_progress`).
    case inProgress
    /// Dealt with (`resolved`).
    case resolved
    /// A status this build does not know, as the server sent it.
    case other(String)

    /// `open`, `in_progress`, `resolved`, in workflow order.
    public static let known: [IssueStatus] = [.open, .inProgress, .resolved]

    /// The wire string (CONTRACT.md's, or the server's own for ``other(_:)``).
    public var rawValue: String {
        switch self {
        case .open: "open"
        case .inProgress: "in_progress"
        case .resolved: "resolved"
        case .other(let value): value
        }
    }
}

/// Who handles an issue ("Handled By", seed 001 §11; CONTRACT.md `handler_type` ∈ internal, facility, vendor);
/// a newer server's value is kept as ``other(_:)`` (``WireValue``).
public enum IssueHandlerType: WireValue {
    /// The internal team (`internal`).
    case `internal`
    /// The facility's own staff (`facility`).
    case facility
    /// An outside vendor (`vendor`).
    case vendor
    /// A handler type this build does not know, as the server sent it.
    case other(String)

    /// `internal`, `facility`, `vendor`.
    public static let known: [IssueHandlerType] = [.internal, .facility, .vendor]

    /// The wire string (CONTRACT.md's, or the server's own for ``other(_:)``).
    public var rawValue: String {
        switch self {
        case .internal: "internal"
        case .facility: "facility"
        case .vendor: "vendor"
        case .other(let value): value
        }
    }
}
