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

/// An issue's severity (CONTRACT.md "Issues").
public enum IssueSeverity: String, Sendable, Codable, CaseIterable {
    /// From least to most urgent; the raw values are CONTRACT.md's (`severity` ∈ low, medium, high, critical).
    case low, medium, high, critical
}

/// An issue's workflow status (CONTRACT.md "Issues").
public enum IssueStatus: String, Sendable, Codable, CaseIterable {
    /// Not yet being worked on (`open`).
    case open
    /// Being worked on (`in_progress`).
    case inProgress = "in_progress"
    /// Dealt with (`resolved`).
    case resolved
}
