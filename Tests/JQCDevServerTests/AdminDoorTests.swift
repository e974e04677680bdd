import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCDevServer

/// Issue 19: `/__admin` must not be reachable from a web page in a browser on the same machine — by DNS
/// rebinding (a foreign `Host`), a cross-site request (a foreign `Origin`) or a `text/plain` form post.
@Suite("Admin door")
struct AdminDoorTests {
    /// `curl ARGS` against `path` on the harness with extra headers.
    func admin(_ harness: Harness, _ method: String, _ path: String, headers: [String], body: String? = nil) -> Reply {
        var arguments = ["-X", method, harness.base + path]
        for header in headers { arguments += ["-H", header] }
        if let body { arguments += ["--data-binary", body] }
        return harness.curl(arguments)
    }

    @Test("a Host that is not 127.0.0.1, localhost or [::1] with the server's port gets 403 with a sentence")
    func foreignHost() throws {
        let harness = try Harness()
        let port = try #require(harness.server.port)
        for host in [
            "evil.example", "evil.example:\(port)", "127.0.0.1:\(port + 1)", "127.0.0.1", "localhost.:\(port)",
            "127.0.0.2:\(port)", "[::2]:\(port)", "localhost:\(port)x",
        ] {
            let reply = admin(harness, "GET", "/__admin/state", headers: ["Host: \(host)"])
            #expect(reply.status == 403, "Host: \(host)")
            #expect(
                reply.error
                    == "The admin endpoints answer only requests addressed to this machine: use "
                    + "http://127.0.0.1:\(port), http://localhost:\(port) or http://[::1]:\(port).")
            #expect(reply.json?["ok"] == false)
            #expect(reply.json?["data"] == .null)
        }
        for host in ["127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST:\(port)", "[::1]:\(port)"] {
            #expect(admin(harness, "GET", "/__admin/state", headers: ["Host: \(host)"]).status == 200, "Host: \(host)")
        }
        // The API itself keeps answering any Host (a real backend sits behind a name).
        #expect(admin(harness, "GET", "/api/v1/health", headers: ["Host: jqc.example"]).status == 200)
    }

    @Test("an Origin that is not this server's loopback address gets 403; a faulted request is not installed")
    func foreignOrigin() throws {
        let harness = try Harness()
        let port = try #require(harness.server.port)
        let fault = #"{"path_prefix":"/api/v1/health","mode":"status","status":503}"#
        for origin in [
            "https://evil.example", "http://localhost:3000", "null", "http://127.0.0.1:\(port).evil.example",
            "https://127.0.0.1:\(port)",
        ] {
            let reply = admin(
                harness, "POST", "/__admin/faults", headers: ["Origin: \(origin)", "Content-Type: application/json"],
                body: fault)
            #expect(reply.status == 403, "Origin: \(origin)")
            #expect(
                reply.error
                    == "The admin endpoints refuse requests sent by a web page of another site (its Origin header).")
        }
        #expect(harness.get("/health").status == 200)  // no fault was installed
        let same = admin(
            harness, "POST", "/__admin/faults",
            headers: ["Origin: http://localhost:\(port)", "Content-Type: application/json"], body: fault)
        #expect(same.status == 200)
        #expect(harness.get("/health").status == 503)
    }

    @Test("an admin body that is not sent as application/json gets 415; bodyless POSTs and DELETEs pass")
    func jsonBodiesOnly() throws {
        let harness = try Harness()
        let fault = #"{"path_prefix":"/api/v1/health","mode":"status","status":503}"#
        for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", nil] {
            let headers = type.map { ["Content-Type: \($0)"] } ?? ["Content-Type:"]
            let reply = admin(harness, "POST", "/__admin/faults", headers: headers, body: fault)
            #expect(reply.status == 415, "Content-Type: \(type ?? "none")")
            #expect(
                reply.error == "Send the admin request's body as JSON, with the header Content-Type: application/json.")
        }
        #expect(harness.get("/health").status == 200)  // nothing was installed
        let charset = admin(
            harness, "POST", "/__admin/faults", headers: ["Content-Type: Application/JSON; charset=utf-8"],
            body: fault)
        #expect(charset.status == 200)
        #expect(harness.get("/health").status == 503)
        #expect(admin(harness, "POST", "/__admin/expire-tokens", headers: []).status == 200)
        #expect(admin(harness, "DELETE", "/__admin/faults", headers: []).status == 200)
    }

    @Test("loopback authorities are recognised exactly")
    func authorities() {
        #expect(DevServerRouter.isLoopbackAuthority("127.0.0.1:5055", port: 5055))
        #expect(DevServerRouter.isLoopbackAuthority("[::1]:5055", port: 5055))
        #expect(DevServerRouter.isLoopbackAuthority("localhost", port: 80))
        #expect(!DevServerRouter.isLoopbackAuthority("localhost", port: 5055))
        #expect(!DevServerRouter.isLoopbackAuthority("[::1]", port: 5055))
        #expect(!DevServerRouter.isLoopbackAuthority("[::1]5055", port: 5055))
        #expect(!DevServerRouter.isLoopbackAuthority("127.0.0.1:", port: 5055))
        #expect(!DevServerRouter.isLoopbackAuthority("127.0.0.1:+5055", port: 5055))
        #expect(!DevServerRouter.isLoopbackAuthority("user@127.0.0.1:5055", port: 5055))
        #expect(!DevServerRouter.isLoopbackAuthority("127.0.0.1:5055/", port: 5055))
    }

    @Test("a PNG, a HEIF and a JPEG without its end marker are refused with 415 and never stored")
    func onlyJPEG() throws {
        let harness = try Harness()
        let token = harness.token("alex")
        let samples: [(String, Data, String)] = [
            (
                "shot.png", Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 1, count: 64),
                "The uploaded file is not a JPEG (it looks like a PNG image); send the photo as a JPEG."
            ),
            (
                "shot.heic", Data([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x68, 0x65, 0x69, 0x63]) + Data(count: 64),
                "The uploaded file is not a JPEG (it looks like a HEIF image); send the photo as a JPEG."
            ),
            (
                "cut.jpg", Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 0x20, count: 64),
                "The uploaded file is not a JPEG (it looks like a JPEG cut off before its end marker); send the "
                    + "photo as a JPEG."
            ),
        ]
        for (name, bytes, sentence) in samples {
            let file = harness.directory.path(name)
            try bytes.write(to: file)
            let reply = harness.upload(file, token: token)
            #expect(reply.status == 415, "\(name)")
            #expect(reply.error == sentence)
        }
        #expect(harness.get("/__admin/state").data?["photos"] == [])
        let photos = harness.directory.url.appendingPathComponent("data/uploads/issue_photos").path
        let stored = try FileManager.default.contentsOfDirectory(atPath: photos).filter { !$0.hasPrefix("seed-") }
        #expect(stored == [])
        #expect(DevServerRouter.isJPEG(PlaceholderJPEG.data))
        #expect(DevServerRouter.isJPEG(PlaceholderJPEG.data + Data(repeating: 7, count: 100)))
    }
}
