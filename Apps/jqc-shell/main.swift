import Foundation

FileHandle.standardError.write(Data("jqc-shell: not built yet (issue 5)\n".utf8))
