import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A port on 127.0.0.1 that takes no connection, as a host behind a firewall that drops packets: a listener with a
/// backlog of 0, its queue filled by connections never accepted, so the kernel drops every later SYN and a client's
/// connect runs into its timeout. Closed on deinit.
final class UnacceptingPort {
    let port: Int
    private var descriptors: [Int32] = []

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        descriptors.append(listener)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(listener, socketAddress, length) == 0 && listen(listener, 0) == 0
                    && getsockname(listener, socketAddress, &length) == 0
            }
        }
        guard bound else { throw TestFailure("listen: \(String(cString: strerror(errno)))") }
        port = Int(UInt16(bigEndian: address.sin_port))
        // Fill the queue: the first connection waits there, never accepted; the next ones' SYNs are dropped.
        for _ in 0..<3 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard filler >= 0 else { continue }
            descriptors.append(filler)
            _ = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) }
            }
        }
        usleep(100_000)
    }

    deinit { descriptors.forEach { close($0) } }

    /// `http://127.0.0.1:PORT/PATH`.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path.hasPrefix("/") ? path : "/" + path)" }
}
