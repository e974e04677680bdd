import Foundation
import JQCLint

exit(0)
