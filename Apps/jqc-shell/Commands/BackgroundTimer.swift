import Foundation
import JQCKit

#if canImport(Glibc)
    import Glibc
#endif

/// Background sync's timer for one data directory (issue 15; the Linux analogue of the iPad's background
/// sync, seed 001 §19): a systemd **user** service + timer in `$XDG_CONFIG_HOME/systemd/user` (else
/// `~/.config/systemd/user`) running `jqc-shell --data-dir DIR sync --background` every 5 minutes
/// (`OnCalendar=*:0/5`, `Persistent=true`, so a machine that was off or asleep runs it at once). Where
/// systemd's user manager cannot be reached (containers, some servers), nothing is installed: the unit
/// files and a crontab line are shown for the person to install. The unit names carry a hash of the data
/// directory's path, so each data directory has its own timer.
///
/// `JQC_SYSTEMCTL` and `JQC_CRONTAB` name the `systemctl` and `crontab` programs (tests point them at
/// stand-ins); by default they are looked up on `PATH`.
struct BackgroundTimer {
    /// What runs the passes now.
    enum Kind: String {
        case systemd, cron, none
    }

    /// The data directory (absolute).
    let dataDirectory: URL
    /// The `jqc-shell` the timer runs (absolute).
    let executable: String
    let environment: [String: String]
    /// Options of the enabling run the timer's runs need too (`--ca-file PATH`, `--allow-insecure-http`,
    /// `--max-reply-mb N`): a user service does not see the shell's environment.
    let passedOptions: [String]

    init(
        dataDirectory: URL, passedOptions: [String] = [],
        environment: [String: String] = ShellEnvironment.variables
    ) {
        self.dataDirectory = dataDirectory.standardizedFileURL
        self.passedOptions = passedOptions
        self.environment = environment
        executable = BackgroundTimer.currentExecutable()
    }

    /// `jqc-sync-<16 hex digits of FNV-1a 64 of the data directory's path>`.
    var unitName: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in dataDirectory.path.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "jqc-sync-" + String(repeating: "0", count: 16 - hex.count) + hex
    }
    var serviceName: String { unitName + ".service" }
    var timerName: String { unitName + ".timer" }

    /// `$XDG_CONFIG_HOME/systemd/user`, else `~/.config/systemd/user`.
    var unitDirectory: URL {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return URL(fileURLWithPath: config).appendingPathComponent("systemd/user", isDirectory: true)
        }
        let home =
            environment["HOME"].map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".config/systemd/user", isDirectory: true)
    }
    var serviceFile: URL { unitDirectory.appendingPathComponent(serviceName) }
    var timerFile: URL { unitDirectory.appendingPathComponent(timerName) }

    /// The command the timer runs.
    var command: [String] {
        [executable, "--data-dir", dataDirectory.path] + passedOptions + ["sync", "--background"]
    }

    /// The service unit: one automatic pass, at low priority.
    var serviceUnit: String {
        """
        [Unit]
        Description=JanitorialQC background sync of \(BackgroundTimer.unitText(dataDirectory.path))
        Documentation=man:systemd.timer(5)

        [Service]
        Type=oneshot
        ExecStart=\(command.map(BackgroundTimer.execArgument).joined(separator: " "))
        Nice=10
        TimeoutStartSec=15min

        """
    }

    /// The timer unit: every 5 minutes, and at once after a missed run.
    var timerUnit: String {
        """
        [Unit]
        Description=JanitorialQC background sync of \(BackgroundTimer.unitText(dataDirectory.path)), every 5 minutes

        [Timer]
        OnCalendar=*:0/5
        Persistent=true
        Unit=\(serviceName)

        [Install]
        WantedBy=timers.target

        """
    }

    /// The marker that ends the crontab line, so `background status` recognises it.
    var cronMarker: String { "# jqc-sync \(dataDirectory.path)" }

    /// The crontab line for machines without systemd (`%` escaped for cron, words quoted for `sh`).
    var crontabLine: String {
        let words = command.map(BackgroundTimer.shellQuoted).joined(separator: " ")
        return ("*/5 * * * * \(words) >/dev/null 2>&1 \(cronMarker)").replacingOccurrences(of: "%", with: "\\%")
    }

    // MARK: - What runs now

    /// Whether systemd's user manager answers (`systemctl --user show-environment` within 5 s).
    var systemdIsReachable: Bool {
        guard let systemctl = program("JQC_SYSTEMCTL", "systemctl") else { return false }
        return ChildCommand.run(systemctl, ["--user", "show-environment"])?.status == 0
    }

    /// The timer that runs this data directory's passes: an enabled systemd timer, a crontab line, or none.
    func installed() -> Kind {
        if FileManager.default.fileExists(atPath: timerFile.path),
            let systemctl = program("JQC_SYSTEMCTL", "systemctl"),
            let answer = ChildCommand.run(systemctl, ["--user", "is-enabled", timerName]), answer.status == 0
        {
            return .systemd
        }
        if let crontab = program("JQC_CRONTAB", "crontab"), let listing = ChildCommand.run(crontab, ["-l"]),
            listing.status == 0,
            listing.output.split(separator: "\n").contains(where: {
                $0.hasSuffix(cronMarker.replacingOccurrences(of: "%", with: "\\%"))
            })
        {
            return .cron
        }
        return .none
    }

    // MARK: - Install and remove

    /// Writes both units (0644) and enables the timer.
    /// - Throws: ``ShellError`` (`shell.background_timer`) with a sentence when a file or `systemctl` fails.
    func enableWithSystemd() throws {
        guard let systemctl = program("JQC_SYSTEMCTL", "systemctl") else {
            throw ShellError(.backgroundTimer, "systemctl was not found on PATH.")
        }
        do {
            try FileManager.default.createDirectory(at: unitDirectory, withIntermediateDirectories: true)
            try AtomicFile.write(Data(serviceUnit.utf8), to: serviceFile, permissions: 0o644)
            try AtomicFile.write(Data(timerUnit.utf8), to: timerFile, permissions: 0o644)
        } catch {
            throw ShellError(
                .backgroundTimer, "Could not write the unit files in \(unitDirectory.path): \(error)", cause: error)
        }
        for arguments in [["--user", "daemon-reload"], ["--user", "enable", "--now", timerName]] {
            let result = ChildCommand.run(systemctl, arguments, timeout: 30)
            guard let result, result.status == 0 else {
                let said = result?.output.split(separator: "\n").first.map { ": \($0)" } ?? ""
                throw ShellError(
                    .backgroundTimer,
                    "'systemctl \(arguments.joined(separator: " "))' failed\(said). The unit files are in "
                        + "\(unitDirectory.path); fix the cause and run 'background enable' again.")
            }
        }
    }

    /// Disables the timer (when systemd answers) and removes both unit files.
    /// - Returns: whether anything was installed.
    @discardableResult
    func disable() -> Bool {
        let existed =
            FileManager.default.fileExists(atPath: timerFile.path)
            || FileManager.default.fileExists(atPath: serviceFile.path)
        if existed, systemdIsReachable, let systemctl = program("JQC_SYSTEMCTL", "systemctl") {
            _ = ChildCommand.run(systemctl, ["--user", "disable", "--now", timerName], timeout: 30)
        }
        try? FileManager.default.removeItem(at: timerFile)
        try? FileManager.default.removeItem(at: serviceFile)
        if existed, systemdIsReachable, let systemctl = program("JQC_SYSTEMCTL", "systemctl") {
            _ = ChildCommand.run(systemctl, ["--user", "daemon-reload"], timeout: 30)
        }
        return existed
    }

    // MARK: - Helpers

    /// The program named by `variable`, else `name` found on `PATH`; `nil` when there is none.
    func program(_ variable: String, _ name: String) -> String? {
        if let path = environment[variable], !path.isEmpty {
            return FileManager.default.isExecutableFile(atPath: path) ? path : nil
        }
        for directory in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// This executable's absolute path (`/proc/self/exe`, else `argv[0]` made absolute).
    static func currentExecutable() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if count > 0 { return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        let first = CommandLine.arguments.first ?? "jqc-shell"
        return URL(fileURLWithPath: first).standardizedFileURL.path
    }

    /// One `ExecStart=` argument: double-quoted, with `\` and `"` escaped, `%` and `$` doubled
    /// (systemd.service(5) "Command lines", systemd.unit(5) "Specifiers").
    static func execArgument(_ word: String) -> String {
        let escaped = word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "%", with: "%%").replacingOccurrences(of: "$", with: "$$")
        return "\"\(escaped)\""
    }

    /// Free text in a unit file (`Description=`): `%` doubled, line breaks removed.
    static func unitText(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%%").replacingOccurrences(of: "\n", with: " ")
    }

    /// `word` single-quoted for `sh`.
    static func shellQuoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}

/// Runs a small program and collects what it prints (stdout and stderr together), with a deadline; used
/// for `systemctl` and `crontab`. Started with `posix_spawn`, never Foundation's `Process` (it crashes
/// intermittently on this toolchain).
enum ChildCommand {
    /// The exit status and output, or `nil` when it could not start or did not end within `timeout`
    /// seconds (it is then killed).
    static func run(_ path: String, _ arguments: [String], timeout: Double = 5) -> (status: Int32, output: String)? {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        // Nothing else of ours (the store, sockets, the embedded server's listener) reaches the child:
        // glibc's posix_spawn_file_actions_addclosefrom_np (2.34+), looked up at run time.
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        close(pipeEnds[1])
        defer { close(pipeEnds[0]) }
        guard spawned == 0 else { return nil }
        var output = Data()
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else {
                kill(pid, SIGKILL)
                var ignored: Int32 = 0
                _ = waitpid(pid, &ignored, 0)
                return nil
            }
            var poller = pollfd(fd: pipeEnds[0], events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(1000, (deadline - now) / 1_000_000 + 1)))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = read(pipeEnds[0], &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            output.append(contentsOf: buffer[0..<count])
        }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        let signal = raw & 0x7f
        return (signal == 0 ? (raw >> 8) & 0xff : 128 + signal, String(decoding: output, as: UTF8.self))
    }
}
