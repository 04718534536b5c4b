import ImgCore

extension OptionCatalog {
    static let list = OptionGroup(title: "Lists with columns", options: [
        Options.inputFormat,
        Options.urlColumn,
        Options.nameColumn,
        Options.keepColumns,
        Options.sha256Column,
    ])
}

extension Options {
    static let inputFormat = Option<ListFormat>("input-format", value: "auto|lines|csv|tsv|jsonl|parquet", parser: .choice(["auto": .auto, "lines": .lines, "csv": .csv, "tsv": .tsv, "jsonl": .jsonl, "parquet": .parquet]), default: ListLayout().format, statesDefault: false, for: .batchLike,
                         help: "how the list is written",
                         man: #"""
            How the list
            .RB ( batch 's
            .IR LIST ,
            .BR "prefetch \-\-from" )
            is written:
            .B lines
            .RI ( URL " [" NAME ]
            a line, as above),
            .B csv
            (RFC 4180, with a header row: quoted fields may hold commas, doubled quotes and line breaks),
            .B tsv
            (the same with tabs; a field holding a tab or a line break is quoted),
            .B jsonl
            (JSON Lines: one object a line; a key given twice takes its last value, as Python's json and jq
            read it), or
            .B parquet
            (Apache Parquet, as LAION's and DataComp's URL lists are: a file, not standard input; its rows
            are numbered from 1 and a row's number is its line; flat columns of strings (a byte array's bytes read
            as UTF-8 text: bytes that are not UTF-8 kept as escapes in the URL column, read as U+FFFD in any other,
            as for every list, see
            .BR batch ),
            integers,
            floating-point numbers (NaN and the infinities as the strings NaN, Infinity and \-Infinity,
            which JSON has no number for) and booleans, dates and timestamps as their integer counts, nulls
            as JSON nulls; lists of such values, nested to any depth (a list of strings, DataComp's lists of
            face boxes), as JSON arrays; pages uncompressed or in snappy, gzip, zstd, Brotli, LZ4 or LZ4_RAW (all
            but LZO), in any encoding (PLAIN, dictionary, the delta encodings, BYTE_STREAM_SPLIT), v1 or v2;
            a named column that is a struct or a map, DECIMAL, INT96 or FIXED_LEN_BYTE_ARRAY, or in LZO,
            is a usage error before anything is fetched).
            .B auto
            decides from the extension:
            .BR .csv ,
            .BR .tsv ,
            .BR .jsonl " or " .ndjson ,
            .B .parquet
            (in any case), else
            .BR lines ;
            standard input
            .RB ( \- )
            is
            .B lines
            unless given.
            In a list with columns, blank lines are skipped and
            .B #
            starts no comment; a record's line number is that of its first line, the header being line 1.
            A row without a URL, without a column an option names, with more fields than the header,
            or that is not CSV (text after a closing quote, a quoted field that does not close within
            64 KiB: the lines after its first are then read as rows again) or not a JSON object, fails as
            .RI "line " N ": " reason ,
            recorded with its
            .BR raw " text;"
            the batch goes on.
            A column an option names that no row has (a CSV or TSV header or a Parquet schema without it;
            no object of a JSON Lines file with it) is a usage error (exit 2) before anything is fetched; JSON Lines on standard
            input is checked row by row only.
            Words given to
            .B prefetch
            on the command line are always URLs.
            """#)
    static let urlColumn = Option<String>("url-column", value: "NAME", parser: .text, shownDefault: "url", for: .batchLike,
                         help: "the column holding each row's URL",
                         man: #"""
            The column of a list with columns that holds each row's URL (surrounding blanks ignored;
            in JSON Lines it must be a string).
            Default:
            .BR url .
            """#)
    static let nameColumn = Option<String>("name-column", value: "NAME", parser: .text, for: [.batch],
                         help: "the column naming each row's outputs",
                         man: #"""
            The column of a list with columns that names each row's outputs, as a plain list's second
            column does (see
            .BR "OUTPUT NAMES" );
            an empty value names the output from its URL.
            Not for
            .BR prefetch ,
            which names no output (nor takes
            .BR \-\-name ):
            there it is a usage error (exit 2).
            Of the column options,
            .B prefetch
            takes
            .BR \-\-input\-format ,
            .B \-\-url\-column
            and
            .B \-\-keep\-columns
            (its records carry the kept columns);
            .BR \-\-caption\-column " and " \-\-sha256\-column
            are
            .BR batch 's
            alone.
            Default: none (names from the URLs).
            """#)
    static let keepColumns = Option<String>("keep-columns", value: "A,B,...", parser: .text, for: .batchLike,
                         help: "copy these columns into each record",
                         man: #"""
            Copy these columns of each row into its records: the
            .B \-\-json
            objects and the
            .B \-\-manifest
            lines get a
            .B columns
            object, by name, with strings for CSV and TSV, the JSON values as given for JSON Lines, and for Parquet
            its values as strings, numbers, booleans or null (a CSV, TSV or Parquet string's bytes that are not
            UTF-8 read as U+FFFD).
            A JSON number is kept by its value, not its spelling: an integer of up to 64 bits exactly, any other as
            a double
            .RB ( 1.0 ,
            .BR 1e2 " and " \-0.0
            are written
            .BR 1 ,
            .BR 100 " and " 0 ;
            a longer integer loses its last digits).
            Repeatable; names are separated by commas.
            Default: none.
            """#)
    static let sha256Column = Option<String>("sha256-column", value: "NAME", parser: .text, for: [.batch],
                         help: "fail a row whose original's SHA-256 is not this column's",
                         man: #"""
            The column holding each row's SHA-256 of its original (64 hexadecimal digits, in either case), as
            DataComp's lists give one for img2dataset's
            .BR \-\-verify_hash :
            the original's bytes (downloaded, or from the cache) are hashed before anything is made of them, and
            a row whose original differs fails
            .RI ( "its SHA-256 is " X ", not the list's " Y ;
            class
            .BR image ,
            permanent), nothing of it written: the image the URL serves now is not the one the dataset lists.
            A row whose column holds no SHA-256 fails, naming its line.
            Default: none (nothing checked).
            """#)
}
