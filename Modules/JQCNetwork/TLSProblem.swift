import Foundation
import JQCKit

/// Why a secure (`https://`) connection was refused, told apart so the sentence says which check failed
/// and what to do (issue 21). Nothing is sent on a refused connection.
///
/// Certificate failures are read from OpenSSL's verify result (`CURLINFO_SSL_VERIFYRESULT`, an
/// `X509_V_ERR_*` code) and, for the host-name check libcurl does itself, from its error buffer.
public enum TLSProblem: Sendable, Hashable {
    /// The certificate chain does not lead to a trusted authority (unknown, private or self-signed CA).
    case unknownAuthority(host: String)
    /// The server's certificate (or one in its chain) has expired.
    case expired(host: String)
    /// The server's certificate is not valid yet (often this device's clock is wrong).
    case notYetValid(host: String)
    /// The certificate is valid but issued for another host name.
    case wrongHost(host: String)
    /// Another certificate check failed (revoked, bad signature, wrong purpose…), with OpenSSL's reason.
    case certificateRefused(host: String, reason: String)
    /// A CA file or directory named by an option or variable cannot be used, with the reason.
    case trustFileUnusable(path: String, origin: String, reason: String)
    /// The TLS handshake failed before any certificate was judged (not TLS on that port, no common
    /// protocol version), with libcurl's reason.
    case handshakeFailed(host: String, reason: String)

    /// The kind of ``APIError`` this problem is (its code is `network.<raw value>`, e.g.
    /// `network.certificate_expired`).
    public var kind: APIError.Kind {
        switch self {
        case .unknownAuthority: .certificateUnknownAuthority
        case .expired: .certificateExpired
        case .notYetValid: .certificateNotYetValid
        case .wrongHost: .certificateWrongHost
        case .certificateRefused: .certificateRefused
        case .trustFileUnusable: .caFileUnusable
        case .handshakeFailed: .tlsHandshakeFailed
        }
    }

    /// A stable machine code: `network.certificate_unknown_authority`, `network.certificate_expired`,
    /// `network.certificate_not_yet_valid`, `network.certificate_wrong_host`, `network.certificate_refused`,
    /// `network.ca_file_unusable`, `network.tls_handshake_failed`.
    public var code: String { kind.code }

    /// What failed and what to do, as a sentence.
    public var message: String {
        switch self {
        case .unknownAuthority(let host):
            return "The certificate of \(host) is not signed by an authority this device trusts, so nothing was sent. "
                + "If the server uses a private certificate authority, start jqc-shell with --ca-file PATH "
                + "(or set JQC_CA_FILE) naming that authority's certificate; otherwise the connection may be intercepted."
        case .expired(let host):
            return "The certificate of \(host) has expired, so nothing was sent. "
                + "Check that this device's date and time are right; if they are, "
                + "the server's administrator must renew the certificate."
        case .notYetValid(let host):
            return "The certificate of \(host) is not valid yet, so nothing was sent. "
                + "Check that this device's date and time are right."
        case .wrongHost(let host):
            return "The certificate presented by \(host) was issued for another host name, so nothing was sent. "
                + "Check the server address (--server); the connection may be intercepted."
        case .certificateRefused(let host, let reason):
            return "The certificate of \(host) was refused (\(reason)), so nothing was sent. "
                + "Tell the server's administrator."
        case .trustFileUnusable(let path, let origin, let reason):
            let named = origin.isEmpty ? "" : " named by \(origin)"
            return "The certificate authority file \(path)\(named) cannot be used: \(reason). "
                + "Fix the path, or leave it out to trust only the system's authorities; nothing was sent."
        case .handshakeFailed(let host, let reason):
            return "A secure connection to \(host) could not be set up (\(reason)), so nothing was sent. "
                + "Check the server address and port (--server): it may not speak https there."
        }
    }

    /// The problem OpenSSL's verify result `code` (`X509_V_ERR_*`) names, for a refused peer of `host`;
    /// `detail` is libcurl's error-buffer sentence (host-name mismatches have verify result 0).
    static func verification(code: Int, host: String, detail: String) -> TLSProblem {
        switch code {
        case 10: return .expired(host: host)  // X509_V_ERR_CERT_HAS_EXPIRED
        case 9: return .notYetValid(host: host)  // X509_V_ERR_CERT_NOT_YET_VALID
        // UNABLE_TO_GET_ISSUER_CERT, DEPTH_ZERO_SELF_SIGNED_CERT, SELF_SIGNED_CERT_IN_CHAIN,
        // UNABLE_TO_GET_ISSUER_CERT_LOCALLY, UNABLE_TO_VERIFY_LEAF_SIGNATURE, CERT_UNTRUSTED, INVALID_CA
        case 2, 18, 19, 20, 21, 27, 79: return .unknownAuthority(host: host)
        // X509_V_ERR_HOSTNAME_MISMATCH; or X509_V_OK: the chain passed, and libcurl's own host-name check
        // (the only other one it makes with OpenSSL) refused it ("no alternative certificate subject name…").
        case 62, 0: return .wrongHost(host: host)
        default:
            let lowered = detail.lowercased()
            if lowered.contains("host name") || lowered.contains("hostname") || lowered.contains("subject name") {
                return .wrongHost(host: host)
            }
            let reason = detail.replacingOccurrences(of: "SSL certificate problem: ", with: "")
            return .certificateRefused(host: host, reason: reason.isEmpty ? "verify result \(code)" : reason)
        }
    }
}
