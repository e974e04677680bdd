import Foundation
import JQCDevServer

FileHandle.standardError.write(Data("jqc-devserver: not built yet (issue 3)\n".utf8))
exit(1)
