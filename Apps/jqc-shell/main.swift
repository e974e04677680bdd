// jqc-shell: the inspector's REPL over the whole engine (SHELL.md, SPEC.md §5).
import Foundation
import JQCComposition

#if canImport(Glibc)
    import Glibc
#endif

signal(SIGPIPE, SIG_IGN)
umask(0o077)  // every file the shell writes in the data directory is 0600, folders 0700

let options: ShellOptions
do {
    options = try ShellOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    let message = "\(error)"
    FileHandle.standardError.write(
        Data(((message.isEmpty ? "" : "jqc-shell: \(message)\n") + ShellOptions.usage + "\n").utf8))
    exit(message.isEmpty ? 0 : 64)
}
if options.showVersion {
    // Offline, instant: nothing is opened or started (SHELL.md "Invocation").
    let line =
        options.json
        ? #"{"ok":true,"command":"version","data":{"version":"\#(AppComposition.version)","api_version":1}}"#
        : "jqc-shell \(AppComposition.version) (API v1)"
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
    exit(0)
}
exit(await ShellMain.run(options: options))
