import Foundation
import JQCKit

/// The JQC API client: builds every URL from ``/JQCKit/ServerConfig`` (seed 001 rule 17, 81), names the build on
/// every request (seed 004 `RequestPolicy`), decodes the `{ok, data, error}` envelope, keeps the session
/// (tokens, single-flight refresh, proactive refresh on the server's clock) and classifies every failure
/// into ``APIError`` (seed 001 §5, §9; CONTRACT.md; issue 4).
///
/// **Bodies and replies (seed 001 rule 65).** Request bodies are ``/JQCKit/JSONValue`` objects whose keys are
/// written literally, so they are the snake_case the server reads (`["facility_id": 3]`); nothing
/// converts them. Replies are parsed losslessly with `JSONValue.parse` first; typed models are then
/// decoded from the `data` tree with `.convertFromSnakeCase`, so their `CodingKeys` stay plain camelCase,
/// and opaque members (`form_data`, `form_schema`) are declared ``RawJSON`` and taken unconverted from the
/// parsed tree. ``getJSON(_:query:)`` returns the raw tree itself.
///
/// **Authentication.** A 401 on an authenticated request triggers one refresh shared by every request
/// waiting on it (`POST /auth/refresh`), then the request is sent once more; a second 401 is
/// ``APIError/unauthorized(_:)``, never another refresh. The refresh runs under the token store's
/// cross-process lock (`flock` on `<data-dir>/credentials.lock`): a process that waited re-reads the
/// stored credentials and uses the pair another process already obtained. A refused refresh (400, 401 or
/// 403, `invalid_grant` or not) signs the person out once — only when the store still holds the refresh
/// token this process sent — and ``APIError/signedOut`` is thrown to every waiting request; no request
/// leaves until the next login. When the server's time is known (from a `Date` header or `/health`), a
/// token whose `exp` is within `min(60 s, lifetime / 2)` of the *server's* now is refreshed before use,
/// at most once per token, so neither a skewed device clock nor very short tokens cause a refresh storm.
/// A renewed pair is written atomically before it is used; when it cannot be written (disk full) the
/// pair is kept in memory, ``warnings`` says so at once, and the write is retried (issue 15).
public actor APIClient {
    /// The longest margin, in seconds before `exp` (on the server's clock), at which an access token is
    /// refreshed proactively; shorter tokens use half their lifetime (``AccessToken/refreshMargin(lifetime:)``).
    public static let proactiveRefreshMargin: Double = AccessToken.longestRefreshMargin

    let config: ServerConfig
    private let transport: any HTTPTransport
    let tokens: any TokenStore
    let refusals: any UpdateRefusalMemory
    /// The build named on every request.
    public nonisolated let identity: ClientIdentity
    let clock: any Clock
    let logger: Logger
    /// Sentences a person must see at once (a renewed sign-in that could not be saved); the app attaches
    /// its handler (the shell prints them on stderr).
    public nonisolated let warnings = SessionWarnings()

    var credentials: Credentials?
    var refreshTask: Task<Credentials, any Error>?
    var proactivelyRefreshedToken: String?
    var serverClockOffset: Double?
    var refreshCount = 0
    /// The refresh token the token store held when this client last read or wrote it: when the store
    /// holds another, another process changed it (issue 15).
    var storedRefreshToken: String?
    /// Why the held credentials are not in the store yet (their write failed), or `nil` when they are.
    var unsavedReason: String?
    /// What was read from the access token last sent (its problem, `exp` and `iat`), so each request does
    /// not decode the token's base64 and JSON again; read afresh whenever the token changes.
    var vettedToken: TokenFacts?
    /// The last `Date` header seen and the instant it names: servers send the same text for a whole
    /// second, so most replies skip the parse.
    var lastDateHeader: (text: String, instant: Date)?
    /// Request URLs without a query already built for one base URL (``requestURL(base:path:query:)``).
    var urlCache: (base: URL?, urls: [String: URL]) = (nil, [:])

    /// A client. Stored credentials are read from `tokens` now.
    /// - Parameters:
    ///   - config: the only source of server URLs.
    ///   - transport: ``CurlTransport`` live, `ScriptedTransport` (JQCNetworkTestSupport) in tests.
    ///   - tokens: where credentials are kept (`FileTokenStore` at `<data-dir>/credentials`).
    ///   - refusals: the persisted 426 memory (`FileUpdateRefusalMemory`).
    ///   - identity: the build (`jqc-shell/<version>`) sent as `X-JQC-Client`.
    ///   - clock: the device clock (a `ManualClock` in tests).
    ///   - logger: one line per request (method, path, status); tokens and bodies are never logged.
    public init(
        config: ServerConfig, transport: any HTTPTransport, tokens: any TokenStore,
        refusals: any UpdateRefusalMemory, identity: ClientIdentity, clock: any Clock = SystemClock(),
        logger: Logger = .disabled
    ) {
        self.config = config
        self.transport = transport
        self.tokens = tokens
        self.refusals = refusals
        self.identity = identity
        self.clock = clock
        self.logger = logger.labeled("network")
        credentials = tokens.load()
        storedRefreshToken = credentials?.refreshToken
    }

    // MARK: - State

    /// The signed-in person, or `nil` when signed out. Available offline (rule 20).
    public var currentUser: User? { credentials?.user }

    /// Whether credentials are held.
    public var isSignedIn: Bool { credentials != nil }

    /// Whether the current server refused this build (426) and requests to it are refused locally until
    /// the build changes; another server starts clean (SPEC.md §3).
    public var isUpdateRequired: Bool { refusals.isRefused(build: identity.build, server: serverIdentity) }

    /// The identity a 426 refusal is remembered under: the current server's normalised base URL.
    nonisolated var serverIdentity: String { config.current.baseURL.absoluteString }

    /// Server time minus device time in seconds, learned from the last `Date` header or `/health`; `nil`
    /// before the first reply.
    public var serverTimeOffset: Double? { serverClockOffset }

    /// The server's estimated now, or `nil` before the first reply.
    public var estimatedServerNow: Date? { serverClockOffset.map { clock.now.addingTimeInterval($0) } }

    /// How many token refreshes were sent in this client's life (diagnostics and tests).
    public var refreshesSent: Int { refreshCount }

    // MARK: - Generic requests

    /// `GET path` returning the envelope's `data` exactly as sent (lossless; no key conversion).
    /// - Parameters:
    ///   - path: an `/api/v1/…` path.
    ///   - query: query items, in order.
    /// - Returns: the `data` member (`.null` when absent).
    /// - Throws: ``APIError``.
    public func getJSON(_ path: String, query: [URLQueryItem] = []) async throws -> JSONValue {
        try await exchange(.get, path: path, query: query, body: .none, kind: .api)
    }

    /// `GET path` decoded as `T` (snake_case keys → camelCase properties; ``RawJSON`` members lossless).
    /// - Returns: the decoded `data`.
    /// - Throws: ``APIError``; ``APIError/undecodable(_:)`` when `data` does not fit `T`.
    public func get<T: Decodable>(_ type: T.Type = T.self, path: String, query: [URLQueryItem] = []) async throws
        -> T
    {
        try APIClient.decode(T.self, from: try await getJSON(path, query: query))
    }

    /// Sends `body` (literal snake_case keys) with `method` and returns the raw `data` tree.
    /// - Parameters:
    ///   - method: the HTTP method.
    ///   - path: an `/api/v1/…` path.
    ///   - body: a JSON object with literal snake_case keys, or `nil` for no body.
    ///   - query: query items, in order.
    ///   - idempotent: `true` when the server dedupes this request (e.g. on `local_id`), so the transport
    ///     may reuse a kept-alive connection for it; `nil` follows the method.
    /// - Throws: ``APIError``.
    public func sendJSON(
        _ method: HTTPMethod, path: String, body: JSONValue? = nil,
        query: [URLQueryItem] = [], idempotent: Bool? = nil
    ) async throws -> JSONValue {
        try await exchange(
            method, path: path, query: query, body: body.map { .data($0.jsonData()) } ?? .none,
            kind: .api, idempotent: idempotent)
    }

    /// Sends `body` (literal snake_case keys) with `method` and decodes the reply's `data` as `T`.
    /// - Throws: ``APIError``.
    public func send<T: Decodable>(
        _ method: HTTPMethod, path: String, body: JSONValue? = nil,
        as type: T.Type = T.self, idempotent: Bool? = nil
    ) async throws -> T {
        try APIClient.decode(T.self, from: try await sendJSON(method, path: path, body: body, idempotent: idempotent))
    }

    /// Uploads a `multipart/form-data` body (`POST`, 120 s limit) and decodes the reply's `data` as `T`.
    /// - Parameters:
    ///   - path: an `/api/v1/…` path.
    ///   - parts: the form parts (files are streamed from disk).
    ///   - type: the type `data` is decoded as.
    ///   - progress: (bytes sent, bytes to send), called on a transport thread.
    /// - Throws: ``APIError``.
    public func upload<T: Decodable>(
        path: String, parts: [MultipartPart], as type: T.Type = T.self,
        progress: (@Sendable (Int64, Int64) -> Void)? = nil
    ) async throws -> T {
        let data = try await exchange(
            .post, path: path, query: [], body: .multipart(parts), kind: .upload,
            progress: progress)
        return try APIClient.decode(T.self, from: data)
    }

    /// `GET /api/v1/health` (no token, 5 s limit); also learns the server's clock from its `time`.
    /// - Throws: ``APIError``.
    public func health() async throws -> HealthStatus {
        let data = try await exchange(
            .get, path: "/api/v1/health", query: [], body: .none, kind: .probe,
            authenticated: false)
        let status = try APIClient.decode(HealthStatus.self, from: data)
        if let time = status.time, let instant = DateFormats.instant(from: time) {
            serverClockOffset = instant.timeIntervalSince(clock.now)
        }
        return status
    }

    /// Decodes `T` from a `data` tree the way the client does (``ReplyDecoder``): snake_case keys matched to
    /// camelCase properties, ``RawJSON`` members taken losslessly, numbers checked exactly.
    /// - Parameters:
    ///   - type: the model.
    ///   - data: the value, parsed losslessly.
    ///   - path: where `data` sits in the reply (`data` itself by default; `data[3]` for one list item).
    /// - Throws: ``APIError/undecodable(_:)`` naming the path and the problem
    ///   (`data[0].id: expected an integer, got 12.5`).
    public static func decode<T: Decodable>(_ type: T.Type, from data: JSONValue, at path: ReplyPath = ReplyPath())
        throws -> T
    {
        do {
            return try ReplyDecoder.decode(T.self, from: data, at: path)
        } catch let error as ReplyShapeError {
            throw APIError.undecodable(error.description)
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError.undecodable("\(path): the value did not have the expected shape")
        }
    }

    /// The decoder of every reply: snake_case keys converted to camelCase; never mutated after this, so it
    /// is shared by every request and thread (``decode(_:from:)``).
    static let replyDecoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()

    // MARK: - The exchange

    /// Sends one request through the policy, the session and the classification; returns `data`.
    func exchange(
        _ method: HTTPMethod, path: String, query: [URLQueryItem], body: HTTPBody, kind: RequestKind,
        authenticated: Bool = true, idempotent: Bool? = nil, carriesPassword: Bool = false,
        progress: (@Sendable (Int64, Int64) -> Void)? = nil
    ) async throws -> JSONValue {
        let response = try await respond(
            method, path: path, query: query, body: body, kind: kind, authenticated: authenticated,
            idempotent: idempotent, carriesPassword: carriesPassword, progress: progress)
        return try interpret(response, path: path)
    }

    /// Sends one request through the policy and the session (a 401 refreshes once and sends again); returns the
    /// last reply unclassified. `extraHeaders` are validated by the transport like every other header.
    func respond(
        _ method: HTTPMethod, path: String, query: [URLQueryItem], body: HTTPBody, kind: RequestKind,
        authenticated: Bool = true, idempotent: Bool? = nil, carriesPassword: Bool = false,
        extraHeaders: [(String, String)] = [], progress: (@Sendable (Int64, Int64) -> Void)? = nil
    ) async throws -> HTTPResponse {
        let base = config.current.baseURL  // read through validation on every request (rule 81)
        if refusals.isRefused(build: identity.build, server: base.absoluteString) { throw APIError.updateRequired }
        var request = HTTPRequest(
            method: method, url: requestURL(base: base, path: path, query: query), body: body, kind: kind,
            idempotentOverride: idempotent, carriesPassword: carriesPassword)
        // Added, not set: the request starts with no fields and these names differ (issue 17: no scan per field).
        request.headers.add("Accept", "application/json")
        request.headers.add("X-JQC-Client", identity.build)
        request.headers.add("X-JQC-API-Version", String(identity.apiVersion))
        if case .data = body { request.headers.add("Content-Type", "application/json") }
        for (name, value) in extraHeaders { request.headers.set(name, value) }
        guard authenticated else { return try await transmit(request, progress: progress) }
        if unsavedReason != nil { await retrySavingCredentials() }
        guard let held = credentials else { throw APIError.signedOut }
        if let problem = facts(of: held.accessToken).problem {
            // Stored by an older build (issue 21): never replayed; the session cannot go on.
            logger.warning("the stored access token cannot be sent (\(problem)); signing out (local work is kept)")
            signOutLocally()
            throw APIError.signedOut
        }
        let current = try await refreshProactivelyIfNeeded(held)
        request.headers.set("Authorization", "Bearer \(current.accessToken)")
        let response = try await transmit(request, progress: progress)
        guard response.status == 401 else { return response }
        // One refresh shared by every request that saw this token refused, then one more try (rule 36).
        let fresh = try await refresh(replacing: current.accessToken)
        request.headers.set("Authorization", "Bearer \(fresh.accessToken)")
        return try await transmit(request, progress: progress)
    }

    /// Sends through the transport, classifying a missing reply and learning the server's clock.
    func transmit(_ request: HTTPRequest, progress: (@Sendable (Int64, Int64) -> Void)?) async throws
        -> HTTPResponse
    {
        let response: HTTPResponse
        do {
            response = try await transport.send(request, progress: progress)
        } catch let error as TransportError {
            logger.info("\(request.method.rawValue) \(request.url.path) failed: \(error)")
            throw APIError(error)
        } catch is CancellationError {
            throw APIError.cancelled
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError.connectionFailed(String(describing: error))
        }
        logger.debug("\(request.method.rawValue) \(request.url.path) → \(response.status)")
        if let text = response.headers["Date"], let date = serverDate(text) {
            serverClockOffset = date.timeIntervalSince(clock.now)
        }
        return response
    }

    /// `base` + `path` (+ `query`) as ``/JQCKit/ServerConfig/url(base:path:query:)`` builds it; a path without a
    /// query is built once per base and kept (at most 256 paths), as `URLComponents` costs more than the
    /// rest of a request's preparation.
    func requestURL(base: URL, path: String, query: [URLQueryItem]) -> URL {
        guard query.isEmpty else { return ServerConfig.url(base: base, path: path, query: query) }
        if urlCache.base != base || urlCache.urls.count >= 256 { urlCache = (base, [:]) }
        if let known = urlCache.urls[path] { return known }
        let url = ServerConfig.url(base: base, path: path)
        urlCache.urls[path] = url
        return url
    }

    /// The instant a `Date` header names (``HTTPDate``), parsed only when its text differs from the last one.
    func serverDate(_ text: String) -> Date? {
        if let last = lastDateHeader, last.text == text { return last.instant }
        guard let instant = HTTPDate.parse(text) else { return nil }
        lastDateHeader = (text, instant)
        return instant
    }

    /// The facts of `token` (its problem, `exp`, `iat`), read once per token (``TokenFacts``).
    func facts(of token: String) -> TokenFacts {
        if let vetted = vettedToken, vetted.token == token { return vetted }
        let read = TokenFacts(token)
        vettedToken = read
        return read
    }

    /// The envelope's `data` for a 2xx reply, or the classified failure.
    func interpret(_ response: HTTPResponse, path: String) throws -> JSONValue {
        let status = response.status
        switch status {
        case 200..<300:
            let envelope: JSONValue
            do {
                envelope = try JSONValue.parse(response.body)
            } catch {
                throw APIError.undecodable(APIClient.unreadableReason(response.body))
            }
            guard case .object(let members) = envelope, let ok = members["ok"]?.boolValue else {
                throw APIError.undecodable("the reply was not a JQC envelope")
            }
            guard ok else {
                throw APIError.rejected(
                    status: status,
                    message: APIClient.serverSentence(response.body)
                        ?? "The server refused the request.")
            }
            return members["data"] ?? .null
        case 401:
            throw APIError.unauthorized(
                APIClient.serverSentence(response.body)
                    ?? "The server did not accept your sign-in. Sign in again.")
        case 426:
            do {
                try refusals.remember(build: identity.build, server: serverIdentity)
            } catch {
                logger.warning("could not persist the update refusal: \(error)")
            }
            logger.warning("the server refused build \(identity.build) (426); requests stop until an update")
            throw APIError.updateRequired
        case 429:
            throw APIError.rateLimited(retryAfter: response.headers["Retry-After"].flatMap(parseRetryAfter))
        case 301, 302, 303, 307, 308:
            // Never followed (the transport sets no FOLLOWLOCATION), so Authorization never goes elsewhere.
            throw APIError.redirected(
                status: status, location: APIError.sanitizedLocation(response.headers["Location"]))
        case 500..<600:
            throw APIError.server(
                status: status,
                message: APIClient.serverSentence(response.body)
                    ?? "The server is unavailable. Try again later.")
        case 400..<500:
            throw APIError.rejected(
                status: status,
                message: APIClient.serverSentence(response.body)
                    ?? "The server refused the request (HTTP \(status)).")
        default:
            throw APIError.undecodable("the server answered with HTTP \(status)")
        }
    }

    /// `Retry-After` as seconds within 1 s…1 h: delta-seconds, or an HTTP date on the server's clock; anything
    /// else is ignored (``RetryAfter``).
    private func parseRetryAfter(_ text: String) -> Double? {
        RetryAfter.seconds(text, serverNow: clock.now.addingTimeInterval(serverClockOffset ?? 0))
    }

    // MARK: - Reply text

    /// The envelope's `error` sentence, when the body is an envelope with a readable one (never markup).
    static func serverSentence(_ body: Data) -> String? {
        guard let envelope = try? JSONValue.parse(body), let text = envelope["error"]?.stringValue else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, !looksLikeMarkup(trimmed) else { return nil }
        if trimmed == "update_required" { return nil }
        return trimmed.count > 300 ? String(trimmed.prefix(300)) + "…" : trimmed
    }

    private static func looksLikeMarkup(_ text: String) -> Bool {
        text.contains("<") && text.contains(">")
    }

    /// Why a 2xx body is not JSON, as a phrase (never the body itself).
    static func unreadableReason(_ body: Data) -> String {
        ReplyText.problem(body)
    }
}
