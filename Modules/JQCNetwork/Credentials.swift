import Foundation
import JQCKit
import Synchronization

/// The signed-in person, as `/auth/login` and `/auth/me` return them (CONTRACT.md "Auth").
///
/// `CodingKeys` are plain camelCase: the API decoder converts `full_name` → `fullName` (seed 001 rule 65).
public struct User: Sendable, Hashable, Codable {
    /// The server's user id.
    public var id: Int64
    /// The login name.
    public var username: String
    /// `inspector`, `supervisor`, `project_manager`, `director`, `admin` or `customer` (a newer server's role kept).
    public var role: UserRole
    /// The full name; may be empty.
    public var fullName: String?
    /// The e-mail address, when known.
    public var email: String?

    /// A user.
    public init(id: Int64, username: String, role: UserRole, fullName: String? = nil, email: String? = nil) {
        self.id = id
        self.username = username
        self.role = role
        self.fullName = fullName
        self.email = email
    }

    /// The name shown for the person: `fullName` when non-empty, else `username` (seed 001 rule 38).
    public var displayName: String {
        let trimmed = fullName?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        return trimmed.isEmpty ? username : trimmed
    }
}

/// A user's role (CONTRACT.md "Auth": inspector, supervisor, project_manager, director, admin, customer); a
/// newer server's role is kept as sent (``/JQCKit/WireValue``), so a stored sign-in never fails to load.
public enum UserRole: WireValue {
    /// `inspector`: does the inspections (this app's user).
    case inspector
    /// `supervisor`.
    case supervisor
    /// `project_manager`.
    case projectManager
    /// `director`.
    case director
    /// `admin`.
    case admin
    /// `customer`.
    case customer
    /// A role this build does not know, as the server sent it.
    case other(String)

    /// CONTRACT.md's roles, in its order.
    public static let known: [UserRole] = [.inspector, .supervisor, .projectManager, .director, .admin, .customer]

    /// The wire string (CONTRACT.md's, or the server's own for ``other(_:)``).
    public var rawValue: String {
        switch self {
        case .inspector: "inspector"
        case .supervisor: "supervisor"
        case .projectManager: "project_manager"
        case .director: "director"
        case .admin: "admin"
        case .customer: "customer"
        case .other(let value): value
        }
    }
}

/// What a session keeps between runs: the tokens and the identity of whoever signed in.
public struct Credentials: Sendable, Hashable, Codable {
    /// The JWT sent as `Authorization: Bearer …`.
    public var accessToken: String
    /// The opaque refresh token (rotated on every refresh).
    public var refreshToken: String
    /// The signed-in person.
    public var user: User
    /// When this client received ``accessToken``, on the device's clock; `nil` for credentials stored by
    /// an older build. With the token's `exp` it gives the token's lifetime when the token has no `iat`
    /// (the refresh margin is relative to the lifetime; issue 15).
    public var accessTokenReceivedAt: Date?

    /// Credentials whose access token's time of receipt is not known.
    public init(accessToken: String, refreshToken: String, user: User) {
        self.init(accessToken: accessToken, refreshToken: refreshToken, user: user, accessTokenReceivedAt: nil)
    }

    /// Credentials with the access token's time of receipt (device clock).
    public init(accessToken: String, refreshToken: String, user: User, accessTokenReceivedAt: Date?) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.user = user
        self.accessTokenReceivedAt = accessTokenReceivedAt
    }
}

extension Credentials: CustomStringConvertible, CustomDebugStringConvertible {
    /// The identity only; tokens never appear in descriptions (issue 4).
    public var description: String { "Credentials(user: \(user.username), tokens: [REDACTED])" }
    /// Same as `description` (tokens redacted).
    public var debugDescription: String { description }
}

/// Where the session's credentials are kept (the Keychain's replacement; SPEC.md §3).
public protocol TokenStore: Sendable {
    /// The stored credentials, or `nil` when none are stored or the stored ones cannot be read.
    func load() -> Credentials?
    /// Replaces the stored credentials.
    /// - Throws: the store's error (e.g. `AtomicFile.WriteError`) when they cannot be written.
    func save(_ credentials: Credentials) throws
    /// Removes the stored credentials.
    /// - Throws: the store's error when they cannot be removed.
    func clear() throws
    /// The cross-process lock the refresh exchange runs under, so processes sharing the store never
    /// redeem one single-use refresh token twice (issue 15); `nil` when only this process can see the
    /// store (in memory). Defaults to `nil`.
    var lock: FileLock? { get }
}

extension TokenStore {
    /// No cross-process lock: the store is private to this process.
    public var lock: FileLock? { nil }
}

/// Credentials in memory (tests, and the fallback when no data directory is writable).
public final class InMemoryTokenStore: TokenStore {
    private let stored: Mutex<Credentials?>
    /// A store holding `credentials`.
    public init(_ credentials: Credentials? = nil) { stored = Mutex(credentials) }
    /// The stored credentials, or `nil`; see ``TokenStore/load()``.
    public func load() -> Credentials? { stored.withLock { $0 } }
    /// Replaces the stored credentials; see ``TokenStore/save(_:)``.
    public func save(_ credentials: Credentials) throws { stored.withLock { $0 = credentials } }
    /// Forgets what is stored.
    public func clear() throws { stored.withLock { $0 = nil } }
}

/// Credentials in one file, `<data-dir>/credentials`: JSON with snake_case keys, mode 0600, written
/// atomically (temp + fsync + rename, `AtomicFile`). The file is the only place tokens are written
/// (SHELL.md; issue 4). Its lock is `<data-dir>/credentials.lock` (issue 15).
public final class FileTokenStore: TokenStore {
    /// The file.
    public let url: URL
    /// `flock` on `credentials.lock` beside the file: every process sharing the data directory takes it
    /// around a refresh, a login and a logout.
    public let lock: FileLock?

    /// A store at `url` (its directory must exist).
    public init(url: URL) {
        self.url = url
        lock = FileLock(url: url.deletingLastPathComponent().appendingPathComponent(url.lastPathComponent + ".lock"))
    }

    /// The stored credentials, or `nil`; see ``TokenStore/load()``.
    public func load() -> Credentials? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(Credentials.self, from: data)
    }

    /// - Throws: `AtomicFile.WriteError` (disk full, permission denied); the old file is then unchanged.
    public func save(_ credentials: Credentials) throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(credentials)
        try AtomicFile.write(data, to: url, permissions: 0o600)
    }

    /// - Throws: `CocoaError` when the file exists and cannot be removed.
    public func clear() throws {
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
    }
}
