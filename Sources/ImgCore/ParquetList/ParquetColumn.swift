import Foundation

/// A top-level column of a Parquet file as its schema declares it: what a list's named columns are checked against.
/// A flat column is one value a row; a nested one is read when it is lists of one kind of value, nested to any
/// depth (`list<string>`, DataComp's `list<list<float>>` face boxes), in the three-level form the format's spec gives
/// or the older two-level one: each row's value is then a JSON array (`ParquetNestedAssembler`).
struct ParquetColumn: Sendable {
    /// Parquet's physical types (`Type` in parquet.thrift).
    enum PhysicalType: Int64, Sendable {
        case boolean = 0, int32, int64, int96, float, double, byteArray, fixedLengthByteArray
    }

    /// A schema element's `FieldRepetitionType`.
    enum Repetition: Int64, Sendable {
        case required = 0, optional, repeated
    }

    let name: String
    /// The value's physical type (the leaf's, for a nested column); nil for a group that is no list of one kind of
    /// value (a struct or a map).
    let type: PhysicalType?
    /// The repetition of each element from the column's own down to its value's (one for a flat column).
    let path: [Repetition]
    /// The logical or converted type's name where it changes what the physical value means (DECIMAL, INTERVAL),
    /// so that the column is refused rather than its raw bytes shown; nil otherwise.
    let unreadableLogicalType: String?
    /// Unsigned integers (`INT(64, false)`, `UINT_64` and narrower): their bits are read as unsigned.
    let unsigned: Bool

    /// The highest definition level: the elements of the path that may be absent (OPTIONAL or REPEATED).
    var maxDefinition: Int { path.filter { $0 != .required }.count }
    /// The highest repetition level: the REPEATED elements of the path (0 for a flat column).
    var maxRepetition: Int { path.filter { $0 == .repeated }.count }

    /// Why this column can't be read; nil when it can.
    var unreadableReason: String? {
        if type == nil { return "a nested column (a struct or a map)" }
        if let unreadableLogicalType { return "of logical type \(unreadableLogicalType)" }
        switch type {
        case .int96: return "of type INT96 (a legacy timestamp)"
        case .fixedLengthByteArray: return "of type FIXED_LEN_BYTE_ARRAY"
        default: return nil
        }
    }

    /// The top-level columns of a schema (`FileMetaData.schema`: its root, then every element depth first).
    static func topLevel(of schema: [ThriftValue]) throws(ParquetFormatError) -> [ParquetColumn] {
        guard let root = schema.first else { throw ParquetFormatError("the schema is empty") }
        var columns: [ParquetColumn] = []
        var index = 1
        for _ in 0..<max(0, Int(root.integer(5) ?? 0)) {
            guard index < schema.count else { throw ParquetFormatError("the schema ends before its columns") }
            columns.append(column(schema, at: index))
            index = try skipping(schema, from: index)
        }
        return columns
    }

    /// The index after the element at `index` and all its descendants.
    private static func skipping(_ schema: [ThriftValue], from index: Int) throws(ParquetFormatError) -> Int {
        var pending = 1, next = index
        while pending > 0 {
            guard next < schema.count else { throw ParquetFormatError("the schema ends inside a group") }
            pending += Int(min(max(0, schema[next].integer(5) ?? 0), Int64(schema.count))) - 1
            next += 1
        }
        return next
    }

    /// The column whose element is at `index`: down a chain of groups of one child each to its value, where each
    /// group holds a list (its child is REPEATED) or is a list's entry (it is REPEATED itself); any other group, a
    /// struct or a map, makes a column of no type.
    private static func column(_ schema: [ThriftValue], at index: Int) -> ParquetColumn {
        let name = schema[index].string(4) ?? ""
        var path: [Repetition] = []
        var position = index
        while true {
            let element = schema[position]
            let repetition = Repetition(rawValue: element.integer(3) ?? 0) ?? .required
            path.append(repetition)
            guard let children = element.integer(5), children > 0 else { break }
            let child = position + 1
            guard children == 1, child < schema.count,
                  repetition == .repeated || schema[child].integer(3) == Repetition.repeated.rawValue else {
                return ParquetColumn(name: name, type: nil, path: path, unreadableLogicalType: nil, unsigned: false)
            }
            position = child
        }
        let leaf = schema[position]
        let logical = leaf.structure(10)
        let converted = leaf.integer(6)
        // DECIMAL is logical field 5 and converted type 5; INTERVAL is converted type 21.
        let unreadable = logical?.fieldIDs.contains(5) == true || converted == 5 ? "DECIMAL" : converted == 21 ? "INTERVAL" : nil
        let integer = logical?.structure(10)
        let unsigned = integer?.bool(2) == false || [11, 12, 13, 14].contains(converted ?? -1)
        return ParquetColumn(name: name, type: leaf.integer(1).flatMap(PhysicalType.init), path: path,
                             unreadableLogicalType: unreadable, unsigned: unsigned)
    }
}

/// Why bytes are not a Parquet file imgfetch can read.
struct ParquetFormatError: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
