// A test helper for JQCNetwork's bounded-memory tests (issue 21; never shipped to inspectors): one request
// through the real APIClient and CurlTransport, then this process's own peak resident size from /proc.
//
//   jqc-network-probe BASE_URL login [MAX_REPLY_MB]    — POST /api/v1/auth/login as alex
//   jqc-network-probe BASE_URL health [MAX_REPLY_MB]   — GET /api/v1/health
//
// Prints one JSON line and exits 0: {"ok":…,"code":…,"message":…,"vm_hwm_kib":…}; 64 for bad arguments.
import Foundation
import JQCKit
import JQCNetwork

/// Writes one line to stdout at once (a pipe would otherwise buffer it).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("jqc-network-probe: \(message)\n".utf8))
    exit(64)
}

/// `VmHWM` of /proc/self/status in KiB (the peak resident set size so far), or -1 when unreadable.
func peakResidentKilobytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let digits = line.dropFirst("VmHWM:".count).filter(\.isNumber)
        return Int(digits) ?? -1
    }
    return -1
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2, let selection = ServerSelection(storedValue: arguments[0]),
    ["login", "health"].contains(arguments[1])
else { fail("usage: BASE_URL login|health [MAX_REPLY_MB]") }
let isHealth = arguments[1] == "health"
let limitArgument = arguments.count > 2 ? arguments[2] : nil
var limits = TransferLimits()
if let limitArgument {
    guard let megabytes = Int(limitArgument), let chosen = TransferLimits.jsonReplyLimit(mebibytes: megabytes) else {
        fail("MAX_REPLY_MB must be 1…1024")
    }
    limits = chosen
}

let client = APIClient(
    config: ServerConfig(store: InMemorySelectionStore(selection.storedValue)),
    transport: CurlTransport(configuration: CurlTransport.Configuration(limits: limits)),
    tokens: InMemoryTokenStore(), refusals: InMemoryUpdateRefusalMemory(),
    identity: ClientIdentity(app: "jqc-network-probe", version: "1"))
var result: [String: JSONValue] = [:]
do {
    if isHealth {
        _ = try await client.health()
    } else {
        _ = try await client.login(username: "alex", password: "inspect-demo")
    }
    result = ["ok": true, "code": nil, "message": nil]
} catch let error as APIError {
    result = ["ok": false, "code": .string(error.code), "message": .string(error.message)]
} catch {
    result = ["ok": false, "code": "other", "message": .string(String(describing: error))]
}
result["vm_hwm_kib"] = .int(Int64(peakResidentKilobytes()))
say(String(decoding: JSONValue.object(result).jsonData(sortedKeys: true), as: UTF8.self))
