import Foundation
import ImgCore

/// The CLI front: scan the arguments, pick the command, run it, exit with its code.
VipsRuntime.prepareProcess()
let arguments = Array(CommandLine.arguments.dropFirst())
exit(CommandDispatcher.run(arguments, environment: ProcessInfo.processInfo.environment))
