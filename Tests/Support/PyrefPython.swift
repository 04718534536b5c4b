import Foundation

/// The tests' venv of reference implementations (`IMGFETCH_PYREF_PYTHON`, the venv .build/pyref that `make test`
/// makes): its python, when it can import a module the test needs.
enum PyrefPython {
    /// The venv's python when it imports `module`; nil otherwise (the tests that need it are then skipped).
    static func importing(_ module: String) -> String? {
        guard let python = ProcessInfo.processInfo.environment["IMGFETCH_PYREF_PYTHON"],
              let result = try? Imgfetch.run(["-c", "import \(module)"], program: python), result.status == 0 else { return nil }
        return python
    }
}
