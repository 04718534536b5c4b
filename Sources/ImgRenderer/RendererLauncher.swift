import CRenderer
import Foundation

/// Starts a renderer in the background, only ever when asked (`imgfetch renderer start`, `--renderer auto`): this
/// executable, `renderer serve`, detached by a double fork (never a child of this process, so no zombie is left
/// under a parent that doesn't reap), in a session of its own with its standard streams on /dev/null, so that it
/// outlives the command without holding its terminal or pipes.
public enum RendererLauncher {
    /// Starts `imgfetch renderer serve --idle SECONDS` detached; its process id, or nil when it could not be
    /// started (it then simply isn't there: clients render in their own process). Its address follows from the
    /// environment, which it inherits.
    @discardableResult
    public static func startDetached(idleLimit: Double) -> Int32? {
        guard let executable = RendererAddress.executablePath() else { return nil }
        return spawnDetached(executable, arguments: ["renderer", "serve", "--idle", String(idleLimit)])
    }

    /// Starts `executable` with `arguments` detached (see `imgf_spawn_detached`); its pid, nil when it failed.
    static func spawnDetached(_ executable: String, arguments: [String]) -> Int32? {
        var pointers = ([executable] + arguments).map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        pointers.append(nil)
        let process = imgf_spawn_detached(executable, pointers)
        return process > 0 ? process : nil
    }
}
