import Foundation
import JQCKit
import JQCStorage

extension DevServerRouter {
    /// The user of a valid, unexpired access token of the current generation.
    /// - Throws: ``DevServerError`` 401 for a missing, malformed, expired or invalidated token.
    func authenticate(_ context: RouteContext) throws -> AuthUser {
        guard let header = context.request.header("authorization") else {
            throw refuse(401, "Sign in first: the request has no access token.")
        }
        let parts = header.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2, parts[0].caseInsensitiveCompare("Bearer") == .orderedSame else {
            throw refuse(401, "The Authorization header must be 'Bearer <access token>'.")
        }
        guard let claims = ServerCrypto.verifyJWT(parts[1].trimmingCharacters(in: .whitespaces), secret: store.secret),
            let userID = claims["uid"]?.intValue, let expiry = claims["exp"]?.intValue
        else { throw refuse(401, "The access token is not valid; sign in again.") }
        guard Double(expiry) > now.timeIntervalSince1970 else {
            throw refuse(401, "The access token has expired; refresh it or sign in again.")
        }
        guard (claims["gen"]?.intValue ?? -1) >= accessGeneration.withLock({ $0 }) else {
            throw refuse(401, "The access token has expired; refresh it or sign in again.")
        }
        guard let user = reference.user(userID) else { throw refuse(401, "The account no longer exists.") }
        return authUser(user)
    }

    func authUser(_ user: Doc) -> AuthUser {
        let projects = Set((user["project_ids"]?.arrayValue ?? []).compactMap(\.intValue))
        return AuthUser(
            id: user.int("id") ?? 0, role: user.string("role") ?? "inspector", projectIDs: projects,
            facilityScope: reference.facilityIDs(ofProjects: projects), doc: user)
    }

    /// `{access_token, refresh_token}` for `userID`, the refresh token stored in `db`.
    func issueTokens(_ db: Database, userID: Int64) throws -> (access: String, refresh: String) {
        let issued = now.timeIntervalSince1970
        let claims: JSONValue = .object([
            "sub": .string(String(userID)), "uid": .int(userID), "iat": .int(Int64(issued)),
            "exp": .int(Int64((issued + configuration.accessTTL).rounded(.up))),
            "gen": .int(accessGeneration.withLock { $0 }),
            "jti": .string(ServerCrypto.hex(ServerCrypto.randomBytes(8))),
        ])
        let access = ServerCrypto.signJWT(claims: claims, secret: store.secret)
        let refresh = ServerCrypto.hex(ServerCrypto.randomBytes(32))
        try db.execute(
            "INSERT INTO refresh_tokens (token_digest, user_id, expires_at, revoked) VALUES (?, ?, ?, 0)",
            [refreshDigest(refresh), userID, issued + configuration.refreshTTL])
        return (access, refresh)
    }

    func login(_ context: RouteContext) throws -> HTTPResponse {
        let body = try context.body()
        let username = try Fields.string(body, "username", required: true) ?? ""
        let password = try Fields.string(body, "password", required: true) ?? ""
        guard
            let user = reference.users.first(where: {
                ($0.string("username") ?? "").caseInsensitiveCompare(username.trimmingCharacters(in: .whitespaces))
                    == .orderedSame
            }), let salt = user.string("salt").flatMap(hexData), let hash = user.string("password_hash"),
            ServerCrypto.constantTimeEqual(ServerCrypto.passwordHash(password, salt: salt), hash)
        else { throw refuse(401, "The username or password is wrong.") }
        let tokens = try store.queue.write { try issueTokens($0, userID: user.int("id") ?? 0) }
        return Envelope.success(
            .object([
                "access_token": .string(tokens.access), "refresh_token": .string(tokens.refresh),
                "token_type": "Bearer", "expires_in": .int(Int64(configuration.accessTTL)), "user": userJSON(user),
            ]))
    }

    func refresh(_ context: RouteContext) throws -> HTTPResponse {
        let body = try context.body()
        let token = try Fields.string(body, "refresh_token", required: true) ?? ""
        let result: (access: String, refresh: String)? = try store.queue.write { db in
            guard
                let row = try db.fetchOne(
                    "SELECT user_id, expires_at, revoked FROM refresh_tokens WHERE token_digest = ?",
                    [refreshDigest(token)]),
                let userID: Int64 = row["user_id"], let expires: Double = row["expires_at"],
                let revoked: Int64 = row["revoked"], revoked == 0, expires > now.timeIntervalSince1970,
                reference.user(userID) != nil
            else {
                try store.increment(db, "refreshes.failed")
                return nil
            }
            try db.execute("UPDATE refresh_tokens SET revoked = 1 WHERE token_digest = ?", [refreshDigest(token)])
            try store.increment(db, "refreshes.succeeded")
            return try issueTokens(db, userID: userID)
        }
        guard let result else { throw refuse(401, "The refresh token has expired or was revoked; sign in again.") }
        return Envelope.success(
            .object([
                "access_token": .string(result.access), "refresh_token": .string(result.refresh),
                "token_type": "Bearer", "expires_in": .int(Int64(configuration.accessTTL)),
            ]))
    }

    func logout(_ context: RouteContext) throws -> HTTPResponse {
        if !context.request.body.isEmpty {
            let body = try context.body()
            if let token = try Fields.string(body, "refresh_token") {
                try store.queue.write { db in
                    try db.execute(
                        "UPDATE refresh_tokens SET revoked = 1 WHERE token_digest = ?", [refreshDigest(token)])
                }
            }
        }
        return Envelope.success(.object([:]))
    }

    private func hexData(_ text: String) -> Data? {
        var bytes = [UInt8]()
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex) ?? text.endIndex
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return Data(bytes)
    }
}

extension DevServerRouter {
    /// The stored form of a refresh token: HMAC-SHA256 under the server secret, hex. The token itself is
    /// never written to the store.
    func refreshDigest(_ token: String) -> String {
        ServerCrypto.hex(ServerCrypto.hmacSHA256(key: store.secret, message: Data(token.utf8)))
    }
}
