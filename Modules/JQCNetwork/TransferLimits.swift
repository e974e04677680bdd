import Foundation

/// The bounds every transfer of ``CurlTransport`` is held to, so a lying or broken server can neither grow
/// the process without end nor hold it for ever (issue 21):
///
/// - **Reply size**: a body larger than the limit of its ``RequestKind`` is refused — up front when the
///   server announces its `Content-Length`, otherwise as soon as the bytes received pass the limit (the
///   transfer is aborted, never buffered whole). JSON replies: ``maximumJSONReplyBytes`` (32 MiB by
///   default; `--max-reply-mb N` / `JQC_MAX_REPLY_MB` in the shell). Photo bodies: ``maximumPhotoBytes``,
///   the contract's 50 MB (CONTRACT.md "Photos"). The reply's header block: ``maximumHeaderBytes``.
/// - **Speed**: a transfer moving fewer than ``lowSpeedBytesPerSecond`` bytes a second for
///   ``lowSpeedSeconds`` seconds in a row is stopped (a slow drip ends in bounded time).
/// - **Deadline**: the whole transfer by ``RequestKind/timeout`` (``HTTPRequest/timeout``).
///
/// Each limit fails with its own ``TransportError`` (and ``APIError``) sentence.
public struct TransferLimits: Sendable, Hashable {
    /// The largest JSON reply body, in bytes. Default 32 MiB.
    public var maximumJSONReplyBytes: Int64
    /// The largest photo body, in bytes. Default 50 000 000 (the contract's 50 MB).
    public var maximumPhotoBytes: Int64
    /// The largest reply header block (status line and fields), in bytes. Default 256 KiB.
    public var maximumHeaderBytes: Int
    /// The speed below which a transfer counts as stalled, in bytes a second; 0 turns the check off. Default 256.
    public var lowSpeedBytesPerSecond: Int
    /// How long, in whole seconds (at least 1), a transfer may stay below ``lowSpeedBytesPerSecond``. Default 15.
    public var lowSpeedSeconds: Int

    /// The default JSON reply limit: 32 MiB.
    public static let defaultJSONReplyBytes: Int64 = 32 * 1_048_576
    /// The photo body limit of the contract: 50 MB (CONTRACT.md "Photos": 413 over 50 MB).
    public static let contractPhotoBytes: Int64 = 50_000_000
    /// The range `--max-reply-mb` accepts, in MiB.
    public static let replyMebibytesRange: ClosedRange<Int> = 1...1024

    /// Limits; every value defaults to the documented default.
    public init(
        maximumJSONReplyBytes: Int64 = TransferLimits.defaultJSONReplyBytes,
        maximumPhotoBytes: Int64 = TransferLimits.contractPhotoBytes, maximumHeaderBytes: Int = 262_144,
        lowSpeedBytesPerSecond: Int = 256, lowSpeedSeconds: Int = 15
    ) {
        self.maximumJSONReplyBytes = max(1, maximumJSONReplyBytes)
        self.maximumPhotoBytes = max(1, maximumPhotoBytes)
        self.maximumHeaderBytes = max(1024, maximumHeaderBytes)
        self.lowSpeedBytesPerSecond = max(0, lowSpeedBytesPerSecond)
        self.lowSpeedSeconds = max(1, lowSpeedSeconds)
    }

    /// The defaults with a JSON reply limit of `mebibytes` MiB (`--max-reply-mb N`, `JQC_MAX_REPLY_MB`).
    /// - Parameter mebibytes: the limit in MiB, within ``replyMebibytesRange``.
    /// - Returns: the limits, or `nil` when `mebibytes` is outside the range.
    public static func jsonReplyLimit(mebibytes: Int) -> TransferLimits? {
        guard replyMebibytesRange.contains(mebibytes) else { return nil }
        return TransferLimits(maximumJSONReplyBytes: Int64(mebibytes) * 1_048_576)
    }

    /// `bytes` for a person: whole MiB when it is a multiple of one (`32 MiB`), else MB with one decimal.
    static func describe(_ bytes: Int64) -> String {
        if bytes >= 1_048_576 && bytes % 1_048_576 == 0 { return "\(bytes / 1_048_576) MiB" }
        if bytes >= 1_000_000 && bytes % 1_000_000 == 0 { return "\(bytes / 1_000_000) MB" }
        if bytes >= 1024 && bytes % 1024 == 0 { return "\(bytes / 1024) KiB" }
        return "\(bytes) bytes"
    }
}
