import Foundation

/// A top-level column of a Parquet file as its schema declares it: what a list's named columns are checked against.
struct ParquetColumn: Sendable {
    /// Parquet's physical types (`Type` in parquet.thrift).
    enum PhysicalType: Int64, Sendable {
        case boolean = 0, int32, int64, int96, float, double, byteArray, fixedLengthByteArray
    }

    let name: String
    /// Nil for a group (a nested column: a list, a map or a struct).
    let type: PhysicalType?
    /// Whether a row may have no value (OPTIONAL); false for REQUIRED.
    let optional: Bool
    /// REPEATED: a list of values a row, read as no flat value.
    let repeated: Bool
    /// The logical or converted type's name where it changes what the physical value means (DECIMAL, INTERVAL),
    /// so that the column is refused rather than its raw bytes shown; nil otherwise.
    let unreadableLogicalType: String?
    /// Unsigned integers (`INT(64, false)`, `UINT_64` and narrower): their bits are read as unsigned.
    let unsigned: Bool

    /// Why this column can't be read as a flat value; nil when it can.
    var unreadableReason: String? {
        if type == nil { return "a nested column (a list, map or struct)" }
        if repeated { return "a repeated column (a list)" }
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
            let element = schema[index]
            columns.append(column(element))
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

    private static func column(_ element: ThriftValue) -> ParquetColumn {
        let children = element.integer(5) ?? 0
        let repetition = element.integer(3) ?? 0
        let logical = element.structure(10)
        let converted = element.integer(6)
        // DECIMAL is logical field 5 and converted type 5; INTERVAL is converted type 21.
        let unreadable = logical?.fieldIDs.contains(5) == true || converted == 5 ? "DECIMAL" : converted == 21 ? "INTERVAL" : nil
        let integer = logical?.structure(10)
        let unsigned = integer?.bool(2) == false || [11, 12, 13, 14].contains(converted ?? -1)
        return ParquetColumn(name: element.string(4) ?? "", type: children > 0 ? nil : element.integer(1).flatMap(PhysicalType.init),
                             optional: repetition == 1, repeated: repetition == 2, unreadableLogicalType: unreadable,
                             unsigned: unsigned)
    }
}

/// Why bytes are not a Parquet file imgfetch can read.
struct ParquetFormatError: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
