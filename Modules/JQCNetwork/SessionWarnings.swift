import Foundation
import Synchronization

/// Where the session says at once what a person must know and the log alone would hide: today, that a
/// renewed sign-in could not be saved (disk full), so the next run would be signed out (issue 15). The
/// app attaches its handler (the shell prints `warning: …` on stderr); with none attached, warnings go
/// only to the log.
public final class SessionWarnings: Sendable {
    private let handlers = Mutex<[@Sendable (String) -> Void]>([])

    /// A relay with no handler.
    public init() {}

    /// Adds `handler`, called synchronously, on the caller's thread, with each warning sentence.
    public func attach(_ handler: @escaping @Sendable (String) -> Void) {
        handlers.withLock { $0.append(handler) }
    }

    /// Hands `sentence` to every attached handler.
    func emit(_ sentence: String) {
        for handler in handlers.withLock({ $0 }) { handler(sentence) }
    }
}
