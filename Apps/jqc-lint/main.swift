import Foundation
import JQCLint

// jqc-lint: the architecture linter (issue 10). All logic lives in JQCLint; this only writes the result.
let result = LintCommand.run(
    arguments: Array(CommandLine.arguments.dropFirst()),
    currentDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
FileHandle.standardOutput.write(Data(result.standardOutput.utf8))
FileHandle.standardError.write(Data(result.standardError.utf8))
exit(result.status)
