import Foundation

/// A value read by `ThriftCompactReader`: what Parquet's file metadata and page headers are made of.
indirect enum ThriftValue {
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case binary([UInt8])
    case list([ThriftValue])
    case map([(ThriftValue, ThriftValue)])
    case structure([Int16: ThriftValue])

    /// The integer field `id` of a struct; nil when absent or of another kind.
    func integer(_ id: Int16) -> Int64? {
        if case .structure(let fields) = self, case .integer(let value)? = fields[id] { return value }
        return nil
    }

    /// The boolean field `id` of a struct; nil when absent or of another kind.
    func bool(_ id: Int16) -> Bool? {
        if case .structure(let fields) = self, case .bool(let value)? = fields[id] { return value }
        return nil
    }

    /// The string field `id` of a struct (UTF-8, invalid sequences replaced); nil when absent or of another kind.
    func string(_ id: Int16) -> String? {
        if case .structure(let fields) = self, case .binary(let bytes)? = fields[id] { return String(decoding: bytes, as: UTF8.self) }
        return nil
    }

    /// The struct field `id` of a struct; nil when absent or of another kind.
    func structure(_ id: Int16) -> ThriftValue? {
        if case .structure(let fields) = self, let value = fields[id], case .structure = value { return value }
        return nil
    }

    /// The list field `id` of a struct; empty when absent or of another kind.
    func list(_ id: Int16) -> [ThriftValue] {
        if case .structure(let fields) = self, case .list(let values)? = fields[id] { return values }
        return []
    }

    /// The ids of a struct's fields; empty for any other value.
    var fieldIDs: Set<Int16> {
        if case .structure(let fields) = self { return Set(fields.keys) }
        return []
    }
}

/// Reads Apache Thrift's compact protocol (the encoding `ThriftCompactWriter` writes) into `ThriftValue`s: any
/// struct, whatever its fields, so that fields a newer writer adds are read past. Bounded for hostile bytes: a
/// length or count beyond the bytes left, nesting deeper than `maximumDepth`, or bytes that end inside a value is
/// an error.
struct ThriftCompactReader {
    /// The deepest nesting of structs, lists and maps read: 64.
    static let maximumDepth = 64

    struct Malformed: Error {
        let reason: String
    }

    private let bytes: [UInt8]
    /// The position of the next byte to read.
    private(set) var position: Int

    init(_ bytes: [UInt8], at position: Int = 0) {
        (self.bytes, self.position) = (bytes, position)
    }

    /// Reads one struct from the position on.
    mutating func readStructure() throws(Malformed) -> ThriftValue {
        try structure(depth: 0)
    }

    private mutating func structure(depth: Int) throws(Malformed) -> ThriftValue {
        guard depth < Self.maximumDepth else { throw Malformed(reason: "nested deeper than \(Self.maximumDepth)") }
        var fields: [Int16: ThriftValue] = [:]
        var lastID: Int16 = 0
        while true {
            let header = try byte()
            if header == 0 { return .structure(fields) }
            let kind = header & 0x0F
            let delta = header >> 4
            if delta == 0 {
                guard let id = Int16(exactly: zigzag(try varint())) else { throw Malformed(reason: "a field id out of range") }
                lastID = id
            } else {
                lastID &+= Int16(delta)
            }
            fields[lastID] = try value(kind: kind, depth: depth + 1, inField: true)
        }
    }

    private mutating func value(kind: UInt8, depth: Int, inField: Bool) throws(Malformed) -> ThriftValue {
        switch kind {
        case 1: return .bool(true)
        case 2: return inField ? .bool(false) : .bool(try byte() == 1)
        case 3: return .integer(Int64(Int8(bitPattern: try byte())))
        case 4, 5, 6: return .integer(zigzag(try varint()))
        case 7: return .double(Double(bitPattern: try fixed64()))
        case 8: return .binary(try binary())
        case 9, 10: return try list(depth: depth)
        case 11: return try map(depth: depth)
        case 12: return try structure(depth: depth)
        default: throw Malformed(reason: "an unknown type \(kind)")
        }
    }

    private mutating func list(depth: Int) throws(Malformed) -> ThriftValue {
        guard depth < Self.maximumDepth else { throw Malformed(reason: "nested deeper than \(Self.maximumDepth)") }
        let header = try byte()
        let kind = header & 0x0F
        let count = header >> 4 == 15 ? try count() : Int(header >> 4)
        var values: [ThriftValue] = []
        values.reserveCapacity(min(count, 1 << 16))
        for _ in 0..<count {
            // A boolean element is a byte of its own in a list (1 true), unlike a boolean field.
            values.append(kind == 1 || kind == 2 ? .bool(try byte() == 1) : try value(kind: kind, depth: depth + 1, inField: false))
        }
        return .list(values)
    }

    private mutating func map(depth: Int) throws(Malformed) -> ThriftValue {
        guard depth < Self.maximumDepth else { throw Malformed(reason: "nested deeper than \(Self.maximumDepth)") }
        let count = try count()
        guard count > 0 else { return .map([]) }
        let kinds = try byte()
        var pairs: [(ThriftValue, ThriftValue)] = []
        for _ in 0..<count {
            let key = try value(kind: kinds >> 4, depth: depth + 1, inField: false)
            pairs.append((key, try value(kind: kinds & 0x0F, depth: depth + 1, inField: false)))
        }
        return .map(pairs)
    }

    /// A count of elements, each taking at least one byte: one beyond the bytes left is malformed.
    private mutating func count() throws(Malformed) -> Int {
        let count = try varint()
        guard count <= UInt64(bytes.count - position) else { throw Malformed(reason: "a count beyond the bytes left") }
        return Int(count)
    }

    private mutating func binary() throws(Malformed) -> [UInt8] {
        let length = try count()
        defer { position += length }
        return Array(bytes[position..<position + length])
    }

    private mutating func byte() throws(Malformed) -> UInt8 {
        guard position < bytes.count else { throw Malformed(reason: "the bytes end inside a value") }
        defer { position += 1 }
        return bytes[position]
    }

    private mutating func fixed64() throws(Malformed) -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 8) { value |= UInt64(try byte()) << UInt64(shift) }
        return value
    }

    /// An unsigned LEB128 varint of at most 10 bytes.
    private mutating func varint() throws(Malformed) -> UInt64 {
        guard let value = Self.varint(bytes, at: &position, end: bytes.count) else {
            throw Malformed(reason: "a varint that ends early or is over 10 bytes")
        }
        return value
    }

    /// An unsigned LEB128 varint (seven bits a byte, lowest first, at most 10 bytes) from `bytes[position..<end]`,
    /// `position` moved past it: Thrift's compact protocol and Parquet's run headers alike. Nil when the bytes end
    /// inside it or it is longer.
    static func varint(_ bytes: [UInt8], at position: inout Int, end: Int) -> UInt64? {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 70, by: 7) {
            guard position < end else { return nil }
            let next = bytes[position]
            position += 1
            value |= UInt64(next & 0x7F) << UInt64(shift)
            if next & 0x80 == 0 { return value }
        }
        return nil
    }

    private func zigzag(_ value: UInt64) -> Int64 {
        Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }
}
