import ImgCore

extension OptionCatalog {
    /// info reads only the header unless `--facts` decodes the image: the decoding limits need it there.
    static let decodingOnInfo = OptionNeed("facts", on: [.info], because: "without it nothing is decoded")
    /// Near-duplicates are found by the phash `--facts` works out.
    static let duplicatesNeedFacts = OptionNeed("facts", on: [.batch], because: "duplicates are found by their phash")

    static let facts = OptionGroup(title: "Facts", options: [
        Options.facts,
        Options.blurhash,
        Options.duplicateDistance,
        Options.skipDuplicates,
    ])
}

extension Options {
    static let facts = Flag("facts", for: [.fetch, .batch, .info], help: "add placeholders, colour and phash to the report",
                         man: #"""
            Add the facts of each output image to its
            .B \-\-json
            record and its
            .B \-v
            lines:
            .B blurhash
            (BlurHash, 4\(mu3 components unless
            .BR \-\-blurhash ),
            .B thumbhash
            (ThumbHash, base64),
            .B dominantColor
            .RI ( #rrggbb ,
            the colour that covers the most of the image, not the mean: colour clusters
            whose centres are near are one region, so a sky's gradient is one colour and
            one picture gives nearly the same colour at any size: within about ten levels of 255 in each channel) and
            .B phash
            (64-bit DCT perceptual hash, 16 hex digits).
            They are computed from the processed image as it is encoded (a
            shrink of it to at most 100 pixels a side, the first frame of an
            animation; flattened onto
            .B \-\-background
            for a format without alpha, as the encoder flattens it): no second download or decode.
            They are stored with the variant in the cache, so a hit reports them
            too; a cached variant stored without them (or with other
            .B \-\-blurhash
            components) is rendered again from its original (from the cache when it is
            there).
            With
            .BR info :
            the facts of the image as it is, read and decoded whole (the same as
            .B fetch \-\-facts
            gives it unchanged).
            Default: off.
            """#)
    static let blurhash = Option<String>("blurhash", value: "X,Y", parser: .text,
                         shownDefault: "\(BlurHash.defaultComponents.x),\(BlurHash.defaultComponents.y)", for: [.fetch, .batch, .info],
                         needs: OptionNeed("facts", on: [.fetch, .batch, .info]),
                         help: "BlurHash components across and down (1-9)",
                         man: #"""
            BlurHash components across and down, each from 1 to 9, for
            .BR \-\-facts ,
            which it needs.
            Default: \#(BlurHash.defaultComponents.x),\#(BlurHash.defaultComponents.y).
            """#)
    static let duplicateDistance = Option<Int>("duplicate-distance", value: "D", parser: .integer(0...64), default: 6, for: [.batch],
                         needs: OptionCatalog.duplicatesNeedFacts,
                         help: "phash bits within which a line is a duplicate",
                         man: #"""
            With
            .BR \-\-facts ,
            which it needs: an output whose
            .B phash
            differs in at most
            .I D
            of its 64 bits (0 to 64) from that of an earlier line's output of the
            same variant is a near-duplicate of it, and its
            .B \-\-json
            record gets
            .B duplicateOf
            (that line's URL; the first such line, in list order, among those not
            themselves duplicates) and its
            .B \-v
            lines say so.
            One photograph at 500 and at 700 pixels is within 6 bits; two different
            photographs are usually 16 or more apart.
            """#)
    static let skipDuplicates = Flag("skip-duplicates", for: [.batch], needs: OptionCatalog.duplicatesNeedFacts, help: "write no file for a near-duplicate",
                         man: #"""
            With
            .BR \-\-facts ,
            which it needs: write no output file for a near-duplicate (see
            .BR \-\-duplicate\-distance );
            its
            .B \-\-json
            record has no
            .B output
            and says
            .BR "\(dqskipped\(dq: \(dqduplicate\(dq" .
            It still counts as done, and its original and variant are cached.
            Default: off.
            """#)
}
