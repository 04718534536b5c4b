import Foundation
import ImgCLI

/// The program: the CLI front (ImgCLI) runs the command line and gives the exit status.
exit(CommandDispatcher.runProcess(CommandLine.arguments.dropFirst()))
