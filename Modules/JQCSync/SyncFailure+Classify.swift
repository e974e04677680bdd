import Foundation
import JQCKit
import JQCNetwork
import JQCStorage

extension SyncFailure {
    /// The standard classification (SPEC.md §4): JQCNetwork's ``/JQCNetwork/APIError`` and
    /// ``/JQCNetwork/TransportError``, JQCStorage's ``/JQCStorage/DatabaseError`` and cancellation, each onto
    /// the outbox's rules.
    /// - Returns: the failure class; an unknown error is a local failure with its description.
    public static func classify(_ error: any Error) -> SyncFailure {
        switch error {
        case is CancellationError:
            return .cancelled
        case let api as APIError:
            switch api {
            case .offline, .airplaneMode: return .offline
            case .timeout, .connectionFailed, .deadlineExceeded, .tooSlow: return .timeout
            case .server, .undecodable, .replyTooLarge: return .server(api.message)
            case .tls, .insecureHTTP, .redirected: return .unreachable(api.message)  // not reachable as configured
            case .rateLimited(let retryAfter): return .rateLimited(retryAfter: retryAfter)
            case .unauthorized, .signedOut: return .signedOut
            case .rejected(_, let message): return .rejected(message)
            case .updateRequired: return .updateRequired
            case .cancelled: return .cancelled
            }
        case let transport as TransportError:
            return classify(APIError(transport))
        case let database as DatabaseError:
            return .local(database.description)
        case let stop as SyncStopError:
            switch stop.kind {
            case .offline: return .offline
            case .signedOut: return .signedOut
            case .updateRequired: return .updateRequired
            case .cancelled: return .cancelled
            case .storeUnavailable, .stageFailed, .passRunningElsewhere: return .local(stop.message)
            }
        default:
            return .local(String(describing: error))
        }
    }
}
