// jqc-devserver: the JQC /api/v1 stand-in (SHELL.md, jqc-devserver). Thin: options → DevServer.
import Dispatch
import Foundation
import JQCDevServer
import JQCKit

let usage = """
    usage: jqc-devserver [--host 127.0.0.1] [--port N] [--data-dir DIR] [--seed demo|FILE] [--today YYYY-MM-DD]
                         [--admin] [--access-ttl SECONDS] [--refresh-ttl SECONDS] [--no-etags]
    The default data directory is ./jqc-devserver-data.
    """

func fail(_ sentence: String) -> Never {
    FileHandle.standardError.write(Data("jqc-devserver: \(sentence)\n\(usage)\n".utf8))
    exit(64)
}

var options = DevServerOptions()
do {
    options = try DevServerOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch let error as DevServerError {
    fail(error.message)
}
if options.showHelp {
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(0)
}
let server = DevServer(configuration: options.configuration)
// Signals are caught before the listening line is printed: a SIGTERM sent as soon as a parent reads that line
// must stop the server, not fall between the default action and the handler (it is delivered once
// dispatchMain runs).
signal(SIGTERM, SIG_IGN)
signal(SIGINT, SIG_IGN)
let signals = [SIGTERM, SIGINT].map { DispatchSource.makeSignalSource(signal: $0, queue: .main) }
for source in signals {
    source.setEventHandler {
        server.stop()
        exit(0)
    }
    source.resume()
}
let port: Int
do {
    port = try server.start()
} catch {
    FileHandle.standardError.write(Data("jqc-devserver: \(error)\n".utf8))
    exit(1)
}
FileHandle.standardOutput.write(Data("listening on http://\(options.configuration.host):\(port)\n".utf8))
dispatchMain()
