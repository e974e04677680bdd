import Foundation
import Synchronization

/// Which server the client talks to, and the only place a server URL is built (seed 001 rules 17, 81;
/// CONTRACT.md "Conventions").
///
/// The selection is stored as text (`primary`, `secondary`, or an explicit `http(s)://host[:port]`
/// URL) and validated on every read: a stale, hostile or malformed stored value falls back to
/// ``ServerSelection/primary`` instead of being dialled (rule 81's self-heal).
public enum ServerSelection: Sendable, Hashable, CustomStringConvertible {
    /// `https://jqc.ltservicesinc.com`.
    case primary
    /// `https://jqc1.ltservicesinc.com`.
    case secondary
    /// An explicit base URL (scheme, host, optional port; no path, query or credentials).
    case explicit(URL)

    /// The production primary server.
    public static let primaryURL = URL(string: "https://jqc.ltservicesinc.com")!
    /// The production secondary server.
    public static let secondaryURL = URL(string: "https://jqc1.ltservicesinc.com")!
    /// A loopback address where nothing listens (port 1): used when the embedded dev server cannot start, so
    /// every request fails as offline and none leaves the machine, while local work goes on.
    public static let unavailableURL = URL(string: "http://127.0.0.1:1")!

    /// Reads a stored or typed selection.
    /// - Parameter text: `primary`, `secondary`, or an `http`/`https` URL with a host and no path
    ///   beyond `/`, no query, fragment or user info.
    /// - Returns: the selection, or `nil` when the text is none of those.
    public init?(storedValue text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch trimmed.lowercased() {
        case "primary": self = .primary
        case "secondary": self = .secondary
        default:
            guard let url = ServerSelection.normalizedBaseURL(trimmed) else { return nil }
            self = .explicit(url)
        }
    }

    /// The text to store for this selection; reading it back gives the same selection.
    public var storedValue: String {
        switch self {
        case .primary: "primary"
        case .secondary: "secondary"
        case .explicit(let url): url.absoluteString
        }
    }

    /// The base URL requests are sent to (no trailing slash).
    public var baseURL: URL {
        switch self {
        case .primary: ServerSelection.primaryURL
        case .secondary: ServerSelection.secondaryURL
        case .explicit(let url): url
        }
    }

    public var description: String { storedValue }

    /// `scheme://host[:port]` lower-cased, or `nil` when `text` is not an acceptable server base URL.
    public static func normalizedBaseURL(_ text: String) -> URL? {
        guard let components = URLComponents(string: text),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host?.lowercased(), !host.isEmpty,
            components.user == nil, components.password == nil,
            components.query == nil, components.fragment == nil,
            components.path.isEmpty || components.path == "/",
            host.allSatisfy({
                $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":" || $0 == "[" || $0 == "]"
            })
        else { return nil }
        if let port = components.port, !(1...65_535).contains(port) { return nil }
        var normalized = URLComponents()
        normalized.scheme = scheme
        normalized.host = host
        normalized.port = components.port
        return normalized.url
    }
}

/// Where a ``ServerConfig`` keeps its selection (a file in the data directory, or memory in tests).
public protocol ServerSelectionStore: Sendable {
    /// The stored text, or `nil` when nothing is stored.
    func load() -> String?
    /// Stores the text.
    /// - Throws: the store's error when it cannot be written.
    func save(_ value: String) throws
}

/// A selection store in memory (tests, offline tools).
public final class InMemorySelectionStore: ServerSelectionStore {
    private let value: Mutex<String?>
    /// A store holding `value`.
    public init(_ value: String? = nil) { self.value = Mutex(value) }
    public func load() -> String? { value.withLock { $0 } }
    public func save(_ value: String) throws { self.value.withLock { $0 = value } }
}

/// The current server, read through validation every time (rule 81). Every request URL in the code
/// base comes from ``url(path:query:)``.
public final class ServerConfig: Sendable {
    private let store: any ServerSelectionStore
    /// The last stored text validated and the selection it gave: the store is read on every call, and
    /// only the same text again skips the validation's URL parsing (issue 17: every request reads it).
    private let lastValidated = Mutex<(text: String, selection: ServerSelection?)?>(nil)

    /// A configuration over `store`.
    public init(store: any ServerSelectionStore) { self.store = store }

    /// The selection in force: the stored one when it is valid, otherwise ``ServerSelection/primary``.
    public var current: ServerSelection {
        guard let text = store.load() else { return .primary }
        if let last = lastValidated.withLock({ $0 }), last.text == text { return last.selection ?? .primary }
        let selection = ServerSelection(storedValue: text)
        lastValidated.withLock { $0 = (text, selection) }
        return selection ?? .primary
    }

    /// Stores a new selection.
    /// - Throws: the store's error when it cannot be written.
    public func select(_ selection: ServerSelection) throws {
        try store.save(selection.storedValue)
    }

    /// The URL of an API or static path on the current server.
    /// - Parameters:
    ///   - path: an absolute path starting with `/` (`/api/v1/facilities`, `/static/uploads/…`).
    ///   - query: query items, in order, or none.
    /// - Returns: `current.baseURL` + path (+ query).
    public func url(path: String, query: [URLQueryItem] = []) -> URL {
        ServerConfig.url(base: current.baseURL, path: path, query: query)
    }

    /// `base` + `path` (+ query), for a base that was captured earlier (e.g. in a request in flight).
    public static func url(base: URL, path: String, query: [URLQueryItem] = []) -> URL {
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false)!
        let normalizedPath = path.hasPrefix("/") ? path : "/" + path
        components.percentEncodedPath = normalizedPath
        if !query.isEmpty { components.queryItems = query }
        return components.url!
    }
}
