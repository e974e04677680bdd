/// What a read surface has to show, the way seed 004's `LoadStatus`/`LoadPhase` decide it: cached
/// content always wins; with nothing cached, a request in flight is `loading`, a failed one `failed`,
/// and a successful empty answer `empty`.
public enum LoadPhase: String, Sendable, Equatable, Codable {
    /// Something to show, however old.
    case content
    /// Nothing cached and the first answer is still to come.
    case loading
    /// Nothing cached and the request failed.
    case failed
    /// Nothing cached and the server said there is nothing.
    case empty

    /// The phase for a surface's facts.
    /// - Parameters:
    ///   - hasContent: whether anything is cached to show.
    ///   - isLoading: a request is in flight.
    ///   - hasLoaded: a request completed since launch, whatever its outcome.
    ///   - failed: the last request failed and nothing succeeded since.
    public static func of(hasContent: Bool, isLoading: Bool, hasLoaded: Bool, failed: Bool) -> LoadPhase {
        if hasContent { return .content }
        if isLoading || !hasLoaded { return .loading }
        return failed ? .failed : .empty
    }
}

/// A read surface's result: what it holds, its phase, and — when cached content is shown because the
/// refresh failed — the failure as a sentence (`stale`).
public struct Loaded<Value: Sendable>: Sendable {
    /// The content (possibly cached).
    public let value: Value
    /// What to draw.
    public let phase: LoadPhase
    /// Set when cached content is shown after a failed refresh: the failure, as a sentence.
    public let staleReason: String?

    /// A loaded result.
    public init(value: Value, phase: LoadPhase, staleReason: String? = nil) {
        self.value = value
        self.phase = phase
        self.staleReason = staleReason
    }

    /// Whether cached content is shown because the refresh failed.
    public var isStale: Bool { staleReason != nil }
}
