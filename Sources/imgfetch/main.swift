import Foundation
import ImgCore

/// The CLI front: scan the arguments, pick the command, run it, exit with its code.
StandardStream.guardClosedDescriptors()
VipsRuntime.prepareProcess()
let arguments = Array(CommandLine.arguments.dropFirst())
let status = CommandDispatcher.run(arguments, environment: ProcessInfo.processInfo.environment)
// A command that failed early may have left libvips loading on another thread: exit handlers must not race it.
VipsRuntime.waitForBackgroundStart()
exit(status)
