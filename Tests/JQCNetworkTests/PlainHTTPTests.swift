import Foundation
import Testing

@testable import JQCNetwork

@Suite("PlainHTTP: which hosts plain http may reach without --allow-insecure-http (issue 21)")
struct PlainHTTPTests {
    @Test(
        "loopback hosts, as written",
        arguments: [
            "127.0.0.1", "127.1.2.3", "127.255.255.255", "127.00.0.1", "[127.0.0.1]", "localhost", "LOCALHOST",
            "localhost.", "::1", "[::1]", "0:0:0:0:0:0:0:1",
        ])
    func loopback(host: String) {
        #expect(PlainHTTP.isLoopback(host: host))
    }

    @Test(
        "hosts that are not loopback: other addresses, malformed quads, names",
        arguments: [
            "128.0.0.1", "10.0.0.1", "1.127.0.0", "127.0.0.256", "127.0.0", "127.0.0.1.5", "1270.0.0.1", "0127.0.0.1",
            "127..0.1", ".127.0.0.1", "127.0.0.1.", "127.0.0.-1", "127.0.0.1 ", "１２７.0.0.1", "", "example.com",
            "localhost.example.com", "[127.0.0.1", "::2",
        ])
    func notLoopback(host: String) {
        #expect(!PlainHTTP.isLoopback(host: host))
    }

    @Test("plain http is insecure only to a host that is not loopback; https never is")
    func insecure() throws {
        #expect(!PlainHTTP.isInsecure(try #require(URL(string: "http://127.0.0.1:5055/api/v1/health"))))
        #expect(!PlainHTTP.isInsecure(try #require(URL(string: "HTTP://localhost/api"))))
        #expect(PlainHTTP.isInsecure(try #require(URL(string: "http://192.168.1.5:5055/api"))))
        #expect(!PlainHTTP.isInsecure(try #require(URL(string: "https://192.168.1.5/api"))))
    }
}
