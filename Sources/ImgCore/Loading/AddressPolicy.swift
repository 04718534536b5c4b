import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Classifies socket addresses for `--deny-private-networks`. An IPv6 address that carries an IPv4 address (mapped,
/// compatible, translated, NAT64, 6to4) is judged by the IPv4 address it carries, since that is where it leads.
public enum AddressPolicy {
    /// True for "this network" (0/8), private (10/8, 172.16/12, 192.168/16), loopback, CGNAT (100.64/10), link-local,
    /// IETF protocol assignments (192.0.0/24), benchmarking (198.18/15), multicast and reserved (224/3) addresses.
    static func isPrivate(ipv4 bytes: [UInt8]) -> Bool {
        guard bytes.count == 4 else { return true }
        switch (bytes[0], bytes[1], bytes[2]) {
        case (0, _, _), (10, _, _), (127, _, _): return true
        case (100, 64...127, _): return true
        case (169, 254, _), (192, 168, _): return true
        case (172, 16...31, _): return true
        case (192, 0, 0), (198, 18...19, _): return true
        case (224...255, _, _): return true
        default: return false
        }
    }

    /// True for `::`, `::1`, unique-local (fc00::/7), link-local (fe80::/10), site-local (fec0::/10), multicast, the
    /// local-use NAT64 prefix (64:ff9b:1::/48), and for IPv6 addresses that carry a private IPv4 address.
    static func isPrivate(ipv6 bytes: [UInt8]) -> Bool {
        guard bytes.count == 16 else { return true }
        if let embedded = embeddedIPv4(bytes) { return isPrivate(ipv4: embedded) }
        if bytes[0] & 0xFE == 0xFC { return true }                   // fc00::/7
        if bytes[0] == 0xFE, bytes[1] & 0x80 == 0x80 { return true } // fe80::/10 and fec0::/10
        if bytes[0] == 0xFF { return true }                          // multicast
        if bytes[0..<6].elementsEqual([0x00, 0x64, 0xFF, 0x9B, 0x00, 0x01]) { return true } // 64:ff9b:1::/48, local NAT64
        return false
    }

    /// The IPv4 address an IPv6 address leads to: `::ffff:a.b.c.d` (mapped), `::a.b.c.d` (compatible, which covers
    /// `::` and `::1` as 0.0.0.0 and 0.0.0.1), `::ffff:0:a.b.c.d` (translated), `64:ff9b::a.b.c.d` (NAT64) and
    /// `2002:aabb:ccdd::/48` (6to4); nil for any other.
    static func embeddedIPv4(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count == 16 else { return nil }
        let last = Array(bytes[12..<16])
        let zeros = { (range: Range<Int>) in bytes[range].allSatisfy { $0 == 0 } }
        if zeros(0..<10), bytes[10] == 0xFF, bytes[11] == 0xFF { return last }              // ::ffff:a.b.c.d
        if zeros(0..<12) { return last }                                                     // ::a.b.c.d
        if zeros(0..<8), bytes[8] == 0xFF, bytes[9] == 0xFF, zeros(10..<12) { return last }  // ::ffff:0:a.b.c.d
        if bytes[0..<4].elementsEqual([0x00, 0x64, 0xFF, 0x9B]), zeros(4..<12) { return last }           // 64:ff9b::/96
        if bytes[0] == 0x20, bytes[1] == 0x02 { return Array(bytes[2..<6]) }                 // 2002::/16
        return nil
    }

    /// Whether the numeric address `text` (IPv4 dotted quad or IPv6, brackets allowed) is one that
    /// `--deny-private-networks` refuses; nil when `text` is not a numeric address. Never resolves a name.
    public static func isPrivate(address text: String) -> Bool? {
        var text = text
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return isPrivate(ipv4: withUnsafeBytes(of: &v4) { Array($0) }) }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return isPrivate(ipv6: withUnsafeBytes(of: &v6) { Array($0) }) }
        return nil
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
                let characters = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
                return (String(decoding: characters, as: UTF8.self), isPrivate(ipv6: bytes))
            }
        default:
            return nil
        }
    }
}
