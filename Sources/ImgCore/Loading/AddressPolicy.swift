import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Classifies socket addresses for `--deny-private-networks`.
enum AddressPolicy {
    /// True for loopback, private, link-local, unique-local, unspecified, CGNAT and multicast addresses.
    static func isPrivate(ipv4 bytes: [UInt8]) -> Bool {
        guard bytes.count == 4 else { return true }
        switch (bytes[0], bytes[1]) {
        case (0, _), (10, _), (127, _): return true
        case (100, 64...127): return true
        case (169, 254), (192, 168): return true
        case (172, 16...31): return true
        case (224...255, _): return true
        default: return false
        }
    }

    static func isPrivate(ipv6 bytes: [UInt8]) -> Bool {
        guard bytes.count == 16 else { return true }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return isPrivate(ipv4: Array(bytes[12..<16]))
        }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) { return true }       // :: and ::1
        if bytes[0] & 0xFE == 0xFC { return true }                   // fc00::/7
        if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0x80 { return true } // fe80::/10
        if bytes[0] == 0xFF { return true }                          // multicast
        return false
    }

    /// Reads a `sockaddr` and returns its printable address and whether it is private; nil for other families.
    static func classify(_ address: UnsafePointer<sockaddr>) -> (text: String, isPrivate: Bool)? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                var raw = pointer.pointee.sin_addr
                let bytes = withUnsafeBytes(of: &raw) { Array($0) }
                return (bytes.map(String.init).joined(separator: "."), isPrivate(ipv4: bytes))
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                var raw = pointer.pointee.sin6_addr
                let bytes = withUnsafeBytes(of: &raw) { Array($0) }
                var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
                inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
                return (String(cString: text), isPrivate(ipv6: bytes))
            }
        default:
            return nil
        }
    }
}
