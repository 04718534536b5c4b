import Foundation

/// A fixture server over https on 127.0.0.1, with a certificate for 127.0.0.1 of its own
/// (`Tests/Fixtures/server/make_cert.sh`, made fresh in a temporary folder) that no system store trusts.
final class TLSFixture: @unchecked Sendable { // used by one test at a time
    private let folder: TemporaryDirectory
    let server: FixtureServer
    /// The certificate's PEM file: what `--cacert`, `CURL_CA_BUNDLE` or `SSL_CERT_FILE` must name to trust it.
    var certificate: String { folder.file("cert.pem") }

    init() throws {
        folder = try TemporaryDirectory()
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/bin/sh")
        make.arguments = [Paths.fixtures + "/server/make_cert.sh", folder.path]
        make.standardOutput = FileHandle.nullDevice
        make.standardError = FileHandle.nullDevice
        try make.run()
        make.waitUntilExit()
        guard make.terminationStatus == 0 else { throw TestFailure("make_cert.sh failed (exit \(make.terminationStatus))") }
        server = try FixtureServer(tls: (folder.file("cert.pem"), folder.file("key.pem")))
    }
}
