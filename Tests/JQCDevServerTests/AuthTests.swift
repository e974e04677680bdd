import Foundation
import JQCKit
import Testing

@testable import JQCDevServer

@Suite("Auth and health")
struct AuthTests {
    @Test("health needs no token and reports the server's today and time zone")
    func health() throws {
        let harness = try Harness()
        let reply = harness.get("/health")
        #expect(reply.status == 200)
        #expect(reply.data?["status"] == "ok")
        #expect(reply.data?["today"] == "2026-07-14")
        #expect(reply.data?["timezone"] == "America/New_York")
        #expect(reply.json?["error"] == .null)
    }

    @Test("login returns tokens and the user; a wrong password is a 401 envelope")
    func login() throws {
        let harness = try Harness()
        let reply = harness.request("POST", "/auth/login", ["username": "alex", "password": "inspect-demo"])
        #expect(reply.status == 200)
        #expect(
            reply.data?["user"] == [
                "id": 7, "username": "alex", "role": "inspector", "full_name": "Alex Rivera",
                "email": "alex@example.com",
            ])
        let access = try #require(reply.data?["access_token"]?.stringValue)
        #expect(access.split(separator: ".").count == 3)
        let refresh = try #require(reply.data?["refresh_token"]?.stringValue)
        #expect(refresh.count == 64 && refresh.allSatisfy { $0.isHexDigit })
        let me = harness.get("/auth/me", token: access)
        #expect(me.data?["username"] == "alex")

        let wrong = harness.request("POST", "/auth/login", ["username": "alex", "password": "nope"])
        #expect(wrong.status == 401)
        #expect(wrong.json?["ok"] == .bool(false))
        #expect(wrong.json?["data"] == .null)
        #expect(wrong.error == "The username or password is wrong.")
    }

    @Test("missing, malformed and forged tokens are refused with 401")
    func badTokens() throws {
        let harness = try Harness()
        #expect(harness.get("/facilities").status == 401)
        #expect(harness.get("/facilities", token: "abc").status == 401)
        let access = harness.token("alex")
        let forged = String(access.dropLast(2)) + (access.hasSuffix("AA") ? "BB" : "AA")
        #expect(harness.get("/facilities", token: forged).status == 401)
        #expect(harness.get("/facilities", token: access).status == 200)
    }

    @Test("malformed JSON and wrong types are 400 envelopes")
    func malformedBodies() throws {
        let harness = try Harness()
        let broken = harness.request("POST", "/auth/login", raw: "{\"username\": ")
        #expect(broken.status == 400)
        #expect(broken.error == "The request body is not valid JSON.")
        let wrongType = harness.request("POST", "/auth/login", ["username": 7, "password": "x"])
        #expect(wrongType.status == 400)
        #expect(wrongType.error == "The field username must be a string.")
        let token = harness.token("alex")
        let inspection = harness.request(
            "POST", "/inspections", ["template_id": "3", "facility_id": 11],
            token: token)
        #expect(inspection.status == 400)
        #expect(harness.request("POST", "/inspections", raw: "[1,2]", token: token).status == 400)
        #expect(harness.get("/nowhere", token: token).status == 404)
    }

    @Test("refresh rotates: the new pair works and the old refresh token dies")
    func refreshRotation() throws {
        let harness = try Harness()
        let first = harness.login("alex")
        let rotated = harness.request("POST", "/auth/refresh", ["refresh_token": .string(first.refresh)])
        #expect(rotated.status == 200)
        let newRefresh = try #require(rotated.data?["refresh_token"]?.stringValue)
        #expect(newRefresh != first.refresh)
        let newAccess = try #require(rotated.data?["access_token"]?.stringValue)
        #expect(harness.get("/auth/me", token: newAccess).status == 200)
        #expect(harness.request("POST", "/auth/refresh", ["refresh_token": .string(first.refresh)]).status == 401)
        #expect(harness.request("POST", "/auth/refresh", ["refresh_token": .string(newRefresh)]).status == 200)
    }

    @Test("logout revokes the refresh token it is given")
    func logout() throws {
        let harness = try Harness()
        let tokens = harness.login("alex")
        let reply = harness.request(
            "POST", "/auth/logout", ["refresh_token": .string(tokens.refresh)],
            token: tokens.access)
        #expect(reply.status == 200)
        #expect(reply.data == .object([:]))
        #expect(harness.request("POST", "/auth/refresh", ["refresh_token": .string(tokens.refresh)]).status == 401)
    }

    @Test("expire-tokens kills access tokens but refresh still works; revoke-refresh kills refresh tokens")
    func adminTokenControls() throws {
        let harness = try Harness()
        let tokens = harness.login("alex")
        #expect(harness.request("POST", "/__admin/expire-tokens").status == 200)
        let expired = harness.get("/facilities", token: tokens.access)
        #expect(expired.status == 401)
        let refreshed = harness.request("POST", "/auth/refresh", ["refresh_token": .string(tokens.refresh)])
        #expect(refreshed.status == 200)
        let access = try #require(refreshed.data?["access_token"]?.stringValue)
        #expect(harness.get("/facilities", token: access).status == 200)
        let refresh = try #require(refreshed.data?["refresh_token"]?.stringValue)
        #expect(harness.request("POST", "/__admin/revoke-refresh").status == 200)
        #expect(harness.request("POST", "/auth/refresh", ["refresh_token": .string(refresh)]).status == 401)
        #expect(harness.get("/facilities", token: access).status == 200)
    }

    @Test("an access token stops working when its lifetime on the real clock has passed")
    func accessTokenLifetime() throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_784_000_000))
        let harness = try Harness(clock: clock, accessTTL: 60)
        let access = harness.token("alex")
        clock.advance(by: 59)
        #expect(harness.get("/facilities", token: access).status == 200)
        clock.advance(by: 2)
        let reply = harness.get("/facilities", token: access)
        #expect(reply.status == 401)
        #expect(reply.error == "The access token has expired; refresh it or sign in again.")
    }

    @Test("admin endpoints do not exist without --admin")
    func adminDisabled() throws {
        let harness = try Harness(admin: false)
        #expect(harness.request("POST", "/__admin/expire-tokens").status == 404)
        #expect(harness.get("/__admin/state").status == 404)
    }

    @Test("requests with the X-JQC headers and without them are both accepted")
    func clientHeaders() throws {
        let harness = try Harness()
        let with = harness.curl([
            harness.base + "/api/v1/health", "-H", "X-JQC-Client: ipad/1.0",
            "-H", "X-JQC-API-Version: 1",
        ])
        #expect(with.status == 200)
        #expect(harness.get("/health").status == 200)
    }
}
